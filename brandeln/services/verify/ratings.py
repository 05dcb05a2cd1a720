"""``season verify``, stage 3 (:mod:`brandeln.services.verify.season`): every rating, rating history
entry and bot total equals a recomputation with the same TrueSkill code
(:mod:`brandeln.ladder.ratings.order`, :class:`brandeln.ladder.ratings.trueskill_model.RatingModel`)
from the recomputed block results in block order: float equality.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any, Final

from brandeln.ladder.ratings.order import blocks_to_rate
from brandeln.ladder.ratings.trueskill_model import Rating, RatingModel
from brandeln.ladder.season.config import RatingParams
from brandeln.ladder.season.duplicate import BotBlockResult
from brandeln.ladder.store.database import BotTotals
from brandeln.services.verify.matches import MismatchError, Stage, differs
from brandeln.services.verify.state import Audit

__all__ = ["check_ratings"]

_TOTAL_FIELDS: Final = tuple(f.name for f in fields(BotTotals) if f.name != "bot")


def check_ratings(audit: Audit, rankings: Mapping[int, Mapping[str, int]]) -> str:
    try:
        params = RatingParams(**audit.settings.get("rating", {}))
        model = RatingModel(params)
    except (TypeError, ValueError) as error:
        raise MismatchError(Stage.RATINGS, "rating", f"rating parameters: {error}") from None
    start: dict[str, Rating] = {}
    for name, audit_bot in audit.rows.bots.items():
        if audit_bot.start is not None:
            start[name] = audit_bot.start
        elif not audit_bot.version:
            start[name] = model.initial()
    rated = blocks_to_rate(0, rankings, start, model.rate_block)
    missing = sorted({bot for block in rated for bot in block.ratings} - set(start))
    if missing:
        audit.unchecked.append(
            f"the starting rating of {', '.join(missing)} was not kept (added before "
            "revision 0006): the ratings are not recomputed"
        )
        return "not recomputed"
    next_to_rate = rated[-1].index + 1 if rated else 0
    stored_next = audit.store.blocks.next_to_rate(audit.season)
    if stored_next != next_to_rate:
        raise differs(
            Stage.RATINGS,
            "rated blocks",
            stored_next,
            f"the results rate {next_to_rate}",
            what="stored: the blocks below",
        )
    history = {
        (index, bot): rating
        for index, bot, rating in audit.store.reads.rating_history(audit.season)
    }
    current = dict(start)
    played: dict[str, int] = dict.fromkeys(start, 0)
    wanted_history: dict[tuple[int, str], Rating] = {}
    for block in rated:
        for bot, rating in block.ratings.items():
            wanted_history[(block.index, bot)] = rating
            current[bot] = rating
            played[bot] = played.get(bot, 0) + 1
    for key in sorted(set(history) | set(wanted_history)):
        kept, wanted = history.get(key), wanted_history.get(key)
        if kept != wanted:
            index, bot = key
            raise _rating_differs("rating history", kept, wanted).within(
                f"block {index} bot {bot!r}"
            )
    for row in audit.store.reads.ratings(audit.season):
        wanted_rating = current.get(row.bot)
        if row.rating != wanted_rating:
            raise _rating_differs("rating", row.rating, wanted_rating).within(f"bot {row.bot!r}")
        if row.blocks != played.get(row.bot, 0):
            raise differs(
                Stage.RATINGS,
                "rated blocks",
                row.blocks,
                f"the results give {played.get(row.bot, 0)}",
                what="stored",
            ).within(f"bot {row.bot!r}")
    _check_totals(audit, [block.index for block in rated if block.ratings])
    return f"{len(history)} rating history entries and every rating, bit for bit"


def _check_totals(audit: Audit, rated: Sequence[int]) -> None:
    """Each bot's sums over the rated blocks, added in block order as the store adds
    them (float sums included)."""
    wanted: dict[str, dict[str, Any]] = {}
    results: dict[int, list[BotBlockResult]] = {}
    for index, result in audit.store.reads.results(audit.season):
        results.setdefault(index, []).append(result)
    for index in rated:
        for result in results.get(index, []):
            sums = wanted.setdefault(result.bot, _empty_totals())
            for name in (
                "deals",
                "chips",
                "contracts_bid",
                "contracts_made",
                "timeouts",
                "illegal",
                "strikes",
            ):
                sums[name] += getattr(result, name)
            sums["forfeits"] += 1 if result.forfeited else 0
            if result.deals:
                sample = result.chips / result.deals
                sums["cpd_n"] += 1
                sums["cpd_sum"] += sample
                sums["cpd_sum_sq"] += sample * sample
            latency = result.latency
            sums["lat_decisions"] += latency.decisions
            sums["lat_p50_sum"] += latency.p50_ms * latency.decisions
            sums["lat_p95_sum"] += latency.p95_ms * latency.decisions
            sums["lat_max_ms"] = max(sums["lat_max_ms"], latency.max_ms)
    for bot, totals in sorted(audit.store.reads.bot_totals(audit.season).items()):
        sums = wanted.get(bot, _empty_totals())
        for name in _TOTAL_FIELDS:
            kept = getattr(totals, name)
            if kept != sums[name]:
                raise differs(
                    Stage.RATINGS, name, kept, f"the results give {sums[name]!r}", what="stored"
                ).within(f"totals of {bot!r}")


def _rating_differs(field: str, kept: Rating | None, wanted: Rating | None) -> MismatchError:
    def shown(rating: Rating | None) -> str:
        return "none" if rating is None else f"mu {rating.mu!r} sigma {rating.sigma!r}"

    return MismatchError(
        Stage.RATINGS, field, f"{field}: stored {shown(kept)}, the results give {shown(wanted)}"
    )


def _empty_totals() -> dict[str, Any]:
    sums: dict[str, Any] = dict.fromkeys(_TOTAL_FIELDS, 0)
    sums["cpd_sum"] = sums["cpd_sum_sq"] = 0.0
    return sums
