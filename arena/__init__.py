"""The referee: the gRPC services, the tables that run matches, their logs and store.

The install compiles the referee's per-decision path with mypyc (setup.py), as it does the
engine's core: the modules below run compiled where their extensions were built, and from their
Python sources with ``BRANDELN_PURE_PYTHON=1`` or when the build is stale
(brandeln.compiled.extensions).
"""

from __future__ import annotations

from pathlib import Path

from brandeln.compiled.extensions import CompiledModules

__all__ = ["compiled_modules"]

# What setup.py compiles (a test holds the two lists together), in its mypyc group.
_COMPILABLE = (
    "mailbox",
    "clock",
    "timecontrol",
    "seat",
    "session",
    "decision",
    "decision_counts",
    "table",
    "audience",
    "matchlog",
    "logrecords",
    "codec.protowire",
    "codec.identity_cache",
    "codec.wire",
    "codec.values",
    "codec.snapshots",
    "codec.messages",
)
_MODULES = CompiledModules(
    "arena", Path(__file__).resolve().parent, _COMPILABLE, "brandeln_arena_hot"
)
_MODULES.choose()


def compiled_modules() -> tuple[str, ...]:
    """The arena modules imported so far from a compiled extension rather than a source file:
    empty in a pure-Python install or with ``BRANDELN_PURE_PYTHON=1``."""
    return _MODULES.compiled_modules()
