"""A broken bot for `bot check`'s tests: it answers again even a request it is told is stale."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository

from tests.bots.broken.base import Breakage, main

main(Breakage(answer_every_rejection=True))
