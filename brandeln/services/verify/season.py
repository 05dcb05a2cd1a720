"""``brandeln season verify``: a season (or an always-on ladder) checked from its stored data
and its match logs alone, bit for bit, stopping at the first thing that differs.

In order (:class:`~brandeln.services.verify.matches.Stage`):

1. **commitment**: the revealed seed (each period's, for a ladder) hashes with the committed
   schedule to the stored commitment, and that schedule is the season's stored settings
   (:mod:`brandeln.ladder.season.commitment`); a season file's seed given from the start is public.
2. block by block, match by match: the block's seed is the one the season's seed gives
   (:func:`brandeln.ladder.season.duplicate.block_seed`) and its seating the schedule's; each
   match's seats and suits are the block plan's
   (:func:`brandeln.ladder.season.duplicate.plan_seeded_block`); its log is that match and every
   hand in it is the one the seed deals (**deals**); the log replays through the engine with every
   result it and the referee's index row show (**replays**); the stored match row and the block's
   results equal those recomputed from the logs (**results**);
3. **ratings**: every rating, rating history entry and bot total equals a recomputation with
   the same TrueSkill code (:mod:`brandeln.ladder.ratings.order`,
   :class:`brandeln.ladder.ratings.trueskill_model.RatingModel`) from the recomputed block results
   in block order: float equality.

A season whose seed is not revealed yet (it is still being played) is checked as far as it
can be, its block seeds against nothing: the report says so and is not "verified".

This module is the front: the report and the order of the stages. Each stage is a module of
its own (:mod:`brandeln.services.verify.commitment`, :mod:`brandeln.services.verify.blocks`,
:mod:`brandeln.services.verify.ratings`), working on one
:class:`brandeln.services.verify.state.Audit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from brandeln.engine.plurals import plural
from brandeln.ladder.store.database import LadderStore
from brandeln.services.verify.blocks import check_blocks
from brandeln.services.verify.commitment import check_commitment
from brandeln.services.verify.matches import FetchedLog, LogUnavailableError, MismatchError, Stage
from brandeln.services.verify.ratings import check_ratings
from brandeln.services.verify.state import (
    LADDER_KIND,
    Audit,
    LogFetcher,
    StageCallback,
    settings_of,
)

__all__ = [
    "FetchedLog",
    "LogFetcher",
    "LogUnavailableError",
    "SeasonVerdict",
    "Stage",
    "VerifyReport",
    "verify_season",
]


class SeasonVerdict(StrEnum):
    VERIFIED = "verified"  # everything checked, nothing differs
    DIFFERS = "differs"  # something differs: ``difference`` names the first
    INCOMPLETE = "incomplete"  # nothing differs, but not everything could be checked yet


@dataclass(frozen=True)
class VerifyReport:
    """What ``season verify`` found."""

    season: str
    ladder: bool
    verdict: SeasonVerdict
    blocks: int = 0
    matches: int = 0
    deals: int = 0
    stages: tuple[tuple[Stage, str], ...] = ()  # each stage passed, in order, in a line
    difference: MismatchError | None = None
    unchecked: str = ""  # why INCOMPLETE

    def to_json(self) -> dict[str, Any]:
        difference = self.difference
        return {
            "season": self.season,
            "kind": LADDER_KIND if self.ladder else "season",
            "verdict": self.verdict.value,
            "blocks": self.blocks,
            "matches": self.matches,
            "deals": self.deals,
            "stages": [{"stage": stage.value, "summary": text} for stage, text in self.stages],
            "difference": None
            if difference is None
            else {
                "stage": difference.stage.value,
                "where": difference.where,
                "field": difference.field,
                "detail": difference.detail,
            },
            "unchecked": self.unchecked or None,
        }


def verify_season(
    store: LadderStore,
    season: str,
    fetch_log: LogFetcher,
    on_stage: StageCallback | None = None,
) -> VerifyReport:
    """Verify ``season`` (see the module docstring). Raises :class:`LadderError` when the
    ladder database cannot be read (an unknown season: :class:`UnknownSeasonError`)."""
    audit = Audit(store, season, fetch_log, on_stage or (lambda stage, text: None))
    try:
        _run(audit)
    except MismatchError as mismatch:
        return _report(audit, SeasonVerdict.DIFFERS, mismatch)
    return _report(audit, SeasonVerdict.INCOMPLETE if audit.unchecked else SeasonVerdict.VERIFIED)


def _run(audit: Audit) -> None:
    audit.settings = settings_of(audit.rows.settings_json)
    audit.ladder = audit.settings.get("kind") == LADDER_KIND
    audit.passed(Stage.COMMITMENT, check_commitment(audit))
    if audit.ladder:
        audit.planned = {
            block.index: block
            for block in audit.store.planned.recent_blocks(audit.season, audit.info.blocks_planned)
        }
    rankings = check_blocks(audit)
    audit.passed(Stage.DEALS, _dealt(audit))
    audit.passed(Stage.REPLAYS, f"{plural(audit.matches, 'log')} replayed through the engine")
    audit.passed(
        Stage.RESULTS,
        f"the match rows and results of {plural(audit.blocks, 'block')} equal the logs'",
    )
    audit.passed(Stage.RATINGS, check_ratings(audit, rankings))


def _report(
    audit: Audit, verdict: SeasonVerdict, difference: MismatchError | None = None
) -> VerifyReport:
    return VerifyReport(
        season=audit.season,
        ladder=audit.ladder,
        verdict=verdict,
        blocks=audit.blocks,
        matches=audit.matches,
        deals=audit.deals,
        stages=tuple(audit.stages),
        difference=difference,
        unchecked="; ".join(audit.unchecked),
    )


def _dealt(audit: Audit) -> str:
    dealt = f"{plural(audit.deals, 'deal')} of {plural(audit.matches, 'match')} dealt as "
    if not audit.secret_blocks:
        return dealt + "the seeds give"
    if audit.secret_blocks == audit.blocks:
        return dealt + "the stored block seeds give (not checked against a seed yet)"
    return dealt + (
        f"the revealed seeds give ({audit.secret_blocks} of {plural(audit.blocks, 'block')}, of a "
        "period "
        "still secret, as their stored seeds give: not checked against a seed yet)"
    )
