"""The records a table writes to its match log, one dataclass per kind (layout: arena.matchlog).

Each ``to_json`` gives the record as its JSON line holds it, ``type`` first; the field names
are the log's (arena.logschema validates them on reading), so a field renamed here is a log
format change.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any

from arena.seat import Seat, SeatOutcome
from arena.spec import MatchSpec
from engine.cards import format_cards
from engine.dealing import Deal
from engine.rulesets import SWITCHES

__all__ = [
    "BotLogRecord",
    "DealRecord",
    "DecisionRecord",
    "FooterRecord",
    "HeaderRecord",
    "MatchStatus",
    "Penalty",
]

Json = dict[str, Any]


class MatchStatus(enum.StrEnum):
    """A match's state; the values are the wire's (MatchSummary.status) and the log's."""

    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


@dataclass(frozen=True, slots=True)
class HeaderRecord:
    """The first line: everything that defines the match (no seed: it waits for the footer)."""

    match_id: str
    ruleset: str
    options: dict[str, Any]  # only the switches: with the id they rebuild the ruleset
    players: int
    deals: int
    first_dealer: int
    fixed_dealers: tuple[int, ...]  # a fixed deal's hands are in its deal record
    suit_permutation: str
    seats: tuple[Json, ...]
    time_control: Json
    versions: Json
    started_at: int

    @classmethod
    def of(
        cls,
        spec: MatchSpec,
        seats: Sequence[Seat],
        server_version: str,
        protocol_version: int,
        started_at: int,
    ) -> HeaderRecord:
        return cls(
            match_id=spec.match_id,
            ruleset=spec.ruleset.id,
            options={k: v for k, v in spec.ruleset.options().items() if k in SWITCHES},
            players=spec.ruleset.players,
            deals=spec.deals,
            first_dealer=spec.first_dealer,
            fixed_dealers=tuple(d.dealer for d in spec.fixed_deals),
            suit_permutation="".join(s.letter for s in spec.permutation.images),
            seats=tuple(
                {
                    "seat": s.index,
                    "bot_id": s.bot_id,
                    "bot_name": s.bot_name,
                    "hello_name": s.hello_name,
                    "bot_version": s.bot_version,
                }
                for s in seats
            ),
            time_control=dataclasses.asdict(spec.time_control),
            versions={"server": server_version, "protocol": protocol_version},
            started_at=started_at,
        )

    def to_json(self) -> Json:
        return {
            "type": "header",
            "match_id": self.match_id,
            "ruleset": self.ruleset,
            "options": self.options,
            "players": self.players,
            "deals": self.deals,
            # Every deal follows from the match seed, and the header is on disk (readable by a
            # seated bot of the same user) from the start: the seed waits for the footer.
            "seed": None,
            "first_dealer": self.first_dealer,
            "fixed_deals": [{"dealer": dealer} for dealer in self.fixed_dealers],
            "suit_permutation": self.suit_permutation,
            "seats": list(self.seats),
            "time_control": self.time_control,
            "versions": self.versions,
            "started_at": self.started_at,
        }


@dataclass(frozen=True, slots=True)
class DealRecord:
    """A deal as dealt (after the suit permutation): held until the deal ends."""

    deal_number: int
    dealer: int
    seed: int | None  # None for a fixed deal
    hands: tuple[str, ...]
    blind: str

    @classmethod
    def of(cls, deal_number: int, deal: Deal, seed: int | None) -> DealRecord:
        hands = tuple(format_cards(hand) for hand in deal.hands)
        return cls(deal_number, deal.dealer, seed, hands, format_cards(deal.blind))

    def to_json(self) -> Json:
        return {
            "type": "deal",
            "deal_number": self.deal_number,
            "dealer": self.dealer,
            "seed": self.seed,
            "hands": list(self.hands),
            "blind": self.blind,
        }


# Not frozen, unlike the other records: one is made per decision, and a frozen dataclass's
# __init__ (object.__setattr__ per field) costs several times a plain one's. Nothing changes it.
@dataclass(slots=True)
class DecisionRecord:
    """A decision; its line also stands for the public event its action caused (``seq``)."""

    seat: int
    request_id: int  # 0: no request was sent (a forfeited seat) or it failed
    action: str
    latency_ms: int
    outcome: SeatOutcome

    def to_json(self, seq: int) -> Json:
        record: Json = {
            "type": "decision",
            "seq": seq,
            "seat": self.seat,
            "req": self.request_id,
            "action": self.action,
            "ms": self.latency_ms,
        }
        if self.outcome is not SeatOutcome.OK:
            record["status"] = self.outcome.value
        return record

    def to_line(self, seq: int) -> str:
        """``to_json(seq)`` as its log line (without the newline), written directly: the same
        text as the log's JSON encoder gives, at a fraction of its cost (one a decision)."""
        status = "" if self.outcome is SeatOutcome.OK else f',"status":"{self.outcome.value}"'
        return (
            f'{{"type":"decision","seq":{seq},"seat":{self.seat},"req":{self.request_id},'
            f'"action":{encode_basestring_ascii(self.action)},"ms":{self.latency_ms}{status}}}'
        )


@dataclass(frozen=True, slots=True)
class Penalty:
    """A strike or a forfeit of a seat, with its (clipped) reason."""

    deal: int
    seat: int
    code: SeatOutcome
    reason: str
    strikes: int  # the seat's strikes after this one

    def to_json(self) -> Json:
        return {
            "type": "penalty",
            "deal": self.deal,
            "seat": self.seat,
            "code": self.code.value,
            "reason": self.reason,
            "strikes": self.strikes,
        }


@dataclass(frozen=True, slots=True)
class BotLogRecord:
    """A bot's debug text (capped per match by the table)."""

    deal: int
    seat: int
    text: str

    def to_json(self) -> Json:
        return {"type": "bot_log", "deal": self.deal, "seat": self.seat, "text": self.text}


@dataclass(frozen=True, slots=True)
class FooterRecord:
    """The last line: how the match ended."""

    status: MatchStatus
    balances: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[int, ...]
    strikes: tuple[int, ...]
    deals_played: int
    pool: int
    seed: int | None  # None when the deals were fixed
    ended_at: int

    def to_json(self) -> Json:
        return {
            "type": "footer",
            "status": self.status.value,
            "balances": list(self.balances),
            "ranks": list(self.ranks),
            "forfeited": list(self.forfeited),
            "strikes": list(self.strikes),
            "deals_played": self.deals_played,
            "pool": self.pool,
            "seed": self.seed,
            "ended_at": self.ended_at,
        }
