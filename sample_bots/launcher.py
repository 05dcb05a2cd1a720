"""Run a sample bot: shared by ``brandeln bot run`` and ``python -m brandeln.sample_bots``.

The referee's address, the token and the tables come from the options, else from the
environment the ladder sets (:mod:`brandeln.sdk.launch`).
"""

from __future__ import annotations

import asyncio

from brandeln.sample_bots.registry import make_bot
from brandeln.sdk import Bot, SessionOptions, SessionStats, play
from brandeln.sdk.launch import LaunchError


def run_sample_bot(
    name: str,
    options: SessionOptions,
    tables: int = 1,
    seed: int | None = None,
    display_name: str | None = None,
    level: int | None = None,
    samples: int | None = None,
) -> list[SessionStats]:
    """Play with the sample bot ``name`` at ``tables`` tables until stopped (or max_matches).

    Each table gets its own bot; with ``seed``, every table's bot re-seeds at each deal from
    it and the deal (``brandeln.sample_bots.deal_seed``), so its choices do not depend on the table.
    """
    try:
        make_bot(name, level=level, samples=samples)  # fail fast on an unknown name or level
    except ValueError as error:
        raise LaunchError(str(error)) from None

    def factory() -> Bot:
        bot = make_bot(name, seed, level, samples)
        if display_name:
            bot.name = display_name
        return bot

    return asyncio.run(play(factory, options, tables))
