"""A command bot that notes the token the runner handed it, then runs the random sample bot.

Usage (as a season's command): python recording_bot.py TOKENS_FILE [ARGS of `bot run random`]

The token is appended to TOKENS_FILE (a test keeps it outside the data folder), so a test can
look for every token a season gave out.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> None:
    with Path(sys.argv[1]).open("a", encoding="utf-8") as tokens:
        tokens.write(os.environ["BRANDELN_TOKEN"] + "\n")
    command = [sys.executable, "-m", "brandeln.cli", "bot", "run", "random", *sys.argv[2:]]
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main()
