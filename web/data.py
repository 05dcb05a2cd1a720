"""What the pages show, read from the stores through their own modules (never SQL here).

:func:`open_stores` is the one place the web front opens storage: today the SQLite files of a
data folder (``DATA/ladder.db``, the served referee's ``DATA/referee.db`` and the embedded
referee's ``DATA/embedded/referee.db``, as the CLI reads them); a PostgreSQL URL (``--db``) is
refused with a clear message until the stores speak it. Every other function takes the opened
:class:`Stores` and returns plain view data for the templates.

Stores are opened per request, in the thread that serves it (an SQLite connection belongs to
its thread) and only when their file exists: the app never creates a database.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import threading
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from arena.errors import NotFoundError as RefereeNotFound
from arena.errors import StoreError
from arena.logrecords import MatchStatus
from arena.logschema import MatchLogError
from arena.match_index import MatchRecord
from arena.matchlog import public_events, read_log
from arena.store import RefereeStore
from arena.summaries import record_of
from brandeln.v1 import admin_pb2
from datastore.url import scrub
from ladder.admin_client import AdminClient
from ladder.errors import (
    LadderError,
    RefereeError,
    RefereeNotFoundError,
    UnknownSeasonError,
    VersusError,
)
from ladder.leaderboard import LeaderboardRow, season_leaderboard
from ladder.storage import LadderStore, RecordedMatch, SeasonInfo, SeasonStatus
from ladder.versus import HeadToHead, head_to_head, side_names, versus_matrix

__all__ = [
    "BOT_STATS_MATCHES",
    "BadRequestError",
    "DataError",
    "NotFoundError",
    "RefereeLink",
    "StorageLocation",
    "Stores",
    "check_location",
    "open_stores",
]

Record = dict[str, Any]

LADDER_DB: Final = "ladder.db"
REFEREE_DB: Final = "referee.db"
EMBEDDED_DIR: Final = "embedded"
POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://", "postgresql+")
# A bot page reads the logs of the bot's newest matches for its per-deal figures; older
# matches count in the strikes and forfeits (from the index) only.
BOT_STATS_MATCHES: Final = 100
# The head to head's sides as typed in the leaderboard's form are cut to this many characters
# before they are read: bot names, not a file.
VERSUS_QUERY_CHARS: Final = 1000
MATCHES_PER_PAGE: Final = 25
BLOCKS_PER_PAGE: Final = 10
_CACHED_LOGS: Final = 512


class DataError(Exception):
    """A clear, user-facing reason the data cannot be shown (the page says it, no trace)."""


class NotFoundError(DataError):
    """No such season, bot or match (a 404 page)."""


class BadRequestError(DataError):
    """A request that asks for something malformed: a bad ``?page=``, a parameter given twice
    (a 400 page saying what)."""


@dataclass(frozen=True, slots=True)
class StorageLocation:
    """Where the data lives: a data folder (``--data``) or a database URL (``--db``)."""

    data: Path | None = None
    db_url: str | None = None

    def describe(self) -> str:
        return scrub(self.db_url) if self.db_url else str(self.data)


def check_location(location: StorageLocation) -> None:
    """Refuse, before serving, a location the stores cannot open (:class:`DataError`)."""
    if location.db_url is not None:
        if location.db_url.startswith(POSTGRES_SCHEMES):
            return
        raise DataError(
            f"--db takes a postgresql:// URL (an SQLite store is served with --data DIR), "
            f"not {scrub(location.db_url)!r}"
        )
    if location.data is None:
        raise DataError("give a data folder (--data DIR) or a database URL (--db URL)")


@dataclass
class Stores:
    """The opened stores: the ladder's (None before any season) and the referees'."""

    ladder: LadderStore | None
    referees: list[RefereeStore]


@contextmanager
def open_stores(location: StorageLocation) -> Iterator[Stores]:
    """THE place the web front opens storage; closes it afterwards (SQLite files are opened
    per request, as they may appear or be replaced; a PostgreSQL database once per app).

    Raises :class:`DataError` when a database is unusable (not ours, damaged, newer schema).
    """
    check_location(location)
    with ExitStack() as stack:
        if location.db_url is not None:
            stores = _shared_stores(location.db_url)
        else:
            stores = _open_files(location, stack)
        try:
            yield stores
        except UnknownSeasonError as error:
            raise NotFoundError(str(error)) from None
        except (LadderError, StoreError) as error:
            raise DataError(str(error)) from None
        except (ValueError, sqlite3.DatabaseError) as error:
            # A damaged row met while reading (a status no enum knows, a number that is not):
            # the page says so rather than a trace.
            raise DataError(f"{location.describe()}: a damaged record: {error}") from None


def _open_files(location: StorageLocation, stack: ExitStack) -> Stores:
    assert location.data is not None  # check_location: a folder when there is no URL
    data = location.data
    ladder = None
    ladder_path = data / LADDER_DB
    try:
        if ladder_path.is_file():
            ladder = LadderStore.open(ladder_path, create=False)
            stack.callback(ladder.close)
        referees = []
        for path in (data / REFEREE_DB, data / EMBEDDED_DIR / REFEREE_DB):
            if path.is_file():
                store = RefereeStore(path)
                stack.callback(store.close)
                referees.append(store)
    except (LadderError, StoreError) as error:
        raise DataError(str(error)) from None
    return Stores(ladder, referees)


# -- formatting -------------------------------------------------------------------------------


def utc_text(ms: int) -> str:
    """Milliseconds since the epoch as ``2026-12-01 16:20 UTC`` ('-' for 0)."""
    if ms <= 0:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True, slots=True)
class Paging:
    """One page of a list that grows: which page, and whether there are others."""

    page: int
    has_previous: bool
    has_next: bool


# -- index ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeasonRow:
    name: str
    status: SeasonStatus
    status_detail: str
    ruleset: str
    players: int
    blocks_finished: int
    blocks_planned: int
    updated: str

    @classmethod
    def of(cls, info: SeasonInfo) -> SeasonRow:
        return cls(
            info.name,
            info.status,
            info.status_detail,
            info.ruleset,
            info.players,
            info.blocks_finished,
            info.blocks_planned,
            utc_text(info.updated_at),
        )

    @property
    def running(self) -> bool:
        return self.status is SeasonStatus.RUNNING and self.blocks_finished < self.blocks_planned


@dataclass(frozen=True, slots=True)
class SeatCell:
    seat: int
    bot_id: str
    name: str
    chips: int | None


@dataclass(frozen=True, slots=True)
class MatchRow:
    match_id: str
    ruleset: str
    status: str
    deals_played: int
    started: str
    seats: tuple[SeatCell, ...]


def match_row(record: MatchRecord) -> MatchRow:
    seats = tuple(
        SeatCell(
            seat,
            bot_id,
            record.bot_names[seat] if seat < len(record.bot_names) else bot_id,
            record.balances[seat] if seat < len(record.balances) else None,
        )
        for seat, bot_id in enumerate(record.bot_ids)
    )
    return MatchRow(
        record.match_id,
        record.ruleset,
        record.status.value,
        record.deals_played,
        utc_text(record.started_at),
        seats,
    )


def seasons(stores: Stores) -> list[SeasonRow]:
    """Every season, newest first."""
    if stores.ladder is None:
        return []
    return [SeasonRow.of(info) for info in reversed(stores.ladder.seasons())]


def recent_matches(
    stores: Stores, page: int, bot_id: str = "", per_page: int = MATCHES_PER_PAGE
) -> tuple[list[MatchRow], Paging]:
    """The newest matches of every referee store (of ``bot_id`` only, if given), one page.

    The stores list newest first with a limit; a page takes the first ``page * per_page``
    rows of each (the index on start time keeps that cheap) and merges them.
    """
    wanted = page * per_page + 1
    rows = [row for store in stores.referees for row in store.matches(bot_id, wanted)]
    rows.sort(key=lambda row: (row.started_at, row.match_id), reverse=True)
    shown = rows[(page - 1) * per_page : page * per_page]
    return [match_row(row) for row in shown], Paging(page, page > 1, len(rows) > page * per_page)


# -- seasons ----------------------------------------------------------------------------------


def _ladder(stores: Stores) -> LadderStore:
    if stores.ladder is None:
        raise NotFoundError("no seasons yet: the ladder database does not exist")
    return stores.ladder


def season_info(stores: Stores, name: str) -> SeasonRow:
    ladder = _ladder(stores)
    try:
        return SeasonRow.of(ladder.season(name))
    except UnknownSeasonError as error:
        raise NotFoundError(str(error)) from None


def bot_links(stores: Stores, season: str) -> dict[str, str]:
    """The referee bot id of each season bot that has one (a link to its bot page)."""
    identities = _ladder(stores).bot_identities(season)
    return {name: ident.bot_id for name, ident in identities.items() if ident.bot_id}


def leaderboard(stores: Stores, season: str) -> list[LeaderboardRow]:
    """The same rows as ``brandeln ratings`` (ladder.leaderboard)."""
    season_info(stores, season)
    return season_leaderboard(_ladder(stores), season)


@dataclass(frozen=True, slots=True)
class VersusView:
    """The leaderboard's head to head: every pair of the season's bots, and the two sides a
    reader asked for (as ``brandeln ratings --versus``), over the rated blocks."""

    bots: list[str]  # in the leaderboard's order
    cells: dict[tuple[str, str], HeadToHead]  # (row bot, column bot): the row's gain
    a: str = ""  # the sides as typed: bot names separated by commas
    b: str = ""
    asked: HeadToHead | None = None
    error: str = ""  # why the sides asked for cannot be compared

    def cell(self, a: str, b: str) -> HeadToHead | None:
        return self.cells.get((a, b))


def versus(
    stores: Stores, season: str, bots: Sequence[str], a: str = "", b: str = ""
) -> VersusView:
    """The head to head of ``bots`` pair by pair and, if a side is given, of side ``a`` against
    side ``b``; a side that cannot be compared is a one-line ``error``, not an exception."""
    results = _ladder(stores).results(season, rated_only=True)
    cells = versus_matrix(results, bots)
    a, b = a[:VERSUS_QUERY_CHARS], b[:VERSUS_QUERY_CHARS]
    if not (a.strip() or b.strip()):
        return VersusView(list(bots), cells)
    try:
        asked = head_to_head(results, side_names(a), side_names(b))
    except VersusError as error:
        return VersusView(list(bots), cells, a, b, error=str(error))
    return VersusView(list(bots), cells, a, b, asked)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    block: int  # 1-based: the rating after this many blocks
    mu: float
    sigma: float


def rating_series(stores: Stores, season: str) -> dict[str, list[HistoryPoint]]:
    """Each bot's rating after each block it played, from the stored history."""
    season_info(stores, season)
    series: dict[str, list[HistoryPoint]] = defaultdict(list)
    for index, bot, rating in _ladder(stores).rating_history(season):
        series[bot].append(HistoryPoint(index + 1, rating.mu, rating.sigma))
    return dict(sorted(series.items()))


def chart_data(series: dict[str, list[HistoryPoint]]) -> list[dict[str, Any]]:
    """The chart's input (``|tojson`` into the page): one entry per line, its points."""
    return [
        {
            "label": label,
            "points": [
                {"x": p.block, "mu": round(p.mu, 4), "sigma": round(p.sigma, 4)} for p in points
            ],
        }
        for label, points in series.items()
    ]


@dataclass(frozen=True, slots=True)
class ScheduledBlock:
    index: int
    matches: list[RecordedMatch]


def schedule(
    stores: Stores, season: str, page: int, per_page: int = BLOCKS_PER_PAGE
) -> tuple[list[ScheduledBlock], Paging]:
    """The season's played blocks (newest first) with their matches, one page of blocks."""
    season_info(stores, season)
    by_block: dict[int, list[RecordedMatch]] = defaultdict(list)
    for match in _ladder(stores).matches(season):
        by_block[match.block_index].append(match)
    indexes = sorted(by_block, reverse=True)
    shown = indexes[(page - 1) * per_page : page * per_page]
    return (
        [ScheduledBlock(index, by_block[index]) for index in shown],
        Paging(page, page > 1, len(indexes) > page * per_page),
    )


# -- matches ----------------------------------------------------------------------------------


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
    records: list[Record] = field(default_factory=list)  # the validated log (for the replay)
    log_error: str = ""
    incomplete: bool = False


def find_match(stores: Stores, match_id: str) -> MatchRecord:
    for store in stores.referees:
        try:
            return store.match(match_id)
        except RefereeNotFound:
            continue
    raise NotFoundError(f"no match with id {match_id!r}")


_SHARED: dict[str, Stores] = {}
_SHARED_LOCK: Final = threading.Lock()


def _shared_stores(url: str) -> Stores:
    """The stores in a PostgreSQL database, opened once per app (an engine and its pool are
    meant to live long; the worker threads share them). Its match logs are in it too."""
    with _SHARED_LOCK:
        stores = _SHARED.get(url)
        if stores is None:
            try:
                ladder = LadderStore.open(url, create=False)
                referee = RefereeStore(url)
            except (LadderError, StoreError) as error:
                raise DataError(str(error)) from None
            stores = _SHARED[url] = Stores(ladder, [referee])
        return stores


def _log_text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise DataError(f"{name}, line {line}: not UTF-8 text") from None


def parse_log(text: str, name: str) -> list[Record]:
    """A log's records, validated; :class:`DataError` naming ``name``, the line and what is
    wrong with it."""
    try:
        records = read_log(text, name)
    except MatchLogError as error:
        raise DataError(str(error)) from None
    if not records or records[0]["type"] != "header":
        raise DataError(f"{name}: the log has no header")
    return records


def read_match_log(record: MatchRecord, stores: Stores | None = None) -> list[Record]:
    """The match's log from its file (or, PostgreSQL, the database), validated;
    :class:`DataError` saying what is wrong."""
    shared = [store for store in (stores.referees if stores else ()) if store.shared]
    try:
        data = shared[0].read_log(record.log_path) if shared else Path(record.log_path).read_bytes()
    except StoreError as error:
        raise DataError(f"the log of this match is unreadable: {error}") from None
    except OSError as error:
        raise DataError(f"the log of this match is unreadable: {error.strerror or error}") from None
    text = _log_text(data, record.log_path)
    if record.status is MatchStatus.RUNNING:
        # The referee may be appending to the file as it is read: stop at the last whole line.
        text = text[: text.rfind("\n") + 1]
    return parse_log(text, record.log_path)


def finished_deals(records: Sequence[Record]) -> list[Record]:
    """A running match's records up to its first deal that has not ended.

    The referee writes a deal's records only once it has ended, but a log read while it
    appends them may stop inside them: such a deal is taken for one still in play, whose hands
    no page may show before it ends.
    """
    ended = {
        int(r["deal"]) for r in records if r["type"] == "event" and r.get("kind") == "deal_ended"
    }
    for index, record in enumerate(records):
        if record["type"] == "deal" and int(record["deal_number"]) not in ended:
            return list(records[:index])
    return list(records)


@dataclass(frozen=True, slots=True)
class RefereeLink:
    """A running referee's Admin service (``--referee``, ``--admin-token``)."""

    address: str
    admin_token: str


def remote_match(link: RefereeLink, match_id: str) -> tuple[MatchRecord, str]:
    """A match the local stores do not hold, from the referee's ``GetMatch``: its index row
    and its log's text. Blocking (the pages run in worker threads, each call on a loop of its
    own)."""

    async def get() -> admin_pb2.GetMatchResponse:
        async with AdminClient(link.address, link.admin_token) as admin:
            return await admin.get_match(match_id)

    try:
        reply = asyncio.run(get())
    except RefereeNotFoundError:
        raise NotFoundError(f"no match with id {match_id!r} (nor at {link.address})") from None
    except RefereeError as error:
        raise DataError(str(error)) from None
    return record_of(reply.summary), reply.log_jsonl


def match_view(stores: Stores, match_id: str, referee: RefereeLink | None = None) -> MatchView:
    """The match from the local stores, else (``referee``) from the running referee."""
    try:
        record = find_match(stores, match_id)
    except NotFoundError:
        if referee is None:
            raise
        record, text = remote_match(referee, match_id)
        return _view(record, lambda: parse_log(text, f"referee {referee.address}: {match_id}"))
    return _view(record, lambda: read_match_log(record, stores))


def _view(record: MatchRecord, read: Callable[[], list[Record]]) -> MatchView:
    view = MatchView(record, match_row(record))
    try:
        records = read()
    except DataError as error:
        view.log_error = str(error)
        return view
    if record.status is MatchStatus.RUNNING:
        records = finished_deals(records)
    view.records = records
    seats = records[0]["seats"]
    view.hello_names = [str(s.get("hello_name") or "") for s in seats]
    view.versions = [str(s.get("bot_version") or "") for s in seats]
    view.incomplete = records[-1]["type"] != "footer"
    dealers = {int(r["deal_number"]): int(r["dealer"]) for r in records if r["type"] == "deal"}
    for event in public_events(records):
        if event["kind"] != "deal_ended":
            continue
        deal = int(event["deal"])
        view.deals.append(
            DealRow(
                deal=deal,
                dealer=dealers.get(deal, -1),
                contract=str(event["contract"] or ("passed out" if event["passed_out"] else "-")),
                soloist=event["soloist"],
                trump=str(event["trump"] or "-"),
                tricks_won=tuple(event["tricks_won"]),
                made=event["made"],
                payments=tuple(event["payments"]),
            )
        )
    return view


# -- bots -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotSeason:
    season: str
    bot: str  # its name in that season


@dataclass(frozen=True, slots=True)
class ContractRow:
    contract: str
    bids: int  # times it bid this contract in an auction
    played: int  # deals it played it as soloist
    made: int

    @property
    def made_percent(self) -> float | None:
        return 100.0 * self.made / self.played if self.played else None


@dataclass
class LogFigures:
    """What one match's log says about one bot (one or more seats)."""

    soloist_chips: int = 0
    soloist_deals: int = 0
    defender_chips: int = 0
    defender_deals: int = 0
    bids: Counter[str] = field(default_factory=Counter)
    played: Counter[str] = field(default_factory=Counter)
    made: Counter[str] = field(default_factory=Counter)
    latencies: list[int] = field(default_factory=list)

    def add(self, other: LogFigures) -> None:
        self.soloist_chips += other.soloist_chips
        self.soloist_deals += other.soloist_deals
        self.defender_chips += other.defender_chips
        self.defender_deals += other.defender_deals
        self.bids.update(other.bids)
        self.played.update(other.played)
        self.made.update(other.made)
        self.latencies.extend(other.latencies)


@dataclass
class BotView:
    bot_id: str
    name: str
    revoked: bool
    registered: str
    seasons: list[BotSeason]
    matches: list[MatchRow]
    paging: Paging
    matches_read: int  # logs read for the figures below
    unreadable: list[str]  # match ids whose log could not be read, and why
    strikes: int
    forfeits: int
    soloist_per_deal: float | None
    soloist_deals: int
    defender_per_deal: float | None
    defender_deals: int
    contracts: list[ContractRow]
    latency_p50: int | None
    latency_p95: int | None
    decisions: int


def percentile(values: Sequence[int], share: float) -> int | None:
    """The nearest-rank percentile (``share`` in 0..1) of ``values``; None when empty.

    >>> percentile([5, 1, 3, 2, 4], 0.5), percentile([5, 1, 3, 2, 4], 0.95)
    (3, 5)
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


_LOG_CACHE: OrderedDict[tuple[str, str, int, int], LogFigures] = OrderedDict()
_LOG_CACHE_LOCK: Final = threading.Lock()  # pages are served by several worker threads


def _figures_of(record: MatchRecord, bot_id: str, stores: Stores) -> LogFigures:
    """The log's figures for ``bot_id``, cached by file, size and modification time (a
    finished log never changes); a log in PostgreSQL by its match's status and deals."""
    if any(store.shared for store in stores.referees):
        key = (record.log_path, bot_id, hash(record.status), record.deals_played)
    else:
        try:
            stat = Path(record.log_path).stat()
        except OSError as error:
            raise DataError(f"the log is unreadable: {error.strerror or error}") from None
        key = (record.log_path, bot_id, stat.st_size, stat.st_mtime_ns)
    with _LOG_CACHE_LOCK:
        cached = _LOG_CACHE.get(key)
        if cached is not None:
            _LOG_CACHE.move_to_end(key)
            return cached
    figures = log_figures(read_match_log(record, stores), bot_id)
    with _LOG_CACHE_LOCK:
        _LOG_CACHE[key] = figures
        while len(_LOG_CACHE) > _CACHED_LOGS:
            _LOG_CACHE.popitem(last=False)
    return figures


def log_figures(records: Sequence[Record], bot_id: str) -> LogFigures:
    """Chips as soloist and as defender, bids and contracts, decision latencies of the seats
    ``bot_id`` held in one match."""
    figures = LogFigures()
    seats = {int(s["seat"]) for s in records[0]["seats"] if s["bot_id"] == bot_id}
    for record in records:
        if record["type"] == "decision" and record["seat"] in seats and record["req"]:
            figures.latencies.append(int(record["ms"]))
    for event in public_events(records):
        kind = event["kind"]
        if kind == "bid_made" and event["seat"] in seats and event["bid"] != "pass":
            figures.bids[str(event["bid"])] += 1
        elif kind == "deal_ended" and event["soloist"] is not None:
            soloist = int(event["soloist"])
            for seat in seats:
                chips = int(event["payments"][seat])
                if seat == soloist:
                    figures.soloist_chips += chips
                    figures.soloist_deals += 1
                    contract = str(event["contract"] or "-")
                    figures.played[contract] += 1
                    figures.made[contract] += int(bool(event["made"]))
                else:
                    figures.defender_chips += chips
                    figures.defender_deals += 1
    return figures


def _bot_record(stores: Stores, bot_id: str) -> tuple[str, bool, int]:
    for store in stores.referees:
        try:
            bot = store.bot(bot_id)
        except RefereeNotFound:
            continue
        return bot.name, bot.revoked, bot.created_at
    raise NotFoundError(f"no bot with id {bot_id!r}")


def bot_seasons(stores: Stores, bot_id: str) -> list[BotSeason]:
    """The seasons in which ``bot_id`` played, newest first, with its name in each."""
    if stores.ladder is None:
        return []
    return [BotSeason(season, name) for season, name in stores.ladder.seasons_of_bot(bot_id)]


def bot_view(stores: Stores, bot_id: str, page: int) -> BotView:
    name, revoked, created = _bot_record(stores, bot_id)
    rows, paging = recent_matches(stores, page, bot_id)
    newest = [r for store in stores.referees for r in store.matches(bot_id, BOT_STATS_MATCHES)]
    newest.sort(key=lambda r: (r.started_at, r.match_id), reverse=True)
    newest = newest[:BOT_STATS_MATCHES]
    total = LogFigures()
    unreadable = []
    strikes = forfeits = read = 0
    for record in newest:
        seats = [seat for seat, b in enumerate(record.bot_ids) if b == bot_id]
        strikes += sum(record.strikes[s] for s in seats if s < len(record.strikes))
        forfeits += sum(1 for s in seats if s in record.forfeited)
        try:
            total.add(_figures_of(record, bot_id, stores))
            read += 1
        except DataError as error:
            unreadable.append(f"{record.match_id}: {error}")
    contracts = [
        ContractRow(contract, total.bids[contract], total.played[contract], total.made[contract])
        for contract in sorted(set(total.bids) | set(total.played))
    ]
    return BotView(
        bot_id=bot_id,
        name=name,
        revoked=revoked,
        registered=utc_text(created),
        seasons=bot_seasons(stores, bot_id),
        matches=rows,
        paging=paging,
        matches_read=read,
        unreadable=unreadable,
        strikes=strikes,
        forfeits=forfeits,
        soloist_per_deal=(
            total.soloist_chips / total.soloist_deals if total.soloist_deals else None
        ),
        soloist_deals=total.soloist_deals,
        defender_per_deal=(
            total.defender_chips / total.defender_deals if total.defender_deals else None
        ),
        defender_deals=total.defender_deals,
        contracts=contracts,
        latency_p50=percentile(total.latencies, 0.50),
        latency_p95=percentile(total.latencies, 0.95),
        decisions=len(total.latencies),
    )


def bot_rating_series(stores: Stores, seasons_of_bot: Sequence[BotSeason]) -> dict[str, Any]:
    """One line per season of the bot: its rating after each block (for its chart)."""
    series: dict[str, list[HistoryPoint]] = {}
    for entry in seasons_of_bot:
        points = rating_series(stores, entry.season).get(entry.bot)
        if points:
            series[entry.season] = points
    return series
