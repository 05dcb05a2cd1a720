"""A broken bot for `bot check`'s tests: it thinks 250 ms before each answer that its clock
gives less time than that (the time-pressure check's 100 ms)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository

from tests.bots.broken.base import Breakage, main

main(Breakage(slow_s=0.25))
