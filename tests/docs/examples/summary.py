"""The closing count of a run's docs examples: each page's test records its tally as a user
property, and these hooks (imported by tests/conftest.py, so that under xdist the controller,
which collects nothing, has them too) add them up and print the line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import pytest

from tests.docs.examples.runner import Tally

PROPERTY: Final = "docs_examples"
# The pages of docs/, and the runner's own pages (tests/docs/fixtures/), counted apart: the
# docs' count is the one the manual quotes.
_TOTALS: Final[dict[str, Tally]] = {}


def record(record_property: Callable[[str, object], None], tally: Tally, where: str) -> None:
    """Record a page's tally on its test (``record_property`` is pytest's fixture); ``where``
    names the folder of the pages it is summed with."""
    record_property(PROPERTY, {"where": where, **tally.as_dict()})


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":  # the teardown's report carries the same properties
        return
    for name, value in report.user_properties:
        if name == PROPERTY and isinstance(value, dict):
            counts = dict(value)
            where = str(counts.pop("where"))
            _TOTALS.setdefault(where, Tally()).add(Tally.from_dict(counts))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _TOTALS:
        return
    terminalreporter.write_sep("-", "docs examples")
    for where, total in sorted(_TOTALS.items()):
        terminalreporter.write_line(f"{where}: {total.summary()}")
        for skip in total.skips:
            terminalreporter.write_line(f"  skipped {skip}")
