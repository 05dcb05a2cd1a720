"""A match's replay as one self-contained HTML file (``brandeln matches export ID --html``).

Styles, the script and the model are inline, so the file opens anywhere (mailed, attached to
an issue) and asks for nothing over the network; its Content-Security-Policy forbids any
request, so a mistake that adds one shows in the browser's console instead of leaking.
"""

from __future__ import annotations

import base64
from typing import Final

from markupsafe import Markup

from brandeln.arena.logreader import MatchLog
from brandeln.web.replay_model import match_model
from brandeln.web.templating import STATIC_DIR, environment

__all__ = ["export_html"]

ICON: Final = "favicon.svg"


def _inline(name: str, closing: str) -> Markup:
    """One of our own static files, to be put inside its element: it must not close it."""
    text = (STATIC_DIR / name).read_text(encoding="utf-8")
    if closing in text.lower():
        raise ValueError(f"brandeln/web/static/{name} holds {closing!r}: it cannot be inlined")
    return Markup(text)  # our own file, checked above: no bot text in it


def _icon() -> str:
    """The site's icon as a data: URL, the one kind of image the file's policy lets in."""
    encoded = base64.b64encode((STATIC_DIR / ICON).read_bytes()).decode("ascii")
    return f"data:image/svg+xml;base64,{encoded}"


def export_html(log: MatchLog) -> str:
    """The replay page of a match from its validated log (``brandeln.arena.logreader.read_log``)."""
    assets: dict[str, str] = {
        "css": _inline("replay.css", "</style"),
        "site_css": _inline("style.css", "</style"),
        "js": _inline("replay.js", "</script"),
        "icon": _icon(),
    }
    template = environment().get_template("replay_export.html")
    return template.render(replay=match_model(log), replay_assets=assets)
