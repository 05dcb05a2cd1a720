"""A season's committed seed as the commands show it (:mod:`brandeln.ladder.season.commitment`): one
short line under a season (`season list`, `ratings`), and its JSON (``--json``: the seed only once
it may be read, so a season being played never shows it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from brandeln.ladder.season.commitment import Commitment

__all__ = ["commitment_json", "commitment_line"]


def commitment_line(commitment: Commitment | None) -> str:
    """``commitment 4a0457d35b0ebe08 (seed revealed)``; plain text (only hex digits and our
    words: nothing to escape)."""
    if commitment is None:
        return "commitment: none yet (committed when the season next runs)"
    return f"commitment {commitment.short} ({commitment.note})"


def commitment_json(commitment: Commitment | None) -> dict[str, Any] | None:
    """The commitment for a JSON document: the digest, the schedule it was committed with,
    the seed's state and the seed once it may be read (else null)."""
    if commitment is None:
        return None
    return {
        "digest": commitment.digest,
        "state": commitment.state.value,
        "schedule": commitment.schedule,
        "seed": commitment.seed,
        "committed_at": commitment.committed_at,
        "revealed_at": commitment.revealed_at,
    }
