"""The one list of the modules the install compiles with mypyc, package by package.

Read by setup.py (what it compiles), by each package's :class:`CompiledModules` (the engine's
``__init__``, the arena's: which modules may come compiled) and by the Makefile (an edit to one
of them installs again, else its package would fall back to pure Python). setup.py and the
Makefile read this file by path, before anything is installed: it imports nothing.

Each package is its own mypyc group, one shared library each (``<package>/compiled__mypyc.*.so``,
inside the package: nothing but ``brandeln`` goes to the top level of site-packages), so one
package that fails to build leaves the other compiled.

>>> sources()[0]
'brandeln/engine/per_ruleset.py'
"""

from __future__ import annotations

import sys
from typing import Final

# The shared library of each package's group, beside its modules: ``<package>.compiled__mypyc``.
LIBRARY: Final = "compiled"

COMPILED: Final[dict[str, tuple[str, ...]]] = {
    # The engine's hot core: what a deal's play goes through, in the public API and in the fast
    # playouts, and the double-dummy solver the expert bot runs on every sampled deal. Classes
    # that callers subclass, pickle or inspect (cards, actions, events, outcomes, rulesets) stay
    # interpreted: mypyc's native classes cannot be subclassed from Python or carry their own
    # __setattr__, and the gain there is small.
    "brandeln.engine": (
        "per_ruleset",
        "seats",
        "auction",
        "trick_rules",
        "settlement",
        "dealing",
        "state",
        "playout",
        "double_dummy",
    ),
    # The referee's per-decision path (profiled with brandeln.bench.referee.own_cost and
    # py-spy): the table and its decisions, the seats' mailboxes and sessions, the hand-written
    # wire encoding and the codec around it, the match log's records. Not the servicers, the
    # store or the CLI (gRPC and SQLAlchemy's time is their own), nor what runs once a match or
    # at start-up; nor the fault policy, a class users subclass.
    "brandeln.arena": (
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
    ),
}


def group(package: str) -> str:
    """The mypyc group (and shared library's module, less ``__mypyc``) of ``package``.

    >>> group("brandeln.arena")
    'brandeln.arena.compiled'
    """
    return f"{package}.{LIBRARY}"


def sources(package: str | None = None) -> list[str]:
    """The source files of ``package``'s compiled modules (of every package: None), relative
    to the project root, as mypyc is given them."""
    return [
        "/".join([*name.split("."), *module.split(".")]) + ".py"
        for name, modules in COMPILED.items()
        if package in (None, name)
        for module in modules
    ]


if __name__ == "__main__":  # the Makefile's list of what the install compiles
    sys.stdout.write(" ".join(sources()) + "\n")
