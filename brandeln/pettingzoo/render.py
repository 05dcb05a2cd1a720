"""The table as text: what the environments' ``render()`` shows (render modes ``ansi``, ``human``).

A spectator's picture for debugging and for watching a policy, not an observation: it shows
every seat's hand, as PettingZoo's card games render theirs.

>>> import numpy as np
>>> from brandeln.pettingzoo.episode import Episode, EpisodeKind
>>> from brandeln.engine.rulesets import find_ruleset
>>> episode = Episode.start(
...     find_ruleset("standard"), EpisodeKind.DEAL, np.random.default_rng(3), dealer=3
... )
>>> print(table_text(episode))  # doctest: +ELLIPSIS
standard, deal 1 of 1, dealer seat 3; auction: seat 0 to speak
seat 0: ... | tricks 0
seat 1: ...
"""

from __future__ import annotations

from brandeln.engine.cards import format_cards
from brandeln.engine.phase import Phase
from brandeln.engine.state import DealState
from brandeln.pettingzoo.episode import Episode, EpisodeKind

__all__ = ["table_text"]


def table_text(episode: Episode) -> str:
    """The deal in play (or the last one, once over): the auction, the contract, every hand,
    the trick on the table and, for a match, the balances."""
    state = episode.state
    match = episode.match
    lines = [
        f"{episode.ruleset.id}, deal {episode.deal_number} of {match.deals}, "
        f"dealer seat {state.dealer}; {_phase_text(state)}"
    ]
    if state.auction:
        lines.append("auction: " + ", ".join(f"{b.seat}:{b.bid}" for b in state.auction))
    if state.contract is not None:
        trump = state.trump.letter if state.trump is not None else "none"
        lines.append(f"contract: {state.contract.id} by seat {state.soloist}, trump {trump}")
    for seat in range(episode.ruleset.players):
        hand = format_cards(state.view(seat).hand_in_order()) or "-"
        lines.append(f"seat {seat}: {hand} | tricks {state.tricks_won[seat]}")
    if state.current_trick:
        lines.append("trick: " + ", ".join(f"{s}:{c}" for s, c in state.current_trick))
    if episode.kind is EpisodeKind.MATCH:
        lines.append("balances: " + " ".join(f"{b:+d}" for b in match.balances))
    outcome = state.outcome()
    if outcome is not None:
        lines.append("payments: " + " ".join(f"{p:+d}" for p in outcome.payments))
    return "\n".join(lines)


def _phase_text(state: DealState) -> str:
    if state.phase is Phase.DONE:
        return "over"
    verb = {Phase.AUCTION: "speak", Phase.TRUMP: "name trump", Phase.PLAY: "play"}
    return f"{state.phase.value}: seat {state.to_act} to {verb[state.phase]}"
