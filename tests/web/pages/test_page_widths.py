"""Every page of ``brandeln web``, and the file ``matches export --html`` writes, fits a
desktop's window (1280 px) and a phone's (390 px) in a real Chromium: no horizontal scrolling,
no name broken across lines, every page with the site's icon. A picture of each page at each
width goes to test-artifacts/screens/PAGE-WIDTH.png, whatever the verdict.

The pages show a real season's data (tests/web/pages/conftest.py), an always-on ladder of
long and hostile version names beside it, and a person's table opened from the page's form.
The docs' pictures show pages without hostile names: a match of the plain season, a ladder of
the sample bots' names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from brandeln.arena.logreader import MatchLog
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import Presence
from brandeln.web.app import StorageLocation, create_app
from brandeln.web.export_html import export_html
from brandeln.web.replay_model import match_model
from tests.web.browser import DESKTOP, PHONE, Screen, screen_path, serve_asgi
from tests.web.hostile import HOSTILE_TEXTS
from tests.web.page_fit import broken_names, names_shown, overflow
from tests.web.pages.conftest import SeasonData, copy_data
from tests.web.pages.test_ladder_pages import LADDER, add, open_ladder, play_block
from tests.web.screens import Shot, save_docs_screen
from tests.web.table_play import THREE_BOTS, WAIT_S, match_log
from tests.web.test_table_browser import open_table

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

WAIT_MS: Final = WAIT_S * 1000
# The ladder's versions: a long name, a hostile one, and short ones.
LADDER_FAMILIES: Final = ("montecarlo-deep-search", HOSTILE_TEXTS[1], "heuristic", "random")
# The docs' ladder: versions as an author would name them, a few blocks played.
DOCS_LADDER: Final = "open"
DOCS_FAMILIES: Final = ("montecarlo", "expert", "heuristic", "random")
FIRST_DECISION: Final = """() => {
  const table = document.getElementById("person-table");
  return table && (table.getAttribute("data-request") || "") !== "";
}"""


@dataclass(frozen=True)
class Site:
    """The app served over a copy of the season data, and the places of its pages."""

    base: str
    paths: dict[str, str]
    export: Path


def _mid_trick(log: MatchLog) -> str:
    """The replay's fragment showing a moment of play, for the docs' picture: three cards of a
    trick after the first on the table, in the deal with the most cards played."""
    deals = match_model(log)["deals"]
    deal = max(deals, key=lambda d: sum(step["kind"] == "card" for step in d["steps"]))
    tricks = down = 0
    for index, step in enumerate(deal["steps"]):
        if step["kind"] == "trick":
            tricks, down = tricks + 1, 0
        elif step["kind"] == "card":
            down += 1
            if down == 3 and tricks >= 1:
                return f"#deal={deal['number']}&step={index}"
    return f"#deal={deal['number']}&step={len(deal['steps']) - 1}"


def _add_ladder(data: Path) -> None:
    with LadderStore.open(data / "ladder.db") as store:
        open_ladder(store)
        names = [add(store, family) for family in LADDER_FAMILIES]
        play_block(store, tuple(names))
        store.presence.see_versions(LADDER, dict.fromkeys(names, (Presence.IDLE, 1)))
        open_ladder(store, DOCS_LADDER)
        plain = [add(store, family, name=DOCS_LADDER) for family in DOCS_FAMILIES]
        for order in (plain, [plain[1], plain[0], *plain[2:]], plain):
            play_block(store, tuple(order), name=DOCS_LADDER)
        store.presence.see_versions(DOCS_LADDER, dict.fromkeys(plain, (Presence.IDLE, 1)))


@pytest.fixture(scope="module")
def site(season_data: SeasonData, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("page-widths")
    data = copy_data(season_data.data, folder / "data")
    _add_ladder(data)
    season, hostile = season_data.season, season_data.hostile_season
    export = folder / "match.html"
    first = season_data.match_ids(season)[0]
    export.write_text(export_html(match_log(data, first)), encoding="utf-8")
    paths = {
        "index": "/",
        "season": f"/seasons/{season}",
        "leaderboard": f"/seasons/{season}/leaderboard",
        "ratings": f"/seasons/{season}/ratings",
        "bot": f"/bots/{season_data.bot_ids(season)['montecarlo']}",
        # The hostile season's: its seats' names are the longest.
        "match": f"/matches/{season_data.match_ids(hostile)[0]}",
        "ladder": f"/ladders/{LADDER}",
        "docs-match": f"/matches/{first}{_mid_trick(match_log(data, first))}",
        "docs-ladder": f"/ladders/{DOCS_LADDER}",
        "tables": "/tables",
        "not-found": "/matches/m_none",
    }
    with serve_asgi(create_app(StorageLocation(data=data))) as base:
        yield Site(base, paths, export)


def _open_path(path: str) -> Callable[[Page, Site], None]:
    def load(page: Page, site: Site) -> None:
        page.goto(site.base + path)

    return load


def _open_export(page: Page, site: Site) -> None:
    page.goto(site.export.as_uri())


def _open_table(page: Page, site: Site) -> None:
    """A person's table, at its first decision (the hand and the choices drawn)."""
    open_table(page, site.base, ("person", *THREE_BOTS), deals=1, name="ann")
    page.wait_for_function(FIRST_DECISION, timeout=WAIT_MS)


# Each page: how to open it, and whether it shows names.
PAGES: Final = {
    "index": True,
    "season": True,
    "leaderboard": True,
    "ratings": True,
    "bot": True,
    "match": True,
    "ladder": True,
    "docs-match": True,
    "docs-ladder": True,
    "tables": False,
    "table": True,
    "not-found": False,
    "export": True,
}


# The pages the docs show (tests/web/screens.py): their windows go to docs/img/screens/.
DOCS_SHOTS: Final = {
    "leaderboard": Shot.LEADERBOARD,
    "docs-match": Shot.MATCH,
    "docs-ladder": Shot.LADDER,
}


def _opener(name: str, site: Site) -> Callable[[Page, Site], None]:
    if name == "export":
        return _open_export
    if name == "table":
        return _open_table
    return _open_path(site.paths[name])


@pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=lambda s: str(s.width))
@pytest.mark.parametrize("name", list(PAGES))
def test_the_page_fits_the_window_with_every_name_on_one_line(
    browser: Browser, site: Site, name: str, screen: Screen
) -> None:
    context = screen.context(browser)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        _opener(name, site)(page, site)
        page.screenshot(path=str(screen_path(name, screen)), full_page=True)
        if name in DOCS_SHOTS:
            save_docs_screen(page, DOCS_SHOTS[name], screen)
        too_wide = overflow(page)
        broken = broken_names(page)
        shown = names_shown(page)
        icon = page.locator("link[rel=icon]").count()
    finally:
        context.close()
    assert too_wide is None, f"{name} at {screen.width} px: {too_wide}"
    assert broken == [], f"{name} at {screen.width} px: names broken: {broken}"
    if PAGES[name]:
        assert shown > 0, f"{name} at {screen.width} px marks no name"
    assert icon == 1, f"{name} links no icon"
    assert errors == []
