"""The pictures the docs show, written by the browser tests into docs/img/screens/ and
committed, so the manual never shows an old page: the one list of their names, used by the
tests that take them and by the test that checks the folder holds exactly these.

Each is the window (not the whole page, which may be many screens long), its width in the
name: 1280 for a desktop, 390 for a phone.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tests.web.browser import DESKTOP, PHONE, Screen

if TYPE_CHECKING:
    from playwright.sync_api import Page, ViewportSize

DOCS_SCREENS: Final = Path(__file__).resolve().parents[2] / "docs" / "img" / "screens"
MAX_BYTES: Final = 300_000  # each picture's PNG; the site and the repository carry them


class Shot(enum.Enum):
    """What a picture shows (the page's element brought into the window first, if any)."""

    LEADERBOARD = "leaderboard"  # a season's leaderboard
    MATCH = "match"  # a match's page: the deal replay
    LADDER = "ladder"  # the always-on ladder
    TABLE_PLAY = "table-play"  # a person's table mid-match: the hand, a trick on the table

    @property
    def focus(self) -> str | None:
        return {Shot.MATCH: "#replay", Shot.TABLE_PLAY: "#person-table"}.get(self)


SCREENS: Final = (DESKTOP, PHONE)
NAMES: Final = tuple(f"{shot.value}-{screen.width}.png" for shot in Shot for screen in SCREENS)


def docs_screen_path(shot: Shot, screen: Screen) -> Path:
    return DOCS_SCREENS / f"{shot.value}-{screen.width}.png"


def save_docs_screen(page: Page, shot: Shot, screen: Screen) -> Path:
    """Save the window of ``page`` as the docs' picture ``shot`` at ``screen``'s width."""
    if screen not in SCREENS:
        raise ValueError(f"the docs show {shot.value} at {[s.width for s in SCREENS]} px only")
    size: ViewportSize = {"width": screen.width, "height": screen.height}
    if page.viewport_size != size:  # a taller window of the same width: the same layout
        page.set_viewport_size(size)
    if shot.focus is not None:
        page.locator(shot.focus).evaluate("node => node.scrollIntoView({block: 'start'})")
    path = docs_screen_path(shot, screen)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=False)
    return path
