"""Hostile text on every page, through Starlette's TestClient: stored (seasons, bots, Hello
names, versions and log text that are nothing but markup, script and template syntax) and
reflected (ids, names and the head to head's sides in the address). Each page must hold it as
text only (tests/web/hostile.py: no element, script, handler or URL scheme from the data),
and show it: escaped, not dropped."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from starlette.testclient import TestClient

from brandeln.web.app import StorageLocation, create_app
from tests.web.addresses import APP_BASE
from tests.web.hostile import HOSTILE_TEXTS, SLASHLESS_TEXTS, assert_inert, assert_inert_text
from tests.web.pages.conftest import HostileData, SeasonData


def client_of(data: Path) -> TestClient:
    app = create_app(StorageLocation(data=data))
    return TestClient(app, base_url=APP_BASE, raise_server_exceptions=False)


@pytest.fixture
def client(hostile_data: HostileData) -> Iterator[TestClient]:
    with client_of(hostile_data.data) as opened:
        yield opened


@pytest.fixture
def reflecting(season_data: SeasonData) -> Iterator[TestClient]:
    """Pages over data that holds none of the hostile text: what they show came from the
    address."""
    with client_of(season_data.data) as opened:
        yield opened


def segment(text: str) -> str:
    return quote(text, safe="")


def routable(data: HostileData) -> list[str]:
    """The seasons whose name can be in a path (a "/" in it cannot)."""
    return [season for season in data.seasons if "/" not in season]


def test_the_hostile_data_names_every_thing_with_hostile_text(hostile_data: HostileData) -> None:
    names = {text for bot in hostile_data.bots for text in (bot.registered, bot.in_season)}
    names |= {text for bot in hostile_data.bots for text in (bot.hello, bot.version)}
    assert names | set(hostile_data.seasons) == set(HOSTILE_TEXTS)
    assert all(hostile_data.match_ids(season) for season in hostile_data.seasons)


def test_stored_hostile_names_are_text_on_the_index(
    client: TestClient, hostile_data: HostileData
) -> None:
    page = client.get("/")
    assert page.status_code == 200
    registered = tuple(bot.registered for bot in hostile_data.bots)
    assert_inert(page.text, shown=(*hostile_data.seasons, *registered), where="/")


def test_stored_hostile_names_are_text_on_every_season_page(
    client: TestClient, hostile_data: HostileData
) -> None:
    in_season = tuple(bot.in_season for bot in hostile_data.bots)
    for season in routable(hostile_data):
        base = f"/seasons/{segment(season)}"
        for path in (base, f"{base}/leaderboard", f"{base}/ratings"):
            page = client.get(path)
            assert page.status_code == 200, path
            assert_inert(page.text, shown=(season, *in_season), where=path)


def test_the_head_to_head_of_hostile_bots_is_text_on_the_leaderboard(
    client: TestClient, hostile_data: HostileData
) -> None:
    season = routable(hostile_data)[0]
    a, b, c, d = (bot.in_season for bot in hostile_data.bots)
    # The side names are split at commas: none of the hostile names holds one.
    query = urlencode({"a": f"{a}, {b}", "b": f"{c},{d}"})
    page = client.get(f"/seasons/{segment(season)}/leaderboard?{query}")
    assert page.status_code == 200
    assert 'id="versus-result"' in page.text
    assert_inert(page.text, shown=(a, b, c, d, f"{a}, {b}"), where="head to head")


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_hostile_head_to_head_sides_in_the_query_are_escaped_on_the_400_page(
    reflecting: TestClient, season_data: SeasonData, text: str
) -> None:
    query = urlencode({"a": text, "b": f"{text}x"})
    page = reflecting.get(f"/seasons/{season_data.season}/leaderboard?{query}")
    assert page.status_code == 400
    assert_inert(page.text, shown=(text, f"{text}x"), where=query)


def test_stored_hostile_names_and_versions_are_text_on_bot_and_match_pages(
    client: TestClient, hostile_data: HostileData
) -> None:
    for bot in hostile_data.bots:
        page = client.get(f"/bots/{bot.bot_id}")
        assert page.status_code == 200
        assert_inert(page.text, shown=(bot.registered, bot.in_season), where=bot.bot_id)
    everyone = [text for bot in hostile_data.bots for text in (bot.registered, bot.hello)]
    versions = [bot.version for bot in hostile_data.bots]
    for season in hostile_data.seasons:
        match_id = hostile_data.match_ids(season)[0]
        page = client.get(f"/matches/{match_id}")
        assert page.status_code == 200
        assert_inert(page.text, shown=(*everyone, *versions), where=match_id)
        replay = page.text.split('<script type="application/json" id="replay-data">')[1]
        model = json.loads(replay.split("</script>")[0])
        assert sorted(seat["version"] for seat in model["seats"]) == sorted(versions)


# A name with a "/" is no season's path: the next test has it as a page that does not exist.
@pytest.mark.parametrize(
    "text", [text for text in (*HOSTILE_TEXTS, *SLASHLESS_TEXTS) if "/" not in text]
)
def test_a_hostile_season_name_in_the_url_is_escaped_on_the_404_page(
    reflecting: TestClient, text: str
) -> None:
    for path in (f"/seasons/{segment(text)}", f"/seasons/{segment(text)}/leaderboard"):
        page = reflecting.get(path)
        assert page.status_code == 404, path
        assert_inert(page.text, shown=(text,), where=path)


@pytest.mark.parametrize("text", [*HOSTILE_TEXTS, *SLASHLESS_TEXTS])
def test_a_hostile_bot_or_match_id_in_the_url_is_escaped_on_the_404_page(
    reflecting: TestClient, text: str
) -> None:
    for kind in ("bots", "matches", "seasons", "no-such-page"):
        path = f"/{kind}/{segment(text)}"
        page = reflecting.get(path)
        assert page.status_code == 404, path
        assert_inert(page.text, where=path)
        assert "Traceback" not in page.text


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_a_hostile_page_number_gets_an_escaped_400_page(reflecting: TestClient, text: str) -> None:
    for query in (urlencode({"page": text}), urlencode([("page", "1"), ("page", text)])):
        page = reflecting.get(f"/?{query}")
        assert page.status_code == 400, query
        assert_inert(page.text, where=query)


def _damage_header(log: Path, key: str, value: str) -> None:
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header[key] = value
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")


def test_hostile_text_in_a_damaged_log_is_escaped_on_the_match_and_bot_pages(
    hostile_copy: HostileData,
) -> None:
    season = hostile_copy.seasons[0]
    match_id = hostile_copy.match_ids(season)[0]
    log = next((hostile_copy.data / "embedded" / "logs").rglob(f"{match_id}.jsonl"))
    text = HOSTILE_TEXTS[2]  # "</script>...": the log's own words, quoted in the error line
    _damage_header(log, "deals", text)
    with client_of(hostile_copy.data) as client:
        match = client.get(f"/matches/{match_id}")
        bot = client.get(f"/bots/{hostile_copy.bots[0].bot_id}")
    assert match.status_code == bot.status_code == 200
    assert 'id="log-error"' in match.text
    assert_inert(match.text, shown=(text,), where="match page")
    assert "log not read" in bot.text
    assert_inert(bot.text, shown=(text,), where="bot page")


def test_hostile_text_in_a_damaged_database_is_escaped_on_the_500_page(
    hostile_copy: HostileData,
) -> None:
    text = HOSTILE_TEXTS[1]
    with sqlite3.connect(hostile_copy.data / "ladder.db") as db:
        db.execute("UPDATE seasons SET status = ?", (text,))
    db.close()
    with client_of(hostile_copy.data) as client:
        page = client.get("/")
    assert page.status_code == 500
    assert "The data cannot be read" in page.text
    assert_inert(page.text, shown=(text,), where="data error")


def test_an_overlong_or_broken_address_gets_a_plain_text_line(reflecting: TestClient) -> None:
    for path in ("/seasons/" + "<script>" * 400, "/matches/%3Cscript%3E%00"):
        reply = reflecting.get(path)
        assert reply.status_code in {400, 414}, path
        assert reply.headers["content-type"].startswith("text/plain")
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert_inert_text(reply.text, where=path)
        assert reply.text.count("\n") == 1
