"""The view's hand comes in the order of the legal lists (R12.3), over the codec and the wire.

Bots were written from "cards by suit, low to high" and guessed the order of a hand wrong: the
legal list sorted the trump suit by strength (S9 S7 SJ with spades trump) while the hand came
in plain rank order (S7 S9 SJ). Once trump is named the two must agree.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from subprocess import Popen

import pytest
from google.protobuf import json_format

from brandeln.arena import codec
from brandeln.engine.actions import Action
from brandeln.engine.cards import CardSet, parse_cards
from brandeln.engine.dealing import deal_cards, fixed_deal
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.sdk import TrickRules, cards_text
from brandeln.v1 import admin_pb2, bot_pb2, cards_pb2
from tests.conftest import AdminClient
from tests.engine.scripting import run

StartBot = Callable[[str, str], Popen[str]]


def _requests(state: DealState) -> tuple[bot_pb2.RefereeMessage, bot_pb2.RefereeMessage]:
    seat = state.to_act
    assert seat is not None
    args = (1, state.phase, state.legal_actions(), state.view(seat), 100, 100, 0, 0)
    slow = codec.decision_request(*args, match_balances=(0, 0, 0, 0), deal_number=1)
    fast = codec.decision_request_bytes(*args, match_balances=(0, 0, 0, 0), deal_number=1)
    return slow, bot_pb2.RefereeMessage.FromString(fast)


def test_with_spades_trump_the_requests_hand_is_sorted_like_its_legal_list() -> None:
    ruleset = find_ruleset("standard")
    hands = (
        "C9 CA S7 S9 SJ HJ HQ",
        "C7 CT CJ CQ CK ST SQ",
        "SK SA H7 H9 HT HK HA",
        "D7 D9 DT DJ DQ DK DA",
    )
    state = DealState.new(ruleset, fixed_deal(ruleset, 3, [parse_cards(h) for h in hands]))
    for message in _requests(state):  # the auction: trump not named, plain order
        assert cards_text(message.request.view.hand) == ["C9", "CA", "S7", "S9", "SJ", "HJ", "HQ"]
    state = run(state, "brandle, pass, pass, pass, S")
    for message in _requests(state):
        request = message.request
        assert cards_text(request.view.hand) == ["C9", "CA", "S9", "S7", "SJ", "HJ", "HQ"]
        assert [c.card for c in request.legal] == list(request.view.hand)


def _mostly_passing(rng: random.Random, state: DealState) -> Action:
    """A random action, passing most of the auction: uniform bids climb to herrenmord (no
    trump) nearly every deal, and the trump order is what these tests are about."""
    legal = state.legal_actions()
    if state.phase is Phase.AUCTION and rng.random() < 0.8:
        return legal[0]
    return rng.choice(legal)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_requests_hand_is_in_the_sdks_order_for_its_trump(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    match = codec.ruleset_to_pb(ruleset)
    rng = random.Random(ruleset_id)
    trump_named = 0
    for seed in range(10):
        state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=seed))
        while not state.is_over():
            for message in _requests(state):
                view = message.request.view
                rules = TrickRules.for_deal(match, view.trump)
                assert list(view.hand) == rules.in_order(view.hand)
                trump_named += bool(view.trump)
                if state.phase is Phase.PLAY and not view.current_trick:
                    assert [c.card for c in message.request.legal] == list(view.hand)
            state = state.apply(_mostly_passing(rng, state))
    assert trump_named > 0


def _received(proc: Popen[str]) -> list[bot_pb2.RefereeMessage]:
    path = Path(proc.output_path)  # type: ignore[attr-defined]
    records = [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]
    return [
        json_format.ParseDict(r["msg"], bot_pb2.RefereeMessage()) for r in records if "msg" in r
    ]


async def test_over_the_wire_hands_follow_the_trump_order_and_deal_started_the_plain_one(
    admin: AdminClient, start_minimal_bot: StartBot
) -> None:
    procs, ids = [], []
    for n in range(4):
        reply = await admin.register(f"first-{n}")
        procs.append(start_minimal_bot(reply.token, "first"))
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids)
    # "first" bots all pass: forehand plays the Muss-Spiel and names the first suit, clubs.
    _, result = await admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids, deals=8, seed=11))
    assert result.status == "finished"
    differs = 0
    for proc in procs:
        for message in _received(proc):
            kind = message.WhichOneof("kind")
            if kind == "deal_started":
                hand = list(message.deal_started.hand)
                plain = sorted(hand, key=lambda c: (c.suit, c.rank))
                assert hand == plain  # sent before trump is named
            elif kind == "request" and message.request.view.trump:
                view = message.request.view
                assert view.trump == cards_pb2.SUIT_CLUBS
                in_order = TrickRules(trump=view.trump).in_order(view.hand)
                assert list(view.hand) == in_order
                differs += list(view.hand) != sorted(view.hand, key=lambda c: (c.suit, c.rank))
    assert differs > 0  # some hand held CJ or C7 with another club: the orders told apart


def test_the_plain_order_is_the_card_sets_own() -> None:
    """DealStarted and DealEnded hands are a CardSet in index order: suits C S H D, 7 up to A."""
    hand = CardSet(parse_cards("SJ C9 S7 CA"))
    assert cards_text(codec.cards_to_pb(hand)) == ["C9", "CA", "S7", "SJ"]
