"""A person's seat without a server: the fold of what its session hears
(:class:`brandeln.web.seat_view.SeatView`) shows that seat's own cards only, and the room's moves
(:meth:`brandeln.web.table_room.TableRoom.act`) send one answer per decision, refusing the rest with
a status and one line.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING, cast

import pytest

from brandeln.engine.actions import PASS, Action, Bid
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState
from brandeln.protocol.events import BidMadeRecord, EventRecord
from brandeln.protocol.statuses import MatchStatus
from brandeln.services.play.messages import (
    Asked,
    DealBegan,
    MatchBegan,
    MatchOver,
    RejectCode,
    Rejected,
)
from brandeln.web.seat_view import SeatView
from brandeln.web.table_room import TableRefusedError, TableRoom
from brandeln.web.tables import PersonAtTable, SeatKind, SeatPlan, TablePlan, WebTable

if TYPE_CHECKING:
    from brandeln.services.play.seat import PersonSeat
    from brandeln.web.table_referee import TablesReferee

RULESET = find_ruleset("standard")
SEAT = 1


class Session:
    """The seat session's one method the room calls: what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, Action]] = []

    def act(self, request_id: int, action: Action) -> None:
        self.sent.append((request_id, action))


def seated_view() -> tuple[SeatView, DealState]:
    """Seat 1's view, the match begun and deal 1 dealt, seat 0's bid heard, seat 1 asked."""
    deal = deal_cards(RULESET, dealer=3, seed=8)
    state = DealState.new(RULESET, deal)
    view = SeatView(SEAT, clock=lambda: 0.0)
    view.add(MatchBegan("m_1", SEAT, ("a", "b", "c", "d"), RULESET, 2, 60_000, 300_000, 3))
    view.add(DealBegan(1, 3, 0, tuple(state.hands[SEAT])))
    state = state.apply(Bid("brand"))
    view.add(EventRecord(1, 1, BidMadeRecord(0, "brand")))
    legal = tuple(state.legal_actions())
    view.add(Asked(7, state.phase, legal, state.view(SEAT), 1, (0, 0, 0, 0), 60_000, 300_000, 0))
    return view, state


def test_the_fold_shows_the_seats_own_hand_and_every_choice_with_its_reason() -> None:
    view, state = seated_view()
    snapshot = view.snapshot()
    others = {str(card) for seat, hand in enumerate(state.hands) if seat != SEAT for card in hand}
    assert set(snapshot["deal"]["hand"]) == {str(card) for card in state.hands[SEAT]}
    text = str({**snapshot, "deal": {**snapshot["deal"], "hand": []}})
    assert not any(f"'{card}'" in text for card in others)  # no other seat's card, anywhere
    assert snapshot["deal"]["auction"] == [{"seat": 0, "bid": "brand"}]
    choices = snapshot["request"]["choices"]
    legal = [choice["action"] for choice in choices if choice["legal"]]
    assert legal == [str(action) for action in state.legal_actions()]
    assert all(choice["reason"] for choice in choices if not choice["legal"])
    assert snapshot["request"]["move_ms"] == 60_000


def test_a_rejection_opens_the_decision_again_and_the_end_is_final() -> None:
    view, _ = seated_view()
    view.sent()
    assert view.snapshot()["request"]["sent"] is True
    view.add(Rejected(7, RejectCode.ILLEGAL, "not a legal bid"))
    assert view.snapshot()["request"]["sent"] is False
    assert view.snapshot()["rejected"] == {"code": "illegal", "reason": "not a legal bid"}
    view.add(MatchOver("m_1", MatchStatus.FINISHED, (1, 2, -3, 0), (2, 1, 4, 3), ()))
    assert view.final
    assert view.snapshot()["request"] is None


def room_with_person() -> tuple[TableRoom, WebTable, PersonAtTable, Session]:
    room = TableRoom(cast("TablesReferee", object()), people_token="tok")
    plan = TablePlan(
        "standard", 2, (SeatPlan(SeatKind.SAMPLE, "random"), SeatPlan(SeatKind.PERSON))
    )
    table = WebTable("00112233aabbccdd", plan)
    view, _ = seated_view()
    session = Session()
    person = PersonAtTable(SEAT, "ann", "secret", view, cast("PersonSeat", session))
    table.people[SEAT] = person
    return room, table, person, session


def refused(call: object, status: HTTPStatus) -> str:
    assert isinstance(call, TableRefusedError), call
    assert call.status == status
    assert "\n" not in call.reason
    return call.reason


def test_a_move_is_sent_once_and_moves_outside_the_rules_are_refused() -> None:
    room, table, person, session = room_with_person()
    with pytest.raises(TableRefusedError) as wrong_request:
        room.act(table, person, 6, "pass")
    assert "the open one is 7" in refused(wrong_request.value, HTTPStatus.CONFLICT)
    with pytest.raises(TableRefusedError) as illegal:
        room.act(table, person, 7, "brand")
    assert "R5.3" in refused(illegal.value, HTTPStatus.UNPROCESSABLE_ENTITY)
    with pytest.raises(TableRefusedError) as garbled:
        room.act(table, person, 7, "<script>")
    assert "<" not in refused(garbled.value, HTTPStatus.BAD_REQUEST)  # nothing echoed
    assert session.sent == []
    assert room.act(table, person, 7, "pass") == PASS
    assert session.sent == [(7, PASS)]
    with pytest.raises(TableRefusedError) as twice:
        room.act(table, person, 7, "pass")
    refused(twice.value, HTTPStatus.CONFLICT)
    assert session.sent == [(7, PASS)]


def test_the_people_token_is_asked_when_the_server_has_one() -> None:
    room, *_ = room_with_person()
    room.check_token("tok")
    with pytest.raises(TableRefusedError) as refusal:
        room.check_token("guess")
    assert "ask its operator" in refused(refusal.value, HTTPStatus.FORBIDDEN)
