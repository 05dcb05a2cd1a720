"""Traversal and malformed addresses, in-process over a real season's data: each gets a 4xx
with one line saying why, never a file's content, a trace or a 500; and no id or name in the
path reaches a file name (an audit hook sees every file the app opens meanwhile).

Starlette's TestClient sends what an HTTP client library lets it (it drops ``..`` segments
and refuses a URL over 64 KB); :func:`tests.web.addresses.asgi_get` sends the rest byte for
byte. tests/web/pages/test_web_process.py sends the same lists to a real `brandeln web`.
"""

from __future__ import annotations

import asyncio
import html
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from brandeln.web.app import StorageLocation, create_app
from tests.web.addresses import (
    APP_BASE,
    BAD_PAGES,
    HUGE_QUERY,
    PATH_IDS,
    PATH_KINDS,
    STATIC_ESCAPES,
    AsgiReply,
    asgi_get,
    no_file_content,
    refusal_line,
)
from tests.web.pages.conftest import SeasonData


@pytest.fixture(scope="module")
def app(season_data: SeasonData) -> Starlette:
    return create_app(StorageLocation(data=season_data.data))


@pytest.fixture
def client(app: Starlette) -> Iterator[TestClient]:
    with TestClient(app, base_url=APP_BASE, raise_server_exceptions=False) as opened:
        yield opened


def get(app: Starlette, target: bytes) -> AsgiReply:
    return asyncio.run(asgi_get(app, target))


def test_the_static_files_are_served(client: TestClient, app: Starlette) -> None:
    assert client.get("/static/style.css").status_code == 200
    assert get(app, b"/static/vendor/chart.js/chart.umd.min.js").status == 200


@pytest.mark.parametrize("target", STATIC_ESCAPES, ids=repr)
def test_no_way_out_of_the_static_folder(client: TestClient, app: Starlette, target: bytes) -> None:
    raw = get(app, target)
    assert raw.status in {400, 404}, raw.text[:300]
    refusal_line(raw.status, raw.headers["content-type"], raw.text)
    reply = client.get(target.decode())  # as a client library sends it
    assert reply.status_code in {400, 404}
    assert no_file_content(reply.text)


@pytest.mark.parametrize("kind", PATH_KINDS)
@pytest.mark.parametrize("target", PATH_IDS, ids=lambda target: repr(target[:40]))
def test_ids_and_names_in_the_path_that_look_like_files_are_not_found(
    app: Starlette, kind: str, target: bytes
) -> None:
    raw = get(app, f"/{kind}/".encode() + target)
    assert raw.status in {400, 404, 414}, raw.text[:300]
    refusal_line(raw.status, raw.headers["content-type"], raw.text)


class OpenedFiles:
    """Every file name the process opens, lists or connects to while :attr:`on`."""

    EVENTS = frozenset({"open", "os.listdir", "os.scandir", "sqlite3.connect", "os.open"})

    def __init__(self) -> None:
        self.on = False
        self.names: list[str] = []
        sys.addaudithook(self.hook)  # for good (a hook cannot be removed): off when not asked

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if self.on and event in self.EVENTS and args:
            self.names.append(str(args[0]))


@pytest.fixture(scope="module")
def opened_files() -> OpenedFiles:
    return OpenedFiles()


PROBES = (
    "m_fileprobe0000000",  # an id of the referee's form that no store holds
    "bot_fileprobe0",
    "fileprobe..%5c..%5cwin.ini",
    "..%5cfileprobe",
    "fileprobe%00.jsonl",
)


def test_no_id_or_name_in_the_path_reaches_a_file_name(
    app: Starlette, opened_files: OpenedFiles, season_data: SeasonData
) -> None:
    opened_files.names.clear()
    opened_files.on = True
    try:
        for kind in PATH_KINDS:
            for probe in PROBES:
                reply = get(app, f"/{kind}/{probe}".encode())
                assert reply.status in {400, 404}, (kind, probe)
        # A path of the same forms that does reach files: the hook sees them.
        assert get(app, f"/matches/{season_data.match_ids(season_data.season)[0]}".encode())
    finally:
        opened_files.on = False
    assert any(name.endswith(".jsonl") for name in opened_files.names)  # the real match's log
    assert [name for name in opened_files.names if "fileprobe" in name or "win.ini" in name] == []


@pytest.mark.parametrize("query", BAD_PAGES, ids=lambda query: repr(query[:30]))
def test_a_page_number_that_is_no_page_number_gets_a_400(
    client: TestClient, app: Starlette, season_data: SeasonData, query: bytes
) -> None:
    bot_id = season_data.bot_ids(season_data.season)["random"]
    for path in ("/", f"/seasons/{season_data.season}", f"/bots/{bot_id}"):
        raw = get(app, f"{path}?".encode() + query)
        assert raw.status == 400, (path, query)
        assert "page" in refusal_line(raw.status, raw.headers["content-type"], raw.text)
        reply = client.get(f"{path}?{query.decode()}")
        assert reply.status_code == 400, (path, query)
        refusal_line(reply.status_code, reply.headers["content-type"], reply.text)


def test_a_page_number_in_range_and_other_parameters_are_served(
    client: TestClient, season_data: SeasonData
) -> None:
    for query in ("page=1", "page=3", "page=100000", "utm_source=x", "page=2&other=1&other=2"):
        assert client.get(f"/?{query}").status_code == 200, query
    assert client.get(f"/seasons/{season_data.season}?page=100001").status_code == 400


def test_the_head_to_head_refuses_a_side_given_twice(
    client: TestClient, season_data: SeasonData
) -> None:
    leaderboard = f"/seasons/{season_data.season}/leaderboard"
    for query in ("a=random&a=heuristic&b=montecarlo", "a=random&b=heuristic&b=montecarlo"):
        reply = client.get(f"{leaderboard}?{query}")
        assert reply.status_code == 400, query
        assert "give it once" in refusal_line(400, reply.headers["content-type"], reply.text)


def test_huge_head_to_head_sides_and_query_strings_get_a_4xx(
    client: TestClient, app: Starlette, season_data: SeasonData
) -> None:
    leaderboard = f"/seasons/{season_data.season}/leaderboard"
    # Cut to its first 1000 characters, the side is still one bot's name repeated.
    long_side = client.get(leaderboard, params={"a": "random," * 500, "b": "heuristic"})
    assert long_side.status_code == 200
    assert "random against heuristic: " in html.unescape(long_side.text)
    for size in (10_000, 60_000):  # under the client library's limit
        reply = client.get(leaderboard, params={"a": "x" * size, "b": "random"})
        assert reply.status_code == 414
        refusal_line(414, reply.headers["content-type"], reply.text)
    for path in ("/", leaderboard):
        raw = get(app, f"{path}?".encode() + HUGE_QUERY)
        assert raw.status == 414
        refusal_line(414, raw.headers["content-type"], raw.text)


@pytest.mark.parametrize(
    "target", [b"/%zz", b"/%ff%fe", b"/%00", b"/seasons/%ff%fe", b"/seasons/%zz%00", b"/" * 3000]
)
def test_malformed_paths_get_a_4xx(client: TestClient, app: Starlette, target: bytes) -> None:
    raw = get(app, target)
    refusal_line(raw.status, raw.headers["content-type"], raw.text)
    if not target.startswith(b"//"):  # which a client library takes for a host
        reply = client.get(target.decode())
        refusal_line(reply.status_code, reply.headers["content-type"], reply.text)


@pytest.mark.parametrize(
    "query",
    [b"a=%ff%fe&b=random", b"a=%zz&b=%00", b"a=%00&b=random", b"a=random&b=" + b"%ff" * 900],
    ids=lambda query: repr(query[:24]),
)
def test_malformed_head_to_head_sides_get_a_400(
    client: TestClient, app: Starlette, season_data: SeasonData, query: bytes
) -> None:
    leaderboard = f"/seasons/{season_data.season}/leaderboard?"
    raw = get(app, leaderboard.encode() + query)
    assert raw.status == 400
    refusal_line(raw.status, raw.headers["content-type"], raw.text)
    reply = client.get(leaderboard + query.decode())
    assert reply.status_code == 400
