"""Time control of one seat in one match (PROTOCOL.md "Time, illegal actions, disconnects").

Each decision may take ``move_ms``; time beyond it is drawn from the match bank. When both are
spent the decision has timed out. Pure arithmetic on milliseconds; the clock is the caller's.

>>> budget = SeatClock(move_ms=100, bank_ms=1000)
>>> budget.available_ms()
1100
>>> budget.charge(250)   # 150 ms over the move time come out of the bank
False
>>> budget.bank_ms
850
>>> budget.charge(5000)
True
>>> budget.bank_ms
0
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SeatClock", "TimeControlSettings"]


@dataclass(frozen=True)
class TimeControlSettings:
    """A match's time control, in milliseconds (defaults are the referee's)."""

    move_ms: int = 2000
    bank_ms: int = 20000
    max_strikes: int = 3
    reconnect_ms: int = 10000

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "max_strikes", "reconnect_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"time control {name} must not be negative")
        if self.max_strikes == 0:
            raise ValueError("time control max_strikes must be at least 1")


@dataclass
class SeatClock:
    """The move time and the remaining bank of one seat."""

    move_ms: int
    bank_ms: int

    def available_ms(self) -> int:
        """The most a decision may take from now."""
        return self.move_ms + self.bank_ms

    def charge(self, elapsed_ms: int) -> bool:
        """Charge a decision that took ``elapsed_ms``; True when it has timed out."""
        over = max(0, elapsed_ms - self.move_ms)
        if over > self.bank_ms:
            self.bank_ms = 0
            return True
        self.bank_ms -= over
        return False
