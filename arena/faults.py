"""A fault policy: deliberate faults an embedded referee injects, and scripted choices.

Used by `brandeln bot check` (to probe a bot) and by tests; never by a referee a peer can reach.

`brandeln bot check` needs the referee to do what it never does in normal play: send a
request twice, reject a legal answer, drop a stream in the middle of a deal, force a pass-out.
A :class:`FaultPolicy` is a Python object handed to ``Referee(..., faults=...)`` (or
``EmbeddedReferee``) in the same process. No RPC, flag, environment variable or file reaches it,
so a remote peer cannot turn it on; the default (``None``) changes nothing.

What a policy may do stays within the rules: :meth:`FaultPolicy.offer` may only *narrow* the
legal choices a seat is offered (the table checks that the narrowed list is a non-empty subset
of the engine's), and the faults are things a network or a resume can do anyway (a request
sent again, a stream cut). It also sees each decision and rejection, so a check can tell what
the bot did without parsing logs.

>>> class TwiceFirst(FaultPolicy):
...     def request_fault(self, match_id, seat, request_id, deal_number, phase):
...         return RequestFault.SEND_TWICE if request_id == 1 else RequestFault.NONE
>>> TwiceFirst().request_fault("m", 0, 1, 1, None) is RequestFault.SEND_TWICE
True
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

from brandeln.arena.codec import Rejection
from brandeln.arena.seat import SeatOutcome
from brandeln.engine.actions import Action
from brandeln.engine.phase import Phase
from brandeln.engine.state import DealState

__all__ = ["FAULT_REJECTION_REASON", "FaultPolicy", "RequestFault", "offered_choices"]

FAULT_REJECTION_REASON = "rejected on purpose by a deliberate fault: answer this request again"


class RequestFault(enum.Enum):
    """What the referee does to one request besides sending it."""

    NONE = "none"
    SEND_TWICE = "send_twice"  # the same request (same id) goes out twice
    REJECT_FIRST_ANSWER = "reject_first_answer"  # its first answer is rejected, no strike
    DROP_STREAM = "drop_stream"  # the seat's stream is closed (UNAVAILABLE) right after it


class FaultPolicy:
    """No faults: override the hooks a test needs. Called on the referee's event loop."""

    def offer(
        self,
        match_id: str,
        seat: int,
        deal_number: int,
        state: DealState,
        legal: Sequence[Action],
    ) -> Sequence[Action]:
        """The choices to offer ``seat`` now: ``legal`` or a non-empty part of it."""
        return legal

    def request_fault(
        self, match_id: str, seat: int, request_id: int, deal_number: int, phase: Phase
    ) -> RequestFault:
        """The fault to inject into the request about to be sent."""
        return RequestFault.NONE

    def decided(
        self,
        match_id: str,
        seat: int,
        deal_number: int,
        phase: Phase,
        outcome: SeatOutcome,
        latency_ms: int,
    ) -> None:
        """A decision of ``seat`` ended (answered, timed out, fell back...)."""

    def rejected(self, match_id: str, seat: int, request_id: int, rejection: Rejection) -> None:
        """An answer of ``seat`` to ``request_id`` was rejected (faults included)."""


def offered_choices(
    faults: FaultPolicy,
    match_id: str,
    seat: int,
    deal_number: int,
    state: DealState,
    legal: list[Action],
) -> tuple[list[Action], Callable[[Action], str | None]]:
    """The choices ``faults`` offers (checked: a non-empty part of ``legal``) and the check of
    an answer against them (an answer legal by the rules but not offered is refused)."""
    offered = list(faults.offer(match_id, seat, deal_number, state, legal))
    if not offered or any(action not in legal for action in offered):
        raise ValueError(f"a fault policy offered {offered}, not a part of {legal}")
    if offered == legal:
        return legal, state.illegal_reason

    def illegal_reason(action: Action) -> str | None:
        reason = state.illegal_reason(action)
        if reason is None and action not in offered:
            return "not among the choices offered in this request"
        return reason

    return offered, illegal_reason
