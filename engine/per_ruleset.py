"""Tables the hot core derives from a ruleset once, found again by the ruleset's identity.

A :class:`brandeln.engine.rulesets.Ruleset` hashes by value, all its fields, which costs more than
most of what is derived from it; the hot core asks at every deal, so it looks its tables up by
``id(ruleset)``. Each entry holds its ruleset, so that id is not reused while the entry is
here, and a bound keeps a caller who makes a fresh ruleset per deal from growing a cache
without end.

>>> from brandeln.engine.rulesets import find_ruleset
>>> players = PerRuleset(lambda ruleset: ruleset.players)
>>> standard = find_ruleset("standard")
>>> players.of(standard), players.of(standard) is players.of(standard)
(4, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from brandeln.engine.rulesets import Ruleset

__all__ = ["PerRuleset"]

T = TypeVar("T")


class PerRuleset(Generic[T]):
    """``build(ruleset)``, made once per ruleset (at most ``kept`` of them at a time)."""

    def __init__(self, build: Callable[[Ruleset], T], kept: int = 64) -> None:
        self._build = build
        self._kept = kept
        self._entries: dict[int, tuple[Ruleset, T]] = {}
        # The entry asked for last: a run of deals keeps asking for one ruleset, and an
        # identity test costs less than id() (a fresh int) and a dict lookup. One attribute,
        # written whole, so a reader never pairs one ruleset with another's table.
        self._last: tuple[Ruleset, T] | None = None

    def of(self, ruleset: Ruleset) -> T:
        """The table of ``ruleset``, built on the first call for it."""
        last = self._last
        if last is not None and last[0] is ruleset:
            return last[1]
        entry = self._entries.get(id(ruleset))
        if entry is None or entry[0] is not ruleset:
            if len(self._entries) >= self._kept:
                self._entries.clear()
            entry = (ruleset, self._build(ruleset))
            self._entries[id(ruleset)] = entry
        self._last = entry
        return entry[1]
