"""A decision's log line, written directly, is the JSON encoder's line for its record."""

from __future__ import annotations

import json

import pytest

from brandeln.arena.logrecords import DecisionRecord
from brandeln.arena.seat import SeatOutcome

_ENCODER = json.JSONEncoder(separators=(",", ":"))  # the log's (brandeln.arena.matchlog)


@pytest.mark.parametrize("outcome", list(SeatOutcome))
@pytest.mark.parametrize("action", ["HA", "pass", "brandle", "trump H", 'odd "\\ ü'])
@pytest.mark.parametrize(("seq", "request_id", "ms"), [(1, 1, 0), (70_000, 0, 123_456)])
def test_a_decision_line_is_its_record_encoded(
    outcome: SeatOutcome, action: str, seq: int, request_id: int, ms: int
) -> None:
    record = DecisionRecord(2, request_id, action, ms, outcome, seq)
    assert record.to_line() == _ENCODER.encode(record.to_json())
    assert DecisionRecord.from_json(record.to_json()) == record
