"""A broken bot for `bot check`'s tests: it claims every ruleset, bids brandle in russian."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository

from tests.bots.broken.base import Breakage, main

main(Breakage(unknown_rulesets=frozenset({"russian"})))
