"""A match's replay as one self-contained HTML file (``brandeln matches export ID --html``).

Styles, the script and the model are inline, so the file opens anywhere (mailed, attached to
an issue) and asks for nothing over the network; its Content-Security-Policy forbids any
request, so a mistake that adds one shows in the browser's console instead of leaking.
"""

from __future__ import annotations

from markupsafe import Markup

from arena.logreader import MatchLog
from web.replay_model import match_model
from web.templating import STATIC_DIR, environment

__all__ = ["export_html"]


def _inline(name: str, closing: str) -> Markup:
    """One of our own static files, to be put inside its element: it must not close it."""
    text = (STATIC_DIR / name).read_text(encoding="utf-8")
    if closing in text.lower():
        raise ValueError(f"web/static/{name} holds {closing!r}: it cannot be inlined")
    return Markup(text)  # our own file, checked above: no bot text in it


def export_html(log: MatchLog) -> str:
    """The replay page of a match from its validated log (``arena.logreader.read_log``)."""
    assets = {
        "css": _inline("replay.css", "</style"),
        "site_css": _inline("style.css", "</style"),
        "js": _inline("replay.js", "</script"),
    }
    template = environment().get_template("replay_export.html")
    return template.render(replay=match_model(log), replay_assets=assets)
