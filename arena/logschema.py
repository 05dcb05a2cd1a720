"""What a match log's records must hold, checked once when a log is read.

:func:`brandeln.arena.logreader.read_log` parses a log and validates every record here, so that
whatever reads the records next (``matches show``, ``matches verify``, the fault suite) may index
them without guarding every key: a log edited by hand, cut short or damaged on disk fails here with
a :class:`MatchLogError` naming the log, the line and what is wrong, never a ``KeyError`` later.

Only what readers rely on is required; keys a reader does not know are left alone, and record
types or event kinds it does not know pass with their ``type``/``kind`` only, so a newer writer's
additions do not break an older reader.

>>> validate_records([{"type": "header", "match_id": "m1"}], "m1.jsonl")
Traceback (most recent call last):
...
brandeln.arena.logschema.MatchLogError: m1.jsonl, line 1: the header has no 'ruleset'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_PLAYERS", "MatchLogError", "validate_records"]

Record = dict[str, Any]

# More seats than any ruleset has: a bound that keeps a damaged header from sizing lists.
MAX_PLAYERS = 16


class MatchLogError(ValueError):
    """A match log that cannot be read as one: ``source`` (the file), ``line`` (1-based, or
    None for the log as a whole) and ``problem`` (what is wrong)."""

    def __init__(self, source: str, line: int | None, problem: str) -> None:
        self.source = source
        self.line = line
        self.problem = problem
        where = source if line is None else f"{source}, line {line}"
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class _Kind:
    """A value's expected kind: a test and how to name it in a message."""

    test: Callable[[Any], bool]
    name: str


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


INT = _Kind(_is_int, "an integer")
STR = _Kind(lambda v: isinstance(v, str), "a string")
BOOL = _Kind(lambda v: isinstance(v, bool), "true or false")
DICT = _Kind(lambda v: isinstance(v, dict), "an object")
OPT_INT = _Kind(lambda v: v is None or _is_int(v), "an integer or null")
OPT_STR = _Kind(lambda v: v is None or isinstance(v, str), "a string or null")
OPT_BOOL = _Kind(lambda v: v is None or isinstance(v, bool), "true, false or null")
INTS = _Kind(lambda v: isinstance(v, list) and all(_is_int(x) for x in v), "a list of integers")
STRS = _Kind(
    lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"
)
LIST = _Kind(lambda v: isinstance(v, list), "a list")

# Per record type: the keys it must have, then the keys that, when present, must be of a kind.
_RECORDS: dict[str, tuple[Mapping[str, _Kind], Mapping[str, _Kind]]] = {
    "header": (
        {"match_id": STR, "ruleset": STR, "players": INT, "deals": INT, "seats": LIST},
        {
            "options": DICT,
            "first_dealer": INT,
            "seed": OPT_INT,  # null: the match seed is in the footer
            "fixed_deals": LIST,
            "suit_permutation": STR,
            "time_control": DICT,
        },
    ),
    "deal": (
        {"deal_number": INT, "dealer": INT, "hands": STRS},
        {"blind": OPT_STR, "seed": OPT_INT},
    ),
    "decision": ({"seat": INT, "action": STR}, {"seq": INT, "req": INT, "ms": INT, "status": STR}),
    "event": ({"seq": INT, "deal": INT, "kind": STR}, {}),
    "penalty": ({"deal": INT, "seat": INT, "code": STR, "reason": STR, "strikes": INT}, {}),
    "bot_log": ({"deal": INT, "seat": INT, "text": STR}, {}),
    "footer": (
        {
            "status": STR,
            "balances": INTS,
            "ranks": INTS,
            "forfeited": INTS,
            "strikes": INTS,
            "deals_played": INT,
        },
        {"pool": INT, "seed": OPT_INT},
    ),
}

_EVENTS: dict[str, Mapping[str, _Kind]] = {
    "bid_made": {"seat": INT, "bid": STR},
    "contract_set": {"soloist": OPT_INT, "contract": OPT_STR, "passed_out": BOOL},
    "trump_named": {"suit": STR},
    "card_played": {"seat": INT, "card": STR},
    "trick_taken": {"trick": INT, "leader": INT, "cards": STR, "winner": INT},
    "deal_ended": {
        "soloist": OPT_INT,
        "contract": OPT_STR,
        "trump": OPT_STR,
        "passed_out": BOOL,
        "tricks_won": INTS,
        "made": OPT_BOOL,
        "payments": INTS,
    },
}

_SEAT = ({"seat": INT, "bot_id": STR, "bot_name": STR}, {"hello_name": STR, "bot_version": STR})

# Keys holding one seat (or null), and keys holding one value per seat.
_SEAT_KEYS = ("seat", "dealer", "soloist", "leader", "winner", "first_dealer")
_PER_SEAT = ("hands", "tricks_won", "payments", "balances", "strikes")


def _label(record_type: str, kind: str | None) -> str:
    if record_type == "event" and kind:
        return f"the {kind} event"
    if record_type in ("header", "footer"):
        return f"the {record_type}"
    return f"the {record_type} record"


def _shown(value: Any) -> str:
    text = repr(value)  # repr escapes control characters: safe to print
    return text if len(text) <= 40 else text[:37] + "..."


def _check_keys(
    record: Mapping[str, Any],
    required: Mapping[str, _Kind],
    optional: Mapping[str, _Kind],
    label: str,
) -> str | None:
    for key, kind in required.items():
        if key not in record:
            return f"{label} has no {key!r}"
        if not kind.test(record[key]):
            return f"{label}: {key!r} should be {kind.name}, not {_shown(record[key])}"
    for key, kind in optional.items():
        if key in record and not kind.test(record[key]):
            return f"{label}: {key!r} should be {kind.name}, not {_shown(record[key])}"
    return None


def _check_seats(record: Mapping[str, Any], players: int, label: str) -> str | None:
    for key in _SEAT_KEYS:
        value = record.get(key)
        if isinstance(value, int) and not 0 <= value < players:
            return f"{label}: {key!r} is {value}, not a seat 0..{players - 1}"
    for key in _PER_SEAT:
        value = record.get(key)
        if isinstance(value, list) and len(value) != players:
            return f"{label}: {key!r} has {len(value)} entries for {players} seats"
    return None


def _check_header(header: Record) -> str | None:
    players = header["players"]
    if not 1 <= players <= MAX_PLAYERS:
        return f"the header: 'players' is {players}, not 1..{MAX_PLAYERS}"
    if header["deals"] < 1:
        return f"the header: 'deals' is {header['deals']}, not at least 1"
    seats = header["seats"]
    if len(seats) != players:
        return f"the header: 'seats' lists {len(seats)} seats for {players} players"
    for index, seat in enumerate(seats):
        if not isinstance(seat, dict):
            return f"the header: seat {index} should be an object, not {_shown(seat)}"
        problem = _check_keys(seat, *_SEAT, f"the header's seat {index}")
        if problem is not None:
            return problem
        if seat["seat"] != index:
            return f"the header: seat {index} is numbered {seat['seat']}"
    max_strikes = header.get("time_control", {}).get("max_strikes", 1)
    if not _is_int(max_strikes) or max_strikes < 1:
        return f"the header: 'time_control.max_strikes' is {_shown(max_strikes)}"
    return None


def _check_footer(footer: Record, players: int) -> str | None:
    if footer["ranks"] and len(footer["ranks"]) != players:
        return f"the footer: 'ranks' has {len(footer['ranks'])} entries for {players} seats"
    for seat in footer["forfeited"]:
        if not 0 <= seat < players:
            return f"the footer: 'forfeited' holds {seat}, not a seat 0..{players - 1}"
    return None


def validate_records(
    records: Sequence[Record], source: str, lines: Sequence[int] | None = None
) -> None:
    """Check parsed records (in order; ``lines`` their line numbers) against the log format.

    The first record is the header; at most one footer, last; deals are numbered 1, 2, 3...
    and every event belongs to the deal it follows; seats are in range and per-seat lists have
    one entry per seat. Raises :class:`MatchLogError` at the first problem.
    """
    if not records:
        raise MatchLogError(source, None, "the log is empty (no header)")
    players = 0
    deal = 0
    previous = ""
    for index, record in enumerate(records):
        line = lines[index] if lines is not None else index + 1
        problem = _problem(record, index, previous, players, deal)
        if problem is not None:
            raise MatchLogError(source, line, problem)
        previous = record["type"]
        if previous == "header":
            players = record["players"]
        elif previous == "deal":
            deal = record["deal_number"]


def _problem(record: Record, index: int, previous: str, players: int, deal: int) -> str | None:
    """What is wrong with one record, given what came before it (None: nothing)."""
    record_type = record["type"]
    kind = record.get("kind") if record_type == "event" else None
    label = _label(record_type, kind if isinstance(kind, str) else None)
    if index == 0 and record_type != "header":
        return f"the log starts with a {record_type!r} record, not its header"
    if index > 0 and record_type == "header":
        return "a second header"
    if previous == "footer":
        return f"a {record_type!r} record after the footer"
    spec = _RECORDS.get(record_type)
    if spec is None:
        return None  # a record type this reader does not know: a newer writer's, kept as is
    problem = _check_keys(record, *spec, label)
    if problem is None and record_type == "event":
        problem = _check_keys(record, _EVENTS.get(record["kind"], {}), {}, label)
    if problem is None and record_type == "header":
        problem = _check_header(record)
        players = record["players"]
    if problem is None:
        problem = _check_seats(record, players, label)
    if problem is None and record_type == "footer":
        problem = _check_footer(record, players)
    if problem is None and record_type == "deal" and record["deal_number"] != deal + 1:
        problem = f"deal {record['deal_number']} follows deal {deal}"
    if problem is None and record_type == "event" and record["deal"] != deal:
        problem = f"{label} is of deal {record['deal']}, inside deal {deal}"
    return problem
