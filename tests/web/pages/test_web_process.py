"""The same bad addresses against a real `brandeln web` process (uvicorn on 127.0.0.1, a free
port), sent byte for byte over a socket: every one gets a 4xx with one line saying why, never
a file's content, and the server prints no trace meanwhile."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.web.addresses import (
    BAD_PAGES,
    HUGE_QUERY,
    PATH_IDS,
    PATH_KINDS,
    STATIC_ESCAPES,
    refusal_line,
)
from tests.web.pages.conftest import SeasonData
from tests.web.web_process import RawReply, WebProcess, raw_get, web_process


@pytest.fixture(scope="module")
def web(season_data: SeasonData) -> Iterator[WebProcess]:
    with web_process(["--data", str(season_data.data)]) as running:
        yield running
    # Stopped: whatever it was sent, it printed no trace.
    assert "Traceback" not in running.rest()


def assert_refused(reply: RawReply, where: object) -> None:
    assert 400 <= reply.status < 500, (where, reply.status, reply.text[:300])
    refusal_line(reply.status, reply.headers.get("content-type", "text/plain"), reply.text)


def test_the_real_server_serves_its_pages_and_static_files(
    web: WebProcess, season_data: SeasonData
) -> None:
    assert raw_get(web.port, b"/").status == 200
    assert raw_get(web.port, f"/seasons/{season_data.season}".encode()).status == 200
    assert raw_get(web.port, b"/static/style.css").status == 200


def test_no_way_out_of_the_static_folder_of_the_real_server(web: WebProcess) -> None:
    for target in STATIC_ESCAPES:
        assert_refused(raw_get(web.port, target), target)


def test_ids_that_look_like_files_are_not_found_by_the_real_server(web: WebProcess) -> None:
    for kind in PATH_KINDS:
        for target in PATH_IDS:
            assert_refused(raw_get(web.port, f"/{kind}/".encode() + target), (kind, target[:40]))


def test_bad_page_numbers_and_huge_queries_get_a_4xx_from_the_real_server(
    web: WebProcess, season_data: SeasonData
) -> None:
    for path in ("/", f"/seasons/{season_data.season}"):
        for query in BAD_PAGES:
            reply = raw_get(web.port, f"{path}?".encode() + query)
            assert reply.status == 400, (path, query)
            assert_refused(reply, (path, query))
    leaderboard = f"/seasons/{season_data.season}/leaderboard?".encode()
    for query in (HUGE_QUERY, b"a=" + b"x" * 10_000 + b"&b=random", b"a=x&a=y&b=random"):
        assert_refused(raw_get(web.port, leaderboard + query), query[:30])


def test_malformed_paths_get_a_4xx_from_the_real_server(web: WebProcess) -> None:
    for target in (b"/%zz", b"/%ff%fe", b"/%00", b"/seasons/%ff%fe", b"//" * 2000, b"/a" * 2000):
        assert_refused(raw_get(web.port, target), target[:30])
