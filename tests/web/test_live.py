"""The live table against a real running match: an embedded referee in a thread of its own,
patient heuristic bots (a short wait before each answer), brandeln/web/live.py's routes under
uvicorn.

The stream is read twice, as a browser that reconnects reads it (``Last-Event-ID``); a real
Chromium watches a second match play, with a MutationObserver that records any card face
inside a hand while the deal shown is live.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx2 as httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from brandeln.arena.logreader import read_log
from brandeln.web.live import RETRY_MS, RefereeLiveSource, live_routes
from brandeln.web.replay_model import match_model
from brandeln.web.templating import STATIC_DIR
from tests.web.browser import screenshot_path, serve_asgi
from tests.web.matches import HOLD_S, BackgroundReferee, RunningMatch, start_match, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Dialog, Page

CARD = re.compile(r'"([CSHD][AKQJT987])"')


@dataclass
class Message:
    id: int | None
    event: str
    data: Any


def _web(referee: BackgroundReferee, keepalive_s: float) -> Iterator[str]:
    assert referee.referee is not None
    source = RefereeLiveSource(referee.referee.address, referee.referee.admin_token)
    app = Starlette(
        routes=[
            *live_routes(source, static_prefix="/static", keepalive_s=keepalive_s),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ]
    )
    with serve_asgi(app) as base:
        yield base


@pytest.fixture
def web(referee: BackgroundReferee) -> Iterator[str]:
    yield from _web(referee, keepalive_s=15.0)


@pytest.fixture
def chatty_web(referee: BackgroundReferee) -> Iterator[str]:
    """Keep-alive comments far more often than the bots move."""
    yield from _web(referee, keepalive_s=0.01)


HOSTILE = "<script>alert(1)</script>"


def _start(
    referee: BackgroundReferee,
    delay: float,
    deals: int = 2,
    names: tuple[str, ...] = ("ann", "ben", "cat", "dan"),
    hold: threading.Event | None = None,
) -> RunningMatch:
    assert referee.referee is not None
    return referee.call(
        start_match(
            referee.referee, "standard", names, deals=deals, seed=21, delay=delay, hold=hold
        )
    )


@dataclass
class Stream:
    messages: list[Message]
    retries: list[str]  # the retry: lines
    comments: list[str]  # the keep-alive lines


def read_stream(url: str, last_event_id: int | None = None, stop_at: int | None = None) -> Stream:
    """An SSE stream until it ends, or until the message with id ``stop_at`` (then the
    connection is dropped, as by a lost network)."""
    headers = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
    stream = Stream([], [], [])
    fields: dict[str, str] = {}
    with httpx.stream("GET", url, headers=headers, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith(":"):
                stream.comments.append(line)
            elif line:
                name, _, value = line.partition(": ")
                if name == "retry":
                    stream.retries.append(value)
                else:
                    fields[name] = value
            else:
                if "event" in fields:
                    event_id = int(fields["id"]) if "id" in fields else None
                    data = json.loads(fields["data"])
                    stream.messages.append(Message(event_id, fields["event"], data))
                    if stop_at is not None and event_id is not None and event_id >= stop_at:
                        break
                fields = {}
    return stream


def test_the_stream_is_public_until_deal_end_and_a_reconnect_resumes_without_duplicates(
    referee: BackgroundReferee, web: str
) -> None:
    running = _start(referee, delay=0.03)
    url = f"{web}/live/{running.match_id}/events"
    before = read_stream(url, stop_at=8)  # then the connection drops
    assert before.retries == [str(RETRY_MS)]
    first = before.messages
    last = first[-1].id
    assert last == 8
    second = read_stream(url, last_event_id=last).messages
    summary = referee.call(wait_for(running.done))
    assert summary.status == "finished"
    messages = first + second
    ids = [m.id for m in messages if m.id is not None]
    assert ids == list(range(1, len(ids) + 1))  # every event once, in order: none twice
    assert second[0].id == last + 1
    assert messages[-1].event == "end"
    assert messages[-1].data["status"] == "finished"
    assert messages[-1].data["balances"] == list(summary.balances)

    played: dict[int, set[str]] = {}
    revealed: list[dict[str, Any]] = []
    for message in messages[:-1]:
        if message.event == "deal" and message.data["hands"] is not None:
            revealed.append(message.data)  # DealEnded: now every hand may be told
            continue
        deal = message.data["number"] if message.event == "deal" else message.data["deal"]
        steps = message.data["steps"] if message.event == "deal" else [message.data["step"]]
        cards = played.setdefault(deal, set())
        cards.update(s["card"] for s in steps if s["kind"] == "card")
        if message.event == "deal":
            assert message.data["hands"] is None
            assert message.data["blind"] == []
        # no card of a hand but those already played: nothing else names a card
        assert set(CARD.findall(json.dumps(message.data))) <= cards, message
    log = referee.referee.config.logs_dir / f"{running.match_id}.jsonl"  # type: ignore[union-attr]
    model = match_model(read_log(log.read_text()))
    assert revealed == model["deals"]  # the deals revealed live are the log's, replayed
    assert len(revealed) == summary.deals_played == 2


def test_a_silent_stream_sends_keepalive_comments_between_events(
    referee: BackgroundReferee, chatty_web: str
) -> None:
    running = _start(referee, delay=0.2, deals=1)
    stream = read_stream(f"{chatty_web}/live/{running.match_id}/events")
    referee.call(wait_for(running.done))
    assert stream.comments
    assert set(stream.comments) == {": keep-alive"}
    ids = [m.id for m in stream.messages if m.id is not None]
    assert ids == list(range(1, len(ids) + 1))  # the pending read survived every silence
    assert stream.messages[-1].event == "end"


def test_an_unknown_match_has_no_page_and_no_stream(web: str) -> None:
    assert httpx.get(f"{web}/live/m_nope").status_code == 404
    # 204 tells a browser's EventSource to stop reconnecting
    assert httpx.get(f"{web}/live/m_nope/events").status_code == 204


WATCH_HANDS = """
window.__live = {violations: [], liveFrames: 0, events: new Set(), open: false};
const NativeEventSource = window.EventSource;  // to know when the page's stream is open
window.EventSource = function (url, options) {
  const source = new NativeEventSource(url, options);
  source.addEventListener("open", () => { window.__live.open = true; });
  return source;
};
window.EventSource.prototype = NativeEventSource.prototype;
document.addEventListener("DOMContentLoaded", () => {
  const check = () => {
    const root = document.getElementById("replay");
    if (!root || !root.dataset.revealed) return;
    if (root.dataset.events) window.__live.events.add(root.dataset.events);
    if (root.dataset.revealed !== "false") return;
    const faces = root.querySelectorAll(".rp-hand [data-card]");
    if (faces.length) {
      window.__live.violations.push(root.dataset.events + ": " +
        Array.from(faces).map(n => n.dataset.card).join(" "));
    } else if (root.querySelectorAll(".rp-hand .rp-back").length) {
      window.__live.liveFrames += 1;
    }
  };
  new MutationObserver(check).observe(document.body,
    {subtree: true, childList: true, attributes: true, characterData: true});
});
"""


def test_a_browser_watches_a_match_play_and_sees_no_hidden_hand_before_deal_end(
    referee: BackgroundReferee, web: str, page: Page
) -> None:
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def refuse(dialog: Dialog) -> None:  # an alert() would mean a bot name ran as code
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    page.add_init_script(WATCH_HANDS)
    # The bots wait until the page's event stream is open: at load, Chromium can take longer
    # to open the page than the match takes to play.
    hold = threading.Event()
    running = _start(referee, delay=0.08, names=("ann", HOSTILE, "cat", "dan"), hold=hold)
    page.goto(f"{web}/live/{running.match_id}")
    try:
        page.wait_for_function("window.__live.open", timeout=HOLD_S * 1000)
    finally:
        hold.set()
    page.wait_for_selector("#replay .rp-hand .rp-back", timeout=60_000)
    page.wait_for_function("document.querySelectorAll('.rp-slot [data-card]').length > 0")
    page.screenshot(path=str(screenshot_path("live")))
    page.wait_for_selector("#replay[data-ended]", timeout=120_000)
    summary = referee.call(wait_for(running.done))
    watched = page.evaluate(
        "({violations: window.__live.violations, liveFrames: window.__live.liveFrames,"
        " events: window.__live.events.size})"
    )
    assert watched["violations"] == []
    assert watched["liveFrames"] > 10  # it did show live deals, card backs only
    assert watched["events"] > 20  # and the page moved as the events came
    assert page.locator("#replay").get_attribute("data-ended") == "finished"
    assert page.locator(".rp-deal-select option").count() == summary.deals_played
    # DealEnded revealed every hand: the last deal's first step shows them as dealt
    page.keyboard.press("Home")
    log = referee.referee.config.logs_dir / f"{running.match_id}.jsonl"  # type: ignore[union-attr]
    dealt = read_log(log.read_text()).deals()[-1].record
    for seat in range(4):
        shown = page.locator(f'.rp-seat[data-seat="{seat}"] .rp-hand [data-card]').evaluate_all(
            "nodes => nodes.map(n => n.dataset.card)"
        )
        assert sorted(shown) == sorted(dealt.hands[seat].split())
    assert page.locator('.rp-seat[data-seat="1"] .rp-name').inner_text() == HOSTILE
    assert errors == []
    assert dialogs == []  # the name never ran as code
