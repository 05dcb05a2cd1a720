"""A bot's conformance to the protocol, against an embedded referee (`brandeln bot check`).

The check seats the bot at seat 0 of matches against in-process "house" bots (the random
sample bot) and drives the referee through the situations that break bots. What normal play
never does (a request sent twice, a rejected legal answer, a stream cut mid-deal, a forced
pass-out) is done by a :class:`brandeln.arena.faults.FaultPolicy`, a policy of deliberate faults
handed to the embedded referee in this process; no peer can reach it. Each check is one row
of the report:

- handshake: the bot's sessions say ``Hello`` and are welcomed;
- bid, hold, trump, card, pass-out: a scripted first deal per ruleset (the bot, forehand, bids
  the lowest contract; a house bot overbids it; the bot is offered only the hold, then names
  trump and plays) and a second deal where every seat is offered only ``pass``;
- ruleset X: the match of that ruleset finished with no strike (every ruleset its Hello lists,
  or ``--ruleset``);
- same request twice, rejected then legal, time pressure, dropped stream resumed, several
  tables at once, many matches.

A command bot is started as a season starts it (``BRANDELN_SERVER``, ``BRANDELN_TOKEN``,
``BRANDELN_TABLES``...) and started again before a check if it has exited; a bot that connects
by itself is told the address and token (:class:`CheckTarget`).
"""

from __future__ import annotations

from brandeln.services.bot_check.report import CheckName, CheckReport, CheckResult, CheckStatus
from brandeln.services.bot_check.run import run_check
from brandeln.services.bot_check.settings import CheckOptions, CheckTarget

__all__ = [
    "CheckName",
    "CheckOptions",
    "CheckReport",
    "CheckResult",
    "CheckStatus",
    "CheckTarget",
    "run_check",
]
