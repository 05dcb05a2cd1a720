"""The closing count of a run's docs examples: each page's test records its tally as a user
property, and these hooks (imported by tests/conftest.py, so that under xdist the controller,
which collects nothing, has them too) add them up and print the line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import pytest

from tests.docs.examples.runner import Tally

PROPERTY: Final = "docs_examples"


def record(record_property: Callable[[str, object], None], tally: Tally, where: str) -> None:
    """Record a page's tally on its test (``record_property`` is pytest's fixture); ``where``
    names the folder of the pages it is summed with."""
    record_property(PROPERTY, {"where": where, **tally.as_dict()})


class Totals:
    """The tallies of a run by folder: the pages of docs/ and the runner's own pages
    (tests/docs/fixtures/) are counted apart, the docs' count being the one the manual quotes."""

    def __init__(self) -> None:
        self.by_folder: dict[str, Tally] = {}

    def add(self, report: pytest.TestReport) -> None:
        if report.when != "call":  # the teardown's report carries the same properties
            return
        for name, value in report.user_properties:
            if name == PROPERTY and isinstance(value, dict):
                counts = dict(value)
                where = str(counts.pop("where"))
                self.by_folder.setdefault(where, Tally()).add(Tally.from_dict(counts))

    def lines(self) -> list[str]:
        lines: list[str] = []
        for where, total in sorted(self.by_folder.items()):
            lines.append(f"{where}: {total.summary()}")
            lines.extend(f"  skipped {skip}" for skip in total.skips)
        return lines


TOTALS: Final = Totals()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    TOTALS.add(report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if lines := TOTALS.lines():
        terminalreporter.write_sep("-", "docs examples")
        for line in lines:
            terminalreporter.write_line(line)
