"""The pages in a real browser (Debian's Chromium via Playwright), served by uvicorn on
loopback: each loads, the leaderboard sorts, the rating chart draws one line per bot, hostile
names stay text. Screenshots go to test-artifacts/screenshots/ (the README's rating chart is
docs/img/rating-chart.png, copied from there)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from brandeln.web.app import StorageLocation, create_app
from tests.web.browser import screenshot_path, serve_asgi
from tests.web.pages.conftest import HOSTILE, SeasonData

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def base_url(season_data: SeasonData) -> Iterator[str]:
    with serve_asgi(create_app(StorageLocation(data=season_data.data))) as base:
        yield base


def page_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def column(page: Page, index: int) -> list[str]:
    cells: list[str] = page.eval_on_selector_all(
        f"#leaderboard tbody tr td:nth-child({index})", "cells => cells.map(c => c.textContent)"
    )
    return [cell.strip() for cell in cells]


def test_every_page_loads_in_chromium(
    page: Page, base_url: str, season_data: SeasonData, dialogs: list[str]
) -> None:
    errors = page_errors(page)
    season = season_data.season
    bot_id = season_data.bot_ids(season)["heuristic"]
    match_id = season_data.match_ids(season)[0]
    for name, path, heading in [
        ("index", "/", "Seasons"),
        ("season", f"/seasons/{season}", f"Season {season}"),
        ("leaderboard", f"/seasons/{season}/leaderboard", f"Leaderboard: {season}"),
        ("rating-chart", f"/seasons/{season}/ratings", f"Rating history: {season}"),
        ("bot", f"/bots/{bot_id}", f"Bot heuristic@{season}"),
        ("match", f"/matches/{match_id}", f"Match {match_id}"),
    ]:
        reply = page.goto(base_url + path)
        assert reply is not None, path
        assert reply.status == 200, path
        assert page.locator("h1").inner_text() == heading
        page.screenshot(path=str(screenshot_path(f"page-{name}")), full_page=True)
    assert errors == []
    assert dialogs == []


def test_the_leaderboard_sorts_by_a_clicked_column(
    page: Page, base_url: str, season_data: SeasonData
) -> None:
    page.goto(f"{base_url}/seasons/{season_data.season}/leaderboard")
    ranks = column(page, 1)
    assert ranks == ["1", "2", "3", "4"]
    sigma = page.locator("#leaderboard th", has_text="σ").filter(has_not_text="μ")
    sigma.click()
    first = [float(v) for v in column(page, 5)]
    order = sigma.get_attribute("aria-sort")
    assert order in {"ascending", "descending"}
    assert first == sorted(first, reverse=order == "descending")
    sigma.click()
    second = [float(v) for v in column(page, 5)]
    assert second == sorted(first, reverse=order == "ascending")
    # The rows move whole: each bot keeps its own figures.
    page.locator("#leaderboard th", has_text="bot").click()
    bots = column(page, 2)
    assert sorted(bots) in (bots, bots[::-1])
    assert sorted(column(page, 1)) == ranks


def test_the_head_to_head_form_compares_two_sides_in_the_browser(
    page: Page, base_url: str, season_data: SeasonData
) -> None:
    errors = page_errors(page)
    page.goto(f"{base_url}/seasons/{season_data.season}/leaderboard")
    bots = column(page, 2)
    matrix = page.locator("#versus-matrix")
    assert matrix.locator("tbody tr").count() == len(bots)
    assert matrix.locator("tbody tr").first.locator("td").count() == len(bots)
    page.fill("#versus-form input[name=a]", "random, random-2")
    page.fill("#versus-form input[name=b]", "heuristic, montecarlo")
    page.click("#versus-form button")
    page.wait_for_url("**/leaderboard?a=*")
    result = page.locator("#versus-result").inner_text()
    assert result.startswith("random + random-2 against heuristic + montecarlo: ")
    assert result.endswith(" blocks)")
    page.screenshot(path=str(screenshot_path("leaderboard-head-to-head")), full_page=True)
    assert errors == []


def test_the_rating_chart_draws_every_bot_with_its_band(
    page: Page, base_url: str, season_data: SeasonData
) -> None:
    errors = page_errors(page)
    page.goto(f"{base_url}/seasons/{season_data.season}/ratings")
    canvas = page.locator("canvas#rating-chart")
    assert canvas.is_visible()
    labels = page.evaluate(
        "window.brandelnCharts[0].data.datasets"
        ".filter(d => d.brandelnKind === 'mu').map(d => d.label)"
    )
    assert sorted(labels) == sorted(season_data.bot_ids(season_data.season))
    bands = page.evaluate(
        "window.brandelnCharts[0].data.datasets.filter(d => d.brandelnKind === 'band').length"
    )
    assert bands == 2 * len(labels)
    # Drawn: the canvas holds coloured pixels, not a blank box.
    painted = page.evaluate(
        """() => {
            const c = document.getElementById('rating-chart');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let i = 3; i < d.length; i += 4) { if (d[i] > 0) n++; }
            return n;
        }"""
    )
    assert painted > 1000
    page.locator("figure.chart").screenshot(path=str(screenshot_path("rating-chart")))
    assert errors == []


def test_a_hostile_bot_name_shows_as_text_on_every_page_and_runs_nowhere(
    page: Page, base_url: str, season_data: SeasonData, dialogs: list[str]
) -> None:
    errors = page_errors(page)
    season = season_data.hostile_season
    for path in [
        "/",
        f"/seasons/{season}",
        f"/seasons/{season}/leaderboard",
        f"/seasons/{season}/ratings",
        f"/bots/{season_data.hostile_bot_id}",
        f"/matches/{season_data.match_ids(season)[0]}",
    ]:
        page.goto(base_url + path)
        shown = page.get_by_text(HOSTILE, exact=True)
        assert shown.count() >= 1, path
        assert shown.first.is_visible(), path
    page.goto(f"{base_url}/seasons/{season}/ratings")
    labels = page.evaluate("window.brandelnCharts[0].data.datasets.map(d => d.brandelnLine)")
    assert HOSTILE in labels  # the chart's legend got the name as text, through JSON
    page.goto(f"{base_url}/seasons/{season}/leaderboard")
    page.screenshot(path=str(screenshot_path("hostile-leaderboard")), full_page=True)
    assert dialogs == []
    assert errors == []


def test_the_match_page_replays_its_deals_step_by_step(
    page: Page, base_url: str, season_data: SeasonData, dialogs: list[str]
) -> None:
    # The app's match page carries the replay of brandeln/web/replay_model.py under its deal table.
    errors = page_errors(page)
    match_id = season_data.match_ids(season_data.season)[0]
    page.goto(f"{base_url}/matches/{match_id}#deal=2&step=0")
    replay = page.locator("#replay")
    assert (replay.get_attribute("data-deal"), replay.get_attribute("data-step")) == ("2", "0")
    cards_before = page.locator(".rp-hand [data-card]").count()
    for step in range(1, 40):
        page.keyboard.press("ArrowRight")
        if replay.get_attribute("data-deal") != "2":
            break
        assert replay.get_attribute("data-step") == str(step)
    assert cards_before > 0
    assert page.evaluate("location.hash").startswith("#deal=")
    assert errors == []
    assert dialogs == []
