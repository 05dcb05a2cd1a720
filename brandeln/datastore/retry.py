"""Run a whole transaction again when the database was briefly away or a concurrent
transaction won: safe, because a transaction that failed either committed or did not.

Only :class:`~brandeln.datastore.errors.DatabaseUnavailable` (server down, connection lost, timeout)
and :class:`~brandeln.datastore.errors.DatabaseConflict` (serialization failure, deadlock, SQLite
busy) are retried, with exponential backoff and jitter; anything else is raised at once, and after
the last attempt the last error is raised.

A committed transaction whose acknowledgement was lost is run again too: the stores' writes
are idempotent for exactly that case (a second identical write of a result is a no-op).

>>> calls = []
>>> def flaky() -> str:
...     calls.append(1)
...     if len(calls) < 3:
...         raise DatabaseUnavailable("down")
...     return "done"
>>> retrying(flaky, what="test", sleep=lambda seconds: None)
'done'
>>> len(calls)
3
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import time
from collections.abc import Callable
from typing import Final, TypeVar

import sqlalchemy.exc

from brandeln.datastore.errors import (
    DatabaseConfigError,
    DatabaseConflict,
    DatabaseError,
    DatabaseUnavailable,
    DatabaseUrlLike,
    explain,
)

__all__ = [
    "ATTEMPTS",
    "ATTEMPTS_ENV",
    "FIRST_DELAY_S",
    "MAX_DELAY_S",
    "database_attempts",
    "retrying",
]

_T = TypeVar("_T")
log = logging.getLogger("brandeln.datastore")

ATTEMPTS: Final = 8  # with the default delays: about 25 s in all before giving up
FIRST_DELAY_S: Final = 0.25
MAX_DELAY_S: Final = 8.0
# How many attempts a transaction gets before a command gives up on its database: fewer for a
# supervisor that restarts the command itself (or a test of giving up), more for a database
# whose fail-over takes longer than half a minute.
ATTEMPTS_ENV: Final = "BRANDELN_DB_ATTEMPTS"


def database_attempts() -> int:
    """The attempts per transaction: ${BRANDELN_DB_ATTEMPTS} if set, else :data:`ATTEMPTS`.

    >>> import os; os.environ[ATTEMPTS_ENV] = "3"; database_attempts()
    3
    >>> os.environ[ATTEMPTS_ENV] = "many"
    >>> try:
    ...     database_attempts()
    ... except DatabaseConfigError as error:
    ...     print(error)
    $BRANDELN_DB_ATTEMPTS must be a number from 1 to 100, not 'many'
    >>> del os.environ[ATTEMPTS_ENV]; database_attempts() == ATTEMPTS
    True
    """
    text = os.environ.get(ATTEMPTS_ENV, "").strip()
    if not text:
        return ATTEMPTS
    if not text.isdigit() or not 1 <= int(text) <= 100:
        raise DatabaseConfigError(f"${ATTEMPTS_ENV} must be a number from 1 to 100, not {text!r}")
    return int(text)


def retrying(
    fn: Callable[[], _T],
    *,
    what: str,
    attempts: int | None = None,
    first_delay: float = FIRST_DELAY_S,
    max_delay: float = MAX_DELAY_S,
    url: DatabaseUrlLike | None = None,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> _T:
    """``fn()`` (one whole transaction), retried on the retryable errors.

    ``what`` names the transaction in the retry log lines ("recording block 7"). Driver
    errors are classified with :func:`~brandeln.datastore.errors.explain` when ``url`` is given
    (else they pass through as they are). Raises the last :class:`DatabaseError` when every attempt
    failed.
    """
    attempts = database_attempts() if attempts is None else attempts
    jitter = rng or random.Random()
    delay = first_delay
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except (sqlalchemy.exc.SQLAlchemyError, sqlite3.Error) as raw:
            if url is None:
                raise
            error: DatabaseError = explain(raw, url)
            if not isinstance(error, DatabaseUnavailable | DatabaseConflict):
                raise error from None
        except (DatabaseUnavailable, DatabaseConflict) as caught:
            error = caught
        if attempt == attempts:
            raise type(error)(f"{error} (gave up {what} after {attempts} attempts)") from None
        # Full jitter on the upper half: runners that lost the server together do not all
        # come back in the same millisecond.
        pause = min(delay, max_delay) * (0.5 + jitter.random() / 2)
        log.warning("%s: %s; retry %d of %d in %.1f s", what, error, attempt, attempts - 1, pause)
        sleep(pause)
        delay *= 2
    raise AssertionError("unreachable")  # pragma: no cover
