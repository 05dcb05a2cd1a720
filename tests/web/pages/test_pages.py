"""Every page over a real season's data, through Starlette's TestClient: what it shows, a
clear 404 for unknown ids, and a clear line (not a trace) for damaged data."""

from __future__ import annotations

import doctest
import html
import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from starlette.testclient import TestClient

import brandeln.web.app
import brandeln.web.data
import brandeln.web.inputs
import brandeln.web.listing
from brandeln.arena.logreader import LogRecord, MatchLog
from brandeln.arena.logrecords import DealRecord, DecisionRecord, HeaderRecord
from brandeln.arena.replay import engine_deal
from brandeln.engine.play_analysis import SeatPlay, analyse_play
from brandeln.ladder.ratings.leaderboard import season_leaderboard
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.ratings.versus import HeadToHead, head_to_head
from brandeln.ladder.store.database import LadderStore
from brandeln.protocol.events import DealEndedRecord, EventRecord
from brandeln.protocol.statuses import SeatOutcome
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.bot_figures import log_figures
from brandeln.web.data import DataError
from brandeln.web.matches import match_view
from brandeln.web.replay_model import match_model
from brandeln.web.stores import AppStores
from tests.ladder.season_helpers import season_config
from tests.web.addresses import APP_BASE
from tests.web.pages.conftest import BLOCKS, HOSTILE, SeasonData


def client_of(data: Path) -> TestClient:
    app = create_app(StorageLocation(data=data))
    return TestClient(app, base_url=APP_BASE, raise_server_exceptions=False)


@pytest.fixture
def client(season_data: SeasonData) -> Iterator[TestClient]:
    with client_of(season_data.data) as opened:
        yield opened


def text_of(page: str) -> str:
    """The page's text as a reader sees it (tags dropped, entities decoded, spaces joined)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def match_links(page: str) -> list[str]:
    return re.findall(r'class="match-id" href="/matches/([^"]+)"', page)


def test_web_modules_doctests_pass() -> None:
    for module in (brandeln.web.app, brandeln.web.data, brandeln.web.inputs, brandeln.web.listing):
        assert doctest.testmod(module).failed == 0


def test_index_lists_the_seasons_with_status_and_blocks_and_the_newest_matches(
    client: TestClient, season_data: SeasonData
) -> None:
    page = client.get("/")
    assert page.status_code == 200
    text = text_of(page.text)
    assert f"{season_data.season} finished {BLOCKS} / {BLOCKS}" in text
    assert f"{season_data.hostile_season} finished 2 / 2" in text
    every = season_data.match_ids(season_data.season) + season_data.match_ids(
        season_data.hostile_season
    )
    assert sorted(match_links(page.text)) == sorted(every)  # 24 matches: one page


def test_matches_are_paged_newest_first(season_data: SeasonData) -> None:
    with AppStores(StorageLocation(data=season_data.data)).open() as stores:
        pages = []
        for number in (1, 2, 3):
            rows, paging = brandeln.web.listing.recent_matches(stores, number, per_page=8)
            pages.append((rows, paging))
        every = [row for store in stores.referees for row in store.matches(limit=100)]
    ids = [row.match_id for rows, _ in pages for row in rows]
    assert (
        ids == [m.match_id for m in sorted(every, key=lambda m: (m.started_at, m.match_id))][::-1]
    )
    assert [(p.has_previous, p.has_next) for _, p in pages] == [
        (False, True),
        (True, True),
        (True, False),
    ]
    assert len(pages[2][0]) == 8


def test_leaderboard_shows_the_figures_of_brandeln_ratings(
    client: TestClient, season_data: SeasonData
) -> None:
    page = client.get(f"/seasons/{season_data.season}/leaderboard")
    assert page.status_code == 200
    with LadderStore.open(season_data.data / "ladder.db", create=False) as store:
        rows = season_leaderboard(store, season_data.season)
    ids = season_data.bot_ids(season_data.season)
    body = page.text.split("<tbody>")[1].split("</tbody>")[0]  # the leaderboard's table
    cells = [text_of(row) for row in body.split("<tr>")[1:]]
    assert len(cells) == len(rows) == 4
    for cell, row in zip(cells, rows, strict=True):
        interval = row.chips_per_deal
        assert interval is not None
        assert interval.half_width is not None
        assert cell.startswith(
            f"{row.rank} {row.bot} {row.conservative:.2f} {row.mu:.2f} {row.sigma:.2f} "
        )
        # The batch ratings come next (tests/web/pages/test_role_figures.py), then these.
        assert f" {row.blocks} {interval.mean:+.2f} ±{interval.half_width:.2f}" in cell
        assert f'href="/bots/{ids[row.bot]}"' in page.text
    assert "/static/vendor/tablesort/tablesort.min.js" in page.text


def gap_line(gap: HeadToHead) -> str:
    """The head to head as the page words it (``brandeln ratings --versus``'s line)."""
    d = gap.difference
    sides = f"{' + '.join(gap.a)} against {' + '.join(gap.b)}"
    if d is None:
        return f"{sides}: no block where both played"
    spread = "" if d.half_width is None else f" ± {d.half_width:.2f}"
    blocks = f"{gap.blocks} block{'' if gap.blocks == 1 else 's'}"
    return f"{sides}: {d.mean:+.2f}{spread} chips per deal (95% CI over {blocks})"


def test_the_leaderboard_sets_every_pair_of_bots_and_any_two_sides_head_to_head(
    client: TestClient, season_data: SeasonData
) -> None:
    season = season_data.season
    with LadderStore.open(season_data.data / "ladder.db", create=False) as store:
        results = store.reads.results(season, rated_only=True)
        bots = [row.bot for row in season_leaderboard(store, season)]
    page = client.get(f"/seasons/{season}/leaderboard")
    assert page.status_code == 200
    cells = re.findall(r'<td class="num (ahead|behind|even)" title="([^"]*)">', page.text)
    expected = []
    for a in bots:
        for b in bots:
            if a != b:
                gap = head_to_head(results, (a,), (b,))
                d = gap.difference
                assert d is not None
                assert d.low is not None
                assert d.high is not None
                shade = "ahead" if d.low > 0 else "behind" if d.high < 0 else "even"
                expected.append((shade, gap_line(gap)))
    assert [(shade, html.unescape(title)) for shade, title in cells] == expected

    sides = {"a": "random, random-2", "b": "heuristic,montecarlo"}
    asked = client.get(f"/seasons/{season}/leaderboard", params=sides)
    result = re.search(r'<p id="versus-result" class="\w+">(.*?)</p>', asked.text)
    assert asked.status_code == 200
    assert result is not None
    gap = head_to_head(results, ("random", "random-2"), ("heuristic", "montecarlo"))
    assert html.unescape(result.group(1)) == gap_line(gap)
    assert 'value="random, random-2"' in asked.text  # the form keeps what was asked


@pytest.mark.parametrize(
    ("sides", "says"),
    [
        ({"a": "nobody", "b": "random"}, "no results for nobody in the season"),
        ({"a": "random", "b": "random,heuristic"}, "a bot on both sides: random"),
        ({"a": "random", "b": " , "}, "each side needs at least one bot"),
        ({"a": HOSTILE, "b": "random"}, f"no results for {HOSTILE} in the season"),
    ],
)
def test_sides_that_cannot_be_compared_are_one_escaped_line_on_the_leaderboard(
    client: TestClient, season_data: SeasonData, sides: dict[str, str], says: str
) -> None:
    page = client.get(f"/seasons/{season_data.season}/leaderboard", params=sides)
    assert page.status_code == 400
    error = re.search(r'<p id="versus-result" class="error">(.*?)</p>', page.text)
    assert error is not None
    assert says in html.unescape(error.group(1))
    assert HOSTILE not in page.text
    assert 'id="leaderboard"' in page.text  # the rest of the page is still there


def test_rating_history_embeds_every_bot_and_block_from_the_stored_history(
    client: TestClient, season_data: SeasonData
) -> None:
    page = client.get(f"/seasons/{season_data.season}/ratings")
    assert page.status_code == 200
    found = re.search(r'<script type="application/json" id="rating-data">(.*?)</script>', page.text)
    assert found is not None
    lines = json.loads(found.group(1))
    with LadderStore.open(season_data.data / "ladder.db", create=False) as store:
        history = store.reads.rating_history(season_data.season)
    assert sorted(line["label"] for line in lines) == sorted({bot for _, bot, _ in history})
    for line in lines:
        stored = [(i + 1, r) for i, bot, r in history if bot == line["label"]]
        blocks = list(range(1, BLOCKS + 1))
        assert [p["x"] for p in line["points"]] == [x for x, _ in stored] == blocks
        assert [p["mu"] for p in line["points"]] == [round(r.mu, 4) for _, r in stored]
        assert [p["sigma"] for p in line["points"]] == [round(r.sigma, 4) for _, r in stored]
    assert "/static/vendor/chart.js/chart.umd.min.js" in page.text


def test_season_page_shows_progress_and_every_block_with_its_matches(
    client: TestClient, season_data: SeasonData
) -> None:
    page = client.get(f"/seasons/{season_data.season}")
    assert page.status_code == 200
    text = text_of(page.text)
    assert f"{BLOCKS} of {BLOCKS} blocks played" in text
    assert all(f"Block {n}" in text for n in range(BLOCKS))  # counted from 0, as stored
    assert sorted(match_links(page.text)) == sorted(season_data.match_ids(season_data.season))
    assert 'http-equiv="refresh"' not in page.text  # finished: nothing to watch


def test_a_running_season_page_refreshes_itself(data_copy: SeasonData) -> None:
    # A season whose run is under way: more blocks planned than played, status running (the
    # test stands in for a runner whose season file now says `blocks = 6`).
    with sqlite3.connect(data_copy.data / "ladder.db") as db:
        db.execute(
            "UPDATE seasons SET blocks_planned = 6, status = 'running' WHERE name = ?",
            (data_copy.season,),
        )
    db.close()
    with client_of(data_copy.data) as client:
        page = client.get(f"/seasons/{data_copy.season}")
    assert page.status_code == 200
    assert '<meta http-equiv="refresh" content="5">' in page.text
    assert f"{BLOCKS} of 6 blocks played" in text_of(page.text)
    assert "2 more block(s) to play" in text_of(page.text)


def test_bot_page_shows_seasons_matches_and_figures_from_the_logs(
    client: TestClient, season_data: SeasonData
) -> None:
    bot_id = season_data.bot_ids(season_data.season)["heuristic"]
    page = client.get(f"/bots/{bot_id}")
    matches = 4 * BLOCKS
    assert page.status_code == 200
    text = text_of(page.text)
    assert f"{season_data.season} as heuristic" in text
    assert sorted(match_links(page.text)) == sorted(season_data.match_ids(season_data.season))
    assert f"From the logs of its {matches} newest match(es)" in text
    # 4 deals a match: each counts once, as soloist or defender (a passed-out deal has no
    # soloist).
    solo = re.search(r"chips/deal as soloist \S+ (\d+) deals", text)
    defend = re.search(r"chips/deal as defender \S+ (\d+) deals", text)
    assert solo is not None
    assert defend is not None
    assert int(solo.group(1)) + int(defend.group(1)) <= 4 * matches
    assert re.search(r"decision latency p50 / p95 \d+ ms / \d+ ms [1-9]\d* decisions", text)
    assert "strikes 0" in text
    assert "forfeits 0" in text
    assert '<canvas id="rating-chart"' in page.text


@contextmanager
def statements_run() -> Iterator[list[str]]:
    """Every SQL statement any engine runs meanwhile (the app's, in its own thread, too)."""
    run: list[str] = []

    def note(*args: Any) -> None:
        run.append(args[2])  # (connection, cursor, statement, ...)

    sqlalchemy.event.listen(sqlalchemy.Engine, "before_cursor_execute", note)
    try:
        yield run
    finally:
        sqlalchemy.event.remove(sqlalchemy.Engine, "before_cursor_execute", note)


def test_the_index_and_a_bot_page_ask_as_much_however_many_seasons_there_are(
    data_copy: SeasonData,
) -> None:
    # A query per season made both pages grow with the ladder's history (5 ms a season).
    bot_id = data_copy.bot_ids(data_copy.season)["heuristic"]
    paths = ("/", f"/bots/{bot_id}")

    def count(client: TestClient) -> dict[str, int]:
        counts = {}
        for path in paths:
            with statements_run() as run:
                assert client.get(path).status_code == 200
            counts[path] = len(run)
        return counts

    with client_of(data_copy.data) as client:
        count(client)  # the bot page's first view judges its matches by role and keeps them
        before = count(client)
        with LadderStore.open(data_copy.data / "ladder.db", create=False) as store:
            for number in range(10):
                config = season_config(name=f"more-{number}")
                store.seasons.ensure_season(config, RatingModel(config.rating).initial())
        after = count(client)
        index = client.get("/").text
    assert all(f"more-{number}" in index for number in range(10))
    assert after == before


def test_bot_figures_count_contracts_and_latency_from_a_log() -> None:
    seats = [{"seat": s, "bot_id": f"b{s}", "bot_name": f"b{s}"} for s in range(4)]
    header = HeaderRecord.from_json(
        {"match_id": "m_1", "ruleset": "standard", "players": 4, "deals": 1, "seats": seats}
    )
    ok = SeatOutcome.OK
    records: tuple[LogRecord, ...] = (
        header,
        DealRecord(1, 0, None, ("",) * 4, ""),
        DecisionRecord(seat=1, request_id=1, action="brand", latency_ms=30, outcome=ok, seq=1),
        DecisionRecord(seat=2, request_id=2, action="pass", latency_ms=5, outcome=ok, seq=2),
        DecisionRecord(seat=1, request_id=3, action="brandle", latency_ms=10, outcome=ok, seq=3),
        DecisionRecord(seat=1, request_id=0, action="pass", latency_ms=0, outcome=ok, seq=4),
        *[
            EventRecord(
                9,
                1,
                DealEndedRecord(
                    soloist=soloist,
                    contract="brandle",
                    trump=None,
                    passed_out=False,
                    tricks_won=(0, 3, 0, 0),
                    made=made,
                    payments=payments,
                ),
            )
            for soloist, made, payments in (
                (1, True, (-2, 6, -2, -2)),
                (3, False, (4, 4, 4, -12)),
            )
        ],
    )
    figures = log_figures(MatchLog("test", records, header, None), "b1")
    assert (figures.soloist_chips, figures.soloist_deals) == (6, 1)
    assert (figures.defender_chips, figures.defender_deals) == (4, 1)
    assert dict(figures.bids) == {"brand": 1, "brandle": 1}  # a pass is no bid
    assert (figures.played["brandle"], figures.made["brandle"]) == (1, 1)
    assert sorted(figures.latencies) == [10, 30]  # req 0: no request was sent


def test_match_page_shows_seats_result_and_one_row_per_deal(
    client: TestClient, season_data: SeasonData
) -> None:
    match_id = season_data.match_ids(season_data.season)[0]
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    with LadderStore.open(season_data.data / "ladder.db", create=False) as store:
        recorded = next(
            m for m in store.reads.matches(season_data.season) if m.match_id == match_id
        )
    seats = text_of(page.text.split('id="seats"')[1].split("</table>")[0])
    for seat, balance in enumerate(recorded.balances):
        assert f" {seat} {recorded.bots[seat]}@{season_data.season} " in f" {seats} "
        assert f"{balance:+d}" in seats
    assert page.text.count('<tr id="deal-') == recorded.deals_played == 4
    deals = page.text.split('id="deals"')[1].split("</table>")[0]
    for row in deals.split('<tr id="deal-')[1:]:
        chips = [int(c) for c in re.findall(r'<td class="num">([+-]\d+)</td>', row)]
        assert len(chips) == 4
        assert sum(chips) == 0


def test_match_page_embeds_the_replay_of_its_log(
    client: TestClient, season_data: SeasonData
) -> None:
    match_id = season_data.match_ids(season_data.season)[0]
    page = client.get(f"/matches/{match_id}")
    embedded = page.text.split('<script type="application/json" id="replay-data">')[1]
    model = json.loads(html.unescape(embedded.split("</script>")[0]))
    with AppStores(StorageLocation(data=season_data.data)).open() as stores:
        view = match_view(stores, match_id, None)
    assert view.log is not None
    assert model == match_model(view.log)
    assert model["deals"]
    assert 'src="/static/replay.js"' in page.text
    assert 'id="live-link"' not in page.text  # no referee watched: no live table


def test_match_page_shows_each_seats_card_play_double_dummy(
    client: TestClient, season_data: SeasonData
) -> None:
    match_id = season_data.match_ids(season_data.season)[0]
    page = client.get(f"/matches/{match_id}")
    with AppStores(StorageLocation(data=season_data.data)).open() as stores:
        log = match_view(stores, match_id, None).log
    assert log is not None
    # Judged here afresh, deal by deal, from the log.
    tallies = [SeatPlay() for _ in log.header.seats]
    for logged in log.deals():
        for verdict in analyse_play(*engine_deal(log, logged)).verdicts:
            tallies[verdict.seat].add(verdict)
    assert sum(t.soloist_mattered + t.defender_mattered for t in tallies) > 0
    table = page.text.split('id="card-play"')[1].split("</table>")[0]
    rows = [text_of(row).split() for row in table.split("<tr>")[2:]]
    assert len(rows) == len(tallies)
    for seat, (row, tally) in enumerate(zip(rows, tallies, strict=True)):
        assert row[0] == str(seat)
        assert row[1] == log.header.seats[seat].bot_name
        expected = [
            tally.soloist_mattered,
            tally.soloist_errors,
            tally.defender_mattered,
            tally.defender_errors,
        ]
        assert [int(n) for n in row[-4:]] == expected
    assert f"brandeln matches show {match_id} --double-dummy" in text_of(page.text)


def test_a_match_is_named_by_its_id_or_a_unique_prefix_as_on_the_command_line(
    client: TestClient, season_data: SeasonData
) -> None:
    every = season_data.match_ids(season_data.season) + season_data.match_ids(
        season_data.hostile_season
    )
    match_id = every[0]
    shortest = next(
        n
        for n in range(3, len(match_id))
        if [m for m in every if m.startswith(match_id[:n])] == [match_id]
    )
    whole = client.get(f"/matches/{match_id}")
    by_prefix = client.get(f"/matches/{match_id[:shortest]}")
    assert whole.status_code == by_prefix.status_code == 200
    assert by_prefix.text == whole.text
    # Every id starts so: which one is meant is unknown (the CLI says the same).
    ambiguous = client.get("/matches/m_")
    assert ambiguous.status_code == 400
    assert "Bad request" in ambiguous.text
    assert "match id prefix 'm_' is ambiguous: " in html.unescape(ambiguous.text)


def test_a_damaged_match_index_row_is_a_clear_error_page_not_a_bad_request(
    data_copy: SeasonData,
) -> None:
    match_id = data_copy.match_ids(data_copy.season)[0]
    with sqlite3.connect(data_copy.data / "embedded" / "referee.db") as db:
        db.execute("UPDATE matches SET status = 'exploded' WHERE match_id = ?", (match_id,))
    db.close()
    with client_of(data_copy.data) as client:
        page = client.get(f"/matches/{match_id}")
    assert page.status_code == 500
    assert "The data cannot be read" in page.text
    assert "damaged" in page.text
    assert "Traceback" not in page.text


def test_with_a_referee_the_app_mounts_the_live_table(season_data: SeasonData) -> None:
    app = create_app(StorageLocation(data=season_data.data), referee="127.0.0.1:9", admin_token="t")
    paths = {getattr(route, "path", "") for route in app.routes}
    assert {"/live/{match_id}", "/live/{match_id}/events"} <= paths


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/seasons/no-such-season", "no season named 'no-such-season'"),
        ("/seasons/no-such-season/leaderboard", "no season named 'no-such-season'"),
        ("/seasons/no-such-season/ratings", "no season named 'no-such-season'"),
        ("/bots/bot_000000000000", "no bot with id 'bot_000000000000'"),
        ("/matches/m_0000", "no match with id 'm_0000'"),
        ("/no/such/page", "no such page"),
    ],
)
def test_unknown_ids_get_a_clear_404_page(client: TestClient, path: str, says: str) -> None:
    page = client.get(path)
    assert page.status_code == 404
    assert "Not found" in page.text
    assert says in html.unescape(page.text)
    assert "Traceback" not in page.text


def test_a_corrupted_log_shows_a_clear_error_line_on_the_match_page(
    data_copy: SeasonData,
) -> None:
    match_id = data_copy.match_ids(data_copy.season)[0]
    log = next((data_copy.data / "embedded" / "logs").rglob(f"{match_id}.jsonl"))
    lines = log.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]  # a line cut in half
    log.write_text("\n".join(lines) + "\n")
    with client_of(data_copy.data) as client:
        page = client.get(f"/matches/{match_id}")
        bot = client.get(f"/bots/{data_copy.bot_ids(data_copy.season)['random']}")
    assert page.status_code == 200
    error = re.search(r'<p class="error" id="log-error">(.*?)</p>', page.text)
    assert error is not None
    assert f"{log}, line 3: not JSON" in html.unescape(error.group(1))
    assert "Traceback" not in page.text
    assert text_of(page.text).count("@web-season") >= 4  # the seats still come from the index
    # The bot page reads the other logs and names the one it could not.
    assert bot.status_code == 200
    assert f"log not read: {match_id}: {log}, line 3: not JSON" in html.unescape(bot.text)
    assert f"From the logs of its {4 * BLOCKS - 1} newest match(es)" in text_of(bot.text)


def test_a_damaged_ladder_database_is_a_clear_error_page(data_copy: SeasonData) -> None:
    with sqlite3.connect(data_copy.data / "ladder.db") as db:
        db.execute("UPDATE seasons SET status = 'exploded'")
    db.close()
    with client_of(data_copy.data) as client:
        page = client.get("/")
    assert page.status_code == 500
    assert "The data cannot be read" in page.text
    assert "Traceback" not in page.text
    assert "exploded" in page.text


def test_a_folder_with_no_data_yet_says_how_to_make_some(tmp_path: Path) -> None:
    with client_of(tmp_path) as client:
        page = client.get("/")
    assert page.status_code == 200
    assert "No seasons yet" in page.text
    assert "brandeln demo" in page.text
    assert not any(tmp_path.iterdir())  # read-only: no database is created


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite:///tmp/x.db", "--db takes a postgresql:// URL"),
    ],
)
def test_a_database_url_other_than_postgresql_is_refused(url: str, says: str) -> None:
    with pytest.raises(DataError, match=re.escape(says)):
        create_app(StorageLocation(db_url=url))


def test_hostile_bot_text_is_escaped_on_every_page(
    client: TestClient, season_data: SeasonData
) -> None:
    season = season_data.hostile_season
    match_id = season_data.match_ids(season)[0]
    pages = [
        "/",
        f"/seasons/{season}",
        f"/seasons/{season}/leaderboard",
        f"/seasons/{season}/ratings",
        f"/bots/{season_data.hostile_bot_id}",
        f"/matches/{match_id}",
    ]
    for path in pages:
        page = client.get(path)
        assert page.status_code == 200, path
        assert HOSTILE not in page.text, path
        escaped = html.escape(HOSTILE, quote=False)
        in_json = json.dumps(HOSTILE).replace("<", "\\u003c").replace(">", "\\u003e")
        assert escaped in page.text or in_json.strip('"') in page.text, path


def test_a_match_still_being_played_shows_its_finished_deals_as_such(
    data_copy: SeasonData,
) -> None:
    match_id = data_copy.match_ids(data_copy.season)[0]
    log = next((data_copy.data / "embedded" / "logs").rglob(f"{match_id}.jsonl"))
    lines = log.read_text().splitlines()
    # What a running match's file holds: the header and its finished deals, no footer yet.
    last_deal = max(n for n, line in enumerate(lines) if '"type":"deal"' in line)
    log.write_text("\n".join(lines[:last_deal]) + "\n")
    with sqlite3.connect(data_copy.data / "embedded" / "referee.db") as db:
        db.execute("UPDATE matches SET status = 'running' WHERE match_id = ?", (match_id,))
    db.close()
    with client_of(data_copy.data) as client:
        page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    assert "Being played: the deals below are those finished so far." in page.text
    assert "the referee stopped" not in page.text
    assert page.text.count('<tr id="deal-') == 3


def test_a_running_match_read_inside_a_deal_shows_no_hand_of_that_deal(
    data_copy: SeasonData,
) -> None:
    # A log read while the referee appends a deal's records may stop inside them (its deal
    # record with every hand, some decisions, half a line): for a match still running, that
    # deal is taken for one in play and shown nowhere.
    match_id = data_copy.match_ids(data_copy.season)[0]
    log = next((data_copy.data / "embedded" / "logs").rglob(f"{match_id}.jsonl"))
    lines = log.read_text().splitlines()
    last_deal = max(n for n, line in enumerate(lines) if '"type":"deal"' in line)
    hands = json.loads(lines[last_deal])["hands"]
    log.write_text("\n".join(lines[: last_deal + 4]) + "\n" + lines[last_deal + 4][:10])
    with sqlite3.connect(data_copy.data / "embedded" / "referee.db") as db:
        db.execute("UPDATE matches SET status = 'running' WHERE match_id = ?", (match_id,))
    db.close()
    with client_of(data_copy.data) as client:
        page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    assert 'id="log-error"' not in page.text  # the cut line is not yet written, not damage
    embedded = page.text.split('<script type="application/json" id="replay-data">')[1]
    model = json.loads(embedded.split("</script>")[0])
    assert [deal["number"] for deal in model["deals"]] == [1, 2, 3]
    assert all(deal["complete"] for deal in model["deals"])
    cut = [sorted(hand.split()) for hand in hands]
    assert not any(sorted(hand) in cut for deal in model["deals"] for hand in deal["hands"])
    assert page.text.count('<tr id="deal-') == 3
