"""No page or event of a running match shows a card of the deal in play before it ends.

A real match, held in the middle of a deal: its bots (the heuristic sample bot) stop at the
first card to play in a deal after the first once two cards or more of it are on the table,
and wait there while the test reads everything a spectator can: the match page from the
local files, the match page through the referee's ``Admin.GetMatch`` (nothing local), the
live table's page and its event stream. Once the match is over its log tells the hands of
that deal: no card of them may have been named anywhere but the ones already played, and no
deal but those that had ended may have been shown at all.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from brandeln.arena.codec.values import card_from_pb
from brandeln.arena.logreader import read_log
from brandeln.sdk.bot import Answer
from brandeln.v1 import bot_pb2, cards_pb2
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.live import RefereeLiveSource, live_routes
from brandeln.web.replay_model import match_model
from tests.web.addresses import APP_BASE
from tests.web.browser import serve_asgi
from tests.web.matches import HOLD_S, BackgroundReferee, PatientBot, start_match, wait_for

CARD = re.compile(r"\b[CSHD][AKQJT987]\b")
REPLAY = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


@dataclass
class Gate:
    """Where the match is held: the deal in play and the cards already played in it."""

    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    deal: int = 0
    played: list[str] = field(default_factory=list)


class GateBot(PatientBot):
    """The heuristic bot; the first of the table to play a card in a deal after the first
    once two of its cards are down holds the match there until the test releases it."""

    def __init__(self, gate: Gate) -> None:
        super().__init__(0.0)
        self.gate = gate

    async def decide_async(self, request: bot_pb2.DecisionRequest) -> Answer:
        view = request.view
        played = [str(card_from_pb(c)) for trick in view.tricks for c in trick.cards]
        played += [str(card_from_pb(c)) for c in view.current_trick]
        holding = request.phase == cards_pb2.PHASE_CARD and view.deal_number >= 2
        if holding and len(played) >= 2 and not self.gate.reached.is_set():
            self.gate.deal, self.gate.played = view.deal_number, played
            self.gate.reached.set()
            await asyncio.to_thread(self.gate.release.wait, HOLD_S)
        return await super().decide_async(request)


@pytest.fixture
def chatty_live(referee: BackgroundReferee) -> Iterator[str]:
    """The live table's routes, sending a keep-alive comment whenever nothing happens for
    50 ms: one after the last event shows that the stream had nothing more to send."""
    assert referee.referee is not None
    source = RefereeLiveSource(referee.referee.address, referee.referee.admin_token)
    with serve_asgi(Starlette(routes=live_routes(source, keepalive_s=0.05))) as base:
        yield base


def cards_outside_ended_deals(page: str, ended: int) -> set[str]:
    """The cards a page names anywhere but in the replay of deals that have ended (1 to
    ``ended`` at most, each complete: a deal not ended is not in the replay at all)."""
    found = REPLAY.search(page)
    cards: set[str] = set()
    if found is not None:
        model = json.loads(found.group(1))
        numbers = [deal["number"] for deal in model["deals"]]
        assert numbers == list(range(1, len(numbers) + 1)), numbers
        assert len(numbers) <= ended, numbers
        assert all(deal["complete"] for deal in model["deals"])
        cards |= set(CARD.findall(json.dumps({**model, "deals": []})))
        page = page.replace(found.group(0), "")
    cards |= set(CARD.findall(html.unescape(re.sub(r"<[^>]+>", " ", page))))
    return cards


def read_until_quiet(url: str, deal: int, cards: int) -> list[tuple[str, Any]]:
    """The stream's messages until ``cards`` cards of ``deal`` have come and the stream then
    goes quiet (a keep-alive comment): all it had to send while the match is held."""
    messages: list[tuple[str, Any]] = []
    seen = 0
    fields: dict[str, str] = {}
    with httpx.stream("GET", url, timeout=60) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith(":") and seen >= cards:
                break
            if line:
                name, _, value = line.partition(": ")
                fields[name] = value
                continue
            if "event" in fields:
                data = json.loads(fields["data"])
                messages.append((fields["event"], data))
                if fields["event"] == "step" and data["deal"] == deal:
                    seen += data["step"]["kind"] == "card"
                elif fields["event"] == "deal" and data["number"] == deal:
                    seen = sum(step["kind"] == "card" for step in data["steps"])
            fields = {}
    return messages


def test_no_page_or_event_of_a_running_match_shows_a_card_of_the_deal_in_play(
    referee: BackgroundReferee, chatty_live: str, tmp_path: Path
) -> None:
    running_referee = referee.referee
    assert running_referee is not None
    gate = Gate()
    bots = [GateBot(gate) for _ in range(4)]
    names = ("ann", "ben", "cat", "dan")
    running = referee.call(
        start_match(running_referee, "standard", names, deals=4, seed=21, delay=0, bots=bots)
    )
    # Should the match end before the gate, the test does not wait for it in vain.
    referee.submit(wait_for(running.done)).add_done_callback(lambda _: gate.reached.set())
    nothing_local = tmp_path / "empty"
    nothing_local.mkdir()
    address, token = running_referee.address, running_referee.admin_token
    try:
        assert gate.reached.wait(120)
        assert gate.deal, "the match ended before a later deal had two cards played"
        ended = gate.deal - 1
        app = create_app(StorageLocation(data=referee.data), referee=address, admin_token=token)
        with TestClient(app, base_url=APP_BASE) as local:
            pages = {
                "match page": local.get(f"/matches/{running.match_id}"),
                "live table": local.get(f"/live/{running.match_id}"),
            }
        app = create_app(StorageLocation(data=nothing_local), referee=address, admin_token=token)
        with TestClient(app, base_url=APP_BASE) as remote:
            pages["match page through GetMatch"] = remote.get(f"/matches/{running.match_id}")
        url = f"{chatty_live}/live/{running.match_id}/events"
        messages = read_until_quiet(url, gate.deal, len(gate.played))
    finally:
        gate.release.set()
    summary = referee.call(wait_for(running.done))
    assert summary.status == "finished"

    log = running_referee.config.logs_dir / f"{running.match_id}.jsonl"
    finished = read_log(log.read_text())
    dealt = finished.deal(gate.deal).record
    hidden = {card for hand in dealt.hands for card in hand.split()} - set(gate.played)
    assert len(hidden) > 20  # the held deal's hands, but for the cards already down
    final = match_model(finished)
    for name, page in pages.items():
        assert page.status_code == 200, name
        assert cards_outside_ended_deals(page.text, ended) & hidden == set(), name
        if name.startswith("match page"):
            model = json.loads(REPLAY.findall(page.text)[0])
            assert model["deals"] == final["deals"][:ended], name  # those deals as they ended
            assert page.text.count('<tr id="deal-') == ended, name

    in_play: set[str] = set()
    for event, data in messages:
        deal = data["number"] if event == "deal" else data["deal"]
        assert deal <= gate.deal, data  # nothing of a deal to come
        if event == "deal" and data["hands"] is not None:
            assert deal <= ended, data  # hands revealed: only those of a deal that has ended
        elif deal == gate.deal:
            in_play |= set(CARD.findall(json.dumps(data)))
    assert in_play == set(gate.played)  # of the deal in play: every card down, no other
