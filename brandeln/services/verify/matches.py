"""One recorded match of a season checked against its log (``brandeln season verify``,
:mod:`brandeln.services.verify.season`): the log is the match the block planned (seats, suits, deal
count, the block's seed), every deal is the one the seed deals
(:func:`brandeln.arena.spec.deal_seed`, the suits relabelled as planned), the log replays through
the engine (:func:`brandeln.arena.replay.replay`) with every result it and the referee's index row
show, and the match's outcome is recomputed from the log alone: balances, forfeits, deals, each
seat's penalties and contracts (:class:`brandeln.ladder.referee.tally.MatchTally`, fed the log's
events as the ladder was fed the live ones) and decision latency
(:func:`brandeln.arena.latency.log_latency`).

The first thing that differs raises :class:`MismatchError`, naming its stage, deal and field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from brandeln.arena.latency import log_latency
from brandeln.arena.logreader import MatchLog
from brandeln.arena.logrecords import DealRecord, DecisionRecord
from brandeln.arena.replay import ReplayReport, replay
from brandeln.arena.spec import deal_seed
from brandeln.engine.cards import Suit
from brandeln.engine.dealing import deal_cards
from brandeln.engine.errors import EngineError
from brandeln.engine.permutation import SuitPermutation
from brandeln.engine.rulesets import Ruleset
from brandeln.ladder.referee.tally import MatchTally
from brandeln.ladder.season.duplicate import DecisionLatency, MatchOutcome, MatchPlan
from brandeln.protocol.decode import LivePenalty
from brandeln.protocol.events import EventRecord, Penalty

__all__ = [
    "CheckedMatch",
    "ExpectedMatch",
    "FetchedLog",
    "LogUnavailableError",
    "MismatchError",
    "Stage",
    "check_match",
    "differs",
]


class Stage(StrEnum):
    """What ``season verify`` checks, in order."""

    COMMITMENT = "commitment"  # the revealed seed against its commitment
    DEALS = "deals"  # each match's seats, suits and dealt hands against the seed
    REPLAYS = "replays"  # each log through the engine
    RESULTS = "results"  # the stored match rows and block results against the logs'
    RATINGS = "ratings"  # the ratings, their history and the bots' totals, recomputed


class MismatchError(Exception):
    """The first thing that differs: its stage, where (``deal 2``), which field and how."""

    def __init__(self, stage: Stage, field: str, detail: str, where: str = "") -> None:
        super().__init__(detail)
        self.stage = stage
        self.field = field
        self.detail = detail
        self.where = where

    def within(self, where: str) -> MismatchError:
        """This mismatch placed inside ``where`` (``block 3 match m-1``)."""
        inner = f"{where} {self.where}".strip() if self.where else where
        return MismatchError(self.stage, self.field, self.detail, inner)

    @property
    def line(self) -> str:
        return f"{self.where}: {self.detail}" if self.where else self.detail


def differs(
    stage: Stage, field: str, stored: object, recomputed: object, *, what: str
) -> MismatchError:
    """``field: <what> says <stored>, <recomputed>``: one line, values as repr (so a value read
    from a log or a row stays one quoted token)."""
    return MismatchError(stage, field, f"{field}: {what} {stored!r}, {recomputed}")


class LogUnavailableError(Exception):
    """A match's log that cannot be had (no such match, an unreadable file): one line."""


@dataclass(frozen=True, slots=True)
class FetchedLog:
    """A match's log as read from its referee's store: its text, how errors name it, and the
    referee's index row of the match (None where none was read)."""

    text: str
    name: str
    indexed: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ExpectedMatch:
    """What the ladder planned for a match: its plan (the block seed, seats, suits), its
    ruleset and deals, and the referee id of each seat whose bot has a fixed one."""

    plan: MatchPlan
    ruleset: Ruleset
    deals: int
    bot_ids: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CheckedMatch:
    """A match whose log checked out: its outcome recomputed from the log, and its deals."""

    outcome: MatchOutcome
    deals: int
    report: ReplayReport


def check_match(
    log: MatchLog, expected: ExpectedMatch, indexed: Mapping[str, Any] | None
) -> CheckedMatch:
    """Check one match's log against its plan and replay it (see the module docstring)."""
    _check_header(log, expected)
    dealt = _check_deals(log, expected)
    report = replay(log)
    if report.problems:
        raise MismatchError(Stage.REPLAYS, "replay", f"the log: {report.problems[0]}")
    if not report.complete:
        raise MismatchError(Stage.REPLAYS, "status", "the log: the match did not finish")
    if indexed is not None:
        problems = report.index_problems(indexed)
        if problems:
            raise MismatchError(Stage.REPLAYS, "index", problems[0])
    return CheckedMatch(_outcome(log, expected.plan, report), dealt, report)


def _check_header(log: MatchLog, expected: ExpectedMatch) -> None:
    header, plan = log.header, expected.plan
    if header.suit_permutation != plan.suit_permutation:
        raise differs(
            Stage.DEALS,
            "suit permutation",
            header.suit_permutation,
            f"the plan has {plan.suit_permutation!r}",
            what="the log has",
        )
    try:
        ruleset = log.ruleset()
    except EngineError as error:
        raise MismatchError(Stage.DEALS, "ruleset", f"ruleset: the log's: {error}") from None
    if ruleset != expected.ruleset:
        raise differs(
            Stage.DEALS,
            "ruleset",
            header.ruleset_id,
            f"the season plays {expected.ruleset.id!r} with {expected.ruleset.options()}",
            what="the log has",
        )
    if header.deals != expected.deals:
        raise differs(
            Stage.DEALS,
            "deals",
            header.deals,
            f"the season plays {expected.deals}",
            what="the log has",
        )
    if header.fixed_dealers:
        raise MismatchError(
            Stage.DEALS, "deals", "deals: the log's were fixed, not dealt from a seed"
        )
    seats = {entry.seat: entry.bot_id for entry in header.seats}
    for seat, bot_id in sorted(expected.bot_ids.items()):
        if seats.get(seat) != bot_id:
            raise differs(
                Stage.DEALS,
                f"bot of seat {seat}",
                seats.get(seat),
                f"the season seats {plan.bots[seat]!r} ({bot_id!r})",
                what="the log has",
            )
    footer = log.footer
    if footer is not None and footer.seed != plan.seed:
        raise differs(
            Stage.DEALS, "seed", footer.seed, f"the block's is {plan.seed}", what="the log has"
        )


def _check_deals(log: MatchLog, expected: ExpectedMatch) -> int:
    """Every dealt hand against the one the block's seed deals; the deals checked."""
    ruleset = expected.ruleset
    suits = SuitPermutation(Suit.parse(letter) for letter in expected.plan.suit_permutation)
    count = 0
    for logged in log.deals():
        record = logged.record
        where = f"deal {record.deal_number}"
        seed = deal_seed(expected.plan.seed, record.deal_number)
        if record.seed != seed:
            raise differs(
                Stage.DEALS,
                "seed",
                record.seed,
                f"the block's seed gives {seed}",
                what="the log has",
            ).within(where)
        try:
            dealt = suits.apply_deal(deal_cards(ruleset, record.dealer, seed))
        except (EngineError, ValueError) as error:
            raise MismatchError(Stage.DEALS, "dealer", f"dealer: {error}", where) from None
        wanted = DealRecord.of(record.deal_number, dealt, seed)
        for seat, (logged_hand, hand) in enumerate(zip(record.hands, wanted.hands, strict=False)):
            if logged_hand != hand:
                raise differs(
                    Stage.DEALS,
                    f"hand of seat {seat}",
                    logged_hand,
                    f"the seed deals {hand!r}",
                    what="the log has",
                ).within(where)
        if len(record.hands) != len(wanted.hands) or record.blind != wanted.blind:
            raise differs(
                Stage.DEALS,
                "blind",
                record.blind,
                f"the seed deals {wanted.blind!r}",
                what="the log has",
            ).within(where)
        count += 1
    return count


def _outcome(log: MatchLog, plan: MatchPlan, report: ReplayReport) -> MatchOutcome:
    """The match's outcome as the ladder records it, from the log alone."""
    players = log.header.players
    tally = MatchTally(players)
    decisions: list[DecisionRecord] = []
    for record in log.records:
        if isinstance(record, EventRecord):
            tally.add(record)
        elif isinstance(record, Penalty):
            tally.add(LivePenalty(0, record))
        elif isinstance(record, DecisionRecord):
            decisions.append(record)
    latency = tuple(
        DecisionLatency(seat.decisions, seat.p50_ms, seat.p95_ms, seat.max_ms)
        for seat in log_latency(decisions, players)
    )
    return MatchOutcome(
        plan=plan,
        match_id=log.header.match_id,
        balances=report.replayed_balances,
        forfeited=frozenset(report.replayed_forfeited),
        deals_played=report.deals_replayed,
        tallies=tally.seats(report.replayed_strikes),
        latency=latency,
    )
