"""A RunMatchRequest validated into a MatchSpec (InvalidRequestError says what is wrong)."""

from __future__ import annotations

from collections.abc import Callable

from arena.codec.messages import fixed_deal_from_pb
from arena.codec.values import CodecError, suit_from_pb
from arena.errors import InvalidRequestError
from arena.spec import MatchSpec
from arena.timecontrol import TimeControlSettings
from brandeln.v1 import admin_pb2
from engine.dealing import Deal
from engine.errors import EngineError
from engine.permutation import SuitPermutation
from engine.rulesets import Ruleset, find_ruleset

__all__ = ["match_spec_from_request"]


def match_spec_from_request(
    request: admin_pb2.RunMatchRequest,
    *,
    match_id: str,
    max_deals: int,
    default_time_control: TimeControlSettings,
    check_bot: Callable[[str], None],
) -> MatchSpec:
    """``check_bot`` raises InvalidRequestError for a bot id the referee does not know."""
    try:
        ruleset = find_ruleset(request.ruleset or "standard", dict(request.options))
    except EngineError as error:
        raise InvalidRequestError(str(error)) from None
    bot_ids = tuple(request.bot_ids)
    if len(bot_ids) != ruleset.players:
        raise InvalidRequestError(
            f"ruleset {ruleset.id!r} seats {ruleset.players} bots; got {len(bot_ids)}"
        )
    for bot_id in bot_ids:
        check_bot(bot_id)
    if request.first_dealer >= ruleset.players:
        raise InvalidRequestError(f"first_dealer must be a seat 0..{ruleset.players - 1}")
    fixed = _fixed_deals(request, ruleset)
    deals = len(fixed) if fixed else request.deals or ruleset.default_deals
    if deals > max_deals:
        raise InvalidRequestError(f"deals must be at most {max_deals}")
    permutation = SuitPermutation.identity()
    if request.suit_permutation:
        try:
            permutation = SuitPermutation([suit_from_pb(s) for s in request.suit_permutation])
        except (CodecError, ValueError) as error:
            raise InvalidRequestError(f"suit_permutation: {error}") from None
    default = default_time_control
    tc = request.time_control
    try:
        time_control = TimeControlSettings(
            move_ms=tc.move_ms or default.move_ms,
            bank_ms=tc.bank_ms or default.bank_ms,
            max_strikes=tc.max_strikes or default.max_strikes,
            reconnect_ms=tc.reconnect_ms or default.reconnect_ms,
        )
    except ValueError as error:
        raise InvalidRequestError(str(error)) from None
    return MatchSpec(
        match_id=match_id,
        ruleset=ruleset,
        bot_ids=bot_ids,
        deals=deals,
        seed=request.seed,
        first_dealer=fixed[0].dealer if fixed else request.first_dealer,
        fixed_deals=tuple(fixed),
        permutation=permutation,
        time_control=time_control,
    )


def _fixed_deals(request: admin_pb2.RunMatchRequest, ruleset: Ruleset) -> list[Deal]:
    deals = []
    for number, fixed in enumerate(request.fixed_deals, start=1):
        try:
            deals.append(fixed_deal_from_pb(fixed, ruleset))
        except (EngineError, CodecError) as error:
            raise InvalidRequestError(f"fixed deal {number}: {error}") from None
    return deals
