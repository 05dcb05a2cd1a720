"""How the Node.js sample bot runs: its bundle when built, else ``bot.js`` over its packages.

``npm run build`` in ``sample_bots/node`` (``make demo`` runs it after ``npm ci``) bundles the
bot, the ``brandeln-bot`` package (``sdk/node``) and the gRPC libraries into one file,
``node/dist/bot.cjs``, with the ``.proto`` files it loads beside it. The installed arena wheel
ships that folder, so ``node`` alone runs the bot there, without a repository or node_modules.
A checkout that has its packages but no bundle runs ``node bot.js``.

>>> node_bot_command()  # doctest: +SKIP
('/usr/bin/node', '.../sample_bots/node/dist/bot.cjs')
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Final

__all__ = ["NODE_DIR", "NodeBotUnavailableError", "node_bot_command"]

NODE_DIR: Final = Path(__file__).resolve().parent / "node"
BUNDLE: Final = Path("dist", "bot.cjs")  # under NODE_DIR, as build.js writes it
BUNDLE_PROTO: Final = Path("dist", "proto", "brandeln", "v1", "bot.proto")
SOURCE: Final = Path("bot.js")
INSTALLED_SDK: Final = Path("node_modules", "brandeln-bot", "package.json")


class NodeBotUnavailableError(Exception):
    """The Node.js sample bot cannot run here; the message (one line) says what to install."""


def node_bot_command(folder: Path | None = None) -> tuple[str, str]:
    """``node`` and the script to run: the bundle if built, else ``bot.js`` with its packages
    installed (``folder``: the bot's folder, ``sample_bots/node`` by default)."""
    folder = NODE_DIR if folder is None else folder
    node = shutil.which("node")
    if node is None:
        raise NodeBotUnavailableError("the Node.js sample bot needs `node` (Node.js 18+) on PATH")
    if (folder / BUNDLE).is_file() and (folder / BUNDLE_PROTO).is_file():
        return (node, str(folder / BUNDLE))
    if (folder / SOURCE).is_file() and (folder / INSTALLED_SDK).is_file():
        return (node, str(folder / SOURCE))
    raise NodeBotUnavailableError(
        f"the Node.js sample bot is neither built ({BUNDLE}) nor installed: run "
        f"`npm ci && npm run build` in {folder} (or `make demo`)"
    )
