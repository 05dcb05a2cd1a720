"""Every picture the README and the docs show exists (in the checkout: the site works offline),
and docs/img/screens/ holds exactly the pictures the browser tests write (tests/web/screens.py),
each a PNG of its width and of a size a page can carry."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Final

import pytest

from tests.docs.examples.runner import ROOT
from tests.web.screens import DOCS_SCREENS, MAX_BYTES, NAMES

PAGES: Final = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
MARKDOWN_IMAGE: Final = re.compile(
    r"!\[[^\]]*\]\(\s*(?:<(?P<angled>[^>]+)>|(?P<target>[^)\s]+))(?:\s+\"[^\"]*\")?\s*\)"
)
HTML_IMAGE: Final = re.compile(r"<img\b[^>]*\bsrc=[\"'](?P<target>[^\"']+)[\"']", re.I)
REMOTE: Final = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"


def images(text: str) -> list[tuple[int, str]]:
    """The line and target of every image of a Markdown page, markdown or HTML."""
    found: list[tuple[int, str]] = []
    for pattern in (MARKDOWN_IMAGE, HTML_IMAGE):
        for match in pattern.finditer(text):
            target = match.groupdict().get("angled") or match.group("target")
            found.append((text.count("\n", 0, match.start()) + 1, target))
    return sorted(found)


def test_images_are_found_in_markdown_and_html() -> None:
    text = 'a ![x](img/a.png) b ![y](<img/b c.png> "t")\n<img alt="z" src="img/c.png">\n'
    assert images(text) == [(1, "img/a.png"), (1, "img/b c.png"), (2, "img/c.png")]


@pytest.mark.parametrize("page", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_picture_a_page_shows_exists_here(page: Path) -> None:
    missing = []
    for line, target in images(page.read_text(encoding="utf-8")):
        where = f"{page.relative_to(ROOT)}:{line}"
        if REMOTE.match(target):
            missing.append(f"{where}: {target} is fetched from elsewhere (the site works offline)")
        elif not (page.parent / target.split("#")[0].split("?")[0]).is_file():
            missing.append(f"{where}: {target} does not exist")
    assert missing == []


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == PNG_SIGNATURE, f"{path.name} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_the_screens_folder_holds_exactly_the_browser_tests_pictures() -> None:
    present = sorted(path.name for path in DOCS_SCREENS.iterdir())
    assert present == sorted(NAMES), (
        "docs/img/screens/ holds what tests/web/screens.py names: the browser tests write them "
        "(run tests/web/pages/test_page_widths.py, tests/web/test_table_touch.py and "
        "tests/web/test_table_browser.py, then commit the pictures)"
    )


@pytest.mark.parametrize("name", NAMES)
def test_each_picture_is_a_png_of_its_width_and_small(name: str) -> None:
    path = DOCS_SCREENS / name
    width, height = _png_size(path)
    assert width == int(name.removesuffix(".png").rsplit("-", 1)[1])
    assert height <= 900, f"{name}: {height} px high: a window, not a whole page"
    assert path.stat().st_size <= MAX_BYTES, f"{name}: {path.stat().st_size} bytes"
