"""Real-browser fixtures for the web tests: Debian's Chromium driven by Playwright, and an ASGI
app served by a real uvicorn on a free loopback port.

Playwright never downloads a browser here (`playwright install` cannot reach the internet):
it launches the system Chromium by ``executable_path``. Where Chromium is missing the browser
tests skip with a message saying how to install it (``make test`` installs it as root).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import uvicorn

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext
    from starlette.types import ASGIApp

INSTALL_HINT: Final = (
    "Chromium was not found: install Debian's package with `sudo apt-get install chromium` "
    "(make test does it when run as root), or set BRANDELN_CHROMIUM to a Chromium binary"
)
# Chromium on a closed network: no background connections (they are refused here, many at a
# time), no GPU, no sandbox as root.
CHROMIUM_ARGS: Final = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
ARTIFACTS: Final = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
SCREENS: Final = ARTIFACTS.parent / "screens"


@dataclass(frozen=True)
class Screen:
    """A browser window's size; a phone's is touched, not clicked, and lays pages out as
    a phone does (its viewport meta tag honoured)."""

    width: int
    height: int
    phone: bool = False

    def context(self, browser: Browser) -> BrowserContext:
        return browser.new_context(
            viewport={"width": self.width, "height": self.height},
            is_mobile=self.phone,
            has_touch=self.phone,
        )


DESKTOP: Final = Screen(1280, 800)
PHONE: Final = Screen(390, 844, phone=True)  # an iPhone 12 to 15's CSS pixels


def find_chromium() -> str | None:
    """$BRANDELN_CHROMIUM, or Debian's chromium on PATH."""
    if env := os.environ.get("BRANDELN_CHROMIUM"):
        return env if Path(env).is_file() else None
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serve_asgi(app: ASGIApp, startup_timeout: float = 10.0) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 at a free port in a thread; yield its base URL.

    The server is asked to exit and its thread joined afterwards.
    """
    config = uvicorn.Config(app, host="127.0.0.1", port=_free_port(), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="web-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def screenshot_path(name: str) -> Path:
    """Where a browser test saves its screenshot (test-artifacts/screenshots/NAME.png)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"


def screen_path(page: str, screen: Screen) -> Path:
    """Where a page's picture at a screen's width goes (test-artifacts/screens/PAGE-WIDTH.png)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    return SCREENS / f"{page}-{screen.width}.png"
