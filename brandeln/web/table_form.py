"""The forms of the tables' pages, read into plans: a new table (``POST /tables``) and a seat
taken (``POST /tables/ID/seats``). Each refusal is a :class:`TableRefusedError` with a 400
and one line saying what is wrong.

A new table's fields: ``ruleset`` (a named ruleset), ``deals`` (empty: the ruleset's), one
``seatN`` per seat of the ruleset (``person``, a sample bot's name, or ``registered`` with the
bot's id in ``botN``), ``name`` (the person's, shown to the table) and ``token`` (the people
token, when the server asks one). A seat: ``name`` and ``token``.

>>> plan, name = read_table(
...     {"ruleset": ["standard"], "seat0": ["person"], "seat1": ["random"],
...      "seat2": ["heuristic"], "seat3": ["heuristic"], "name": ["ann"]},
...     samples=("random", "heuristic"), registered=False)
>>> [seat.label for seat in plan.seats], plan.deals, name
(['a person', 'random', 'heuristic', 'heuristic'], None, 'ann')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Final

from brandeln.arena.config import RefereeConfig
from brandeln.arena.names import check_name
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.web.inputs import ID_PATTERN, shown
from brandeln.web.table_room import TableRefusedError
from brandeln.web.tables import SeatKind, SeatPlan, TablePlan

__all__ = [
    "DEFAULT_NAME",
    "MAX_FIELDS",
    "MAX_FORM_BYTES",
    "MAX_NAME_CHARS",
    "PERSON",
    "REGISTERED",
    "person_name",
    "read_table",
    "single_field",
]

MAX_FORM_BYTES: Final = 2048
MAX_FIELDS: Final = 16
MAX_NAME_CHARS: Final = 32  # room for "@table-<8 hex>-<seat>" in a registered name
DEFAULT_NAME: Final = "person"
PERSON: Final = "person"
REGISTERED: Final = "registered"
MAX_SEATS: Final = 4
Fields = Mapping[str, Sequence[str]]


def _bad(reason: str) -> TableRefusedError:
    return TableRefusedError(HTTPStatus.BAD_REQUEST, reason)


def single_field(fields: Fields, name: str) -> str:
    """The field's one value, stripped ("" when absent); given twice, a 400."""
    values = fields.get(name, [])
    if len(values) > 1:
        raise _bad(f"{name} is given {len(values)} times: give it once")
    return values[0].strip() if values else ""


def person_name(fields: Fields) -> str:
    """The person's name: plain text of 1 to :data:`MAX_NAME_CHARS` characters (empty:
    :data:`DEFAULT_NAME`)."""
    text = single_field(fields, "name") or DEFAULT_NAME
    if len(text) > MAX_NAME_CHARS:
        raise _bad(f"a name is at most {MAX_NAME_CHARS} characters, not {len(text)}")
    try:
        return check_name(text, "a name")
    except ValueError as error:
        raise _bad(str(error)) from None


def read_table(
    fields: Fields, *, samples: Sequence[str], registered: bool
) -> tuple[TablePlan, str]:
    """A new table's plan and its first person's name. ``samples``: the sample bots a seat
    may be; ``registered``: whether a registered bot may sit (at a running referee only)."""
    ruleset_id = single_field(fields, "ruleset") or "standard"
    if ruleset_id not in RULESET_IDS:
        raise _bad(f"no ruleset {shown(ruleset_id)}; rulesets: {', '.join(RULESET_IDS)}")
    ruleset = find_ruleset(ruleset_id)
    seats = tuple(
        _seat(fields, n, samples=samples, registered=registered) for n in range(ruleset.players)
    )
    if not any(seat.kind is SeatKind.PERSON for seat in seats):
        raise _bad("a table needs a person: make one seat or more 'a person'")
    most = ruleset.max_deals or RefereeConfig.max_deals
    text = single_field(fields, "deals")
    deals = None
    if text:
        if not (text.isascii() and text.isdigit() and len(text) <= len(str(most))):
            raise _bad(f"deals takes a whole number from 1 to {most}")
        deals = int(text)
        if not 1 <= deals <= most:
            raise _bad(f"deals takes a whole number from 1 to {most}")
    return TablePlan(ruleset_id, deals, seats), person_name(fields)


def _seat(fields: Fields, seat: int, *, samples: Sequence[str], registered: bool) -> SeatPlan:
    choice = single_field(fields, f"seat{seat}")
    if choice == PERSON:
        return SeatPlan(SeatKind.PERSON)
    if choice in samples:
        return SeatPlan(SeatKind.SAMPLE, choice)
    if choice == REGISTERED:
        if not registered:
            raise _bad(
                f"seat {seat}: a registered bot connects to a running referee by itself: start "
                "brandeln web --referee HOST:PORT (the referee your bot plays at) to seat it"
            )
        bot_id = single_field(fields, f"bot{seat}")
        if not ID_PATTERN.fullmatch(bot_id):
            raise _bad(f"seat {seat}: {shown(bot_id)} is not a bot id (bot_...)")
        return SeatPlan(SeatKind.REGISTERED, bot_id)
    known = ", ".join([PERSON, *samples, REGISTERED])
    raise _bad(f"seat {seat}: {shown(choice)} is not a player here; choose one of {known}")
