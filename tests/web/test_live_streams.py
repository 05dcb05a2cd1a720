"""The live table's event streams are capped: past the cap a stream gets a 503 with
``Retry-After`` and one line; a stream gives its place back when it ends (before its last
message), when its browser closes it, and when the browser just goes while the match is
silent. A Last-Event-ID that is no event id is ignored, never a 500.

In-process: brandeln/web/live.py's routes under a real uvicorn (tests/web/browser.py) over a
stand-in referee whose matches stay silent until the test ends them; the test waits for the cap's
count (:meth:`brandeln.web.live.StreamSlots.wait_until_open`), never a fixed time. Then a real
`brandeln web --max-streams 1` before a real referee and a real match.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2 as httpx
import pytest
from starlette.applications import Starlette

from brandeln.arena.logrecords import HeaderRecord
from brandeln.ladder.errors import RefereeNotFoundError
from brandeln.protocol.decode import LiveEvent
from brandeln.protocol.statuses import MatchStatus
from brandeln.web.live import RETRY_MS, live_routes
from brandeln.web.stream_cap import BUSY_RETRY_AFTER_S, StreamSlots
from tests.web.browser import serve_asgi
from tests.web.hostile import HOSTILE_TEXTS, assert_inert
from tests.web.matches import BackgroundReferee, start_match, wait_for
from tests.web.web_process import WAIT_S, raw_get, web_process


@dataclass
class SilentReferee:
    """A stand-in for the referee's Admin service: every ``m_...`` match is running (its bots
    named and versioned with hostile text) and sends no event until :meth:`finish` ends it."""

    ended: dict[str, threading.Event] = field(default_factory=dict)

    def finish(self, match_id: str) -> None:
        self.ended.setdefault(match_id, threading.Event()).set()

    def finish_all(self) -> None:
        for event in self.ended.values():
            event.set()

    async def header(self, match_id: str) -> HeaderRecord:
        if not match_id.startswith("m_"):
            raise RefereeNotFoundError(f"no match {match_id}")
        seats = [
            {
                "seat": n,
                "bot_id": f"bot_{n}",
                "bot_name": HOSTILE_TEXTS[n],
                "bot_version": HOSTILE_TEXTS[n + 2],
            }
            for n in range(4)
        ]
        return HeaderRecord.from_json(
            {"match_id": match_id, "ruleset": "standard", "players": 4, "deals": 4, "seats": seats}
        )

    async def watch(self, match_id: str) -> AsyncGenerator[LiveEvent, None]:
        ended = self.ended.setdefault(match_id, threading.Event())
        # Silent for longer than any test waits (the server's teardown ends it).
        await asyncio.to_thread(ended.wait, 10 * WAIT_S)
        return
        yield  # an async generator that ends without an event

    async def status(self, match_id: str) -> tuple[MatchStatus, list[int]]:
        return MatchStatus.FINISHED, [0, 0, 0, 0]


@dataclass
class Live:
    base: str
    slots: StreamSlots
    referee: SilentReferee

    def url(self, match_id: str) -> str:
        return f"{self.base}/live/{match_id}/events"


@contextmanager
def live_server(cap: int) -> Iterator[Live]:
    referee = SilentReferee()
    slots = StreamSlots(cap)
    # Keep-alives far apart: a browser that goes must be seen without one.
    app = Starlette(routes=live_routes(referee, keepalive_s=3600, slots=slots))
    with serve_asgi(app) as base:
        try:
            yield Live(base, slots, referee)
        finally:
            referee.finish_all()  # before the server stops: it waits for its threads


@contextmanager
def open_stream(url: str) -> Iterator[Iterator[str]]:
    """A stream on a connection of its own, read up to its ``retry:`` line (it holds its
    place then); its lines from there. Closing it drops the connection, as a browser's tab
    closed."""
    with httpx.Client(timeout=WAIT_S) as client, client.stream("GET", url) as reply:
        assert reply.status_code == 200, reply.read()
        lines = reply.iter_lines()  # kept: a dropped iterator would close the response
        assert next(lines) == f"retry: {RETRY_MS}"
        yield lines


def refused(url: str) -> httpx.Response:
    reply = httpx.get(url, timeout=WAIT_S)
    assert reply.status_code == 503
    assert reply.headers["retry-after"] == str(BUSY_RETRY_AFTER_S)
    assert reply.headers["content-type"].startswith("text/plain")
    assert reply.text.count("\n") == 1
    return reply


def test_a_stream_past_the_cap_gets_a_503_with_retry_after_and_one_line() -> None:
    with live_server(cap=3) as live, ExitStack() as streams:
        for n in range(3):
            streams.enter_context(open_stream(live.url(f"m_{n}")))
        assert live.slots.open == 3
        reply = refused(live.url("m_3"))
        assert "too many live streams: this server serves 3 at once" in reply.text
        assert live.slots.open == 3  # the refused one took no place


def test_a_stream_closed_by_its_browser_frees_its_place_for_the_next() -> None:
    with live_server(cap=2) as live, ExitStack() as kept:
        kept.enter_context(open_stream(live.url("m_kept")))
        with open_stream(live.url("m_closed")):
            refused(live.url("m_next"))
        # The match is silent: nothing is sent that could fail, the disconnect is seen.
        assert live.slots.wait_until_open(1, timeout=WAIT_S)
        with open_stream(live.url("m_next")):
            assert live.slots.open == 2


def test_a_stream_whose_browser_just_goes_frees_its_place() -> None:
    with live_server(cap=1) as live:
        with httpx.Client(timeout=WAIT_S) as client:
            reply = client.send(client.build_request("GET", live.url("m_gone")), stream=True)
            assert reply.status_code == 200
            lines = reply.iter_lines()
            assert next(lines) == f"retry: {RETRY_MS}"
        # The client is gone without reading on or closing the response first.
        assert live.slots.wait_until_open(0, timeout=WAIT_S)
        with open_stream(live.url("m_next")):
            pass


def test_a_stream_that_ends_gives_its_place_back_before_its_last_message() -> None:
    with live_server(cap=1) as live:
        with open_stream(live.url("m_over")) as stream:
            refused(live.url("m_next"))
            live.referee.finish("m_over")
            assert "event: end" in list(stream)
        # No waiting: whoever has read the last message finds the place free.
        with open_stream(live.url("m_next")):
            pass


# Header values are read as Latin-1: "²" is one byte, and a digit to str.isdigit.
@pytest.mark.parametrize("last_event_id", ["²", "1³", "9" * 5000, "-1", "1e3", "0x10", ""])
def test_a_last_event_id_that_is_no_event_id_is_ignored(last_event_id: str) -> None:
    with live_server(cap=1) as live:
        live.referee.finish("m_1")  # its stream ends at once: read whole
        port = int(live.base.rsplit(":", 1)[1])
        reply = raw_get(port, b"/live/m_1/events", [("Last-Event-ID", last_event_id)])
        assert reply.status == 200
        assert reply.text.startswith(f"retry: {RETRY_MS}")
        assert "event: end" in reply.text


@pytest.mark.parametrize("match_id", ["..", "%2e%2e", "%00", "m_x%00", "%ff%fe", "x" * 200])
def test_an_id_of_no_match_form_gets_no_stream_and_takes_no_place(match_id: str) -> None:
    with live_server(cap=1) as live:
        reply = httpx.get(live.url(match_id), timeout=WAIT_S)
        assert reply.status_code in {204, 404}
        page = httpx.get(f"{live.base}/live/{match_id}", timeout=WAIT_S)
        assert page.status_code == 404
        assert live.slots.open == 0


def test_brandeln_web_caps_its_live_streams_at_max_streams(
    referee: BackgroundReferee, tmp_path: Path
) -> None:
    running_referee = referee.referee
    assert running_referee is not None
    args = ["--data", str(tmp_path), "--referee", running_referee.address, "--max-streams", "1"]
    token = {"BRANDELN_ADMIN_TOKEN": running_referee.admin_token}
    hold = threading.Event()  # the bots play once the test has seen the cap
    with web_process(args, env=token) as web:
        running = referee.call(
            start_match(running_referee, "standard", "abcd", deals=1, seed=3, delay=0, hold=hold)
        )
        try:
            url = f"{web.base}/live/{running.match_id}/events"
            with open_stream(url) as first:
                reply = refused(url)
                assert "serves 1 at once" in reply.text
                hold.set()
                assert "event: end" in list(first)
            with open_stream(url) as after:  # the match is over: its end at once
                assert "event: end" in list(after)
        finally:
            hold.set()
            referee.call(wait_for(running.done))


def test_the_live_table_page_holds_hostile_names_and_versions_as_text() -> None:
    with live_server(cap=1) as live:
        page = httpx.get(f"{live.base}/live/m_1", timeout=WAIT_S)
        unknown = httpx.get(f"{live.base}/live/{HOSTILE_TEXTS[1]}", timeout=WAIT_S)
    assert page.status_code == 200
    assert_inert(page.text, shown=HOSTILE_TEXTS, where="live table")
    assert unknown.status_code == 404
    assert HOSTILE_TEXTS[1] not in unknown.text
