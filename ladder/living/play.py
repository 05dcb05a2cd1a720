"""Where the always-on ladder (:mod:`brandeln.ladder.living.ladder`) plays its blocks and how it
sees who is there: two seams, so that the same loop runs on one referee (the defaults here) or on a
Ray cluster (:mod:`brandeln.cluster.ladder_blocks`, which the ladder never imports).

- A :class:`LadderPlayer` plays one planned block among the given versions and returns its
  matches' outcomes (:class:`RefereePlayer`: through the referee's Admin service).
- A :class:`PresenceSource` tells each active version's presence and free seat sessions
  (:class:`RefereePresence`: the referee's sessions,
  :func:`brandeln.ladder.living.seating.presence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from brandeln.ladder.living.seating import presence
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome
from brandeln.ladder.season.runner import RefereeBlocks
from brandeln.ladder.season.settings import SeasonConfig
from brandeln.ladder.store.database import LadderVersion
from brandeln.ladder.store.schema import Presence

__all__ = ["LadderPlayer", "PresenceSource", "RefereePlayer", "RefereePresence", "Seen"]

# Each active version's presence and free seat sessions, by version name.
Seen = dict[str, tuple[Presence, int]]


class LadderPlayer(Protocol):
    async def play_block(
        self, season: SeasonConfig, versions: Sequence[LadderVersion], plan: BlockPlan
    ) -> list[MatchOutcome]:
        """Play every match of ``plan`` (``season``: the ladder's settings, this block's deals;
        ``versions``: the ladder's, the block's bots among them); raise the ladder's error
        when the block cannot be finished (it is given back)."""
        ...


class PresenceSource(Protocol):
    async def presence(
        self, versions: Sequence[LadderVersion], playing: set[str], need: int
    ) -> Seen:
        """Each active version's presence (``playing``: seated in a block in flight; idle:
        ``need`` free sessions or more) and its free sessions."""
        ...


@dataclass(frozen=True, slots=True)
class RefereePlayer:
    """Blocks played at one referee, among versions connected there by themselves or
    launched beside the ladder (:mod:`brandeln.ladder.bots.version_launcher`)."""

    admin: AdminClient

    async def play_block(
        self, season: SeasonConfig, versions: Sequence[LadderVersion], plan: BlockPlan
    ) -> list[MatchOutcome]:
        bot_ids = {version.name: version.bot_id for version in versions}
        return await RefereeBlocks(self.admin, season, bot_ids, ()).play_block(plan, lambda: None)


@dataclass(frozen=True, slots=True)
class RefereePresence:
    """Presence as the referee's seat sessions tell it."""

    admin: AdminClient

    async def presence(
        self, versions: Sequence[LadderVersion], playing: set[str], need: int
    ) -> Seen:
        return presence(versions, await self.admin.sessions(), playing, need)
