"""Encoded pieces kept by their object's identity: the hot path's cache (see
:mod:`brandeln.arena.codec.wire` and :mod:`brandeln.arena.codec.snapshots`).

The bids and tricks of a deal recur in every later snapshot as the very same (frozen) engine
objects, and so do the tuples that hold them (a deal's state keeps its auction, its completed
tricks and its tricks won until the next bid or trick, and the match its balances until the
deal ends): their encoded fields are kept, keyed by identity, which is cheaper than hashing the
values. Only immutable keys are kept (frozen events, tuples: a list is encoded afresh each
time). An entry holds its object, so an id cannot be reused while the entry lives; a cache
is emptied when full.

>>> lengths = ByIdentity(len, sequences=True)
>>> key = (1, 2, 3)
>>> lengths(key), lengths(key), lengths([4])
(3, 3, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["ByIdentity"]

_CACHE_LIMIT = 8192
K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """``build(key)``, kept by the key's identity (see above); also the protobuf templates'
    cache of :mod:`brandeln.arena.codec.snapshots`."""

    __slots__ = ("_build", "_entries", "_sequences")

    def __init__(self, build: Callable[[K], V], *, sequences: bool = False) -> None:
        self._build = build
        self._entries: dict[int, tuple[K, V]] = {}
        self._sequences = sequences  # keys are sequences: only tuples are kept

    def __call__(self, key: K) -> V:
        if self._sequences and type(key) is not tuple:
            return self._build(key)
        entry = self._entries.get(id(key))
        if entry is not None and entry[0] is key:
            return entry[1]
        data = self._build(key)
        if len(self._entries) >= _CACHE_LIMIT:
            self._entries.clear()
        self._entries[id(key)] = (key, data)
        return data
