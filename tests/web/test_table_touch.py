"""A person plays a whole match on a phone (390 px wide, touch, no keyboard, no mouse) in a
real Chromium: the table is opened and every decision answered by tapping. At each decision
the page fits the phone's width, every choice is big enough for a finger, the hand and each
of the last deal's hands lie on one row, no name is broken, and what the page offers is what
the engine's replay of the match's log says the seat was asked.

The state waited for is the page's own (``data-request``, ``data-final``): no sleeps.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.web.browser import PHONE, screen_path
from tests.web.page_fit import broken_names, overflow, small_targets, wrapped
from tests.web.screens import Shot, save_docs_screen
from tests.web.table_play import THREE_BOTS, Asked, expected_decisions, match_log, served_tables
from tests.web.test_table_browser import (
    WAIT_MS,
    check_illegal_buttons,
    next_state,
    read_decision,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog, Page

DEALS = 2


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    """A phone's page; its script errors and dialogs fail the test."""
    context = PHONE.context(browser)
    try:
        page = context.new_page()
        found: list[str] = []
        page.on("pageerror", lambda error: found.append(str(error)))

        def refuse(dialog: Dialog) -> None:  # an alert would be a name run as code
            found.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", refuse)
        yield page
        assert found == []
    finally:
        context.close()


def open_table_by_touch(page: Page, base: str) -> None:
    page.goto(base + "/")
    page.locator("#nav-play").tap()
    page.wait_for_selector("#table-form")
    page.locator("#table-ruleset").select_option("standard")
    page.locator("input[name=deals]").fill(str(DEALS))
    for n, seat in enumerate(("person", *THREE_BOTS)):
        page.locator(f"#table-seat{n}").select_option(seat)
    page.locator("#table-form input[name=name]").fill("ann")
    page.locator("#table-open").tap()
    page.wait_for_selector("#person-table .tb-status", timeout=WAIT_MS)


def check_fits(page: Page, decision: Asked) -> None:
    where = f"deal {decision.deal}, {decision.phase}"
    assert overflow(page) is None, f"{where}: {overflow(page)}"
    assert broken_names(page) == [], where
    assert small_targets(page, ".tb-choice") == [], where
    assert wrapped(page, "#tb-hand, .tb-last-deal li", "[data-card]") == [], where
    choices = page.locator(".tb-choice:not([disabled])")
    assert choices.count() > 0, where
    # The choices in sight under the table: the hand's cards, or the bids under it.
    choices.first.scroll_into_view_if_needed()
    assert choices.first.is_visible(), where


def tap_choice(page: Page, rng: random.Random) -> None:
    """Tap a legal choice: the lowest bid open in the auction (every deal then has a card
    play to tap through), any other at random."""
    buttons = page.locator(".tb-choice:not([disabled])")
    actions: list[str] = buttons.evaluate_all("ns => ns.map(n => n.dataset.action)")
    bids = [n for n, action in enumerate(actions) if action != "pass"]
    auction = page.locator("#person-table").get_attribute("data-phase") == "auction"
    index = bids[0] if auction and bids else rng.randrange(len(actions))
    buttons.nth(index).tap()


def test_a_person_plays_a_whole_match_by_touch_on_a_phone(phone: Page, tmp_path: Path) -> None:
    data = tmp_path / "data"
    rng = random.Random(7)
    shown: list[Asked] = []
    pictured = docs_pictured = False
    docs_picture: Path | None = None
    with served_tables(data) as served:
        open_table_by_touch(phone, served)
        request = next_state(phone, "")
        while request:
            decision = read_decision(phone)
            shown.append(decision)
            check_illegal_buttons(phone)
            check_fits(phone, decision)
            if decision.phase == "play" and decision.deal == DEALS and not pictured:
                pictured = True  # the last deal's hands shown above, the hand to play below
                phone.screenshot(path=str(screen_path("table-play", PHONE)), full_page=True)
            # The docs' picture: the hand and, where the play brings one, a trick led to the
            # person (else the person's first card: the match is the bots' to shape).
            if decision.phase == "play" and not docs_pictured:
                if decision.trick or docs_picture is None:
                    docs_picture = save_docs_screen(phone, Shot.TABLE_PLAY, PHONE)
                docs_pictured = bool(decision.trick)
            tap_choice(phone, rng)
            request = next_state(phone, request)
        result = phone.locator("#tb-result")
        assert "The match is over (finished)" in result.inner_text()
        assert overflow(phone) is None
        phone.screenshot(path=str(screen_path("table-over", PHONE)), full_page=True)
        match_id = (result.locator("#tb-replay").get_attribute("href") or "").rsplit("/", 1)[-1]
    log = match_log(data, match_id)
    assert shown == expected_decisions(log, 0)
    assert log.penalties() == []
    assert pictured, "the person never played a card in the last deal"
    assert docs_picture is not None, "the person never played a card"
