"""Play deals with the engine where sample bots decide, through protocol messages.

Each decision goes engine state -> ``DecisionRequest`` (with the arena's codec, exactly what
the referee sends) -> bot -> ``Choice`` -> engine action, so a bot that answers anything but a
legal choice fails loudly here.
"""

from __future__ import annotations

from collections.abc import Sequence

from brandeln.arena import codec
from brandeln.engine.dealing import deal_cards
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.rulesets import Ruleset, find_ruleset
from brandeln.engine.seats import forehand_of
from brandeln.engine.state import DealState
from brandeln.sdk import Bot, resolve_answer
from brandeln.v1 import bot_pb2, cards_pb2


class TickClock:
    """A clock that moves on by one step at each reading: the bot's search sees time pass at
    the same rate however busy the machine is, so its verdict cannot depend on the load."""

    STEP_S = 0.001

    def __init__(self) -> None:
        self.now = 0.0
        self.readings: list[float] = []

    def __call__(self) -> float:
        self.now += self.STEP_S
        self.readings.append(self.now)
        return self.now


def match_started_for(ruleset: Ruleset, seat: int, match_id: str = "local") -> bot_pb2.MatchStarted:
    return bot_pb2.MatchStarted(
        match_id=match_id,
        seat=seat,
        players=[cards_pb2.Player(seat=s, bot_name=f"seat{s}") for s in range(ruleset.players)],
        ruleset=codec.ruleset_to_pb(ruleset),
        deals=ruleset.players,
        time_control=cards_pb2.TimeControl(move_ms=200, bank_ms=2000, max_strikes=3),
    )


def request_for(state: DealState, request_id: int, move_ms: int = 200) -> bot_pb2.DecisionRequest:
    seat = state.to_act
    assert seat is not None
    message = codec.decision_request(
        request_id, state.phase, state.legal_actions(), state.view(seat), move_ms, 2000, 0, 0
    )
    return message.request


def seat_bots(bots: Sequence[Bot], ruleset: Ruleset) -> None:
    for seat, bot in enumerate(bots):
        bot.match = match_started_for(ruleset, seat)


def play_deal(
    bots: Sequence[Bot],
    ruleset_id: str = "standard",
    seed: int = 0,
    dealer: int = 0,
    *,
    deal_number: int = 1,
    choices: list[str] | None = None,
) -> DealOutcome:
    """One deal of ``ruleset_id`` with ``bots[seat]`` deciding for each seat; each bot hears
    ``DealStarted`` first, as from the referee. ``choices`` collects every choice made."""
    ruleset = find_ruleset(ruleset_id)
    seat_bots(bots, ruleset)
    deal = deal_cards(ruleset, dealer=dealer, seed=seed)
    forehand = forehand_of(dealer, ruleset.players)
    for dealt, bot in enumerate(bots):
        bot.on_deal_start(
            bot_pb2.DealStarted(
                deal_number=deal_number,
                dealer=dealer,
                forehand=forehand,
                hand=codec.cards_to_pb(deal.hands[dealt]),
            )
        )
    state = DealState.new(ruleset, deal)
    request_id = 0
    while not state.is_over():
        request_id += 1
        request = request_for(state, request_id)
        seat = state.to_act
        assert seat is not None
        choice = resolve_answer(request, bots[seat].decide(request))  # raises unless legal
        if choices is not None:
            choices.append(str(choice))
        state = state.apply(codec.choice_to_action(choice, state.phase))
    outcome = state.outcome()
    assert outcome is not None
    return outcome
