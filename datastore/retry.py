# ruff: noqa
"""Retries (STAND-IN for pg-ladder's datastore commit: same API, replaced on cherry-pick)."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from datastore.errors import DatabaseUnavailable

__all__ = ["retrying"]

T = TypeVar("T")
_log = logging.getLogger("datastore.retry")


def retrying(
    fn: Callable[[], T],
    *,
    what: str,
    attempts: int = 6,
    first_delay: float = 0.2,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    delay = first_delay
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except DatabaseUnavailable as error:
            if attempt == attempts:
                raise
            _log.warning("%s: %s; retrying in %.1f s", what, error, delay)
            sleep(delay * (1 + random.random() / 2))
            delay *= 2
    raise AssertionError("unreachable")
