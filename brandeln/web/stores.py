"""The stores one app reads, opened by it and closed with it.

:class:`AppStores` is the one place the web front opens storage. A data folder's SQLite files
(:mod:`brandeln.services.data_folder`: ``DATA/ladder.db``, the served referee's ``DATA/referee.db``
and the embedded referee's ``DATA/embedded/referee.db``) are opened per request, in the thread
that serves it (an SQLite connection belongs to its thread), only when their file exists (the
app never creates a database), and closed when the request ends: a file may appear or be
replaced while the app runs. A PostgreSQL database is opened once, on first use, and shared by
the worker threads (an engine and its pool are meant to live long); the app closes it when it
shuts down (:func:`brandeln.web.app.create_app`'s lifespan), so no engine or connection outlives it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

from brandeln.arena.errors import StoreError
from brandeln.arena.store.database import RefereeStore
from brandeln.ladder.errors import LadderError, UnknownSeasonError
from brandeln.ladder.store.database import LadderStore
from brandeln.services import data_folder
from brandeln.web.data import DataError, PageNotFoundError, StorageLocation, check_location

__all__ = ["AppStores", "Stores"]


@dataclass
class Stores:
    """The opened stores: the ladder's (None before any season) and the referees'."""

    ladder: LadderStore | None
    referees: list[RefereeStore]


class AppStores:
    """The stores of one app over ``location`` (checked first: :class:`DataError`)."""

    def __init__(self, location: StorageLocation) -> None:
        check_location(location)
        self.location = location
        self._shared: Stores | None = None
        self._lock = threading.Lock()  # the worker threads may all ask for them at once

    @contextmanager
    def open(self) -> Iterator[Stores]:
        """The stores for one request; reading errors become the pages' errors.

        Raises :class:`DataError` when a database is unusable (not ours, damaged, newer schema).
        """
        with ExitStack() as stack:
            stores = self._database() if self.location.db_url else self._files(stack)
            try:
                yield stores
            except UnknownSeasonError as error:
                raise PageNotFoundError(str(error)) from None
            except (LadderError, StoreError) as error:
                raise DataError(str(error)) from None
            except (ValueError, sqlite3.DatabaseError) as error:
                # A damaged row met while reading (a status no enum knows, a number that is
                # not): the page says so rather than a trace.
                raise DataError(f"{self.location.describe()}: a damaged record: {error}") from None

    @property
    def opened(self) -> bool:
        """Whether the app holds a database open (PostgreSQL, between first use and close)."""
        return self._shared is not None

    def close(self) -> None:
        """Close what the app holds open; a later request opens it again (a test client may
        start and stop an app more than once)."""
        with self._lock:
            shared, self._shared = self._shared, None
        if shared is not None:
            for store in shared.referees:
                store.close()
            if shared.ladder is not None:
                shared.ladder.close()

    def _database(self) -> Stores:
        url = self.location.db_url
        assert url is not None  # open: only with a URL
        with self._lock:
            if self._shared is None:
                try:
                    ladder = LadderStore.open(url, create=False)
                except LadderError as error:
                    raise DataError(str(error)) from None
                try:
                    referee = RefereeStore(url)
                except StoreError as error:
                    ladder.close()
                    raise DataError(str(error)) from None
                self._shared = Stores(ladder, [referee])
            return self._shared

    def _files(self, stack: ExitStack) -> Stores:
        data = self.location.data
        assert data is not None  # check_location: a folder when there is no URL
        ladder = None
        try:
            ladder_path = data_folder.ladder_db(data)
            if ladder_path.is_file():
                ladder = LadderStore.open(ladder_path, create=False)
                stack.callback(ladder.close)
            referees = []
            for path in (
                data_folder.referee_db(data),
                data_folder.referee_db(data_folder.embedded_dir(data)),
            ):
                if path.is_file():
                    store = RefereeStore(path)
                    stack.callback(store.close)
                    referees.append(store)
        except (LadderError, StoreError) as error:
            raise DataError(str(error)) from None
        return Stores(ladder, referees)
