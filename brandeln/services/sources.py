"""Where bots and matches are read from: the local referee database and logs (works with the
referee stopped), or a remote referee through the Admin service; a match named by its id or a
unique prefix of one, either way (:func:`resolve_match`, :func:`get_match`)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from brandeln.services import data_folder

if TYPE_CHECKING:  # the arena and the ladder load inside the calls: `brandeln --help` stays fast
    from brandeln.arena.store.database import MatchRecord, RefereeStore
    from brandeln.ladder.referee.admin_client import AdminClient
    from brandeln.ladder.referee.records import RefereeMatch

T = TypeVar("T")


class SourceError(Exception):
    """A clear, user-facing reason the data cannot be read."""


class SourceNotFoundError(SourceError):
    """No such match or bot: in the local stores, or at the referee (``NOT_FOUND``)."""


PREFIX_CANDIDATES_SHOWN = 10  # of an ambiguous match id prefix


def unique_match_id(prefix: str, candidates: list[str]) -> str | None:
    """The one id in ``candidates`` starting with ``prefix``; None when none does.

    Raises :class:`SourceError` naming the candidates when several do: a prefix is accepted
    only while it is unambiguous (a newer match may make it ambiguous later).
    """
    matching = [c for c in candidates if c.startswith(prefix)]
    if not matching:
        return None
    if len(matching) == 1:
        return matching[0]
    shown = ", ".join(matching[:PREFIX_CANDIDATES_SHOWN])
    more = ", ..." if len(matching) > PREFIX_CANDIDATES_SHOWN else ""
    raise SourceError(f"match id prefix {prefix!r} is ambiguous: {shown}{more}")


@dataclass(frozen=True)
class BotRow:
    bot_id: str
    name: str
    created_at: int
    revoked: bool


class Source(Protocol):
    def bots(self) -> list[BotRow]: ...
    def add_bot(self, name: str) -> tuple[BotRow, str]: ...
    def matches(self, bot_id: str, limit: int) -> list[MatchRecord]: ...
    def match(self, match_id: str) -> tuple[MatchRecord, str]: ...
    def log_name(self, record: MatchRecord) -> str: ...


class LocalSource:
    """The local referees' own files: the served referee's ``DATA/referee.db`` and the embedded
    referee's ``DATA/embedded/referee.db`` (``season run``, ``demo``), and the logs they name.

    Bots and matches are read from both; ``add_bot`` (and ``store``) is the served referee's,
    or the embedded one's when only it exists.
    """

    def __init__(self, data: Path | None, create: bool = False, db: str | None = None) -> None:
        """``db``: one referee database by URL (``--db``: PostgreSQL, or an SQLite file) in
        place of the data folder's two files."""
        from brandeln.arena.errors import StoreError  # noqa: PLC0415 - keep --help fast
        from brandeln.arena.store.database import RefereeStore  # noqa: PLC0415

        if db is not None:
            try:
                self.stores = [RefereeStore(db, data_folder.logs_dir(data))]
            except StoreError as error:
                raise SourceError(str(error)) from None
            self.store = self.stores[0]
            return
        self.db_path = data_folder.referee_db(data)
        embedded_db = data_folder.referee_db(data_folder.embedded_dir(data))
        wanted = [path for path in (self.db_path, embedded_db) if path.is_file()]
        if create and self.db_path not in wanted:
            wanted.insert(0, self.db_path)
        if not wanted:
            raise SourceError(
                f"no referee database at {self.db_path} (nor {embedded_db}): run a season or "
                f"`brandeln serve` first, or point --data / ${data_folder.DATA_ENV} at the right "
                "folder"
            )
        try:
            self.stores = [RefereeStore(path) for path in wanted]
        except StoreError as error:
            raise SourceError(str(error)) from None
        self.store = self.stores[0]

    def bots(self) -> list[BotRow]:
        rows: dict[str, BotRow] = {}
        with _store_errors():
            for store in self.stores:
                for b in store.bots():
                    rows.setdefault(b.bot_id, BotRow(b.bot_id, b.name, b.created_at, b.revoked))
        return list(rows.values())

    def add_bot(self, name: str) -> tuple[BotRow, str]:
        from brandeln.arena.errors import BotNameTakenError  # noqa: PLC0415

        try:
            with _store_errors():
                record, token = self.store.register_bot(name)
        except (BotNameTakenError, ValueError) as error:
            raise SourceError(str(error)) from None
        return BotRow(record.bot_id, record.name, record.created_at, record.revoked), token

    def resolve_bot(self, name_or_id: str) -> str:
        for bot in self.bots():
            if name_or_id in (bot.bot_id, bot.name):
                return bot.bot_id
        raise SourceError(f"no bot named or with id {name_or_id!r}")

    def revoke_bot(self, bot_id: str) -> None:
        """Revoke ``bot_id`` in whichever local database registered it."""
        from brandeln.arena.errors import NotFoundError  # noqa: PLC0415

        with _store_errors():
            for store in self.stores:
                try:
                    store.revoke_bot(bot_id)
                except NotFoundError:
                    continue
                return
        raise SourceError(f"no bot with id {bot_id!r}")

    def matches(self, bot_id: str, limit: int) -> list[MatchRecord]:
        with _store_errors():
            rows = [row for store in self.stores for row in store.matches(bot_id, limit)]
        # The stores' own order, newest first, across both.
        rows.sort(key=lambda row: (row.started_at, row.match_id), reverse=True)
        return rows[:limit]

    def resolve_match(self, id_or_prefix: str) -> tuple[RefereeStore, str]:
        """The store holding the match ``id_or_prefix`` names (an id or a unique prefix of
        one, across both stores) and the match's full id."""
        return resolve_match(self.stores, id_or_prefix)

    def match(self, match_id: str) -> tuple[MatchRecord, str]:
        """The match ``match_id`` names (an id or a unique prefix) and its log."""
        store, full_id = self.resolve_match(match_id)
        with _store_errors():
            record = store.match(full_id)
            try:
                data = store.read_log(record.log_path)
            except OSError as error:
                raise SourceError(f"the log of match {match_id} is unreadable: {error}") from None
        return record, decode_log(data, self.log_name(record))

    def log_name(self, record: MatchRecord) -> str:
        """How errors name the log of ``record``: its file, or the database holding it."""
        from brandeln.arena.store.logs import log_in_database  # noqa: PLC0415

        if log_in_database(record.log_path) is not None:
            return f"{self.store.where}: the log of match {record.match_id}"
        return record.log_path


def resolve_match(stores: Sequence[RefereeStore], id_or_prefix: str) -> tuple[RefereeStore, str]:
    """The store holding the match ``id_or_prefix`` names (an id, or a prefix of one that is
    unique across ``stores``) and the match's full id. :class:`SourceNotFoundError` when no match
    has it; :class:`SourceError` naming the candidates when several do, or when a store fails.
    """
    from brandeln.arena.errors import NotFoundError as StoreNotFoundError  # noqa: PLC0415

    candidates: list[tuple[RefereeStore, str]] = []
    with _store_errors():
        for store in stores:
            try:
                return store, store.match(id_or_prefix).match_id
            except StoreNotFoundError:
                pass
            matches = store.matches(limit=PREFIX_CANDIDATES_SHOWN + 1, id_prefix=id_or_prefix)
            candidates += [(store, m.match_id) for m in matches]
    found = unique_match_id(id_or_prefix, [match_id for _, match_id in candidates])
    if found is None:
        raise SourceNotFoundError(f"no match with id {id_or_prefix!r}")
    return next(pair for pair in candidates if pair[1] == found)


def decode_log(data: bytes, name: str) -> str:
    """A log's bytes as text; :class:`SourceError` naming the file and the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise SourceError(
            f"{name}, line {line}: not UTF-8 text (byte {error.start}: {error.reason})"
        ) from None


@contextmanager
def _store_errors() -> Iterator[None]:
    """A referee database that fails while read (a damaged row) is a SourceError."""
    from brandeln.arena.errors import StoreError  # noqa: PLC0415

    try:
        yield
    except StoreError as error:
        raise SourceError(str(error)) from None


async def get_match(admin: AdminClient, id_or_prefix: str) -> tuple[RefereeMatch, str]:
    """The match ``id_or_prefix`` names at a referee (its id, or a unique prefix of one): its
    summary and log. A prefix several matches start with raises :class:`SourceError` naming
    them; none, the referee's own ``RefereeNotFoundError``."""
    from brandeln.ladder.errors import RefereeNotFoundError  # noqa: PLC0415 - keep --help fast

    try:
        return await admin.get_match(id_or_prefix)
    except RefereeNotFoundError:
        listed = await admin.list_matches(
            match_id_prefix=id_or_prefix, limit=PREFIX_CANDIDATES_SHOWN + 1
        )
        # Filtered here too: a referee older than match_id_prefix ignores it.
        found = unique_match_id(id_or_prefix, [m.match_id for m in listed])
        if found is None:
            raise
        return await admin.get_match(found)


def record_of(match: RefereeMatch) -> MatchRecord:
    """A referee's match as an index row (no log path: it was read from afar)."""
    from brandeln.arena.store.database import MatchRecord  # noqa: PLC0415 - keep --help fast

    return MatchRecord(
        match_id=match.match_id,
        ruleset=match.ruleset,
        bot_ids=match.bot_ids,
        bot_names=match.bot_names,
        balances=match.balances,
        ranks=match.ranks,
        forfeited=match.forfeited,
        strikes=match.strikes,
        status=match.status,
        deals_played=match.deals_played,
        started_at=match.started_at,
        ended_at=match.ended_at,
        log_path="",
    )


class RemoteSource:
    """A referee reached through Admin (token from $BRANDELN_ADMIN_TOKEN), by the ladder's typed
    client: each call opens a channel, makes its calls and closes it (a CLI command is short)."""

    def __init__(self, address: str, ca_file: Path | None = None) -> None:
        token = os.environ.get(data_folder.ADMIN_TOKEN_ENV)
        if not token:
            raise SourceError(f"--referee needs the admin token in ${data_folder.ADMIN_TOKEN_ENV}")
        self.address = address
        self.token = token
        self.root_certificates = ca_file.read_bytes() if ca_file else None

    def _call(self, calls: Callable[[AdminClient], Awaitable[T]]) -> T:
        """Run ``calls`` on a fresh client; the referee's refusals become SourceErrors."""
        import asyncio  # noqa: PLC0415 - keep --help fast

        from brandeln.ladder.errors import RefereeError, RefereeNotFoundError  # noqa: PLC0415
        from brandeln.ladder.referee.admin_client import AdminClient  # noqa: PLC0415

        async def run() -> T:
            async with AdminClient(
                self.address, self.token, root_certificates=self.root_certificates
            ) as admin:
                return await calls(admin)

        try:
            return asyncio.run(run())
        except RefereeNotFoundError as error:
            raise SourceNotFoundError(str(error)) from None
        except RefereeError as error:
            raise SourceError(str(error)) from None

    def bots(self) -> list[BotRow]:
        listed = self._call(lambda admin: admin.list_bots())
        return [BotRow(b.bot_id, b.name, b.created_at, b.revoked) for b in listed]

    def add_bot(self, name: str) -> tuple[BotRow, str]:
        bot_id, token = self._call(lambda admin: admin.register_bot(name))
        return BotRow(bot_id, name, 0, False), token

    def resolve_bot(self, name_or_id: str) -> str:
        for bot in self.bots():
            if name_or_id in (bot.bot_id, bot.name):
                return bot.bot_id
        raise SourceError(f"no bot named or with id {name_or_id!r}")

    def matches(self, bot_id: str, limit: int) -> list[MatchRecord]:
        listed = self._call(lambda admin: admin.list_matches(bot_id=bot_id, limit=limit))
        return [record_of(m) for m in listed]

    def match(self, match_id: str) -> tuple[MatchRecord, str]:
        """The match ``match_id`` names (an id or a unique prefix) and its log."""
        match, log = self._call(lambda admin: get_match(admin, match_id))
        return record_of(match), log

    def log_name(self, record: MatchRecord) -> str:
        """How errors name the log of ``record``: the referee and its file there."""
        return f"referee {self.address}: {record.log_path or record.match_id}"


def open_source(
    data: Path | None,
    referee: str | None,
    ca_file: Path | None = None,
    create: bool = False,
    db: str | None = None,
) -> LocalSource | RemoteSource:
    """The remote referee when one is named, else the database ``db`` names, else the local
    files (``create``: start them)."""
    if referee and db:
        raise SourceError("--referee and --db are two places to read from: give one")
    return RemoteSource(referee, ca_file) if referee else LocalSource(data, create, db)
