"""Who sits at an always-on ladder's next block (:mod:`brandeln.ladder.living.ladder`), as pure
functions of what the ladder saw: each version's presence from the referee's sessions, the seats of
a resumed block whose bots left, a challenge's empty seats, matchmaking's candidates and window
(:mod:`brandeln.ladder.living.matchmaking` chooses), and what went wrong for a bot in a block.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Final

from brandeln.ladder.living.matchmaking import Candidate, choose_block
from brandeln.ladder.referee.records import RefereeSession, SessionState
from brandeln.ladder.season.duplicate import BotBlockResult
from brandeln.ladder.store.database import LadderVersion
from brandeln.ladder.store.planned import PlayHistory
from brandeln.ladder.store.schema import Presence

__all__ = [
    "HISTORY_COVERS",
    "HISTORY_MIN_BLOCKS",
    "filled",
    "history_window",
    "matchmade",
    "presence",
    "reseated",
    "trouble",
]

# Matchmaking weighs the newest blocks: enough for every pair of the active versions to have
# met HISTORY_COVERS times over if seats went round evenly (and HISTORY_MIN_BLOCKS at least),
# so that pair counts mean something; few enough that meetings from when the versions were
# others fade: counted over a long history, the pairs of versions that played when there were
# fewer of them read as overplayed for hundreds of blocks, and the newcomers play every block
# (measured on the fake referee: 110 blocks of 4 versions, then 2 more; over the last 40 of
# 80 blocks after, a 200-block window seated them 40, 40, 27, 26, 27 times, this one 32 each).
HISTORY_MIN_BLOCKS: Final = 40
HISTORY_COVERS: Final = 4


def history_window(versions: int, seats: int) -> int:
    """How many of the newest planned blocks matchmaking weighs, with ``versions`` active.

    >>> history_window(5, 4), history_window(20, 4), history_window(50, 4)
    (40, 127, 817)
    """
    pairs_per_block = seats * (seats - 1) / 2
    pairs = versions * (versions - 1) / 2
    return max(HISTORY_MIN_BLOCKS, math.ceil(HISTORY_COVERS * pairs / pairs_per_block))


def presence(
    versions: Sequence[LadderVersion],
    sessions: Sequence[RefereeSession],
    playing: set[str],
    need: int,
) -> dict[str, tuple[Presence, int]]:
    """Each active version's presence and free seat sessions: playing (seated in a block in
    flight), idle (``need`` free sessions or more: it can be seated), else away."""
    free: dict[str, int] = {}
    for session in sessions:
        if session.state is SessionState.LOBBY:
            free[session.bot_id] = free.get(session.bot_id, 0) + 1
    return {
        version.name: (
            Presence.PLAYING
            if version.name in playing
            else Presence.IDLE
            if free.get(version.bot_id, 0) >= need
            else Presence.AWAY,
            free.get(version.bot_id, 0),
        )
        for version in versions
        if version.active
    }


def reseated(
    bots: tuple[str, ...], connected: Mapping[str, LadderVersion]
) -> tuple[str, ...] | None:
    """``bots`` with each seat whose bot is away given to a connected version not seated
    yet; None when there are not enough."""
    spare = [name for name in connected if name not in bots]
    seated = []
    for bot in bots:
        if bot in connected:
            seated.append(bot)
        elif spare:
            seated.append(spare.pop(0))
        else:
            return None
    return tuple(seated)


def filled(
    named: tuple[str, ...], connected: Mapping[str, LadderVersion], seats: int
) -> tuple[str, ...] | None:
    """A challenge's bots with its empty seats given to the connected versions rated closest
    to the named ones (their mean mu); None when too few are connected."""
    if len(named) >= seats:
        return named
    mean = sum(connected[bot].rating.mu for bot in named) / len(named)
    others = sorted(
        (version for name, version in connected.items() if name not in named),
        key=lambda version: (abs(version.rating.mu - mean), version.name),
    )
    if len(others) < seats - len(named):
        return None
    return named + tuple(version.name for version in others[: seats - len(named)])


def matchmade(
    versions: Sequence[LadderVersion],
    connected: Mapping[str, LadderVersion],
    history: PlayHistory,
    seats: int,
    beta: float,
    seed: int,
) -> tuple[str, ...] | None:
    """The next block's players by matchmaking among the connected versions, seated in an
    order drawn from the ladder's seed and the block's index; None when too few."""
    candidates = [
        Candidate(
            version.name,
            version.rating,
            version.blocks,
            history.last.get(version.name),
            history.blocks.get(version.name, 0),
        )
        for version in versions
        if version.name in connected
    ]
    chosen = choose_block(candidates, history.pairs, seats, history.next_block, beta=beta)
    if chosen is None:
        return None
    # Matchmaking names the players in name order; their seats are drawn from the block's
    # seed, so that neighbours at the table change from block to block.
    order = list(chosen)
    random.Random(f"{seed}:{history.next_block}").shuffle(order)
    return tuple(order)


def trouble(result: BotBlockResult) -> str:
    """What went wrong for a bot in a block, in words; empty when nothing did."""
    parts = []
    if result.forfeited:
        parts.append("forfeited a match")
    if result.timeouts:
        parts.append(f"{result.timeouts} timeout(s)")
    if result.illegal:
        parts.append(f"{result.illegal} illegal move(s)")
    return ", ".join(parts)
