"""Ratings by role: what a match's log says of each seat's bidding, soloist play and defence,
judged double dummy (:mod:`brandeln.engine.play_analysis`: before and after each card, could the
player's side still reach its goal with best play by all, every hand known?).

Chips and ratings mix three skills with the cards dealt. Each figure below isolates one, and
each counts only deals that ended with a card play to judge (a soloist and its contract):

**Bidding** (the seat that won the auction, by contract). ``chosen``: the contracts it won the
auction with; ``made``: those it made; ``judged``: those with a card play to judge, and
``makeable``: of these, those that could be made double dummy at the first card. Made / chosen
mixes bidding with play; makeable / judged is the bidding alone: how often the contract it chose
was there in the cards, whoever then played them.

**Soloist play** (the deals it played as soloist). ``deals``; ``makeable`` (double dummy at
the first card); ``made``; ``lost``: makeable and not made. Only the soloist's own cards can turn
a makeable contract into a failure (a defender's slip turns it the other way), so every lost
contract is its own doing: ``lost`` / ``makeable`` is its card play as soloist, apart from the
cards dealt and the bidding. ``slips``: its cards that gave the contract away (it could make
it before the card and no longer after), ``cards``: its cards played while it still could
(the ones that mattered); slips per deal counts a slip the defence later handed back too.

**Defence** (the deals it defended). ``deals``; ``beatable``: the contract could be beaten
double dummy at the first card; ``let_through``: beatable, made, and the last card that turned
it makeable again was this seat's (the defender whose slip let it through, when its side
slipped more than once); ``slips``: its cards that let a beatable contract become makeable,
``cards``: its cards played while the defence could still beat it.

A deal whose play does not replay is left out and named in ``problems``; the figures of a match
are a function of its log alone, so they are kept once judged
(:mod:`brandeln.services.roles.season`).

>>> figures = RoleFigures()
>>> figures.soloist.deals, figures.bidding.line().made_percent
(0, None)
>>> RoleFigures.from_json(figures.to_json()) == figures
True
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final

from brandeln.arena.logreader import LoggedDeal, MatchLog
from brandeln.arena.replay import engine_deal
from brandeln.engine.errors import EngineError
from brandeln.engine.play_analysis import PlayAnalysis, analyse_play
from brandeln.engine.rulesets import find_ruleset
from brandeln.protocol.events import DealEndedRecord

__all__ = [
    "FIGURES_VERSION",
    "Bidding",
    "BiddingLine",
    "Defence",
    "MatchRoles",
    "RoleFigures",
    "SoloistPlay",
    "contract_order",
    "judge_roles",
]

# The kept figures' format: a kept match of another version is judged again. Raise it whenever
# a definition above or the JSON below changes.
FIGURES_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class BiddingLine:
    """A seat's bidding figures for one contract (``contract`` None: for them all)."""

    contract: str | None
    chosen: int
    made: int
    judged: int
    makeable: int

    @property
    def made_percent(self) -> float | None:
        """Made per chosen; None if none was chosen."""
        return _percent(self.made, self.chosen)

    @property
    def makeable_percent(self) -> float | None:
        """Makeable double dummy per judged; None if none was judged."""
        return _percent(self.makeable, self.judged)


@dataclass(slots=True)
class Bidding:
    """The contracts a seat won the auction with, by contract id."""

    chosen: Counter[str] = field(default_factory=Counter)
    made: Counter[str] = field(default_factory=Counter)
    judged: Counter[str] = field(default_factory=Counter)
    makeable: Counter[str] = field(default_factory=Counter)

    def add(self, other: Bidding) -> None:
        for mine, theirs in zip(self._counters(), other._counters(), strict=True):
            mine.update(theirs)

    def line(self, contract: str | None = None) -> BiddingLine:
        """The figures of ``contract``, or of every contract (None)."""
        counts = (
            counter.total() if contract is None else counter[contract]
            for counter in self._counters()
        )
        return BiddingLine(contract, *counts)

    def lines(self, order: Sequence[str] = ()) -> list[BiddingLine]:
        """A line per contract chosen, in ``order`` (a ruleset's, low to high) then by name,
        and one for them all when there are several."""
        rank = {contract: index for index, contract in enumerate(order)}
        chosen = sorted(self.chosen, key=lambda c: (rank.get(c, len(rank)), c))
        lines = [self.line(contract) for contract in chosen]
        return [*lines, self.line()] if len(lines) > 1 else lines

    def _counters(self) -> tuple[Counter[str], ...]:
        return self.chosen, self.made, self.judged, self.makeable

    def to_json(self) -> dict[str, list[int]]:
        """``{contract: [chosen, made, judged, makeable]}``."""
        return {c: [counter[c] for counter in self._counters()] for c in sorted(self.chosen)}

    @classmethod
    def from_json(cls, data: Mapping[str, Sequence[int]]) -> Bidding:
        bidding = cls()
        for contract, counts in data.items():
            for counter, count in zip(bidding._counters(), _counts(counts, 4), strict=True):
                if count:
                    counter[str(contract)] = count
        return bidding


@dataclass(slots=True)
class SoloistPlay:
    """The deals a seat played as soloist (see the module's docstring)."""

    deals: int = 0
    makeable: int = 0
    made: int = 0
    lost: int = 0
    cards: int = 0
    slips: int = 0

    @property
    def lost_percent(self) -> float | None:
        return _percent(self.lost, self.makeable)

    @property
    def slips_per_deal(self) -> float | None:
        return self.slips / self.deals if self.deals else None


@dataclass(slots=True)
class Defence:
    """The deals a seat defended (see the module's docstring)."""

    deals: int = 0
    beatable: int = 0
    let_through: int = 0
    cards: int = 0
    slips: int = 0

    @property
    def slips_per_deal(self) -> float | None:
        return self.slips / self.deals if self.deals else None


@dataclass(slots=True)
class RoleFigures:
    """A seat's (or a bot's, summed) figures in the three roles."""

    bidding: Bidding = field(default_factory=Bidding)
    soloist: SoloistPlay = field(default_factory=SoloistPlay)
    defence: Defence = field(default_factory=Defence)

    def add(self, other: RoleFigures) -> None:
        self.bidding.add(other.bidding)
        for mine, theirs in ((self.soloist, other.soloist), (self.defence, other.defence)):
            for counted in fields(mine):
                name = counted.name
                setattr(mine, name, getattr(mine, name) + getattr(theirs, name))

    def to_json(self) -> dict[str, Any]:
        return {
            "bidding": self.bidding.to_json(),
            "soloist": [getattr(self.soloist, f.name) for f in fields(SoloistPlay)],
            "defence": [getattr(self.defence, f.name) for f in fields(Defence)],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RoleFigures:
        """The figures :meth:`to_json` wrote; ValueError (or TypeError, KeyError) otherwise."""
        return cls(
            Bidding.from_json(data["bidding"]),
            SoloistPlay(*_counts(data["soloist"], len(fields(SoloistPlay)))),
            Defence(*_counts(data["defence"], len(fields(Defence)))),
        )


@dataclass(frozen=True, slots=True)
class MatchRoles:
    """One match judged: each seat's figures, the deals judged and those left out (why)."""

    seats: tuple[RoleFigures, ...]
    deals: int
    problems: tuple[str, ...] = ()

    def to_json_text(self) -> str:
        return json.dumps(
            {
                "seats": [seat.to_json() for seat in self.seats],
                "deals": self.deals,
                "problems": list(self.problems),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json_text(cls, text: str) -> MatchRoles:
        """What :meth:`to_json_text` wrote; ValueError (or TypeError, KeyError) otherwise."""
        data = json.loads(text)
        return cls(
            tuple(RoleFigures.from_json(seat) for seat in data["seats"]),
            _counts([data["deals"]], 1)[0],
            tuple(str(problem) for problem in data["problems"]),
        )


def contract_order(ruleset: str) -> tuple[str, ...]:
    """The contracts of ``ruleset``, low to high (none for a ruleset this engine lacks)."""
    try:
        return find_ruleset(ruleset).contract_ids()
    except EngineError:
        return ()


def judge_roles(log: MatchLog) -> MatchRoles:
    """Each seat's role figures over the deals of ``log`` that ended (see the module)."""
    seats = tuple(RoleFigures() for _ in log.header.seats)
    deals = 0
    problems = []
    for logged in log.deals():
        ended = _deal_end(logged)
        if ended is None:
            continue  # a deal that did not end (an aborted match's last): nothing to judge
        try:
            analysis = analyse_play(*engine_deal(log, logged))
        except (EngineError, ValueError) as error:
            problems.append(f"deal {logged.number}: {error}")
            continue
        deals += 1
        _judge_deal(seats, ended, analysis)
    return MatchRoles(seats, deals, tuple(problems))


def _deal_end(logged: LoggedDeal) -> DealEndedRecord | None:
    return next(
        (event.body for event in logged.events if isinstance(event.body, DealEndedRecord)), None
    )


def _judge_deal(seats: Sequence[RoleFigures], ended: DealEndedRecord, play: PlayAnalysis) -> None:
    soloist, contract = ended.soloist, ended.contract
    if soloist is None or contract is None or not 0 <= soloist < len(seats):
        return  # passed out, or a free play without a soloist: no role to judge
    made = bool(ended.made)
    bidding = seats[soloist].bidding
    bidding.chosen[contract] += 1
    bidding.made[contract] += made
    makeable = play.makes_at_start
    if makeable is None:
        return  # no card play to judge (the deal ended before its first card)
    bidding.judged[contract] += 1
    bidding.makeable[contract] += makeable
    solo = seats[soloist].soloist
    solo.deals += 1
    solo.makeable += makeable
    solo.made += made
    solo.lost += makeable and not made
    # The seat of the last card that turned the outcome: when a beatable contract was made,
    # the defender whose slip let it through.
    last_slip = None
    for verdict in play.verdicts:
        if not (verdict.could and 0 <= verdict.seat < len(seats)):
            continue
        if verdict.for_soloist:
            solo.cards += 1
            solo.slips += verdict.error
        else:
            seats[verdict.seat].defence.cards += 1
            seats[verdict.seat].defence.slips += verdict.error
        if verdict.error:
            last_slip = verdict.seat
    for seat, figures in enumerate(seats):
        if seat == soloist:
            continue
        figures.defence.deals += 1
        figures.defence.beatable += not makeable
        figures.defence.let_through += not makeable and made and last_slip == seat


def _percent(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


def _counts(values: Iterable[Any], size: int) -> list[int]:
    """``values`` as ``size`` counts (whole numbers, 0 or more); ValueError otherwise."""
    counts = list(values)
    if len(counts) != size or not all(
        isinstance(count, int) and not isinstance(count, bool) and count >= 0 for count in counts
    ):
        raise ValueError(f"expected {size} counts, got {counts!r}")
    return counts
