"""What a match page shows: the match's index row, and what its log says (or why it cannot be
read), from the local stores or, for a match they do not hold, a running referee.

A match is named by its id or a unique prefix of one, by the rule the CLI follows
(:func:`brandeln.services.sources.resolve_match` over the local stores,
:func:`brandeln.services.sources.get_match` at a referee): none is a 404, several a 400 naming them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from brandeln.arena.errors import StoreError
from brandeln.arena.logreader import MatchLog
from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.store.database import RefereeStore
from brandeln.arena.store.match_index import MatchRecord
from brandeln.ladder.errors import RefereeError, RefereeNotFoundError
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.referee.records import RefereeMatch
from brandeln.protocol.events import DealEndedRecord
from brandeln.services import sources
from brandeln.web.data import BadRequestError, DataError, PageNotFoundError
from brandeln.web.listing import MatchRow, match_row
from brandeln.web.match_logs import finished_deals, parse_log, read_match_log
from brandeln.web.referee_link import RefereeLink
from brandeln.web.stores import Stores

__all__ = ["DealRow", "MatchView", "RefereeLink", "find_match", "match_view", "remote_match"]


@dataclass(frozen=True, slots=True)
class DealRow:
    deal: int
    dealer: int
    contract: str
    soloist: int | None
    trump: str
    tricks_won: tuple[int, ...]
    made: bool | None
    payments: tuple[int, ...]


@dataclass
class MatchView:
    """A match page: its index row, and what its log says (or why it cannot be read)."""

    record: MatchRecord
    row: MatchRow
    hello_names: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    deals: list[DealRow] = field(default_factory=list)
    log: MatchLog | None = None  # the validated log (for the replay)
    log_error: str = ""
    incomplete: bool = False


def _source_error(error: sources.SourceError) -> DataError:
    """The page's error for a match the services could not name: a store that failed is the
    data's fault (a 500); otherwise a prefix several matches start with (a 400).

    ``brandeln.services.sources`` raises both as ``SourceError``; the failure is the one raised
    while handling the store's ``StoreError`` (its context), the ambiguity has none.
    """
    if isinstance(error.__context__, StoreError):
        return DataError(str(error))
    return BadRequestError(str(error))


def find_match(stores: Stores, id_or_prefix: str) -> tuple[RefereeStore, MatchRecord]:
    """The match ``id_or_prefix`` names in the local stores, and the store that holds it."""
    try:
        store, match_id = sources.resolve_match(stores.referees, id_or_prefix)
    except sources.SourceNotFoundError as error:
        raise PageNotFoundError(str(error)) from None
    except sources.SourceError as error:
        raise _source_error(error) from None
    return store, store.match(match_id)


def remote_match(link: RefereeLink, id_or_prefix: str) -> tuple[MatchRecord, str]:
    """A match the local stores do not hold, from the referee's ``GetMatch``: its index row
    and its log's text. Blocking (the pages run in worker threads, each call on a loop of its
    own)."""

    async def get() -> tuple[RefereeMatch, str]:
        async with AdminClient(link.address, link.admin_token) as admin:
            return await sources.get_match(admin, id_or_prefix)

    try:
        match, text = asyncio.run(get())
    except RefereeNotFoundError:
        raise PageNotFoundError(
            f"no match with id {id_or_prefix!r} (nor at {link.address})"
        ) from None
    except sources.SourceError as error:
        raise _source_error(error) from None
    except RefereeError as error:
        raise DataError(str(error)) from None
    return sources.record_of(match), text


def match_view(stores: Stores, id_or_prefix: str, referee: RefereeLink | None = None) -> MatchView:
    """The match from the local stores, else (``referee``) from the running referee."""
    try:
        store, record = find_match(stores, id_or_prefix)
    except PageNotFoundError:
        if referee is None:
            raise
        record, text = remote_match(referee, id_or_prefix)
        name = f"referee {referee.address}: {record.match_id}"
        return _view(record, lambda: parse_log(text, name))
    return _view(record, lambda: read_match_log(store, record))


def _view(record: MatchRecord, read: Callable[[], MatchLog]) -> MatchView:
    view = MatchView(record, match_row(record))
    try:
        log = read()
    except DataError as error:
        view.log_error = str(error)
        return view
    if record.status is MatchStatus.RUNNING:
        log = finished_deals(log)
    view.log = log
    view.hello_names = [seat.hello_name or "" for seat in log.header.seats]
    view.versions = [seat.bot_version or "" for seat in log.header.seats]
    view.incomplete = log.footer is None
    dealers = {logged.number: logged.record.dealer for logged in log.deals()}
    for event in log.public_events():
        ended = event.body
        if not isinstance(ended, DealEndedRecord):
            continue
        view.deals.append(
            DealRow(
                deal=event.deal,
                dealer=dealers.get(event.deal, -1),
                contract=ended.contract or ("passed out" if ended.passed_out else "-"),
                soloist=ended.soloist,
                trump=ended.trump or "-",
                tricks_won=tuple(ended.tricks_won),
                made=ended.made,
                payments=tuple(ended.payments),
            )
        )
    return view
