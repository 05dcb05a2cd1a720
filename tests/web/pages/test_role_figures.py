"""Ratings by role on real logs (the page tests' seasons of sample-bot processes): `brandeln
ratings --roles` (tables and JSON) and the bot page agree with a count made here from the logs
themselves; each match is judged once and kept; an unreadable log is named and left out; bot
names stay inert text. And the leaderboard page's batch ratings are `brandeln ratings`'s."""

from __future__ import annotations

import html
import json
import math
import re
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import brandeln.web.bot_roles
from brandeln.arena.logreader import read_log
from brandeln.arena.replay import engine_deal
from brandeln.cli.main import app
from brandeln.engine.play_analysis import SeatPlay, analyse_play
from brandeln.ladder.ratings.season_batch import batch_ratings_of
from brandeln.ladder.store.database import LadderStore
from brandeln.protocol.events import DealEndedRecord, EventRecord
from tests.web.pages.conftest import HOSTILE, SeasonData
from tests.web.pages.test_pages import client_of, text_of

runner = CliRunner(env={"COLUMNS": "80"})


@pytest.fixture(autouse=True)
def _nothing_kept_yet(data_copy: SeasonData) -> None:
    """Each test starts from a copy with no figures kept: the session's seasons are shared, and
    a bot page another module viewed there has kept the figures it judged."""
    with sqlite3.connect(data_copy.data / "ladder.db") as db:
        db.execute("DELETE FROM role_figures")
    db.close()


@dataclass
class Counted:
    """One bot's figures counted here, straight from the logs."""

    chosen: Counter[str] = field(default_factory=Counter)
    made: Counter[str] = field(default_factory=Counter)
    makeable: Counter[str] = field(default_factory=Counter)
    solo_deals: int = 0
    lost: int = 0
    defended: int = 0
    beatable: int = 0
    cards: SeatPlay = field(default_factory=SeatPlay)


def deal_end(events: Sequence[EventRecord]) -> DealEndedRecord:
    for event in events:
        if isinstance(event.body, DealEndedRecord):
            return event.body
    raise AssertionError("a deal of a finished match without its end")


def count_from_logs(data: Path, season: str) -> tuple[dict[str, Counted], int]:
    """Each bot's bidding (chosen, made, makeable by contract), its soloist and defence deals
    and its cards, from every log of ``season``; and the deals that were made though beatable."""
    counted: dict[str, Counted] = {}
    handed_over = 0
    with LadderStore.open(data / "ladder.db", create=False) as store:
        matches = store.reads.matches(season)
    for match in matches:
        path = next((data / "embedded" / "logs").rglob(f"{match.match_id}.jsonl"))
        log = read_log(path.read_text(), str(path))
        for logged in log.deals():
            ended = deal_end(logged.events)
            if ended.soloist is None or ended.contract is None:
                continue
            analysis = analyse_play(*engine_deal(log, logged))
            assert analysis.makes_at_start is not None
            soloist = counted.setdefault(match.bots[ended.soloist], Counted())
            soloist.chosen[ended.contract] += 1
            soloist.made[ended.contract] += bool(ended.made)
            soloist.makeable[ended.contract] += analysis.makes_at_start
            soloist.solo_deals += 1
            soloist.lost += analysis.makes_at_start and not ended.made
            handed_over += not analysis.makes_at_start and bool(ended.made)
            for seat, bot in enumerate(match.bots):
                if seat != ended.soloist:
                    counted.setdefault(bot, Counted()).defended += 1
                    counted[bot].beatable += not analysis.makes_at_start
            for verdict in analysis.verdicts:
                counted.setdefault(match.bots[verdict.seat], Counted()).cards.add(verdict)
    return counted, handed_over


def roles_json(data: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["ratings", "--data", str(data), "--roles", "--json", *args])
    assert result.exit_code == 0, result.output
    roles: dict[str, Any] = json.loads(result.stdout)["roles"]
    return roles


def kept_rows(data: Path) -> int:
    with sqlite3.connect(data / "ladder.db") as db:
        (rows,) = db.execute("SELECT count(*) FROM role_figures").fetchone()
    db.close()
    return int(rows)


def test_ratings_roles_agree_with_a_count_from_the_logs(data_copy: SeasonData) -> None:
    season = data_copy.season
    roles = roles_json(data_copy.data, "--season", season)
    counted, handed_over = count_from_logs(data_copy.data, season)
    matches = len(data_copy.match_ids(season))
    assert (roles["matches"], roles["matches_judged"], roles["matches_judged_now"]) == (
        matches,
        matches,
        matches,
    )
    assert (roles["deals"], roles["unread"], roles["not_kept"]) == (4 * matches, [], None)
    bots = {row["bot"]: row for row in roles["bots"]}
    assert set(bots) == set(data_copy.bot_ids(season))
    for bot, row in bots.items():
        mine = counted.get(bot, Counted())
        bidding = row["bidding"]
        assert {c["contract"]: c["chosen"] for c in bidding["contracts"]} == dict(mine.chosen)
        assert {c["contract"]: c["made"] for c in bidding["contracts"]} == {
            contract: mine.made[contract] for contract in mine.chosen
        }
        assert {c["contract"]: c["makeable"] for c in bidding["contracts"]} == {
            contract: mine.makeable[contract] for contract in mine.chosen
        }
        assert bidding["chosen"] == mine.chosen.total()
        assert bidding["made"] == mine.made.total()
        solo, defence = row["soloist"], row["defence"]
        assert (solo["deals"], solo["lost"]) == (mine.solo_deals, mine.lost)
        assert (solo["cards"], solo["slips"]) == (
            mine.cards.soloist_mattered,
            mine.cards.soloist_errors,
        )
        assert (defence["deals"], defence["beatable"]) == (mine.defended, mine.beatable)
        assert (defence["cards"], defence["slips"]) == (
            mine.cards.defender_mattered,
            mine.cards.defender_errors,
        )
        assert solo["makeable"] == mine.makeable.total()
        assert solo["made"] == mine.made.total()
    # Every contract made though beatable was let through by exactly one defender.
    assert sum(row["defence"]["let_through"] for row in bots.values()) == handed_over
    assert kept_rows(data_copy.data) == matches


def test_each_match_is_judged_once_and_kept(data_copy: SeasonData) -> None:
    season = data_copy.season
    first = roles_json(data_copy.data, "--season", season)
    again = roles_json(data_copy.data, "--season", season)
    assert again["matches_judged_now"] == 0
    assert again["bots"] == first["bots"]
    # Kept figures of another format (or damaged) are judged again and replaced.
    with sqlite3.connect(data_copy.data / "ladder.db") as db:
        db.execute("UPDATE role_figures SET version = 0 WHERE rowid = 1")
        db.execute("UPDATE role_figures SET figures_json = '{\"seats\": 3}' WHERE rowid = 2")
    db.close()
    third = roles_json(data_copy.data, "--season", season)
    assert third["matches_judged_now"] == 2
    assert third["bots"] == first["bots"]
    assert roles_json(data_copy.data, "--season", season)["matches_judged_now"] == 0


def test_the_role_tables_fit_80_columns(data_copy: SeasonData) -> None:
    result = runner.invoke(
        app, ["ratings", "--data", str(data_copy.data), "--roles", "--season", data_copy.season]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    for title in (
        "bidding: the contracts each bot played as soloist",
        "soloist play, double dummy",
    ):
        assert title in out
    assert "defence, double dummy" in out
    roles = roles_json(data_copy.data, "--season", data_copy.season)
    defence = out.split("defence, double dummy")[1].splitlines()
    for row in roles["bots"]:
        figures = row["defence"]
        line = next(line for line in defence if line.split()[:1] == [row["bot"]])
        assert line.split()[1:5] == [
            str(figures["deals"]),
            str(figures["beatable"]),
            str(figures["let_through"]),
            str(figures["slips"]),
        ]


def test_an_unreadable_log_is_named_and_the_others_still_count(data_copy: SeasonData) -> None:
    season = data_copy.season
    broken = data_copy.match_ids(season)[0]
    path = next((data_copy.data / "embedded" / "logs").rglob(f"{broken}.jsonl"))
    path.write_text(path.read_text()[:-200])  # cut inside its last line
    result = runner.invoke(
        app, ["ratings", "--data", str(data_copy.data), "--roles", "--season", season]
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.stdout.splitlines() if line.startswith("not judged:")]
    assert len(said) == 1
    assert said[0].startswith(f"not judged: {broken}: ")
    roles = roles_json(data_copy.data, "--season", season)
    matches = len(data_copy.match_ids(season))
    assert roles["matches_judged"] == matches - 1
    assert roles["unread"][0].startswith(f"{broken}: ")
    assert kept_rows(data_copy.data) == matches - 1  # tried again next time


def test_hostile_bot_names_stay_inert_in_the_role_tables(data_copy: SeasonData) -> None:
    season = data_copy.hostile_season
    evil = "\x1b]0;owned\x07[bold red]evil\u202e"
    with sqlite3.connect(data_copy.data / "ladder.db") as db:
        rows = db.execute("SELECT rowid, bots_json FROM matches").fetchall()
        for rowid, bots in rows:
            renamed = [evil if bot == "random" else bot for bot in json.loads(bots)]
            db.execute(
                "UPDATE matches SET bots_json = ? WHERE rowid = ?", (json.dumps(renamed), rowid)
            )
    db.close()
    result = runner.invoke(
        app, ["ratings", "--data", str(data_copy.data), "--roles", "--season", season]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\x1b" not in out
    assert "\u202e" not in out
    # Escaped, and its brackets printed as text, not read as markup (the name folds at a space).
    lines = out.splitlines()
    first = next(number for number, line in enumerate(lines) if "owned" in line)
    assert lines[first].startswith("\\x1b]0;owned\\x07[bold ")
    assert lines[first + 1].startswith("red]evil\\u202e ")
    assert HOSTILE in "".join(out.split())  # a season bot named so: plain text in a terminal
    bots = {row["bot"] for row in roles_json(data_copy.data, "--season", season)["bots"]}
    assert {evil, HOSTILE} <= bots


def test_the_bot_page_shows_its_role_figures_per_season(data_copy: SeasonData) -> None:
    season = data_copy.season
    bot_id = data_copy.bot_ids(season)["montecarlo"]
    with client_of(data_copy.data) as client:
        page = client.get(f"/bots/{bot_id}")
    assert page.status_code == 200
    roles = {row["bot"]: row for row in roles_json(data_copy.data, "--season", season)["bots"]}
    figures = roles["montecarlo"]
    text = text_of(page.text)
    matches = sum("montecarlo" in match.bots for match in _matches(data_copy, season))
    assert f"{season} as montecarlo {4 * matches} deals of {matches} of its {matches} matches." in (
        text
    )
    section = text_of(page.text.split('id="roles-1"')[1].split("</section>")[0])
    for contract in figures["bidding"]["contracts"]:
        chosen, made = contract["chosen"], contract["made"]
        assert f"{contract['contract']} {chosen} {made} {100 * made / chosen:.0f}%" in section
    solo, defence = figures["soloist"], figures["defence"]
    assert f"soloist {solo['deals']} {solo['makeable']} makeable {solo['lost']} lost" in section
    assert (
        f"defender {defence['deals']} {defence['beatable']} beatable "
        f"{defence['let_through']} let through {defence['slips']}" in section
    )


def test_a_bot_page_judges_a_share_of_the_matches_per_view(
    data_copy: SeasonData, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(brandeln.web.bot_roles, "ROLE_MATCHES_PER_PAGE", 5)
    season = data_copy.season
    bot_id = data_copy.bot_ids(season)["heuristic"]
    matches = sum("heuristic" in match.bots for match in _matches(data_copy, season))
    with client_of(data_copy.data) as client:
        texts = [text_of(client.get(f"/bots/{bot_id}").text) for _ in range(math.ceil(matches / 5))]
    assert (
        f"5 of its {matches} matches: {matches - 5} more are judged as this page is viewed "
        in (texts[0])
    )
    assert f"brandeln ratings --roles --season {season}" in texts[0]
    assert texts[-1].count(f"{matches} of its {matches} matches.") == 1
    assert kept_rows(data_copy.data) == matches


def test_a_hostile_bot_s_role_figures_are_escaped_on_its_page(data_copy: SeasonData) -> None:
    with client_of(data_copy.data) as client:
        page = client.get(f"/bots/{data_copy.hostile_bot_id}")
    assert page.status_code == 200
    assert HOSTILE not in page.text
    section = page.text.split('id="roles-1"')[1].split("</section>")[0]
    assert f'as <span class="bot">{html.escape(HOSTILE, quote=False)}</span>' in section


def test_the_leaderboard_page_shows_the_batch_ratings_of_brandeln_ratings(
    data_copy: SeasonData,
) -> None:
    season = data_copy.season
    with client_of(data_copy.data) as client:
        page = client.get(f"/seasons/{season}/leaderboard")
    assert page.status_code == 200
    result = runner.invoke(
        app, ["ratings", "--data", str(data_copy.data), "--json", "--season", season]
    )
    batch = {row["bot"]: row for row in json.loads(result.stdout)["batch"]["bots"]}
    with LadderStore.open(data_copy.data / "ladder.db", create=False) as store:
        fitted = batch_ratings_of(store, season)
    assert {rating.bot: rating.strength for rating in fitted.bots} == {
        bot: row["strength"] for bot, row in batch.items()
    }
    body = page.text.split("<tbody>")[1].split("</tbody>")[0]
    rows = body.split("<tr>")[1:]
    assert len(rows) == len(batch) == 4
    p_first = []
    for row in rows:
        bot = re.findall(r'class="bot"[^>]*>([^<]+)<', row)[0]
        rating = batch[bot]
        low, high = rating["strength_ci95"]
        cells = text_of(row)
        assert f"{rating['strength']:+.2f} [{low:+.2f}, {high:+.2f}]" in cells
        assert f'data-sort="{rating["p_rank_1"]}"' in row
        p_first.append(rating["p_rank_1"])
        # One bar per rank, its tooltip the share of the resamples.
        tips = re.findall(r"<title>rank (\d): ([\d.]+)%</title>", row)
        assert [int(rank) for rank, _ in tips] == [1, 2, 3, 4]
        for (_, shown), share in zip(tips, rating["rank_probabilities"], strict=True):
            assert float(shown) == pytest.approx(100 * share, abs=0.05)
        assert "style=" not in row  # the CSP allows no inline style
    # Some bot is first in every resample; bots tied there share rank 1, so the sum may pass 1.
    assert 1 - 1e-9 <= math.fsum(p_first) <= len(p_first)
    assert "Plackett-Luce fit of all 4 rated blocks" in text_of(page.text)


def _matches(data: SeasonData, season: str) -> list[Any]:
    with LadderStore.open(data.data / "ladder.db", create=False) as store:
        return list(store.reads.matches(season))


def test_a_hostile_bot_without_a_rated_block_is_named_inert_as_not_batch_rated(
    data_copy: SeasonData,
) -> None:
    # A season bot that played no rated block: TrueSkill lists it, the batch fit cannot rate it.
    season = data_copy.season
    hostile = "<img src=x onerror=alert(2)>\x1b]0;owned\x07"
    with sqlite3.connect(data_copy.data / "ladder.db") as db:
        db.execute(
            "INSERT INTO ratings (season_id, bot, mu, sigma, blocks)"
            " SELECT season_id, ?, 25.0, 8.333, 0 FROM seasons WHERE name = ?",
            (hostile, season),
        )
    db.close()
    with client_of(data_copy.data) as client:
        page = client.get(f"/seasons/{season}/leaderboard")
    assert page.status_code == 200
    assert "<img" not in page.text
    note = page.text.split('id="batch-unrated"')[1].split("</p>")[0]
    assert html.escape("<img src=x onerror=alert(2)>", quote=False) in note
    result = runner.invoke(app, ["ratings", "--data", str(data_copy.data), "--season", season])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout
    said = " ".join(result.stdout.split())
    assert "not batch-rated (no block against another bot): <img src=x" in said
    assert "onerror=alert(2)>\\x1b]0;owned\\x07" in said
