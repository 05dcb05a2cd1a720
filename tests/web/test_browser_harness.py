"""The harness itself: the system Chromium renders a page that uvicorn serves on loopback, and
the shared template environment escapes bot text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from brandeln.web.templating import environment
from tests.web.browser import screenshot_path, serve_asgi

if TYPE_CHECKING:
    from playwright.sync_api import Dialog, Page
    from starlette.requests import Request

HOSTILE = "<script>alert(1)</script>"


def _hostile_page(request: Request) -> HTMLResponse:
    template = environment().from_string("<h1 id='name'>{{ name }}</h1>")
    return HTMLResponse(template.render(name=HOSTILE))


def test_templates_escape_bot_text_even_from_a_string_template() -> None:
    html = environment().from_string("{{ name }}").render(name=HOSTILE)
    assert html == "&lt;script&gt;alert(1)&lt;/script&gt;"


def test_chromium_shows_a_hostile_name_as_text(page: Page) -> None:
    app = Starlette(routes=[Route("/", _hostile_page)])
    dialogs: list[str] = []

    def refuse(dialog: Dialog) -> None:  # an alert() would mean the name ran as code
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    with serve_asgi(app) as base:
        page.goto(base + "/")
        assert page.locator("#name").inner_text() == HOSTILE
        page.screenshot(path=str(screenshot_path("harness")))
    assert dialogs == []
