"""The manual (docs/, built by `make docs` into the checkout's site/) under /manual/, and the
pages' links into it.

The built manual is static files that also open from file://; served here, a person who has
the pages open has the manual at the same address, with no network. Where it comes from:
``brandeln web --manual DIR`` (or ``$BRANDELN_MANUAL``), else the site/ folder of the checkout
this package runs from. Whether it is built is looked at on each request, so ``make docs``
beside a running server needs no restart; while it is not, /manual/ answers a page that says
how to build it.

The files are served by Starlette's StaticFiles, which keeps every path inside the folder
(``..``, encoded or not, and symbolic links out of it are refused). The manual's pages run
small inline scripts of the theme (its palette, its search), so its responses carry a policy
of their own that allows them: the manual is built from the checkout's docs, no data of the
stores ever reaches it, unlike the app's pages that keep the strict policy
(:mod:`brandeln.web.guard`).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from http import HTTPStatus
from pathlib import Path
from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

from brandeln.web.templating import PACKAGE_DIR

__all__ = [
    "MANUAL_CONTENT_SECURITY_POLICY",
    "MANUAL_ENV",
    "MANUAL_PATH",
    "ManualLink",
    "ManualSite",
    "checkout_manual",
    "links",
    "manual_mount",
]

MANUAL_ENV: Final = "BRANDELN_MANUAL"
MANUAL_PATH: Final = "/manual"
# The checkout: brandeln/web/ is two folders below it (mkdocs.yml says it is one).
_CHECKOUT: Final = PACKAGE_DIR.parents[1]
MANUAL_CONTENT_SECURITY_POLICY: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

Render = Callable[[Request, str, dict[str, object], HTTPStatus], Response]


class ManualLink(Enum):
    """A place in the manual the pages link to, as a path in the built site (which has no
    directory URLs: it opens from file:// as well)."""

    PLAY_AGAINST_YOUR_BOT = "bot-authors/improve.html#play-against-your-bot"
    IMPROVE_YOUR_BOT = "bot-authors/improve.html"


def links(root_path: str) -> dict[str, str]:
    """Each link's address under the app's ``root_path``, by its lower-case name (what the
    templates write: ``manual.improve_your_bot``).

    >>> links("")["play_against_your_bot"]
    '/manual/bot-authors/improve.html#play-against-your-bot'
    """
    return {link.name.lower(): f"{root_path}{MANUAL_PATH}/{link.value}" for link in ManualLink}


def checkout_manual() -> Path | None:
    """The site/ folder of the checkout this package runs from; None for an installed
    package (no mkdocs.yml beside it: it has no manual to build)."""
    if not (_CHECKOUT / "mkdocs.yml").is_file():
        return None
    return _CHECKOUT / "site"


class ManualSite:
    """The ASGI app mounted at /manual: the built site's files, or the page saying how to
    build it."""

    def __init__(self, folder: Path | None, render: Render) -> None:
        self.folder = folder
        self.render = render
        # check_dir off: the folder may be built after the server starts.
        self.files = None if folder is None else StaticFiles(directory=folder, check_dir=False)

    def built(self) -> bool:
        return self.folder is not None and (self.folder / "index.html").is_file()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.files is None or not self.built():
            # The page's links from the app's root, not from this mount's.
            app_scope = {**scope, "root_path": scope.get("app_root_path", "")}
            await self.not_built(Request(app_scope, receive))(scope, receive, send)
            return
        if scope["path"].endswith("/"):  # a folder's page: its index.html
            scope = {**scope, "path": scope["path"] + "index.html"}

        async def send_with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["content-security-policy"] = MANUAL_CONTENT_SECURITY_POLICY
            await send(message)

        await self.files(scope, receive, send_with_policy)

    def not_built(self, request: Request) -> Response:
        if self.folder is None:
            how = (
                "this installation has no manual: build it in a checkout of Brandeln Arena "
                f"with `make docs`, then give its site/ folder to `brandeln web --manual DIR` "
                f"(or ${MANUAL_ENV})"
            )
        else:
            how = (
                f"no manual is built in {self.folder}: build it with `make docs` in the "
                f"checkout (it writes site/), or give a built one to `brandeln web --manual "
                f"DIR` (or ${MANUAL_ENV})"
            )
        context: dict[str, object] = {"title": "The manual is not built", "message": how}
        return self.render(request, "error.html", context, HTTPStatus.NOT_FOUND)


def manual_mount(folder: Path | None, render: Render) -> Mount:
    """The route of /manual/ (a request for /manual is redirected there by the router)."""
    return Mount(MANUAL_PATH, app=ManualSite(folder, render), name="manual")
