"""What the referee is asked, as values: a bot's Hello, and a match to run.

The servicers read them off the wire (``brandeln.arena.codec.requests``); in-process callers (``bot
check``, the benchmarks, tests) make them directly. The referee checks a Hello against its
caps and its bots (:meth:`brandeln.arena.referee.Referee.open_session`) and turns a
:class:`MatchOrder` into a :class:`brandeln.arena.spec.MatchSpec` with :func:`build_spec`, whose
:class:`InvalidRequestError` says what is wrong.

>>> order = MatchOrder(bot_ids=("a", "b", "c", "d"), deals=4, seed=7)
>>> spec = build_spec(order, match_id="m_1", max_deals=100,
...     default_time_control=TimeControlSettings(), check_bot=lambda bot_id: None)
>>> spec.ruleset.id, spec.deals, spec.time_control.move_ms
('standard', 4, 2000)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from brandeln.arena.errors import InvalidRequestError
from brandeln.arena.spec import MatchSpec
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.cards import Card, Suit
from brandeln.engine.dealing import Deal, fixed_deal
from brandeln.engine.errors import EngineError
from brandeln.engine.permutation import SuitPermutation
from brandeln.engine.rulesets import Ruleset, find_ruleset

__all__ = ["FixedDealOrder", "HelloRequest", "MatchOrder", "TimeControlOrder", "build_spec"]


@dataclass(frozen=True, slots=True)
class HelloRequest:
    """A bot's first message on a seat session (PROTOCOL.md ``Hello``)."""

    token: str
    protocol_version: int
    bot_name: str = ""
    bot_version: str = ""
    rulesets: tuple[str, ...] = ()
    resume_match_id: str = ""
    snapshot_only: bool = False


@dataclass(frozen=True, slots=True)
class FixedDealOrder:
    """A deal given explicitly: its dealer and each seat's cards (the blind as seat
    ``players``, in ``three-player``); checked against the ruleset by :func:`build_spec`."""

    dealer: int
    hands: Mapping[int, Sequence[Card]]


@dataclass(frozen=True, slots=True)
class TimeControlOrder:
    """A match's time control as asked: 0 in a field means the referee's default."""

    move_ms: int = 0
    bank_ms: int = 0
    max_strikes: int = 0
    reconnect_ms: int = 0


@dataclass(frozen=True, slots=True)
class MatchOrder:
    """A match to run (PROTOCOL.md ``RunMatchRequest``): 0 and empty mean the defaults."""

    bot_ids: tuple[str, ...]
    ruleset: str = "standard"
    options: Mapping[str, str] = field(default_factory=dict)
    deals: int = 0  # 0: the ruleset's default (or as many as the fixed deals)
    seed: int = 0
    first_dealer: int = 0
    fixed_deals: tuple[FixedDealOrder, ...] = ()
    time_control: TimeControlOrder = TimeControlOrder()
    suit_permutation: tuple[Suit, ...] = ()  # the images of C S H D; empty: none
    seat_wait_ms: int = 0  # 0: the referee's default
    summary_updates: bool = False  # stream only contracts, deal ends and penalties


def build_spec(
    order: MatchOrder,
    *,
    match_id: str,
    max_deals: int,
    default_time_control: TimeControlSettings,
    check_bot: Callable[[str], None],
) -> MatchSpec:
    """The match ``order`` asks for; ``check_bot`` raises InvalidRequestError for a bot id the
    referee does not know. Raises InvalidRequestError saying what is wrong."""
    try:
        ruleset = find_ruleset(order.ruleset or "standard", dict(order.options))
    except EngineError as error:
        raise InvalidRequestError(str(error)) from None
    bot_ids = tuple(order.bot_ids)
    if len(bot_ids) != ruleset.players:
        raise InvalidRequestError(
            f"ruleset {ruleset.id!r} seats {ruleset.players} bots; got {len(bot_ids)}"
        )
    for bot_id in bot_ids:
        check_bot(bot_id)
    if order.first_dealer >= ruleset.players:
        raise InvalidRequestError(f"first_dealer must be a seat 0..{ruleset.players - 1}")
    fixed = _fixed_deals(order.fixed_deals, ruleset)
    deals = len(fixed) if fixed else order.deals or ruleset.default_deals
    if deals > max_deals:
        raise InvalidRequestError(f"deals must be at most {max_deals}")
    permutation = SuitPermutation.identity()
    if order.suit_permutation:
        try:
            permutation = SuitPermutation(list(order.suit_permutation))
        except ValueError as error:
            raise InvalidRequestError(f"suit_permutation: {error}") from None
    default, asked = default_time_control, order.time_control
    try:
        time_control = TimeControlSettings(
            move_ms=asked.move_ms or default.move_ms,
            bank_ms=asked.bank_ms or default.bank_ms,
            max_strikes=asked.max_strikes or default.max_strikes,
            reconnect_ms=asked.reconnect_ms or default.reconnect_ms,
        )
    except ValueError as error:
        raise InvalidRequestError(str(error)) from None
    return MatchSpec(
        match_id=match_id,
        ruleset=ruleset,
        bot_ids=bot_ids,
        deals=deals,
        seed=order.seed,
        first_dealer=fixed[0].dealer if fixed else order.first_dealer,
        fixed_deals=tuple(fixed),
        permutation=permutation,
        time_control=time_control,
    )


def _fixed_deals(orders: Sequence[FixedDealOrder], ruleset: Ruleset) -> list[Deal]:
    deals = []
    for number, fixed in enumerate(orders, start=1):
        hands = [list(fixed.hands.get(seat, ())) for seat in range(ruleset.players)]
        blind = list(fixed.hands.get(ruleset.players, ()))
        try:
            deals.append(fixed_deal(ruleset, fixed.dealer, hands, blind))
        except (EngineError, ValueError) as error:
            raise InvalidRequestError(f"fixed deal {number}: {error}") from None
    return deals
