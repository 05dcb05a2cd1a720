"""The always-on ladder's page in a real browser (Debian's Chromium via Playwright), served by
uvicorn on loopback over a ladder store in ``tmp_path``: the leaderboard moves in place when a
block changes the ratings (no reload, the moves marked ▲ ▼, a hostile name still text), and
the challenge form queues a challenge from the browser (its post carries the page's origin).
Every wait is on the page's own state, with a generous timeout: no sleeps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import ChallengeState, Presence
from brandeln.web.app import StorageLocation, create_app
from tests.web.browser import screenshot_path, serve_asgi
from tests.web.hostile import HOSTILE_TEXTS
from tests.web.pages.test_ladder_pages import LADDER, add, open_ladder, play_block

if TYPE_CHECKING:
    from playwright.sync_api import Page

# The page asks for the ladder's state every few seconds (brandeln.web.ladders.LADDER_POLL_S); a
# loaded machine may take far longer to answer.
UPDATE_TIMEOUT_MS: Final = 90_000
HOSTILE_FAMILY: Final = HOSTILE_TEXTS[1]  # '"><img src=x onerror=alert(1)>'


@pytest.fixture
def ladder_folder(tmp_path: Path) -> Path:
    """Four versions of equal rating (ranked by name: the hostile one first), all idle."""
    data = tmp_path / "data"
    data.mkdir()
    with LadderStore.open(data / "ladder.db") as store:
        open_ladder(store)
        names = [add(store, family) for family in (HOSTILE_FAMILY, "a", "b", "c")]
        store.presence.see_versions(LADDER, dict.fromkeys(names, (Presence.IDLE, 1)))
    return data


@pytest.fixture
def base_url(ladder_folder: Path) -> Iterator[str]:
    app = create_app(StorageLocation(data=ladder_folder), allow_challenges=True)
    with serve_asgi(app) as base:
        yield base


def board(page: Page) -> list[str]:
    names: list[str] = page.eval_on_selector_all(
        "#ladder-board tbody tr[data-version]", "rows => rows.map(r => r.dataset.version)"
    )
    return names


def test_the_leaderboard_moves_in_place_when_a_block_changes_the_ratings(
    page: Page, base_url: str, ladder_folder: Path, dialogs: list[str]
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    hostile = f"{HOSTILE_FAMILY}@1"
    page.goto(f"{base_url}/ladders/{LADDER}")
    assert board(page) == [hostile, "a@1", "b@1", "c@1"]
    # A reload would lose this mark: the update must not reload the page.
    page.evaluate("document.body.dataset.kept = 'yes'")

    with LadderStore.open(ladder_folder / "ladder.db") as store:
        play_block(store, ("c@1", "b@1", "a@1", hostile))  # c@1 best, the hostile one last

    page.wait_for_function(
        """() => {
            const first = document.querySelector('#ladder-board tbody tr');
            return first && first.dataset.version === 'c@1' && first.dataset.moved === 'up';
        }""",
        timeout=UPDATE_TIMEOUT_MS,
    )
    assert page.evaluate("document.body.dataset.kept") == "yes"
    assert board(page) == ["c@1", "b@1", "a@1", hostile]
    first = page.locator("#ladder-board tbody tr").first
    assert first.locator(".move").inner_text() == "▲"
    assert first.locator(".move").get_attribute("title") == "was #4"
    last = page.locator("#ladder-board tbody tr").last
    assert last.get_attribute("data-moved") == "down"
    assert last.locator(".move").inner_text() == "▼"
    assert last.locator("a.bot").inner_text() == hostile  # redrawn as text
    assert page.locator("#blocks-finished").inner_text() == "1"
    assert page.locator("#ladder-blocks tbody tr").count() == 1
    page.screenshot(path=str(screenshot_path("ladder-moved")), full_page=True)
    assert dialogs == []
    assert errors == []


def test_the_challenge_form_queues_a_challenge_from_the_browser(
    page: Page, base_url: str, ladder_folder: Path, dialogs: list[str]
) -> None:
    page.goto(f"{base_url}/ladders/{LADDER}")
    selects = page.locator("#challenge-form select[name=bot]")
    assert selects.count() == 4
    selects.nth(0).select_option("a@1")
    selects.nth(1).select_option(f"{HOSTILE_FAMILY}@1")
    page.fill("#challenge-form input[name=deals]", "8")
    page.uncheck("#challenge-form input[name=rated]")
    page.click("#challenge-form button[type=submit]")
    page.wait_for_url("**/ladders/*?queued=1", timeout=UPDATE_TIMEOUT_MS)
    assert "Challenge #1 queued" in page.locator("#challenge-queued").inner_text()
    row = page.locator("#ladder-queue tbody tr").first
    assert row.get_attribute("data-challenge") == "1"
    assert row.locator(".seat").all_inner_texts() == ["a@1", f"{HOSTILE_FAMILY}@1"]
    with LadderStore.open(ladder_folder / "ladder.db") as store:
        [challenge] = store.challenges.challenges(LADDER)
    assert challenge.bots == ("a@1", f"{HOSTILE_FAMILY}@1")
    assert (challenge.deals, challenge.rated) == (8, False)
    assert (challenge.requested_by, challenge.state) == ("web", ChallengeState.QUEUED)
    page.screenshot(path=str(screenshot_path("ladder-challenge")), full_page=True)
    assert dialogs == []
