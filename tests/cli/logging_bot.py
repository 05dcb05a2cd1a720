"""A bot process for the CLI's tests: random legal choices (seeded), and at every deal a
two-line entry in the match log full of terminal escapes and rich markup.

Usage: python logging_bot.py ADDRESS TOKEN NAME SEED
"""

from __future__ import annotations

import random
import sys

from brandeln.sdk import Answer, Bot, SessionOptions, run
from brandeln.v1 import bot_pb2

HOSTILE_LOG = "\x1b]0;owned\x07[bold]thinking[/bold] about deal {deal}\nsecond line \x1b[2J"


class LoggingBot(Bot):
    version = "test-1"
    decide_in_thread = False

    def __init__(self, name: str, seed: int) -> None:
        super().__init__()
        self.name = name
        self.rng = random.Random(seed)

    def on_deal_start(self, deal: bot_pb2.DealStarted) -> None:
        self.log(HOSTILE_LOG.format(deal=deal.deal_number))

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        return self.rng.randrange(len(request.legal))


def main() -> None:
    server, token, name, seed = sys.argv[1:5]
    run(lambda: LoggingBot(name, int(seed)), SessionOptions(server=server, token=token))


if __name__ == "__main__":
    main()
