"""The check's fault policy: what it does to the bot's matches (scripted deals, requests sent
twice, answers rejected, streams dropped) and what it saw of the bot's seat."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from brandeln.arena import codec
from brandeln.arena.faults import FaultPolicy, RequestFault
from brandeln.arena.seat import SeatOutcome
from brandeln.engine.actions import PASS, Action, Bid
from brandeln.engine.phase import Phase
from brandeln.engine.state import DealState
from brandeln.services.bot_check.settings import BOT_SEAT


@dataclass
class Seen:
    """What the fault policy saw of the bot's seat in one match."""

    outcomes: list[tuple[int, Phase, SeatOutcome, int, str]] = field(default_factory=list)
    # (request id or 0, phase, outcome, latency, tag: "hold", "pass-out" or "")
    faulted: dict[int, RequestFault] = field(default_factory=dict)  # request id -> fault
    stale: Counter[int] = field(default_factory=Counter)  # stale rejections by request id
    requests: int = 0


class CheckPolicy(FaultPolicy):
    """The check's faults and scripted deals; per match, set before the match starts."""

    def __init__(self) -> None:
        self.scripted: set[str] = set()  # matches whose deals 1 and 2 are scripted
        self.faults: dict[str, dict[int, RequestFault]] = {}  # match -> bot request no. -> fault
        self.seen: defaultdict[str, Seen] = defaultdict(Seen)
        self._open: dict[str, int] = {}  # match -> the bot's open request id
        self._hold_offered: set[str] = set()

    def offer(
        self,
        match_id: str,
        seat: int,
        deal_number: int,
        state: DealState,
        legal: Sequence[Action],
    ) -> Sequence[Action]:
        if match_id not in self.scripted or state.phase is not Phase.AUCTION:
            return legal
        if deal_number == 2:
            return [PASS]  # a pass-out (R5.5, R6)
        if deal_number != 1:
            return legal
        bids = [a for a in legal if isinstance(a, Bid) and not a.is_pass]
        contracts = [c.id for c in state.ruleset.contracts]
        if seat == BOT_SEAT:
            lowest = [a for a in bids if a.contract == contracts[0]]
            if lowest and len(bids) == len(contracts):
                return lowest  # the bot opens with the lowest contract
            hold = [a for a in bids if a.contract == contracts[1]]
            if state.ruleset.holds and hold:
                self._hold_offered.add(match_id)
                return hold  # equal to the standing bid: a hold (R5.3)
            return [PASS] if PASS in legal else legal
        second = [a for a in bids if a.contract == contracts[1]]
        if state.ruleset.holds and second and len(bids) == len(contracts) - 1:
            return second  # the first house seat overbids the bot's opening
        return [PASS] if PASS in legal else legal

    def request_fault(
        self, match_id: str, seat: int, request_id: int, deal_number: int, phase: Phase
    ) -> RequestFault:
        if seat != BOT_SEAT:
            return RequestFault.NONE
        seen = self.seen[match_id]
        seen.requests += 1
        self._open[match_id] = request_id
        fault = self.faults.get(match_id, {}).get(seen.requests, RequestFault.NONE)
        if fault is not RequestFault.NONE:
            seen.faulted[request_id] = fault
        return fault

    def decided(
        self,
        match_id: str,
        seat: int,
        deal_number: int,
        phase: Phase,
        outcome: SeatOutcome,
        latency_ms: int,
    ) -> None:
        if seat != BOT_SEAT:
            return
        tag = ""
        if match_id in self.scripted and deal_number == 2:
            tag = "pass-out"
        elif phase is Phase.AUCTION and match_id in self._hold_offered:
            self._hold_offered.discard(match_id)
            tag = "hold"
        request_id = self._open.pop(match_id, 0)
        self.seen[match_id].outcomes.append((request_id, phase, outcome, latency_ms, tag))

    def rejected(
        self, match_id: str, seat: int, request_id: int, rejection: codec.Rejection
    ) -> None:
        if seat == BOT_SEAT and rejection is codec.Rejection.STALE_REQUEST:
            self.seen[match_id].stale[request_id] += 1
