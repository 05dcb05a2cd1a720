"""The manual's table of logged events (docs/operators/metrics-logs.md, Logs) is the set of events
the services can log: the enums of the referee's (brandeln.arena.operator_log), the ladder's
(brandeln.ladder.living.ladder) and the logging's own (brandeln.services.logs.formatters), and every
event named as it is logged elsewhere (an ``extra={"event": "..."}``, found in the source). An event
added on one side only fails here, and so does a ``ladder_...`` event a page of the manual names
that no code logs."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from brandeln.arena.operator_log import RefereeEvent
from brandeln.ladder.living.ladder import LadderLogEvent
from brandeln.services.logs.formatters import ServiceEvent

ROOT: Final = Path(__file__).resolve().parent.parent
RUNTIME: Final = tuple(
    f"brandeln/{name}"
    for name in ("arena", "ladder", "services", "cluster", "datastore", "cli", "web")
)
TABLE_HEAD: Final = "| event | level | service | what |"
ROW: Final = re.compile(r"^\| `(\w+)` \| (\w+) \|")


def _named_in_extra(path: Path) -> Iterator[str]:
    """The events ``path`` logs by name: string values of "event" in an ``extra=`` argument."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg != "extra":
                continue
            for inner in ast.walk(keyword.value):
                if isinstance(inner, ast.Dict):
                    for key, value in zip(inner.keys, inner.values, strict=True):
                        if (
                            isinstance(key, ast.Constant)
                            and key.value == "event"
                            and isinstance(value, ast.Constant)
                            and isinstance(value.value, str)
                        ):
                            yield value.value


def _logged() -> set[str]:
    named = {
        event
        for package in RUNTIME
        for path in sorted((ROOT / package).rglob("*.py"))
        if "node_modules" not in path.parts
        for event in _named_in_extra(path)
    }
    enums = {str(e) for kind in (RefereeEvent, LadderLogEvent, ServiceEvent) for e in kind}
    return named | enums


def _table() -> list[tuple[str, str]]:
    """The table's rows: (event, level)."""
    lines = (ROOT / "docs" / "operators" / "metrics-logs.md").read_text().splitlines()
    start = lines.index(TABLE_HEAD) + 2  # past the head and its rule
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        found = ROW.match(line)
        assert found, f"a row of the events' table that names no event: {line}"
        rows.append((found.group(1), found.group(2)))
    return rows


def test_the_manual_lists_every_event_the_services_log_and_no_other() -> None:
    listed = [event for event, _ in _table()]
    assert len(listed) == len(set(listed)), "an event listed twice"
    assert set(listed) == _logged()


def test_the_ladder_events_the_manual_names_are_logged() -> None:
    # docs/ARCHITECTURE.md names modules (``ladder_cmd``), not events.
    architecture = ROOT / "docs" / "ARCHITECTURE.md"
    pages = [ROOT / "README.md", *sorted(set((ROOT / "docs").rglob("*.md")) - {architecture})]
    named = {event for page in pages for event in re.findall(r"`(ladder_\w+)`", page.read_text())}
    assert named
    assert named <= _logged()


def test_the_search_finds_events_logged_by_name() -> None:
    # The referee's connection guard and store name theirs in place (no enum).
    assert {"connections_closed", "guard_failed", "store_error"} <= _logged()
