"""The ladder's time control and the protocol's message convert into each other whole."""

from __future__ import annotations

import dataclasses

from brandeln.ladder.referee.admin_client import time_control_message, time_control_of
from brandeln.ladder.season.config import TimeControl
from brandeln.v1 import cards_pb2


def test_every_time_control_field_reaches_the_message_and_comes_back() -> None:
    # Distinct values per field: a swapped or forgotten field cannot pass.
    names = [field.name for field in dataclasses.fields(TimeControl)]
    chosen = TimeControl(**{name: 100 + n for n, name in enumerate(names)})
    message = time_control_message(chosen)
    assert {f.name for f in cards_pb2.TimeControl.DESCRIPTOR.fields} == set(names)
    assert all(getattr(message, name) == getattr(chosen, name) for name in names)
    assert time_control_of(message) == chosen
