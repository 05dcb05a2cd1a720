"""The deal replay in a real Chromium: the exported page of real matches, stepped by keyboard.

What each step must show is computed here from the log through the engine (each decision
stepped on a DealState), not read from the replay model, so the page is checked against the
log itself: after every step the cards in every hand and on the table are exactly those.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from brandeln.arena.logreader import MatchLog
from brandeln.engine.actions import parse_action
from brandeln.engine.events import CardPlayed, TrickTaken
from brandeln.engine.match import MatchState
from brandeln.protocol.events import TrickTakenRecord
from brandeln.web.export_html import export_html
from brandeln.web.replay_model import match_model
from tests.web.browser import screenshot_path, serve_asgi
from tests.web.matches import Plan, PlayedMatch, play_matches

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Dialog, Page

HOSTILE = "<script>alert(1)</script>"


@dataclass(frozen=True)
class Shown:
    """What the table shows at one step: each seat's hand, and the cards on the table."""

    hands: list[Counter[str]]
    table: list[tuple[int, str]]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PlayedMatch]:
    data = tmp_path_factory.mktemp("replay-browser") / "data"
    names = ("ada", "bert", "clara", "dora")
    plans = [
        Plan("standard", 4, 11, names),
        Plan("three-player", 3, 4, (HOSTILE, "kim & co", "lu")),
        # Its heuristic bots give a contract away, double dummy.
        Plan("russian", 4, 5, ("eve", "finn", "gus", "hal")),
    ]
    standard, three, russian = play_matches(data, plans)
    return {"standard": standard, "three-player": three, "russian": russian}


@pytest.fixture(scope="module")
def pages(played: dict[str, PlayedMatch]) -> dict[str, str]:
    """Each match's exported page (the file `brandeln matches export --html` writes)."""
    return {name: export_html(match.match_log()) for name, match in played.items()}


@pytest.fixture(scope="module")
def served(pages: dict[str, str]) -> Iterator[str]:
    """Each exported page at /RULESET."""

    def page(request: Request) -> HTMLResponse:
        return HTMLResponse(pages[request.path_params["name"]])

    with serve_asgi(Starlette(routes=[Route("/{name}", page)])) as base:
        yield base


def expected_steps(log: MatchLog, deal_number: int) -> list[Shown]:
    """Replay the log's decisions up to and through deal ``deal_number`` on the engine."""
    ruleset = log.ruleset()
    match = MatchState.new(ruleset, log.header.deals, log.header.first_dealer)
    for logged in log.deals():
        state = match.start_deal(logged.record.deal(ruleset))
        table: list[tuple[int, str]] = []
        trick_over = False
        shown = [Shown([Counter(str(c) for c in h) for h in state.hands], [])]
        for decision in logged.decisions:
            state, events = state.step(parse_action(decision.action))
            for event in events:
                if isinstance(event, CardPlayed):
                    if trick_over:
                        table, trick_over = [], False
                    table = [*table, (event.seat, str(event.card))]
                elif isinstance(event, TrickTaken):
                    trick_over = True
                hands_now = [Counter(str(c) for c in h) for h in state.hands]
                shown.append(Shown(hands_now, list(table)))
        outcome = state.outcome()
        assert outcome is not None
        if logged.number == deal_number:
            return shown
        match = match.record(outcome)
    raise AssertionError(f"no deal {deal_number}")


def read_table(page: Page, players: int) -> Shown:
    hands = [
        Counter(
            page.locator(f'.rp-seat[data-seat="{s}"] .rp-hand [data-card]').evaluate_all(
                "nodes => nodes.map(n => n.dataset.card)"
            )
        )
        for s in range(players)
    ]
    table = page.locator(".rp-slot [data-card]").evaluate_all(
        "nodes => nodes.map(n => [Number(n.parentElement.dataset.seat), n.dataset.card])"
    )
    return Shown(hands, sorted((int(seat), card) for seat, card in table))


@pytest.fixture
def no_dialogs(page: Page) -> Iterator[list[str]]:
    dialogs: list[str] = []

    def refuse(dialog: Dialog) -> None:  # an alert() would mean a bot name ran as code
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    yield dialogs
    assert dialogs == []


def test_stepping_a_whole_deal_by_keyboard_shows_exactly_the_logged_cards(
    page: Page, served: str, played: dict[str, PlayedMatch], no_dialogs: list[str]
) -> None:
    log = played["standard"].match_log()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for deal_number in (1, 2):
        expected = expected_steps(log, deal_number)
        page.goto(f"{served}/standard#deal={deal_number}&step=0")
        page.locator("body").press("Home")
        for step, shown in enumerate(expected):
            assert page.locator("#replay").get_attribute("data-step") == str(step)
            got = read_table(page, 4)
            assert got.hands == shown.hands, f"deal {deal_number} step {step}: hands"
            assert got.table == sorted(shown.table), f"deal {deal_number} step {step}: table"
            if step == len(expected) // 2 and deal_number == 2:
                # a test artifact (test-artifacts/screens/): the replay mid-play
                page.locator("#replay").screenshot(path=str(screenshot_path("replay")))
            page.keyboard.press("ArrowRight")
        # past the last step: the next deal's first step, and the link says so
        assert page.locator("#replay").get_attribute("data-deal") == str(deal_number + 1)
        assert page.evaluate("location.hash") == f"#deal={deal_number + 1}&step=0"
    assert errors == []


def test_arrow_keys_home_end_and_page_keys_move_through_deals(
    page: Page, served: str, no_dialogs: list[str]
) -> None:
    page.goto(f"{served}/standard")
    replay = page.locator("#replay")
    assert (replay.get_attribute("data-deal"), replay.get_attribute("data-step")) == ("1", "0")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert replay.get_attribute("data-step") == "2"
    page.keyboard.press("ArrowLeft")
    assert replay.get_attribute("data-step") == "1"
    page.keyboard.press("End")
    last = int(replay.get_attribute("data-step") or "0")
    assert last > 10
    assert "Settlement" in page.locator(".rp-caption").inner_text()
    page.keyboard.press("PageDown")
    assert (replay.get_attribute("data-deal"), replay.get_attribute("data-step")) == ("2", "0")
    page.keyboard.press("PageUp")
    assert replay.get_attribute("data-deal") == "1"
    page.keyboard.press("Home")
    assert replay.get_attribute("data-step") == "0"


def test_a_hash_link_opens_that_deal_and_step_and_the_trick_select_jumps(
    page: Page, served: str, played: dict[str, PlayedMatch], no_dialogs: list[str]
) -> None:
    log = played["standard"].match_log()
    # the last deal with at least two tricks (the heuristic bots play most deals out)
    played_out = [
        e.deal
        for e in log.public_events()
        if isinstance(e.body, TrickTakenRecord) and e.body.trick == 2
    ]
    deal = played_out[-1]
    page.goto(f"{served}/standard#deal={deal}&step=9")
    replay = page.locator("#replay")
    assert (replay.get_attribute("data-deal"), replay.get_attribute("data-step")) == (
        str(deal),
        "9",
    )
    assert read_table(page, 4) == _sorted(expected_steps(log, deal)[9])
    assert page.locator(".rp-deal-select").input_value() == str(deal - 1)
    assert page.locator(".rp-link").get_attribute("href") == f"#deal={deal}&step=9"
    # jump to trick 2: the step where it is won, its four cards on the table
    page.locator(".rp-trick-select").select_option(label="trick 2")
    step = int(replay.get_attribute("data-step") or "0")
    assert page.locator(".rp-caption").inner_text().startswith("Trick 2 to ")
    assert read_table(page, 4) == _sorted(expected_steps(log, deal)[step])
    assert len(read_table(page, 4).table) == 4
    assert page.evaluate("location.hash") == f"#deal={deal}&step={step}"


def test_a_card_that_gave_its_side_s_goal_away_says_so_double_dummy(
    page: Page, served: str, played: dict[str, PlayedMatch], no_dialogs: list[str]
) -> None:
    found = [
        (name, deal, index, step)
        for name, match in played.items()
        for deal in match_model(match.match_log())["deals"]
        for index, step in enumerate(deal["steps"])
        if "dd" in step
    ]
    assert found, "no card of these matches gave a goal away: choose other seeds"
    name, deal, index, step = found[0]
    page.goto(f"{served}/{name}#deal={deal['number']}&step={index}")
    caption = page.locator(".rp-caption").inner_text()
    assert caption.endswith(
        f"plays {step['card']}? Double dummy this gave "
        f"{'the contract' if step['dd']['for_soloist'] else 'the defence'} away; "
        f"{' '.join(step['dd']['better'])} would have kept it"
    )
    contract = next(i for i, s in enumerate(deal["steps"]) if s["kind"] == "contract")
    page.goto(f"{served}/{name}#deal={deal['number']}&step={contract}")
    verdict = "can" if deal["double_dummy"] else "cannot"
    assert page.locator(".rp-caption").inner_text().endswith(f"(double dummy it {verdict} be made)")


def _sorted(shown: Shown) -> Shown:
    return Shown(shown.hands, sorted(shown.table))


def test_the_three_player_blind_shows_beside_the_three_seats(
    page: Page, served: str, played: dict[str, PlayedMatch], no_dialogs: list[str]
) -> None:
    log = played["three-player"].match_log()
    page.goto(f"{served}/three-player#deal=2&step=0")
    blind = page.locator('.rp-seat[data-seat="blind"] .rp-hand [data-card]')
    cards = blind.evaluate_all("nodes => nodes.map(n => n.dataset.card)")
    assert Counter(cards) == Counter(log.deal(2).record.blind.split())
    assert len(cards) == 7
    assert page.locator(".rp-seat").count() == 4  # three seats and the blind
    assert read_table(page, 3) == _sorted(expected_steps(log, 2)[0])
    page.screenshot(path=str(screenshot_path("replay-three-player")))


def test_a_bot_named_like_a_script_renders_as_text(
    page: Page, served: str, pages: dict[str, str], no_dialogs: list[str]
) -> None:
    assert HOSTILE not in pages["three-player"]  # |tojson escaped its < and >
    page.goto(f"{served}/three-player#deal=1&step=3")
    names = page.locator('.rp-seat[data-seat="0"] .rp-name')
    assert names.inner_text() == HOSTILE
    assert page.locator(".rp-score td", has_text=HOSTILE).count() == 1
    assert page.locator('.rp-seat[data-seat="1"] .rp-name').inner_text() == "kim & co"
    assert page.locator("#replay script").count() == 0  # no element made from the name
    assert page.evaluate("document.scripts.length") == 2  # the data and the replay's own


def test_the_exported_file_opens_from_disk_and_asks_for_nothing_else(
    page: Page, pages: dict[str, str], tmp_path: Path, no_dialogs: list[str]
) -> None:
    exported = tmp_path / "match.html"
    exported.write_text(pages["standard"], encoding="utf-8")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(exported.as_uri() + "#deal=2&step=5")
    replay = page.locator("#replay")
    assert (replay.get_attribute("data-deal"), replay.get_attribute("data-step")) == ("2", "5")
    page.keyboard.press("ArrowRight")
    assert replay.get_attribute("data-step") == "6"
    assert page.locator(".rp-hand [data-card]").count() > 0
    assert requests == [exported.as_uri()]  # the file itself, nothing else
