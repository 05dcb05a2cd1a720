"""Fixtures for the browser tests: one headless Chromium per test module, a page per test;
and a referee running in a thread of its own, for the tests that watch a match play.

Per module, not per session: Playwright's sync API keeps an event loop running in the main
thread while it is open, and a later test's ``asyncio.run`` would then fail ("cannot be called
from a running event loop"). Closing it with its module keeps the other tests' loops free.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.web.browser import CHROMIUM_ARGS, INSTALL_HINT, find_chromium
from tests.web.matches import BackgroundReferee

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = find_chromium()
    if executable is None:
        pytest.skip(INSTALL_HINT)
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 - only for browser tests

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[BackgroundReferee]:
    """An embedded referee in a thread of its own, its data in ``tmp_path/referee``."""
    with BackgroundReferee(tmp_path / "referee") as running:
        yield running
