"""The sample bots as players a match can seat: their names, and the command that runs each
(``python -m brandeln.sample_bots NAME``, as ``brandeln bot run NAME`` plays it, under the
interpreter running this process).

The CLI's BOT arguments (``brandeln.cli.bot_spec``) and the web's tables both seat them; the
web front may not import the sample bots themselves (tests/test_layering.py), so it asks here.

>>> sample_bot("heuristic", "heuristic-2").command
('python', '-m', 'brandeln.sample_bots', 'heuristic')
"""

from __future__ import annotations

from typing import Final

from brandeln.ladder.season.config import CommandBot
from brandeln.sample_bots.registry import BOT_NAMES

__all__ = ["SAMPLE_BOTS", "sample_bot", "sample_command"]

SAMPLE_BOTS: Final[tuple[str, ...]] = BOT_NAMES


def sample_command(name: str) -> tuple[str, ...]:
    """The command of the sample bot ``name`` (one of :data:`SAMPLE_BOTS`). "python" is the
    interpreter running the caller (``brandeln.ladder.bots.processes``), so the bot runs in the same
    environment; it reads its server, token and tables from the environment.

    ``python -m brandeln.sample_bots`` plays the bot as ``brandeln bot run`` does, without the
    CLI around it (Typer, and every command's module): about half the CPU of each bot process's
    start, which a season, an A/B run or a person's table pays for every seat."""
    if name not in SAMPLE_BOTS:
        raise ValueError(f"unknown sample bot {name!r}; sample bots: {', '.join(SAMPLE_BOTS)}")
    return ("python", "-m", "brandeln.sample_bots", name)


def sample_bot(name: str, seat_name: str) -> CommandBot:
    """The sample bot ``name`` as a match's command bot called ``seat_name``."""
    return CommandBot(name=seat_name, command=sample_command(name), tables=1)
