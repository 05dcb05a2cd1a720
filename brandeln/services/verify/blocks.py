"""``season verify``, stage 2 (:mod:`brandeln.services.verify.season`): block by block, match by
match.

The block's seed is the one the season's seed gives
(:func:`brandeln.ladder.season.duplicate.block_seed`) and its seating the schedule's; each match's
seats and suits are the block plan's (:func:`brandeln.ladder.season.duplicate.plan_seeded_block`);
its log is that match and every hand in it is the one the seed deals, and it replays through the
engine (:func:`brandeln.services.verify.matches. check_match`); the stored match row and the block's
results equal those recomputed from the logs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from typing import Final

from brandeln.arena.logreader import MatchLogError, read_log
from brandeln.engine.errors import EngineError
from brandeln.engine.rulesets import Ruleset, find_ruleset
from brandeln.ladder.errors import ScheduleError
from brandeln.ladder.season.duplicate import (
    BotBlockResult,
    MatchOutcome,
    MatchPlan,
    block_results,
    block_seed,
    plan_seeded_block,
)
from brandeln.ladder.season.schedule import schedule
from brandeln.ladder.store.audit import AuditMatch
from brandeln.services.verify.commitment import block_number
from brandeln.services.verify.matches import (
    ExpectedMatch,
    LogUnavailableError,
    MismatchError,
    Stage,
    check_match,
    differs,
)
from brandeln.services.verify.state import Audit, names_of, numbers_of

__all__ = ["check_blocks"]

_RESULT_FIELDS: Final = tuple(f.name for f in fields(BotBlockResult) if f.name != "bot")

Tables = Callable[[int], tuple[str, ...] | None]


def check_blocks(audit: Audit) -> dict[int, dict[str, int]]:
    """Each block checked; each one's ranking as recomputed (empty: played unrated)."""
    by_block: dict[int, list[AuditMatch]] = {}
    for match in audit.rows.matches:
        by_block.setdefault(match.block, []).append(match)
    stored_results: dict[int, dict[str, BotBlockResult]] = {}
    for index, result in audit.store.reads.results(audit.season):
        stored_results.setdefault(index, {})[result.bot] = result
    tables = _season_tables(audit)
    rankings: dict[int, dict[str, int]] = {}
    for block in audit.rows.blocks:
        where = f"block {block.index}"
        try:
            ranking = _check_block(
                audit,
                block.index,
                block.seed,
                names_of(block.bots_json, "bots"),
                by_block.pop(block.index, []),
                stored_results.pop(block.index, {}),
                tables,
            )
        except MismatchError as mismatch:
            raise mismatch.within(where) from None
        planned = audit.planned.get(block.index)
        rankings[block.index] = ranking if planned is None or planned.rated else {}
        audit.blocks += 1
    for index in sorted(set(by_block) | set(stored_results)):
        raise MismatchError(
            Stage.RESULTS,
            "block",
            "matches or results are stored for an unrecorded block",
            f"block {index}",
        )
    return rankings


def _season_tables(audit: Audit) -> Tables:
    """Block index -> the seating the season's schedule gives it (None: a ladder's, or
    a seed not revealed)."""
    seed = audit.season_seed
    if audit.ladder or seed is None:
        return lambda index: None
    bots = audit.settings.get("bots")
    players = audit.settings.get("players")
    if not isinstance(bots, list) or not isinstance(players, int):
        raise MismatchError(Stage.DEALS, "settings", "the stored settings name no bots")
    names = [bot.get("name") if isinstance(bot, dict) else None for bot in bots]
    rerun = audit.settings.get("rerun")
    after = rerun.get("after") if isinstance(rerun, dict) else None
    top = rerun.get("top") if isinstance(rerun, dict) else None
    last = max((block.index for block in audit.rows.blocks), default=-1)
    main_blocks = last + 1 if not isinstance(after, int) else min(after, last + 1)
    try:
        main = schedule([str(name) for name in names], players, main_blocks, seed)
        extra = (
            schedule([str(bot) for bot in top], players, max(0, last + 1 - after), seed)
            if isinstance(after, int) and isinstance(top, list)
            else []
        )
    except ScheduleError as error:
        raise MismatchError(Stage.DEALS, "schedule", f"schedule: {error}") from None

    def table(index: int) -> tuple[str, ...] | None:
        if index < len(main):
            return main[index]
        if isinstance(after, int) and 0 <= index - after < len(extra):
            return extra[index - after]
        return None

    return table


def _check_block(
    audit: Audit,
    index: int,
    stored_seed: str,
    bots: tuple[str, ...],
    matches: Sequence[AuditMatch],
    stored: Mapping[str, BotBlockResult],
    tables: Tables,
) -> dict[str, int]:
    number = block_number(audit, index)
    audit.secret_blocks += number is None
    try:
        seed = int(stored_seed)
    except ValueError:
        raise MismatchError(Stage.DEALS, "seed", f"seed: {stored_seed!r} is not a number") from None
    if number is not None and seed != block_seed(number, index):
        raise differs(
            Stage.DEALS,
            "seed",
            seed,
            f"the seed gives {block_seed(number, index)}",
            what="stored",
        )
    planned = audit.planned.get(index)
    if planned is not None and (planned.seed != seed or planned.bots != bots):
        raise differs(
            Stage.DEALS,
            "planned block",
            (planned.seed, planned.bots),
            f"recorded {(seed, bots)}",
            what="planned",
        )
    if audit.ladder and planned is None:
        raise MismatchError(Stage.DEALS, "planned block", "the block was never planned")
    table = tables(index)
    if table is not None and table != bots:
        raise differs(
            Stage.DEALS, "bots", list(bots), f"the schedule seats {list(table)}", what="stored"
        )
    plan = plan_seeded_block(seed, index, bots)
    rotations = [match.rotation for match in matches]
    if rotations != list(range(len(plan.matches))):
        raise differs(
            Stage.DEALS,
            "matches",
            rotations,
            f"the block has {len(plan.matches)} rotations",
            what="stored rotations",
        )
    deals = planned.deals if planned is not None else audit.settings.get("deals_per_match")
    if not isinstance(deals, int):
        raise MismatchError(Stage.DEALS, "settings", "the stored settings give no deals per match")
    ruleset = _ruleset(audit)
    outcomes = []
    for match in matches:
        try:
            outcomes.append(
                _check_one_match(audit, match, plan.matches[match.rotation], ruleset, deals)
            )
        except MismatchError as mismatch:
            raise mismatch.within(f"match {match.match_id}") from None
    # Blocks recorded before the ladder kept latency (revision 0004) have none stored: the
    # referee did not report it, so none is recomputed.
    if stored and not any(result.latency.decisions for result in stored.values()):
        outcomes = [_without_latency(outcome) for outcome in outcomes]
    recomputed = block_results(plan, outcomes)
    if set(stored) != set(recomputed):
        raise differs(
            Stage.RESULTS,
            "results",
            sorted(stored),
            f"the logs give {sorted(recomputed)}",
            what="stored for",
        )
    for bot, result in sorted(recomputed.items()):
        for name in _RESULT_FIELDS:
            kept, wanted = getattr(stored[bot], name), getattr(result, name)
            if kept != wanted:
                raise differs(
                    Stage.RESULTS, name, kept, f"the logs give {wanted!r}", what="stored"
                ).within(f"result of {bot!r}")
    return {bot: result.rank for bot, result in recomputed.items()}


def _check_one_match(
    audit: Audit, match: AuditMatch, plan: MatchPlan, ruleset: Ruleset, deals: int
) -> MatchOutcome:
    bots = names_of(match.bots_json, "seats")
    if bots != plan.bots:
        raise differs(
            Stage.DEALS, "seats", list(bots), f"the plan seats {list(plan.bots)}", what="stored"
        )
    if match.suit_permutation != plan.suit_permutation:
        raise differs(
            Stage.DEALS,
            "suit permutation",
            match.suit_permutation,
            f"the plan has {plan.suit_permutation!r}",
            what="stored",
        )
    fixed = {
        seat: bot.bot_id
        for seat, name in enumerate(bots)
        if (bot := audit.rows.bots.get(name)) is not None and bot.kind == "external" and bot.bot_id
    }
    try:
        fetched = audit.fetch_log(match.match_id)
        log = read_log(fetched.text, fetched.name)
    except (LogUnavailableError, MatchLogError) as error:
        raise MismatchError(Stage.DEALS, "log", f"the log cannot be read: {error}") from None
    if log.header.match_id != match.match_id:
        raise differs(
            Stage.DEALS,
            "match id",
            log.header.match_id,
            "the season recorded another",
            what="the log is of",
        )
    checked = check_match(log, ExpectedMatch(plan, ruleset, deals, fixed), fetched.indexed)
    outcome = checked.outcome
    stored: list[tuple[str, object, object]] = [
        ("balances", numbers_of(match.balances_json), list(outcome.balances)),
        ("forfeited", numbers_of(match.forfeited_json), sorted(outcome.forfeited)),
        ("deals played", match.deals_played, outcome.deals_played),
    ]
    for name, kept, wanted in stored:
        if kept != wanted:
            raise differs(Stage.RESULTS, name, kept, f"the log gives {wanted!r}", what="stored")
    audit.matches += 1
    audit.deals += checked.deals
    return outcome


def _ruleset(audit: Audit) -> Ruleset:
    options = audit.settings.get("options") or {}
    try:
        return find_ruleset(str(audit.settings.get("ruleset")), dict(options))
    except (EngineError, TypeError, ValueError) as error:
        raise MismatchError(Stage.DEALS, "ruleset", f"ruleset: {error}") from None


def _without_latency(outcome: MatchOutcome) -> MatchOutcome:
    return replace(outcome, latency=())
