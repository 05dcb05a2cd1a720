"""``season verify``, stage 1 (:mod:`brandeln.services.verify.season`): the revealed seed (each
period's, for an always-on ladder) hashes with the committed schedule to the stored commitment, and
that schedule is the season's stored settings (:mod:`brandeln.ladder.season.commitment`); a season
file's seed given from the start is public. Also which number each block deals from, once that is
known (:func:`block_number`).
"""

from __future__ import annotations

from brandeln.ladder.season.commitment import (
    Commitment,
    SeedState,
    deal_seed,
    matches_commitment,
    period_schedule,
    public_seed,
    season_schedule,
)
from brandeln.services.verify.matches import MismatchError, Stage, differs
from brandeln.services.verify.state import Audit

__all__ = ["block_number", "check_commitment"]


def check_commitment(audit: Audit) -> str:
    if audit.ladder:
        return _check_periods(audit)
    commitment = audit.store.commitments.season_commitment(audit.season)
    given = audit.settings.get("seed")
    if commitment is None:
        if isinstance(given, int):
            audit.season_seed = given
            return f"no commitment (a season from before them): seed {given} public"
        raise MismatchError(Stage.COMMITMENT, "commitment", "commitment: none is stored")
    schedule = season_schedule(audit.season, audit.settings)
    _check_one(commitment, schedule, "the season")
    if commitment.seed is None:
        audit.unchecked.append(
            f"the seed is revealed when the season is finished ({audit.info.blocks_finished} "
            f"of {audit.info.blocks_planned} blocks recorded): the deals are not checked "
            "against it yet"
        )
        return f"{commitment.short}: the seed is not revealed yet"
    if commitment.state is SeedState.PUBLIC and (
        not isinstance(given, int) or commitment.seed != public_seed(given)
    ):
        raise differs(
            Stage.COMMITMENT,
            "seed",
            commitment.seed,
            f"the season file gave {given!r}",
            what="the stored seed is",
        )
    audit.season_seed = deal_seed(commitment.seed)
    return f"{commitment.short} matches the {commitment.state.value} seed and the schedule"


def _check_periods(audit: Audit) -> str:
    audit.periods = list(reversed(audit.store.commitments.seed_periods(audit.season)))
    end = audit.periods[0].first_block if audit.periods else None
    for number, period in enumerate(audit.periods):
        where = f"period {period.period}"
        if period.period != number or (number and period.first_block != end):
            raise MismatchError(
                Stage.COMMITMENT, "periods", "the periods do not follow one another", where
            )
        end = period.first_block + period.blocks
        schedule = period_schedule(
            audit.season, audit.settings, period.period, period.first_block, period.blocks
        )
        _check_one(period.commitment, schedule, where)
    secret = [period for period in audit.periods if period.commitment.seed is None]
    if secret:
        audit.unchecked.append(
            "the seed of period "
            + ", ".join(str(period.period) for period in secret)
            + " is revealed once its blocks are all recorded: its deals are not checked "
            "against it yet"
        )
    return (
        f"{len(audit.periods)} period(s): {len(audit.periods) - len(secret)} revealed seed(s) "
        "match their commitments"
    )


def _check_one(commitment: Commitment, schedule: str, where: str) -> None:
    if commitment.schedule != schedule:
        raise differs(
            Stage.COMMITMENT,
            "schedule",
            commitment.schedule,
            f"the stored settings give {schedule!r}",
            what="the committed schedule is",
        ).within(where)
    seed = commitment.seed
    if seed is not None and not matches_commitment(commitment.digest, seed, schedule):
        raise MismatchError(
            Stage.COMMITMENT,
            "commitment",
            f"commitment: {commitment.digest!r} is not the SHA-256 of the revealed seed "
            f"{seed!r} with its schedule",
            where,
        )


def block_number(audit: Audit, index: int) -> int | None:
    """The number block ``index`` deals from; None while its seed is secret."""
    if not audit.ladder:
        return audit.season_seed
    for period in audit.periods:
        if period.holds(index):
            seed = period.commitment.seed
            return None if seed is None else deal_seed(seed)
    if audit.periods and index >= audit.periods[0].first_block:
        raise MismatchError(Stage.DEALS, "period", "the block lies in no seed period")
    given = audit.settings.get("seed")  # a block from before periods: the ladder's seed
    if not isinstance(given, int):
        raise MismatchError(Stage.DEALS, "seed", "the ladder has no seed for blocks before periods")
    return given
