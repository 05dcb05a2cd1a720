"""Hostile text in a real browser (Debian's Chromium via Playwright): every page of the hostile
data, the replay and the rating charts (whose data reach the page as JSON in a ``<script>``),
the error pages that echo the address, and the file of ``matches export --html``. Nothing may
run (no dialog, no page error, no element or handler from the data, no request the page's
Content-Security-Policy had to refuse), and the names show as text where they belong."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode

import pytest

from brandeln.arena.logreader import read_log
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.export_html import export_html
from tests.web.browser import serve_asgi
from tests.web.hostile import HOSTILE_TEXTS, SLASHLESS_TEXTS
from tests.web.pages.conftest import HostileData

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Dialog, Page

# Elements and attributes only injected markup would add to our pages.
FOREIGN = """() => {
  const found = Array.from(document.querySelectorAll("img, svg, iframe, object, embed"))
    .map(e => e.outerHTML);
  for (const e of document.querySelectorAll("*")) {
    for (const a of e.attributes) {
      if (a.name.startsWith("on")) found.push(e.tagName + " " + a.name);
      if (["href", "src", "action"].includes(a.name) && /^\\s*javascript:/i.test(a.value))
        found.push(e.tagName + " " + a.name + "=" + a.value);
    }
  }
  return found;
}"""


class Watch:
    """What a page did that it must not: dialogs opened, errors thrown, policy violations."""

    def __init__(self, page: Page) -> None:
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.refused: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", self._console)

    def _dialog(self, dialog: Dialog) -> None:  # an alert() would mean bot text ran as code
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _console(self, message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            self.refused.append(message.text)

    def assert_quiet(self, page: Page, where: str) -> None:
        assert page.evaluate(FOREIGN) == [], where
        assert (self.dialogs, self.errors, self.refused) == ([], [], []), where


@pytest.fixture(scope="module")
def base_url(hostile_data: HostileData) -> Iterator[str]:
    with serve_asgi(create_app(StorageLocation(data=hostile_data.data))) as base:
        yield base


def routable(data: HostileData) -> list[str]:
    return [season for season in data.seasons if "/" not in season]


def test_no_hostile_name_runs_on_any_page_and_each_shows_as_text(
    page: Page, base_url: str, hostile_data: HostileData
) -> None:
    watch = Watch(page)
    paths = ["/"]
    for season in routable(hostile_data):
        base = f"/seasons/{quote(season, safe='')}"
        paths += [base, f"{base}/leaderboard", f"{base}/ratings"]
    paths += [f"/bots/{bot.bot_id}" for bot in hostile_data.bots]
    for path in paths:
        reply = page.goto(base_url + path)
        assert reply is not None
        assert reply.status == 200, path
        watch.assert_quiet(page, path)
    page.goto(base_url + "/")
    for text in (*hostile_data.seasons, *(bot.registered for bot in hostile_data.bots)):
        assert page.get_by_text(text, exact=True).count() >= 1, text


def test_the_rating_chart_takes_hostile_names_as_labels_without_running_them(
    page: Page, base_url: str, hostile_data: HostileData
) -> None:
    watch = Watch(page)
    season = routable(hostile_data)[0]
    page.goto(f"{base_url}/seasons/{quote(season, safe='')}/ratings")
    watch.assert_quiet(page, "ratings")
    page.wait_for_function("window.brandelnCharts && window.brandelnCharts.length > 0")
    labels = page.evaluate("window.brandelnCharts[0].data.datasets.map(d => d.brandelnLine)")
    assert {bot.in_season for bot in hostile_data.bots} <= set(labels)
    assert page.locator("#season-name").inner_text() == season
    watch.assert_quiet(page, "ratings")


def test_the_replay_shows_hostile_seat_names_as_text_and_runs_none(
    page: Page, base_url: str, hostile_data: HostileData
) -> None:
    watch = Watch(page)
    for season in hostile_data.seasons:
        match_id = hostile_data.match_ids(season)[0]
        page.goto(f"{base_url}/matches/{match_id}")
        watch.assert_quiet(page, match_id)
        names = page.locator(".rp-seat .rp-name").all_inner_texts()
        assert sorted(names) == sorted(bot.registered for bot in hostile_data.bots)
        page.keyboard.press("End")  # every step of the deal drawn once
        watch.assert_quiet(page, match_id)


@pytest.mark.parametrize("text", [*HOSTILE_TEXTS, *SLASHLESS_TEXTS])
def test_hostile_text_in_the_address_runs_on_no_error_page(
    page: Page, base_url: str, hostile_data: HostileData, text: str
) -> None:
    watch = Watch(page)
    season = quote(routable(hostile_data)[0], safe="")
    # A hostile name may be a season of the data: then its page, else its 404.
    named_season = 200 if text in hostile_data.seasons else 404
    for path, status in (
        (f"/seasons/{quote(text, safe='')}", named_season if "/" not in text else 404),
        (f"/bots/{quote(text, safe='')}", 404),
        (f"/matches/{quote(text, safe='')}", 404),
        (f"/seasons/{season}/leaderboard?{urlencode({'a': text, 'b': 'x'})}", 400),
        (f"/?{urlencode({'page': text})}", 400),
    ):
        reply = page.goto(base_url + path)
        assert reply is not None
        assert reply.status == status, path
        watch.assert_quiet(page, path)
    versus = page.locator("#versus-form input[name=a]")
    page.goto(f"{base_url}/seasons/{season}/leaderboard?{urlencode({'a': text, 'b': 'x'})}")
    assert versus.input_value() == text  # the form keeps it as its value, nothing else


def test_the_exported_replay_of_hostile_names_runs_nothing_in_chromium(
    page: Page, hostile_data: HostileData, tmp_path: Path
) -> None:
    watch = Watch(page)
    season = hostile_data.seasons[0]
    match_id = hostile_data.match_ids(season)[0]
    log = next((hostile_data.data / "embedded" / "logs").rglob(f"{match_id}.jsonl"))
    target = tmp_path / "replay.html"
    target.write_text(export_html(read_log(log.read_text(), str(log))), encoding="utf-8")
    page.goto(target.as_uri())
    watch.assert_quiet(page, "export")
    names = page.locator(".rp-seat .rp-name").all_inner_texts()
    assert sorted(names) == sorted(bot.registered for bot in hostile_data.bots)
    page.keyboard.press("End")
    watch.assert_quiet(page, "export")
