"""A person at the table in a real Chromium: a whole match against three sample bots played by
keyboard, every decision checked against the engine's replay of the match's log; illegal
choices disabled with the rule's reason; two people at one table in two browsers; and a
spectator's browser, looking while the person holds the match, shows no hidden card.

The state waited for is the page's own (``data-request``, ``data-final`` on the table): no
sleep anywhere, and each wait is bounded by a generous hang guard.
"""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from tests.web.browser import DESKTOP, screenshot_path
from tests.web.screens import Shot, save_docs_screen
from tests.web.table_play import (
    THREE_BOTS,
    WAIT_S,
    Asked,
    dealt_cards,
    expected_decisions,
    match_log,
    served_tables,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog, Page

WAIT_MS: Final = WAIT_S * 1000
NEXT_STATE: Final = """last => {
  const table = document.getElementById("person-table");
  const request = table.getAttribute("data-request") || "";
  return table.getAttribute("data-final") === "true" || (request !== "" && request !== last);
}"""
ANSWERED: Final = """asked => {
  const table = document.getElementById("person-table");
  const final = table.getAttribute("data-final") === "true";
  return final || table.getAttribute("data-request") !== asked;
}"""
# Two pages, one turn: each is waited on in turn, this long at a time, for its turn or the end.
TURN_MS: Final = 500
CARD = re.compile(r"\b[CSHD][AKQJT987]\b")
# The live replay (brandeln/web/static/replay.js) at a deal, with these cards down in the trick (a
# trick taken, its winner marked, counts as none down: as the person's page reads it) and
# ``held`` cards in each of the four hands, one fewer in a hand that has played to the trick.
# Backs or faces alike: a page that showed a hand would be caught naming its cards.
SPECTATOR_AT: Final = """([deal, down, held]) => {
  const root = document.getElementById("replay");
  if (!root || root.getAttribute("data-deal") !== String(deal)) return false;
  const trick = [...root.querySelectorAll(".rp-slot [data-card]")];
  const taken = trick.some(n => n.classList.contains("rp-winner"));
  const slots = taken ? [] : trick.map(n => n.dataset.card).sort();
  const hands = root.querySelectorAll(".rp-hand .rp-card").length;
  return JSON.stringify(slots) === JSON.stringify(down) && hands === 4 * held - down.length;
}"""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def served(data: Path) -> Iterator[str]:
    with served_tables(data) as base:
        yield base


@pytest.fixture
def errors(page: Page) -> Iterator[list[str]]:
    """The page's script errors and dialogs (an alert would be a name run as code)."""
    found: list[str] = []
    page.on("pageerror", lambda error: found.append(str(error)))

    def refuse(dialog: Dialog) -> None:
        found.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    yield found
    assert found == []


def open_table(page: Page, base: str, seats: tuple[str, ...], deals: int, name: str) -> str:
    """Open a table from the page's form, clicking through as a newcomer would."""
    page.goto(base + "/")
    page.locator("#nav-play").click()
    page.locator("#table-ruleset").select_option("standard")
    page.locator("input[name=deals]").fill(str(deals))
    for n, seat in enumerate(seats):
        page.locator(f"#table-seat{n}").select_option(seat)
    page.locator("#table-form input[name=name]").fill(name)
    page.locator("#table-open").click()
    page.wait_for_selector("#person-table .tb-status", timeout=WAIT_MS)
    return page.url


def next_state(page: Page, last: str) -> str:
    """Wait for a new decision or the match's end; the decision's id ("" at the end)."""
    page.wait_for_function(NEXT_STATE, arg=last, timeout=WAIT_MS)
    table = page.locator("#person-table")
    return (
        ""
        if table.get_attribute("data-final") == "true"
        else table.get_attribute("data-request") or ""
    )


def read_decision(page: Page) -> Asked:
    """What the page shows of the open decision, read off its elements."""
    table = page.locator("#person-table")
    phase = table.get_attribute("data-phase") or ""
    hand = page.locator("#tb-hand [data-card]").evaluate_all("ns => ns.map(n => n.dataset.card)")
    legal = page.locator(".tb-choice:not([disabled])").evaluate_all(
        "ns => ns.map(n => n.dataset.action)"
    )
    auction = page.locator("#tb-auction li").evaluate_all(
        "ns => ns.map(n => [Number(n.dataset.seat), n.dataset.bid])"
    )
    trick = page.locator(".rp-slot [data-card]").evaluate_all(
        "ns => ns.map(n => [Number(n.parentElement.dataset.seat), n.dataset.card,"
        " n.classList.contains('rp-winner')])"
    )
    taken = any(won for _, _, won in trick)
    return Asked(
        deal=int(table.get_attribute("data-deal") or 0),
        phase=phase,
        hand=sorted(hand),
        legal=legal,
        auction=[(seat, bid) for seat, bid in auction],
        trick=[] if taken else [(seat, card) for seat, card, _ in trick],
    )


def turn_or_end(page: Page) -> None:
    """Wait a while (at most :data:`TURN_MS`) for the page's turn or its match's end."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # noqa: PLC0415

    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(NEXT_STATE, arg="", timeout=TURN_MS)


def check_illegal_buttons(page: Page) -> int:
    """Every illegal choice is a disabled button whose title is the rule's reason."""
    illegal = page.locator('.tb-choice[data-legal="false"]')
    for n in range(illegal.count()):
        button = illegal.nth(n)
        assert button.is_disabled()
        reason = button.get_attribute("title") or ""
        assert reason
        assert reason == button.get_attribute("data-reason")
    return illegal.count()


def press_choice(page: Page, rng: random.Random) -> None:
    """Choose a legal choice by keyboard: the arrows and Enter, or its keys typed."""
    buttons = page.locator(".tb-choice:not([disabled])")
    actions = buttons.evaluate_all("ns => ns.map(n => n.dataset.action)")
    index = rng.randrange(len(actions))
    phase = page.locator("#person-table").get_attribute("data-phase")
    bids = [n for n, action in enumerate(actions) if action != "pass"]
    if phase == "auction" and bids:
        # The lowest contract open: every deal then has a contract and a card play to watch,
        # whatever the bots (and the random one's draws) do; a passed-out deal has none.
        index = bids[0]
    action = actions[index]
    if rng.random() < 0.5 or phase == "auction":
        for _ in range(index):
            page.keyboard.press("ArrowRight")
        assert buttons.nth(index).evaluate("n => n.classList.contains('tb-selected')")
        page.keyboard.press("Enter")
    elif phase == "trump":
        page.keyboard.press(action.split()[1].lower())
    else:
        page.keyboard.type(action[1] + action[0])  # the rank, then the suit


def spectator_cards(browser: Browser, url: str, deal: int, down: list[str], held: int) -> set[str]:
    """Every card a spectator's browser names, once its live table shows the person's moment:
    deal ``deal``, the ``down`` cards of the trick on the table and ``held`` cards in each hand
    that has not played to it yet.

    A late spectator is sent the whole match so far and its page follows each event as it
    comes, so a looser sign (as many cards down, in any deal) can hold for a moment of the
    catching up; what the page names after it would then be some later moment's cards. This
    moment is the person's own: the match waits for them, so the page cannot pass it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(SPECTATOR_AT, arg=[deal, sorted(down), held], timeout=WAIT_MS)
        named = page.locator("[data-card]").evaluate_all("ns => ns.map(n => n.dataset.card)")
        return set(named) | set(CARD.findall(page.content()))
    finally:
        context.close()


def test_a_person_plays_a_whole_match_by_keyboard_against_three_sample_bots(
    page: Page, browser: Browser, served: str, data: Path, errors: list[str]
) -> None:
    rng = random.Random(5)
    url = open_table(page, served, ("person", *THREE_BOTS), deals=3, name="ann")
    shown: list[Asked] = []
    disabled = 0
    held: tuple[int, list[str], set[str]] | None = None
    pictured = docs_pictured = False
    docs_picture: Path | None = None
    request = next_state(page, "")
    while request:
        decision = read_decision(page)
        shown.append(decision)
        disabled += check_illegal_buttons(page)
        assert "your move:" in page.locator("#tb-clock").inner_text()
        # A spectator looks in at the person's first card play, and again at the first trick
        # led to the person (if the play brings one): cards down, the others still hidden.
        if decision.phase == "play" and (held is None or (decision.trick and not held[1])):
            down = [card for _, card in decision.trick]
            seen = spectator_cards(browser, url, decision.deal, down, len(decision.hand))
            held = (decision.deal, down, seen)
        if decision.phase == "play" and decision.deal >= 2 and not pictured:
            pictured = True
            page.locator("main").screenshot(path=str(screenshot_path("table")))
        # The docs' picture: the last deal's hands and, where the play brings one, a trick led
        # to the person (the match is the bots' and the deal's to shape: a person who leads
        # every trick they play is pictured leading, at their first card after deal 1).
        if decision.phase == "play" and decision.deal >= 2 and not docs_pictured:
            if decision.trick or docs_picture is None:
                docs_picture = save_docs_screen(page, Shot.TABLE_PLAY, DESKTOP)
            docs_pictured = bool(decision.trick)
        press_choice(page, rng)
        request = next_state(page, request)
    result = page.locator("#tb-result")
    assert "The match is over (finished)" in result.inner_text()
    match_id = (result.locator("#tb-replay").get_attribute("href") or "").rsplit("/", 1)[-1]
    assert match_id.startswith("m_")

    log = match_log(data, match_id)
    assert shown == expected_decisions(log, 0)
    assert log.penalties() == []
    assert disabled > 0  # the auction's bids above the contract, at least
    assert held is not None, "the person never played a card"
    deal, down, seen = held
    hidden = dealt_cards(log, deal) - set(down)
    assert seen & hidden == set()
    assert set(down) <= seen  # what it shows, it shows
    page.locator("#tb-replay").click()
    page.wait_for_selector("#replay", timeout=WAIT_MS)
    page.goto(served + "/")
    assert match_id in page.content()  # in the match list with every other match
    assert pictured  # a test artifact (test-artifacts/screens/): the table mid-play
    assert docs_picture is not None, "the person never played a card after deal 1"


def test_two_people_at_one_table_each_in_their_own_browser(
    page: Page, browser: Browser, served: str, data: Path, errors: list[str]
) -> None:
    url = open_table(page, served, ("person", "person", "heuristic", "random"), 2, "ann")
    assert "waiting for 1 more person" in page.locator(".tb-status").inner_text()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        other = context.new_page()
        other.goto(url)
        other.locator("#seat-form input[name=name]").fill("bo")
        other.locator("#seat-take").click()
        other.wait_for_selector("#person-table .tb-status", timeout=WAIT_MS)
        people = {0: page, 1: other}
        done: set[int] = set()
        moves = {0: 0, 1: 0}
        deadline = time.monotonic() + 4 * WAIT_S  # a hang guard, not a measure
        while len(done) < 2:
            assert time.monotonic() < deadline, "the match did not end"
            for seat, person in people.items():
                table = person.locator("#person-table")
                if table.get_attribute("data-final") == "true":
                    done.add(seat)
                    continue
                # The other person's cards never reach this page: backs only at their seat.
                assert person.locator(f'.rp-seat[data-seat="{1 - seat}"] [data-card]').count() == 0
                request = table.get_attribute("data-request") or ""
                if request:
                    person.locator(".tb-choice:not([disabled])").first.click()  # the mouse
                    moves[seat] += 1
                    person.wait_for_function(ANSWERED, arg=request, timeout=WAIT_MS)
                else:
                    turn_or_end(person)
        ends = [person.locator("#tb-replay").get_attribute("href") for person in people.values()]
        assert ends[0] == ends[1]
        assert all(moves.values()), moves
    finally:
        context.close()
    match_id = (ends[0] or "").rsplit("/", 1)[-1]
    log = match_log(data, match_id)
    assert log.penalties() == []
    assert [seat.hello_name for seat in log.header.seats[:2]] == ["ann", "bo"]
