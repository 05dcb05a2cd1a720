"""The records a table writes to its match log, one dataclass per kind (layout:
brandeln.arena.matchlog).

Each ``to_json`` gives the record as its JSON line holds it, ``type`` first; the field names
are the log's (brandeln.arena.logschema validates them on reading), so a field renamed here is a log
format change. Each ``from_json`` reads its record back from a validated line
(:func:`brandeln.arena.logreader.read_log`), filling in what older logs did not write; a record type
this reader does not know reads as :class:`OtherRecord`. The public events and the penalties
are the protocol's records (:mod:`brandeln.protocol.events`); the statuses its enums
(:mod:`brandeln.protocol.statuses`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any

from brandeln.arena.seat import Seat
from brandeln.arena.spec import MatchSpec
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.cards import format_cards, parse_cards
from brandeln.engine.dealing import Deal, fixed_deal
from brandeln.engine.rulesets import SWITCHES, Ruleset, find_ruleset
from brandeln.protocol.events import Penalty
from brandeln.protocol.statuses import MatchStatus, SeatOutcome

__all__ = [
    "BotLogRecord",
    "DealRecord",
    "DecisionRecord",
    "FooterRecord",
    "HeaderRecord",
    "MatchStatus",
    "OtherRecord",
    "Penalty",
    "SeatEntry",
]

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """A seat of the header: the bot's id, its registered name, and what its Hello said."""

    seat: int
    bot_id: str
    bot_name: str
    hello_name: str = ""
    bot_version: str = ""

    def to_json(self) -> Json:
        return {
            "seat": self.seat,
            "bot_id": self.bot_id,
            "bot_name": self.bot_name,
            "hello_name": self.hello_name,
            "bot_version": self.bot_version,
        }

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> SeatEntry:
        return cls(
            entry["seat"],
            entry["bot_id"],
            entry["bot_name"],
            entry.get("hello_name", ""),
            entry.get("bot_version", ""),
        )


@dataclass(frozen=True, slots=True)
class HeaderRecord:
    """The first line: everything that defines the match (no seed: it waits for the footer)."""

    match_id: str
    ruleset_id: str
    options: dict[str, Any]  # only the switches: with the id they rebuild the ruleset
    players: int
    deals: int
    first_dealer: int
    fixed_dealers: tuple[int, ...]  # a fixed deal's hands are in its deal record
    suit_permutation: str
    seats: tuple[SeatEntry, ...]
    time_control: TimeControlSettings
    versions: Json
    started_at: int
    seed: int | None = None  # written by early versions only: now the footer's

    def ruleset(self) -> Ruleset:
        """The match's ruleset, rebuilt from its id and switches (an EngineError if unknown)."""
        return find_ruleset(self.ruleset_id, self.options)

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
            ruleset_id=spec.ruleset.id,
            options={k: v for k, v in spec.ruleset.options().items() if k in SWITCHES},
            players=spec.ruleset.players,
            deals=spec.deals,
            first_dealer=spec.first_dealer,
            fixed_dealers=tuple(d.dealer for d in spec.fixed_deals),
            suit_permutation="".join(s.letter for s in spec.permutation.images),
            seats=tuple(
                SeatEntry(s.index, s.bot_id, s.bot_name, s.hello_name, s.bot_version) for s in seats
            ),
            time_control=spec.time_control,
            versions={"server": server_version, "protocol": protocol_version},
            started_at=started_at,
        )

    def to_json(self) -> Json:
        return {
            "type": "header",
            "match_id": self.match_id,
            "ruleset": self.ruleset_id,
            "options": self.options,
            "players": self.players,
            "deals": self.deals,
            # Every deal follows from the match seed, and the header is on disk (readable by a
            # seated bot of the same user) from the start: the seed waits for the footer.
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "fixed_deals": [{"dealer": dealer} for dealer in self.fixed_dealers],
            "suit_permutation": self.suit_permutation,
            "seats": [seat.to_json() for seat in self.seats],
            "time_control": dataclasses.asdict(self.time_control),
            "versions": self.versions,
            "started_at": self.started_at,
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> HeaderRecord:
        """The header of a validated log; what early logs lack takes its default (the first
        dealer 0, no permutation, the referee's default time control)."""
        control = record.get("time_control") or {}
        known = {f.name for f in dataclasses.fields(TimeControlSettings)}
        return cls(
            match_id=record["match_id"],
            ruleset_id=record["ruleset"],
            options=dict(record.get("options") or {}),
            players=record["players"],
            deals=record["deals"],
            first_dealer=record.get("first_dealer", 0),
            fixed_dealers=tuple(
                int(d["dealer"]) for d in record.get("fixed_deals") or () if "dealer" in d
            ),
            suit_permutation=record.get("suit_permutation", "CSHD"),
            seats=tuple(SeatEntry.from_json(seat) for seat in record["seats"]),
            time_control=TimeControlSettings(**{k: v for k, v in control.items() if k in known}),
            versions=dict(record.get("versions") or {}),
            started_at=record.get("started_at", 0),
            seed=record.get("seed"),
        )


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

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> DealRecord:
        return cls(
            record["deal_number"],
            record["dealer"],
            record.get("seed"),
            tuple(record["hands"]),
            record.get("blind") or "",
        )

    def deal(self, ruleset: Ruleset) -> Deal:
        """The hands as the engine deals them (an EngineError or ValueError if they cannot
        be: a damaged log)."""
        hands = [parse_cards(text) for text in self.hands]
        return fixed_deal(ruleset, self.dealer, hands, parse_cards(self.blind))


# Not frozen, unlike the other records: one is made per decision, and a frozen dataclass's
# __init__ (object.__setattr__ per field) costs several times a plain one's. Nothing changes it.
@dataclass(slots=True)
class DecisionRecord:
    """A decision; its line also stands for the public event its action caused (``seq``,
    given when the line is written; read back from it, None in logs that had none)."""

    seat: int
    request_id: int  # 0: no request was sent (a forfeited seat) or it failed
    action: str
    latency_ms: int
    outcome: SeatOutcome
    seq: int | None = None

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> DecisionRecord:
        """A validated ``decision`` line (an unknown ``status``: ValueError)."""
        return cls(
            seat=record["seat"],
            request_id=record.get("req", 0),
            action=record["action"],
            latency_ms=record.get("ms", 0),
            outcome=SeatOutcome(record.get("status", SeatOutcome.OK.value)),
            seq=record.get("seq"),
        )

    def to_json(self) -> Json:
        record: Json = {"type": "decision"}
        if self.seq is not None:
            record["seq"] = self.seq
        record.update(seat=self.seat, req=self.request_id, action=self.action, ms=self.latency_ms)
        if self.outcome is not SeatOutcome.OK:
            record["status"] = self.outcome.value
        return record

    def to_line(self) -> str:
        """``to_json()`` as its log line (without the newline) once its ``seq`` is set, written
        directly: the same text as the log's JSON encoder gives, at a fraction of its cost (one
        a decision)."""
        status = "" if self.outcome is SeatOutcome.OK else f',"status":"{self.outcome.value}"'
        return (
            f'{{"type":"decision","seq":{self.seq},"seat":{self.seat},"req":{self.request_id},'
            f'"action":{encode_basestring_ascii(self.action)},"ms":{self.latency_ms}{status}}}'
        )


@dataclass(frozen=True, slots=True)
class BotLogRecord:
    """A bot's debug text (capped per match by the table)."""

    deal: int
    seat: int
    text: str

    def to_json(self) -> Json:
        return {"type": "bot_log", "deal": self.deal, "seat": self.seat, "text": self.text}

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> BotLogRecord:
        return cls(record["deal"], record["seat"], record["text"])


@dataclass(frozen=True, slots=True)
class FooterRecord:
    """The last line: how the match ended."""

    status: MatchStatus
    balances: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[int, ...]
    strikes: tuple[int, ...]
    deals_played: int
    pool: int | None  # None in logs older than the Haferl pool's record
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

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> FooterRecord:
        """A validated ``footer`` line (an unknown ``status``: ValueError)."""
        return cls(
            status=MatchStatus(record["status"]),
            balances=tuple(record["balances"]),
            ranks=tuple(record["ranks"]),
            forfeited=tuple(record["forfeited"]),
            strikes=tuple(record["strikes"]),
            deals_played=record["deals_played"],
            pool=record.get("pool"),
            seed=record.get("seed"),
            ended_at=record.get("ended_at", 0),
        )


@dataclass(frozen=True, slots=True)
class OtherRecord:
    """A record of a type this reader does not know (a newer writer's), kept as it is."""

    type: str
    values: Json

    def to_json(self) -> Json:
        return {"type": self.type, **self.values}
