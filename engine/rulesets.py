"""Rulesets: every variant of docs/RULES.md section 6 as data, and the registry that finds them.

A :class:`Ruleset` is a frozen value: the deck, the deal packets, the contract ladder, the play
duties, the pass-out policy and the settlement. Variants differ only in these fields; there are
no subclasses. Three switches combine with any ruleset (section 6): ``head_rule``, ``undertrump``
and ``early_stop``.

>>> standard = find_ruleset("standard")
>>> [c.id for c in standard.contracts]
['brandle', 'brand', 'bettel', 'mord', 'herrenmord']
>>> standard.contract("brand").value
4
>>> find_ruleset("standard", {"head_rule": "suit"}).head_rule
<HeadRule.SUIT: 'suit'>
>>> find_ruleset("whist")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
brandeln.engine.errors.UnknownRulesetError: unknown ruleset 'whist'; known rulesets: standard, ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from brandeln.engine.cards import RANKS_28, RANKS_32, SUIT_COUNT, CardSet, Rank, deck_of
from brandeln.engine.errors import RulesetOptionError, UnknownContractError, UnknownRulesetError

__all__ = [
    "DEFAULT_SWITCHES",
    "RULESET_IDS",
    "SWITCHES",
    "Contract",
    "EarlyStop",
    "Goal",
    "HeadRule",
    "PassOut",
    "Ruleset",
    "RulesetOptionError",
    "Scoring",
    "Stichzwang",
    "TrumpOrder",
    "Trumpfzwang",
    "Undertrump",
    "UnknownContractError",
    "UnknownRulesetError",
    "find_ruleset",
]


class Goal(StrEnum):
    """What the soloist must take: at least / exactly ``tricks``, no trick, or every trick."""

    AT_LEAST = "at_least"
    EXACT = "exact"
    ZERO = "zero"
    ALL = "all"


class PassOut(StrEnum):
    """What happens when every player passes (R6)."""

    MUSS = "muss"  # R6.1: forehand plays the lowest contract
    HAFERL = "haferl"  # each player pays 1 chip into the pool; no play
    THROWN_IN = "thrown_in"  # classic: no play, nobody scores
    FREE_PLAY = "free_play"  # russian: no soloist, no trump, the dealer leads


class TrumpOrder(StrEnum):
    """Rank order inside the trump suit (R2.2 vs russian's natural order)."""

    JACK_SEVEN_FIRST = "jack_seven_first"  # J 7 A K Q T 9
    NATURAL = "natural"  # A K Q J T 9 (8) 7


class Stichzwang(StrEnum):
    """When a player following suit must beat the trick (R8.3b)."""

    ALWAYS = "always"
    NO_TRUMP_ONLY = "no_trump_only"  # classic-1860
    NEVER = "never"  # russian


class Trumpfzwang(StrEnum):
    """What a player void in the led suit must do when holding a trump (R8.3c)."""

    OVERTRUMP = "overtrump"  # must trump, must overtrump if able
    ANY_TRUMP = "any_trump"  # must trump, any trump will do
    NONE = "none"  # classic-1905: any card


class HeadRule(StrEnum):
    """Which card a player following suit must beat (switch ``head_rule``)."""

    TRICK = "trick"  # the card now winning the trick (R8.3b)
    SUIT = "suit"  # the highest card of the led suit, even after a trump


class Undertrump(StrEnum):
    """Void, holding trumps, unable to overtrump (switch ``undertrump``)."""

    FORCED = "forced"  # must still play a trump (R8.3c)
    FREE = "free"  # may play any card


class EarlyStop(StrEnum):
    """When a deal ends before its last trick (switch ``early_stop``, R9)."""

    RULES = "rules"  # sudden death only (R9.2)
    WHEN_DECIDED = "when_decided"  # as soon as no distribution of the rest changes the result
    NEVER = "never"  # every deal is played to its last trick


class Scoring(StrEnum):
    """How a soloist contract is settled."""

    ZERO_SUM = "zero_sum"  # R10.2: each defender pays V to the soloist, or is paid V
    SOLOIST_ONLY = "soloist_only"  # russian: the soloist alone scores +V or -V


@dataclass(frozen=True, slots=True)
class Contract:
    """One rung of the contract ladder (R4).

    >>> brand = find_ruleset("standard").contract("brand")
    >>> brand.goal, brand.tricks, brand.trump, brand.made_with(5)
    (<Goal.AT_LEAST: 'at_least'>, 4, True, True)
    """

    id: str
    goal: Goal
    tricks: int
    trump: bool
    value: int

    def made_with(self, soloist_tricks: int) -> bool:
        """Whether taking ``soloist_tricks`` tricks makes this contract (R10.1, russian)."""
        if self.goal is Goal.AT_LEAST:
            return soloist_tricks >= self.tricks
        # EXACT, ZERO (tricks = 0) and ALL (tricks = all tricks) all need an exact count.
        return soloist_tricks == self.tricks


SWITCHES: Final[Mapping[str, type[StrEnum]]] = {
    "head_rule": HeadRule,
    "undertrump": Undertrump,
    "early_stop": EarlyStop,
}
"""The switches any ruleset accepts (section 6), with the enum of their allowed values."""

DEFAULT_SWITCHES: Final[Mapping[str, str]] = {
    "head_rule": HeadRule.TRICK,
    "undertrump": Undertrump.FORCED,
    "early_stop": EarlyStop.RULES,
}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A complete description of one variant; see :func:`find_ruleset` for the named ones.

    ``blind`` means one more packet row is dealt than there are players, and that row is the
    never-played blind hand (section 6, ``three-player``).

    >>> r = find_ruleset("three-player")
    >>> r.players, r.tricks, r.hand_size, len(r.deck()), r.blind
    (3, 7, 7, 28, True)
    """

    id: str
    players: int
    tricks: int
    hand_size: int
    contracts: tuple[Contract, ...]
    ranks: tuple[Rank, ...] = RANKS_28
    packets: tuple[int, ...] = (2, 3, 2)
    blind: bool = False
    holds: bool = True
    pass_out: PassOut = PassOut.MUSS
    trump_order: TrumpOrder = TrumpOrder.JACK_SEVEN_FIRST
    stichzwang: Stichzwang = Stichzwang.ALWAYS
    trumpfzwang: Trumpfzwang = Trumpfzwang.OVERTRUMP
    head_rule: HeadRule = HeadRule.TRICK
    undertrump: Undertrump = Undertrump.FORCED
    early_stop: EarlyStop = EarlyStop.RULES
    scoring: Scoring = Scoring.ZERO_SUM
    target_score: int | None = None
    max_deals: int | None = None
    default_deals: int = 8

    def __post_init__(self) -> None:
        ids = [c.id for c in self.contracts]
        problems = []
        if not self.contracts:
            problems.append("no contracts")
        if len(set(ids)) != len(ids) or "pass" in ids:
            problems.append(f"contract ids must be distinct and not 'pass': {ids}")
        if sum(self.packets) != self.hand_size or self.tricks != self.hand_size:
            problems.append("packets, hand size and tricks per deal disagree")
        if len(self.ranks) * SUIT_COUNT != self.hand_size * self.deal_rows:
            problems.append("the deck does not divide into the dealt rows")
        if any(not 0 <= c.tricks <= self.tricks for c in self.contracts):
            problems.append("a contract asks for more tricks than a deal has")
        if problems:
            raise ValueError(f"ruleset {self.id!r} is inconsistent: {'; '.join(problems)}")

    @property
    def deal_rows(self) -> int:
        """How many hands are dealt: one per seat, plus the blind in ``three-player``."""
        return self.players + (1 if self.blind else 0)

    @property
    def zero_sum(self) -> bool:
        """True when every deal's chip changes (with the pool) add up to zero (R10.4)."""
        return self.scoring is Scoring.ZERO_SUM and self.pass_out is not PassOut.FREE_PLAY

    def deck(self) -> CardSet:
        """The cards this ruleset plays with.

        >>> len(find_ruleset("russian-32").deck())
        32
        """
        return deck_of(self.ranks)

    def contract(self, contract_id: str) -> Contract:
        """The contract named ``contract_id``; raises :class:`UnknownContractError`.

        >>> find_ruleset("standard").contract("six")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        brandeln.engine.errors.UnknownContractError: ruleset 'standard' has no contract 'six'; ...
        """
        for contract in self.contracts:
            if contract.id == contract_id:
                return contract
        known = ", ".join(c.id for c in self.contracts)
        raise UnknownContractError(
            f"ruleset {self.id!r} has no contract {contract_id!r}; its contracts: {known}"
        )

    def contract_ids(self) -> tuple[str, ...]:
        """The contract ids, low to high."""
        return tuple(c.id for c in self.contracts)

    def options(self) -> dict[str, str]:
        """The switches and the notable settings as strings (sent to bots with the ruleset).

        >>> opts = find_ruleset("russian").options()
        >>> opts["pass_out"], opts["trump_order"], opts["target_score"]
        ('free_play', 'natural', '21')
        """
        opts = {
            "head_rule": str(self.head_rule),
            "undertrump": str(self.undertrump),
            "early_stop": str(self.early_stop),
            "deck": str(len(self.ranks) * SUIT_COUNT),
            "packets": "-".join(str(p) for p in self.packets),
            "blind": "true" if self.blind else "false",
            "holds": "true" if self.holds else "false",
            "pass_out": str(self.pass_out),
            "trump_order": str(self.trump_order),
            "stichzwang": str(self.stichzwang),
            "trumpfzwang": str(self.trumpfzwang),
            "scoring": str(self.scoring),
            "default_deals": str(self.default_deals),
        }
        if self.target_score is not None:
            opts["target_score"] = str(self.target_score)
        if self.max_deals is not None:
            opts["max_deals"] = str(self.max_deals)
        return opts

    def with_options(self, **switches: str) -> Ruleset:
        """This ruleset with switches changed; names and values are validated.

        >>> find_ruleset("standard").with_options(undertrump="free").undertrump
        <Undertrump.FREE: 'free'>
        >>> find_ruleset("standard").with_options(undertrump="never")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        brandeln.engine.errors.RulesetOptionError: switch 'undertrump' cannot be 'never'; ...
        """
        changes: dict[str, StrEnum] = {}
        for name, value in switches.items():
            kind = SWITCHES.get(name)
            if kind is None:
                raise RulesetOptionError(
                    f"unknown switch {name!r}; known switches: {', '.join(SWITCHES)}"
                )
            try:
                changes[name] = kind(value)
            except ValueError:
                allowed = ", ".join(str(v) for v in kind)
                raise RulesetOptionError(
                    f"switch {name!r} cannot be {value!r}; allowed values: {allowed}"
                ) from None
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def _ladder(*rows: tuple[str, Goal, int, bool, int]) -> tuple[Contract, ...]:
    return tuple(Contract(*row) for row in rows)


_TRICKS_28: Final = 7
_TRICKS_32: Final = 8

_STANDARD: Final = Ruleset(
    id="standard",
    players=4,
    tricks=_TRICKS_28,
    hand_size=_TRICKS_28,
    contracts=_ladder(  # R4
        ("brandle", Goal.AT_LEAST, 3, True, 3),
        ("brand", Goal.AT_LEAST, 4, True, 4),
        ("bettel", Goal.ZERO, 0, False, 6),
        ("mord", Goal.ALL, _TRICKS_28, True, 12),
        ("herrenmord", Goal.ALL, _TRICKS_28, False, 18),
    ),
)

_CLASSIC_1860: Final = dataclasses.replace(
    _STANDARD,
    id="classic-1860",
    contracts=_ladder(
        ("brandle", Goal.AT_LEAST, 3, True, 3),
        ("four", Goal.AT_LEAST, 4, True, 4),
        ("five", Goal.AT_LEAST, 5, True, 5),
        ("six", Goal.AT_LEAST, 6, True, 6),
        ("bettel", Goal.ZERO, 0, False, 7),
        ("mord", Goal.ALL, _TRICKS_28, True, 8),
    ),
    stichzwang=Stichzwang.NO_TRUMP_ONLY,
    trumpfzwang=Trumpfzwang.ANY_TRUMP,
    pass_out=PassOut.THROWN_IN,
)


def _russian_ladder(tricks: int) -> tuple[Contract, ...]:
    return _ladder(
        ("three", Goal.EXACT, 3, True, 1),
        ("four", Goal.EXACT, 4, True, 2),
        ("five", Goal.EXACT, 5, True, 3),
        ("six", Goal.EXACT, 6, True, 4),
        ("null", Goal.ZERO, 0, False, 5),
        ("all", Goal.ALL, tricks, True, 6),
        ("all-no-trump", Goal.ALL, tricks, False, 7),
    )


_RUSSIAN_TARGET: Final = 21
_RUSSIAN_MAX_DEALS: Final = 120

_RUSSIAN: Final = dataclasses.replace(
    _STANDARD,
    id="russian",
    contracts=_russian_ladder(_TRICKS_28),
    holds=False,
    pass_out=PassOut.FREE_PLAY,
    trump_order=TrumpOrder.NATURAL,
    stichzwang=Stichzwang.NEVER,
    trumpfzwang=Trumpfzwang.ANY_TRUMP,
    scoring=Scoring.SOLOIST_ONLY,
    target_score=_RUSSIAN_TARGET,
    max_deals=_RUSSIAN_MAX_DEALS,
    default_deals=_RUSSIAN_MAX_DEALS,
)

_RULESETS: Final[dict[str, Ruleset]] = {
    r.id: r
    for r in (
        _STANDARD,
        dataclasses.replace(_STANDARD, id="three-player", players=3, blind=True, default_deals=9),
        dataclasses.replace(_STANDARD, id="haferl", pass_out=PassOut.HAFERL),
        _CLASSIC_1860,
        dataclasses.replace(
            _CLASSIC_1860,
            id="classic-1905",
            stichzwang=Stichzwang.ALWAYS,
            trumpfzwang=Trumpfzwang.NONE,
        ),
        _RUSSIAN,
        dataclasses.replace(
            _RUSSIAN,
            id="russian-32",
            tricks=_TRICKS_32,
            hand_size=_TRICKS_32,
            ranks=RANKS_32,
            packets=(2, 3, 3),
            contracts=_russian_ladder(_TRICKS_32),
        ),
    )
}

RULESET_IDS: Final[tuple[str, ...]] = tuple(_RULESETS)
"""The named rulesets, in the order of docs/RULES.md section 6."""


def find_ruleset(ruleset_id: str, options: Mapping[str, str] | None = None) -> Ruleset:
    """The ruleset named ``ruleset_id`` with the given switches applied.

    Raises :class:`UnknownRulesetError` for an unknown id and :class:`RulesetOptionError` for
    an unknown switch or value.

    >>> find_ruleset("haferl", {"early_stop": "never"}).early_stop
    <EarlyStop.NEVER: 'never'>
    """
    ruleset = _RULESETS.get(ruleset_id)
    if ruleset is None:
        raise UnknownRulesetError(
            f"unknown ruleset {ruleset_id!r}; known rulesets: {', '.join(RULESET_IDS)}"
        )
    return ruleset.with_options(**options) if options else ruleset
