"""A seat of a running match: its bot, clock, strikes and inbox, and the session bound to it.

Its own module so that the session (brandeln.arena.session) and the table (brandeln.arena.table)
both depend on it and not on each other: a seat knows its session only as something it can send to.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol

from brandeln.arena.mailbox import Mailbox
from brandeln.arena.timecontrol import SeatClock
from brandeln.protocol.statuses import SeatOutcome
from brandeln.v1 import bot_pb2

__all__ = ["Outgoing", "Seat", "SeatOutcome", "SeatSink", "Signal"]

# What a session sends: a RefereeMessage, or one already serialized (brandeln.arena.server passes
# bytes through to the wire as they are).
Outgoing = bot_pb2.RefereeMessage | bytes


class Signal(enum.Enum):
    """Wake-ups for a seat waiting on its inbox, besides the bot's own messages."""

    DISCONNECTED = "disconnected"
    RESUMED = "resumed"


class SeatSink(Protocol):
    """What a seat needs of its session (brandeln.arena.session.SeatSession is one)."""

    @property
    def snapshot_only(self) -> bool: ...

    def send(self, message: Outgoing) -> None: ...


@dataclass(eq=False)
class Seat:
    """A seat of a running match, bound to a session (or waiting for one to resume)."""

    index: int
    bot_id: str
    bot_name: str  # the registered name: the seat's name everywhere
    bot_version: str
    clock: SeatClock
    hello_name: str = ""  # what the bot's Hello called it, shown beside bot_name
    session: SeatSink | None = None
    inbox: Mailbox[bot_pb2.BotMessage | Signal] = field(default_factory=Mailbox)
    strikes: int = 0
    forfeited: bool = False
    disconnected_at: float | None = None
    last_rtt_ms: int = 0
    log_bytes: int = 0
    pending: Outgoing | None = None  # the open request, re-sent on resume

    def send(self, message: Outgoing) -> None:
        if self.session is not None:
            self.session.send(message)
