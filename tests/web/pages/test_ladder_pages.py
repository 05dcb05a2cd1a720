"""The always-on ladder's pages through Starlette's TestClient, over a ladder store built in
``tmp_path`` as ``brandeln ladder serve`` leaves it (``ensure_ladder``, versions, presence,
planned and recorded blocks, challenges): the index lists it apart from the seasons; its page
ranks the active versions with where each stands, greys the retired ones, lists the newest
blocks and the queue; its state.json says the same; the challenge form queues a challenge
only when the server allows it, from its own pages, within the ladder's limit; a version's
bot page shows where it stands. Every name a bot chose is hostile text somewhere here."""

from __future__ import annotations

import dataclasses
import doctest
import hashlib
import html
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx2 as httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from typer.testing import CliRunner

import brandeln.ladder.living.challenge_names
import brandeln.web.app
import brandeln.web.challenge_form
import brandeln.web.ladder_presence
import brandeln.web.ladder_routes
import brandeln.web.ladders
import brandeln.web.script_json
from brandeln.cli import web_cmd
from brandeln.cli.main import app as cli_app
from brandeln.ladder.living.config import LadderConfig, new_version_rating
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.season.duplicate import DecisionLatency, block_results
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import ChallengeState, Presence
from brandeln.services.trusted_hosts import HostRefusal
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.challenge_form import MAX_DEALS, MAX_FORM_BYTES
from brandeln.web.ladder_presence import PRESENCE_FRESH_MS, ShownPresence, shown_presence
from tests.ladder.season_helpers import finished_block, season_config
from tests.web.addresses import APP_BASE
from tests.web.hostile import HOSTILE_TEXTS, SLASHLESS_TEXTS, assert_inert
from tests.web.pages.conftest import SeasonData

LADDER = "ladder"
CONFIG = LadderConfig(name=LADDER, deals_per_match=4, seed=3)
MODEL = RatingModel(CONFIG.rating)
FRESH, WIDEN = new_version_rating(CONFIG)
PER_HOUR = 2
ORIGIN = APP_BASE  # the TestClient's own origin
# Bot families named as a hostile bot would name them: markup, quotes, control characters.
HOSTILE_FAMILIES = (
    HOSTILE_TEXTS[1],  # '"><img src=x onerror=alert(1)>'
    HOSTILE_TEXTS[2],  # "</script><script>alert(2)</script>"
    "bell\x07\x1b[31mred'\"",
)


def open_ladder(store: LadderStore, name: str = LADDER) -> None:
    store.ladders.ensure_ladder(name, CONFIG.settings(), 4, {"challenges_per_hour": PER_HOUR})


def add(store: LadderStore, family: str, version: str = "1", name: str = LADDER) -> str:
    # A referee identity of the form the referee gives, the same in every run.
    bot_id = "bot_" + hashlib.sha256(f"{family}@{version}".encode()).hexdigest()[:12]
    return store.ladders.add_version(name, family, version, bot_id, FRESH, WIDEN).name


def play_block(
    store: LadderStore,
    bots: tuple[str, ...],
    *,
    name: str = LADDER,
    latency: DecisionLatency | None = None,
    challenge_id: int | None = None,
    rated: bool = True,
) -> int:
    """Plan and record a block in which ``bots[0]`` does best and ``bots[-1]`` worst."""
    index = store.planned.plan_block(
        name, bots, CONFIG.seed, "test", deals=4, rated=rated, challenge_id=challenge_id
    )
    plan, outcomes, results = finished_block(index, bots, (5, 1, -1, -5), seed=CONFIG.seed)
    if latency is not None:  # as the referee reports it, the same for every seat
        outcomes = [
            dataclasses.replace(outcome, latency=(latency,) * len(bots)) for outcome in outcomes
        ]
        results = block_results(plan, outcomes)
    record_and_rate(store, name, plan, outcomes, results, MODEL.rate_block)
    if challenge_id is not None:
        store.challenges.set_challenge(challenge_id, ChallengeState.PLAYED)
    return index


@dataclasses.dataclass(frozen=True)
class LadderData:
    data: Path
    active: tuple[str, ...]  # best first after the blocks played
    retired: str
    hostile: tuple[str, ...]  # the versions of the hostile families
    error: str  # the last error of active[1]

    def store(self) -> LadderStore:
        return LadderStore.open(self.data / "ladder.db", create=False)

    def bot_id(self, version: str) -> str:
        with self.store() as store:
            return next(v.bot_id for v in store.ladders.versions(LADDER) if v.name == version)


@pytest.fixture
def ladder_data(tmp_path: Path) -> LadderData:
    """A ladder of six versions (one retired, three of hostile families), two blocks played,
    a challenge queued and one planned, presence seen just now."""
    data = tmp_path / "data"
    data.mkdir()
    error = "block 1: 2 timeout(s) <script>alert(5)</script> " + "x" * 100
    with LadderStore.open(data / "ladder.db") as store:
        open_ladder(store)
        first = add(store, "expert")
        others = [add(store, family) for family in ("montecarlo", "random")]
        play_block(store, (first, *others, add(store, HOSTILE_FAMILIES[0])))
        newer = add(store, "expert", "2")  # retires expert@1, starts from its rating
        hostile = [f"{HOSTILE_FAMILIES[0]}@1", add(store, HOSTILE_FAMILIES[1])]
        hostile.append(add(store, HOSTILE_FAMILIES[2], "v<1>"))
        play_block(store, (newer, others[0], hostile[1], others[1]), rated=True)
        store.presence.see_versions(
            LADDER,
            {
                newer: (Presence.IDLE, 1),
                others[0]: (Presence.PLAYING, 0),
                others[1]: (Presence.AWAY, 0),
                hostile[0]: (Presence.IDLE, 2),
                hostile[1]: (Presence.IDLE, 1),
            },
        )
        store.presence.version_error(LADDER, others[0], error)
        queued = store.challenges.queue_challenge(
            LADDER, (newer, hostile[2]), deals=6, rated=False, requested_by="alice", per_hour=9
        )
        store.planned.plan_block(
            LADDER,
            (newer, hostile[2], *others),
            CONFIG.seed,
            "t",
            deals=6,
            rated=False,
            challenge_id=queued,
        )
        store.challenges.queue_challenge(
            LADDER, (hostile[0],), deals=4, rated=True, requested_by="bob", per_hour=9
        )
        ranked = sorted(
            (v for v in store.ladders.versions(LADDER) if v.active),
            key=lambda v: (-v.rating.conservative, v.name),
        )
    return LadderData(data, tuple(v.name for v in ranked), first, tuple(hostile), error)


def client_of(data: Path, *, challenges: bool = False) -> TestClient:
    return TestClient(
        create_app(StorageLocation(data=data), allow_challenges=challenges),
        base_url=APP_BASE,
        raise_server_exceptions=False,
    )


@pytest.fixture
def client(ladder_data: LadderData) -> Iterator[TestClient]:
    with client_of(ladder_data.data) as opened:
        yield opened


@pytest.fixture
def writer(ladder_data: LadderData) -> Iterator[TestClient]:
    """The app started with --challenges."""
    with client_of(ladder_data.data, challenges=True) as opened:
        yield opened


def text_of(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def table_rows(page: str, table_id: str) -> list[str]:
    """The text of each row of a table's body."""
    body = page.split(f'id="{table_id}"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [text_of(row) for row in re.findall(r"<tr.*?</tr>", body, re.DOTALL)]


def board_versions(page: str, table_id: str = "ladder-board") -> list[str]:
    body = page.split(f'id="{table_id}"', 1)[1].split("</tbody>", 1)[0]
    return [html.unescape(name) for name in re.findall(r'<tr data-version="([^"]*)"', body)]


def test_the_modules_docstring_examples_pass() -> None:
    modules = (
        brandeln.web.ladders,
        brandeln.web.ladder_presence,
        brandeln.web.script_json,
        brandeln.web.challenge_form,
        brandeln.ladder.living.challenge_names,
        brandeln.web.app,
        brandeln.web.ladder_routes,
    )
    for module in modules:
        assert doctest.testmod(module).failed == 0, module.__name__


# -- the index and the page --------------------------------------------------------------------


def test_the_index_lists_the_ladders_apart_from_the_seasons(ladder_data: LadderData) -> None:
    with LadderStore.open(ladder_data.data / "ladder.db") as store:
        store.seasons.ensure_season(season_config(name="a-season"), MODEL.initial())
    with client_of(ladder_data.data) as client:
        page = client.get("/")
    assert page.status_code == 200
    seasons = page.text.split('<table class="seasons">', 1)[1].split("</table>", 1)[0]
    assert "a-season" in seasons
    assert f"/seasons/{LADDER}" not in seasons
    [row] = table_rows(page.text, "ladders")
    assert row.startswith(f"{LADDER} serving {len(ladder_data.active)} 2 1 standard 4")
    assert f'href="/ladders/{LADDER}"' in page.text


def test_the_ladder_page_ranks_the_active_versions_with_where_each_stands(
    client: TestClient, ladder_data: LadderData
) -> None:
    page = client.get(f"/ladders/{LADDER}")
    assert page.status_code == 200
    assert board_versions(page.text) == list(ladder_data.active)
    rows = dict(zip(board_versions(page.text), table_rows(page.text, "ladder-board"), strict=True))
    assert rows["expert@2"].startswith("1 expert@2 idle ")  # expert@1's rating, first
    assert rows["montecarlo@1"].split()[2] == "playing"
    assert rows["random@1"].split()[2] == "away"
    assert "not seen yet" in rows[ladder_data.hostile[2]]  # the ladder never looked at it
    # The last error: its start in the cell, the whole in its title, with its time.
    error_row = rows["montecarlo@1"]
    assert "block 1: 2 timeout(s) <script>alert(5)</script>" in error_row
    assert "x" * 100 not in error_row
    assert f'title="{html.escape(ladder_data.error)}"' in page.text
    assert re.search(r"… \d{4}-\d\d-\d\d \d\d:\d\d UTC$", error_row)
    # Each version links to its bot page.
    bot_id = ladder_data.bot_id("expert@2")
    assert f'<a class="bot" href="/bots/{bot_id}">expert@2</a>' in page.text
    assert "serving" in text_of(page.text)


def test_retired_versions_are_listed_below_greyed_and_still_linked(
    client: TestClient, ladder_data: LadderData
) -> None:
    page = client.get(f"/ladders/{LADDER}")
    assert board_versions(page.text, "ladder-retired") == [ladder_data.retired]
    assert ladder_data.retired not in board_versions(page.text)
    retired = page.text.split('id="ladder-retired"', 1)[1].split("</table>", 1)[0]
    assert f'<tr data-version="{ladder_data.retired}" class="retired">' in retired
    assert f'href="/bots/{ladder_data.bot_id(ladder_data.retired)}"' in retired


def test_the_newest_blocks_and_the_queue_are_listed(
    client: TestClient, ladder_data: LadderData
) -> None:
    page = client.get(f"/ladders/{LADDER}")
    blocks = table_rows(page.text, "ladder-blocks")
    assert [row.split()[0] for row in blocks] == ["2", "1", "0"]  # newest first, as stored
    assert blocks[0].endswith("unrated 6 #1 playing or waiting")
    assert blocks[1].endswith("rated 4 recorded")
    queue = table_rows(page.text, "ladder-queue")
    assert len(queue) == 2
    assert queue[0].startswith("#1 planned (block 2) expert@2")
    assert "unrated 6 alice" in queue[0]
    assert queue[1].startswith("#2 queued")
    assert "rated 4 bob" in queue[1]


def test_a_presence_the_ladder_saw_over_a_minute_ago_is_unknown(
    client: TestClient, ladder_data: LadderData, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = brandeln.web.ladder_routes.now_ms() + PRESENCE_FRESH_MS + 1000
    monkeypatch.setattr(brandeln.web.ladder_routes, "now_ms", lambda: later)
    page = client.get(f"/ladders/{LADDER}")
    rows = table_rows(page.text, "ladder-board")
    seen = [row for row in rows if "unknown (ladder stopped)" in row]
    assert len(seen) == 5  # every version the ladder saw; the one it never saw is "not seen yet"
    assert not any(" idle " in row or " playing " in row for row in rows)
    assert "not serving" in text_of(page.text)
    state = client.get(f"/ladders/{LADDER}/state.json").json()
    assert state["service"] == "stopped"
    assert {row["presence"] for row in state["active"]} == {"unknown", "unseen"}


def test_presence_is_fresh_up_to_a_minute_old() -> None:
    from brandeln.ladder.store.database import VersionPresence  # noqa: PLC0415

    seen = VersionPresence("a@1", Presence.PLAYING, 0, seen_at=10_000)
    assert shown_presence(seen, 10_000 + PRESENCE_FRESH_MS) is ShownPresence.PLAYING
    assert shown_presence(seen, 10_001 + PRESENCE_FRESH_MS) is ShownPresence.UNKNOWN
    assert shown_presence(None, 0) is ShownPresence.UNSEEN


def test_the_state_json_says_what_the_page_shows(
    client: TestClient, ladder_data: LadderData
) -> None:
    reply = client.get(f"/ladders/{LADDER}/state.json")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("application/json")
    assert reply.headers["cache-control"] == "no-store"
    state = reply.json()
    assert [row["name"] for row in state["active"]] == list(ladder_data.active)
    assert [row["rank"] for row in state["active"]] == list(range(1, len(ladder_data.active) + 1))
    assert [row["name"] for row in state["retired"]] == [ladder_data.retired]
    assert [block["number"] for block in state["blocks"]] == [2, 1, 0]
    assert [c["challenge"] for c in state["queue"]] == [1, 2]
    montecarlo = next(row for row in state["active"] if row["name"] == "montecarlo@1")
    assert montecarlo["last_error"] == ladder_data.error
    assert montecarlo["presence_label"] == "playing"
    page = client.get(f"/ladders/{LADDER}")
    assert f'data-state-url="/ladders/{LADDER}/state.json"' in page.text
    assert '<script src="/static/ladder.js"></script>' in page.text


def test_what_is_no_ladder_has_no_ladder_page(ladder_data: LadderData) -> None:
    with LadderStore.open(ladder_data.data / "ladder.db") as store:
        store.seasons.ensure_season(season_config(name="a-season"), MODEL.initial())
    with client_of(ladder_data.data, challenges=True) as client:
        for path in ("/ladders/a-season", "/ladders/nothing", "/ladders/nothing/state.json"):
            reply = client.get(path)
            assert reply.status_code == 404, path
        assert "not an always-on ladder" in html.unescape(client.get("/ladders/a-season").text)
        post = client.post(
            "/ladders/a-season/challenges", data={"bot": "x"}, headers={"origin": ORIGIN}
        )
        assert post.status_code == 404


def test_a_folder_without_a_ladder_database_has_no_ladder_page(tmp_path: Path) -> None:
    with client_of(tmp_path) as client:
        assert client.get(f"/ladders/{LADDER}").status_code == 404
        assert client.get(f"/ladders/{LADDER}/state.json").status_code == 404
    assert not any(tmp_path.iterdir())


# -- hostile text ------------------------------------------------------------------------------


def test_hostile_version_names_and_errors_are_text_on_the_page_and_in_the_json(
    ladder_data: LadderData,
) -> None:
    with LadderStore.open(ladder_data.data / "ladder.db") as store:
        store.presence.version_error(LADDER, ladder_data.hostile[0], HOSTILE_TEXTS[2])
    shown = (*ladder_data.hostile, HOSTILE_TEXTS[2], ladder_data.error)
    for challenges in (False, True):  # with the form, the names are its choices too
        with client_of(ladder_data.data, challenges=challenges) as client:
            page = client.get(f"/ladders/{LADDER}")
            reply = client.get(f"/ladders/{LADDER}/state.json")
        assert page.status_code == 200
        assert_inert(page.text, shown=shown, where=f"ladder page, challenges {challenges}")
        for name in ladder_data.hostile:
            assert name not in page.text  # escaped, not passed through
        # The JSON holds them whole, with no "<" a page could ever read as markup.
        assert "<" not in reply.text
        assert ">" not in reply.text
        state = reply.json()
        names = {row["name"] for row in state["active"]}
        assert set(ladder_data.hostile) <= names
        errors = {row["last_error"] for row in state["active"]}
        assert HOSTILE_TEXTS[2] in errors
        in_blocks = {bot for block in state["blocks"] for bot in block["bots"]}
        assert ladder_data.hostile[1] in in_blocks


@pytest.mark.parametrize(
    "name", [text for text in (*HOSTILE_TEXTS, *SLASHLESS_TEXTS) if "/" not in text]
)
def test_a_ladder_with_a_hostile_name_has_its_page_and_index_row_as_text(
    tmp_path: Path, name: str
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with LadderStore.open(data / "ladder.db") as store:
        open_ladder(store, name)
        add(store, "a", name=name)
        store.presence.see_versions(name, {"a@1": (Presence.IDLE, 1)})
    segment = quote(name, safe="")
    with client_of(data) as client:
        index = client.get("/")
        page = client.get(f"/ladders/{segment}")
        state = client.get(f"/ladders/{segment}/state.json")
    assert page.status_code == state.status_code == 200
    assert_inert(index.text, shown=(name,), where="index")
    assert_inert(page.text, shown=(name,), where="ladder page")
    assert f'data-state-url="/ladders/{html.escape(segment)}/state.json"' in page.text
    assert state.json()["ladder"] == name
    # The command the page offers quotes the name for a shell.
    assert "--ladder '" in html.unescape(page.text)


# -- the challenge form ------------------------------------------------------------------------


def queued(ladder_data: LadderData) -> list[tuple[tuple[str, ...], str]]:
    with ladder_data.store() as store:
        return [(c.bots, c.requested_by) for c in store.challenges.challenges(LADDER)]


def post(client: TestClient, fields: dict[str, object], **headers: str) -> httpx.Response:
    return client.post(
        f"/ladders/{LADDER}/challenges",
        data=fields,
        headers={"origin": ORIGIN, **headers},
        follow_redirects=False,
    )


def refusal(page: str) -> str:
    found = re.search(r'<p id="challenge-refused" class="error">(.*?)</p>', page)
    assert found is not None, page[:300]
    return html.unescape(found.group(1))


def test_without_challenges_the_page_shows_the_command_and_a_post_writes_nothing(
    client: TestClient, ladder_data: LadderData
) -> None:
    before = queued(ladder_data)
    page = client.get(f"/ladders/{LADDER}")
    assert 'id="challenge-form"' not in page.text
    command = re.search(r'<code id="challenge-command">(.*?)</code>', page.text)
    assert command is not None
    # Pointed at the ladder this server reads, from whatever folder the terminal is in.
    pointed = f"brandeln challenge A B --deals 4 --data {ladder_data.data.absolute()}"
    assert html.unescape(command.group(1)) == pointed
    reply = client.post(
        f"/ladders/{LADDER}/challenges",
        data={"bot": ["expert", "random"], "rated": "on"},
        headers={"origin": ORIGIN},
    )
    assert reply.status_code == 403
    assert "brandeln web --challenges" in refusal(reply.text)
    assert refusal(reply.text).endswith(f"from a terminal: {pointed.replace(' --deals 4', '')}")
    assert queued(ladder_data) == before


def test_with_challenges_the_form_queues_one_and_goes_back_to_the_page(
    writer: TestClient, ladder_data: LadderData
) -> None:
    page = writer.get(f"/ladders/{LADDER}")
    form = page.text.split('<form id="challenge-form"', 1)[1].split("</form>", 1)[0]
    assert f'action="/ladders/{LADDER}/challenges"' in form
    assert form.count('<select name="bot">') == 4
    assert page.headers["referrer-policy"] == "same-origin"  # so the post carries its Origin
    before = queued(ladder_data)
    reply = post(writer, {"bot": ["expert", "", "random@1"], "deals": "8", "rated": "on"})
    assert reply.status_code == 303
    assert reply.headers["location"] == f"/ladders/{LADDER}?queued=3"
    assert queued(ladder_data) == [*before, (("expert@2", "random@1"), "web")]
    with ladder_data.store() as store:
        challenge = store.challenges.challenges(LADDER)[-1]
    assert (challenge.deals, challenge.rated, challenge.state) == (8, True, ChallengeState.QUEUED)
    shown = writer.get(reply.headers["location"])
    assert "Challenge #3 queued" in shown.text
    assert table_rows(shown.text, "ladder-queue")[-1].startswith("#3 queued expert@2 random@1")


def test_an_unticked_rated_box_and_no_deals_queue_an_unrated_block_of_the_ladders_deals(
    writer: TestClient, ladder_data: LadderData
) -> None:
    assert post(writer, {"bot": "montecarlo", "deals": ""}).status_code == 303
    with ladder_data.store() as store:
        challenge = store.challenges.challenges(LADDER)[-1]
    assert (challenge.bots, challenge.rated, challenge.deals) == (("montecarlo@1",), False, 4)


@pytest.mark.parametrize(
    "headers",
    [{"origin": "http://evil.example"}, {"origin": "null"}, {"origin": f"{APP_BASE}:8080"}],
)
def test_a_post_from_another_site_is_refused_and_writes_nothing(
    writer: TestClient, ladder_data: LadderData, headers: dict[str, str]
) -> None:
    before = queued(ladder_data)
    reply = post(writer, {"bot": "expert", "rated": "on"}, **headers)
    assert reply.status_code == 403
    # Refused before routing (brandeln.web.guard), as a post to any page of the app from elsewhere.
    assert reply.text == f"{HostRefusal.FOREIGN_ORIGIN.value}\n"
    assert queued(ladder_data) == before


def test_a_post_without_an_origin_is_refused(writer: TestClient, ladder_data: LadderData) -> None:
    before = queued(ladder_data)
    reply = writer.post(f"/ladders/{LADDER}/challenges", data={"bot": "expert"})
    assert reply.status_code == 403
    assert queued(ladder_data) == before


def test_a_bot_over_its_limit_per_hour_is_refused_with_the_stores_line(
    writer: TestClient, ladder_data: LadderData
) -> None:
    for _ in range(PER_HOUR):
        assert post(writer, {"bot": "random", "rated": "on"}).status_code == 303
    before = queued(ladder_data)
    reply = post(writer, {"bot": ["random", "expert"], "rated": "on"})
    assert reply.status_code == 429
    assert refusal(reply.text) == (
        f"random@1 was challenged {PER_HOUR} times in the last hour, the most a bot may be "
        f"(challenges_per_hour {PER_HOUR}); try again later"
    )
    assert queued(ladder_data) == before
    assert board_versions(reply.text) == list(ladder_data.active)  # the page, whole


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"bot": "nobody"}, "no version 'nobody' in ladder 'ladder'"),
        ({"bot": "expert@1"}, "'expert@1' is retired from ladder 'ladder'"),
        ({"bot": ["expert", "expert@2"]}, "expert@2 is named twice"),
        ({"bot": ["", ""]}, "name at least one bot to challenge"),
        ({"bot": ["expert", "random", "montecarlo", "x", "y"]}, "a block seats 4: 5 bots named"),
        ({"bot": "expert", "deals": "0"}, f"deals takes a whole number from 1 to {MAX_DEALS}"),
        ({"bot": "expert", "deals": "-3"}, "deals takes a whole number"),
        ({"bot": "expert", "deals": "4.5"}, "deals takes a whole number"),
        ({"bot": "expert", "deals": "9" * 40}, "deals takes a whole number"),
        ({"bot": "expert", "deals": ["4", "5"]}, "deals is given more than once"),
        ({"bot": ["x"] * 20}, "the form is not 16 fields of UTF-8 text at most"),
    ],
)
def test_a_bad_form_is_a_400_saying_why_and_writes_nothing(
    writer: TestClient, ladder_data: LadderData, fields: dict[str, object], says: str
) -> None:
    before = queued(ladder_data)
    reply = post(writer, fields)
    assert reply.status_code == 400
    assert says in refusal(reply.text)
    assert queued(ladder_data) == before


def test_a_form_body_too_big_or_of_another_kind_is_refused_before_it_is_read(
    writer: TestClient, ladder_data: LadderData
) -> None:
    before = queued(ladder_data)
    url = f"/ladders/{LADDER}/challenges"
    headers = {"origin": ORIGIN, "content-type": "application/x-www-form-urlencoded"}
    big = writer.post(url, content=b"bot=expert&x=" + b"a" * MAX_FORM_BYTES, headers=headers)
    assert big.status_code == 413
    assert f"at most {MAX_FORM_BYTES} bytes" in refusal(big.text)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap counts what arrives
        yield b"bot=expert&x="
        for _ in range(MAX_FORM_BYTES):
            yield b"a"

    streamed = writer.post(url, content=chunks(), headers=headers)
    assert streamed.status_code == 413
    as_json = writer.post(url, json={"bot": "expert"}, headers={"origin": ORIGIN})
    assert as_json.status_code == 415
    bad_utf8 = writer.post(url, content=b"bot=%ff%fe", headers=headers)
    assert bad_utf8.status_code == 400
    assert queued(ladder_data) == before


def test_a_bad_queued_number_in_the_address_is_a_400(client: TestClient) -> None:
    assert client.get(f"/ladders/{LADDER}?queued=x").status_code == 400
    assert client.get(f"/ladders/{LADDER}?queued=1&queued=2").status_code == 400


def test_the_web_command_turns_the_challenge_form_on_with_challenges(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    served: list[Starlette] = []

    def serve(app: Starlette, listener: socket.socket, latch: object) -> None:
        served.append(app)
        listener.close()

    monkeypatch.setattr(web_cmd, "_serve", serve)
    runner = CliRunner()
    for args, allowed in ((["--challenges"], True), ([], False)):
        result = runner.invoke(
            cli_app,
            ["web", "--data", str(tmp_path), "--port", "0", *args],
            env={"BRANDELN_ADMIN_TOKEN": ""},
        )
        assert result.exit_code == 0, result.output
        assert served[-1].state.allow_challenges is allowed
        assert ("challenge forms" in result.output) is allowed
    help_text = runner.invoke(cli_app, ["web", "--help"], env={"COLUMNS": "200"}).output
    assert "--challenges" in help_text


# -- the bot page ------------------------------------------------------------------------------


def test_a_versions_bot_page_shows_where_it_stands_in_its_ladder(
    ladder_data: LadderData,
) -> None:
    with LadderStore.open(ladder_data.data / "ladder.db") as store:
        versions = {v.name: v for v in store.ladders.versions(LADDER)}
    version = versions["montecarlo@1"]
    with client_of(ladder_data.data) as client:
        page = client.get(f"/bots/{version.bot_id}")
        retired = client.get(f"/bots/{versions[ladder_data.retired].bot_id}")
    # No referee's store here (a ladder on --referee): the page stands on the ladder's.
    assert page.status_code == 200
    assert "Bot montecarlo@1" in text_of(page.text)
    [row] = table_rows(page.text, "bot-ladders")
    rank = ladder_data.active.index("montecarlo@1") + 1
    rating = version.rating
    assert row.startswith(
        f"{LADDER} montecarlo@1 {rank} playing {rating.conservative:.2f} {rating.mu:.2f} "
        f"{rating.sigma:.2f} {version.blocks} "
    )
    assert ladder_data.error in row  # the whole of it, with its time
    assert re.search(r"UTC$", row)
    assert f'href="/ladders/{LADDER}"' in page.text
    assert_inert(page.text, shown=(ladder_data.error,), where="bot page")
    [old] = table_rows(retired.text, "bot-ladders")
    assert old.startswith(f"{LADDER} {ladder_data.retired} retired ")


def test_a_version_seen_long_ago_is_unknown_on_its_bot_page(
    ladder_data: LadderData, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(brandeln.web.ladder_routes, "now_ms", lambda: 2**50)
    with client_of(ladder_data.data) as client:
        page = client.get(f"/bots/{ladder_data.bot_id('expert@2')}")
    [row] = table_rows(page.text, "bot-ladders")
    assert "unknown (ladder stopped)" in row


def test_a_versions_bot_page_shows_its_matches_and_latency(data_copy: SeasonData) -> None:
    # A version whose referee identity played real matches in this data folder: its bot page
    # has the matches and figures of every bot page, and its ladder's own latency.
    bot_id = data_copy.bot_ids(data_copy.season)["heuristic"]
    with LadderStore.open(data_copy.data / "ladder.db") as store:
        open_ladder(store)
        version = store.ladders.add_version(LADDER, "heuristic", "7", bot_id, FRESH, WIDEN).name
        others = tuple(add(store, family) for family in ("a", "b", "c"))
        play_block(store, (version, *others), latency=DecisionLatency(40, 3, 11, 25))
        store.presence.see_versions(LADDER, {version: (Presence.IDLE, 1)})
    with client_of(data_copy.data) as client:
        page = client.get(f"/bots/{bot_id}")
    assert page.status_code == 200
    text = text_of(page.text)
    assert len(re.findall(r'class="match-id"', page.text)) >= 1  # its matches
    figures = re.search(r"decision latency p50 / p95 (\d+) ms / (\d+) ms (\d+) decisions", text)
    assert figures is not None
    assert int(figures.group(3)) > 0
    [row] = table_rows(page.text, "bot-ladders")
    assert row.startswith(f"{LADDER} heuristic@7 1 idle ")
    assert " 3 ms / 11 ms " in f" {row} "  # the ladder's, over its rated blocks
