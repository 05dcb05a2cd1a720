"""Committed seeds: a season's (or an always-on ladder period's) seed is fixed and published as
a hash before its first block is played, and revealed once its last block is recorded, so
anyone can check afterwards that the deals were not chosen after the fact.

The seed is 256 random bits (:func:`new_secret`) written as 64 lowercase hex digits, or, for a
season file that gives ``seed = N``, ``N`` written the same way (public from the start: the
commitment is still computed and shown). The deal seed the blocks use
(:func:`brandeln.ladder.season.duplicate.block_seed`) is that number: :func:`deal_seed` reads the
hex back, so ``seed = 7`` plays the very deals it always did.

The commitment is the SHA-256 (hex) of one text, :func:`commitment_text`::

    brandeln-commitment-v1
    <the seed: 64 hex digits>
    <the schedule: canonical JSON, one line>

each line ending in a newline. The schedule (:func:`season_schedule`,
:func:`period_schedule`) is what the seed is committed together with: the season's name and
the settings that decide its deals, schedule and ratings (ruleset, switches, deals per match,
players, bots, rating parameters; not the block count, which may grow while the seed is
secret), or a ladder period's name, number and block range. An outsider checks a revealed
seed with ``printf 'brandeln-commitment-v1\\n%s\\n%s\\n' "$SEED" "$SCHEDULE" | sha256sum``.

>>> schedule = season_schedule("autumn", {"ruleset": "standard", "seed": None, "players": 4})
>>> schedule
'{"kind":"season","players":4,"ruleset":"standard","season":"autumn"}'
>>> seed = public_seed(7)
>>> seed[-4:], deal_seed(seed)
('0007', 7)
>>> digest = commitment_of(seed, schedule)
>>> matches_commitment(digest, seed, schedule), matches_commitment(digest, public_seed(8), schedule)
(True, False)
>>> len(new_secret()), deal_seed(new_secret()) >= 0
(64, True)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

__all__ = [
    "COMMITMENT_FORMAT",
    "SECRET_BYTES",
    "SHORT_DIGITS",
    "Commitment",
    "SeedState",
    "canonical_json",
    "commitment_of",
    "commitment_text",
    "deal_seed",
    "is_seed",
    "matches_commitment",
    "new_secret",
    "period_schedule",
    "public_seed",
    "season_schedule",
]

COMMITMENT_FORMAT: Final = "brandeln-commitment-v1"
SECRET_BYTES: Final = 32  # 256 bits: no one guesses it, whatever they know of the schedule
SHORT_DIGITS: Final = 16  # of the digest, where a listing shows it short

_SEED: Final = re.compile(r"^[0-9a-f]{64}$")
# Settings that are not part of what the seed decides, or are the seed itself.
# (A ladder's "kind" and "run", a season's final "rerun": kept in the same settings, decided
# later or changing between runs.)
_NOT_SCHEDULED: Final = frozenset({"seed", "kind", "run", "rerun"})


class SeedState(StrEnum):
    """Who may read a seed now."""

    PUBLIC = "public"  # given in the season file: public from the start
    SECRET = "secret"  # drawn by the runner; revealed once every planned block is recorded
    REVEALED = "revealed"  # was secret; its blocks are all recorded, so now it is shown


@dataclass(frozen=True, slots=True)
class Commitment:
    """A committed seed as the pages and commands show it: ``seed`` only once it may be read
    (public, or revealed), else None."""

    digest: str  # SHA-256 hex of commitment_text(seed, schedule)
    schedule: str  # the canonical JSON committed with the seed
    state: SeedState
    committed_at: int  # ms since the epoch
    seed: str | None = None
    revealed_at: int | None = None  # ms since the epoch; None while secret (or public)

    @property
    def short(self) -> str:
        """The digest's first digits, for a listing."""
        return self.digest[:SHORT_DIGITS]

    @property
    def note(self) -> str:
        """What the state means, in a few words."""
        return {
            SeedState.PUBLIC: "seed public from the start",
            SeedState.SECRET: "seed not revealed yet: revealed once the last block is recorded",
            SeedState.REVEALED: "seed revealed",
        }[self.state]


def new_secret() -> str:
    """A fresh secret seed: 256 random bits as 64 hex digits."""
    return secrets.token_bytes(SECRET_BYTES).hex()


def public_seed(seed: int) -> str:
    """A season file's ``seed`` written as a committed seed is (64 hex digits)."""
    if seed < 0:
        raise ValueError(f"a seed is not negative, got {seed}")
    return f"{seed:064x}"


def is_seed(text: str) -> bool:
    """Whether ``text`` is a seed as committed: 64 lowercase hex digits."""
    return bool(_SEED.match(text))


def deal_seed(seed: str) -> int:
    """The number the blocks' deal seeds derive from
    (:func:`brandeln.ladder.season.duplicate.block_seed`)."""
    if not is_seed(seed):
        raise ValueError("a seed is 64 lowercase hex digits")
    return int(seed, 16)


def canonical_json(document: Mapping[str, Any]) -> str:
    """One line of JSON, keys sorted, ASCII only, no spaces: the same text from the same data
    on every machine."""
    return json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


def season_schedule(name: str, settings: Mapping[str, Any]) -> str:
    """What a season's seed is committed with: its name and stored settings (the seed left
    out; ``brandeln.ladder.store.seasons.season_settings``), which fix its schedule
    (:func:`brandeln.ladder.season.schedule.schedule` draws the tables from the seed) and its
    ratings."""
    scheduled = {key: value for key, value in settings.items() if key not in _NOT_SCHEDULED}
    return canonical_json({"kind": "season", "season": name, **scheduled})


def period_schedule(
    ladder: str, settings: Mapping[str, Any], period: int, first_block: int, blocks: int
) -> str:
    """What an always-on ladder period's seed is committed with: the ladder, the period's
    number and blocks, and the ladder's settings (matchmaking picks the players as it goes)."""
    scheduled = {key: value for key, value in settings.items() if key not in _NOT_SCHEDULED}
    return canonical_json(
        {
            "kind": "ladder-period",
            "ladder": ladder,
            "period": period,
            "first_block": first_block,
            "blocks": blocks,
            **scheduled,
        }
    )


def commitment_text(seed: str, schedule: str) -> str:
    """The text whose SHA-256 is the commitment (see the module docstring)."""
    return f"{COMMITMENT_FORMAT}\n{seed}\n{schedule}\n"


def commitment_of(seed: str, schedule: str) -> str:
    """The commitment to ``seed`` with ``schedule``: SHA-256, hex."""
    return hashlib.sha256(commitment_text(seed, schedule).encode("ascii")).hexdigest()


def matches_commitment(digest: str, seed: str, schedule: str) -> bool:
    """Whether ``digest`` commits to ``seed`` with ``schedule``."""
    if not is_seed(seed) or not schedule.isascii():
        return False
    return hmac.compare_digest(digest, commitment_of(seed, schedule))
