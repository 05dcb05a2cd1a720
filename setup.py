"""Build hook of the normal install (``pip install -e .``, ``make install``): compiles the
engine's hot core and the referee's hot path with mypyc, next to their pure-Python sources.

The modules listed in :data:`COMPILED` and :data:`ARENA_COMPILED` stay plain Python files, the
reference: the compiled extension of each (``<name>.cpython-*.so``) is imported in their place
when it exists, and ``BRANDELN_PURE_PYTHON=1`` at run time imports the sources instead
(brandeln/compiled/extensions.py). Where no C compiler or mypyc is at hand, or with
``BRANDELN_PURE_PYTHON=1`` at install time, the install goes on without the extensions and the
package runs as pure Python. Each package is its own mypyc group (one shared library each), so
one that fails to build leaves the other compiled.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The hot core: what a deal's play goes through, in the public API and in the fast playouts,
# and the double-dummy solver the expert bot runs on every sampled deal.
# Classes that callers subclass, pickle or inspect (cards, actions, events, outcomes, rulesets)
# stay interpreted: mypyc's native classes cannot be subclassed from Python or carry their own
# __setattr__, and the gain there is small.
COMPILED = (
    "engine/per_ruleset.py",
    "engine/seats.py",
    "engine/auction.py",
    "engine/trick_rules.py",
    "engine/settlement.py",
    "engine/dealing.py",
    "engine/state.py",
    "engine/playout.py",
    "engine/double_dummy.py",
)

# The referee's per-decision path (profiled with brandeln.bench.referee.own_cost and py-spy): the
# table and its decisions, the seats' mailboxes and sessions, the hand-written wire encoding and the
# codec around it, the match log's records. Not the servicers, the store or the CLI (gRPC and
# SQLAlchemy's time is their own), nor what runs once a match or at start-up; nor the fault
# policy, a class users subclass. arena/__init__.py names the same modules.
ARENA_COMPILED = (
    "arena/mailbox.py",
    "arena/clock.py",
    "arena/timecontrol.py",
    "arena/seat.py",
    "arena/session.py",
    "arena/decision.py",
    "arena/decision_counts.py",
    "arena/table.py",
    "arena/audience.py",
    "arena/matchlog.py",
    "arena/logrecords.py",
    "arena/codec/protowire.py",
    "arena/codec/identity_cache.py",
    "arena/codec/wire.py",
    "arena/codec/values.py",
    "arena/codec/snapshots.py",
    "arena/codec/messages.py",
)

GROUPS = {"brandeln_engine_core": COMPILED, "brandeln_arena_hot": ARENA_COMPILED}


def _extensions() -> list[object]:
    if os.environ.get("BRANDELN_PURE_PYTHON", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415 - a build-time requirement only
    except ImportError:
        print("mypyc not found: the engine and the arena install as pure Python", file=sys.stderr)
        return []
    extensions: list[object] = []
    for group, modules in GROUPS.items():
        try:
            built = mypycify(list(modules), opt_level="3", group_name=group)
        except (Exception, SystemExit) as error:  # mypyc reports a compile error by exiting
            print(
                f"mypyc could not compile {group}: it installs as pure Python ({error})",
                file=sys.stderr,
            )
            continue
        for extension in built:
            # No C compiler: setuptools skips the extension (and says so) instead of failing.
            extension.optional = True
        extensions.extend(built)
    return extensions


class _ReplacingBuildExt(build_ext):
    """Puts each built extension beside its source by replacing the file, not rewriting it:
    a referee or bot still running maps the old one, and a library truncated under a running
    process crashes it (SIGBUS) when it next reads a page of it."""

    def finalize_options(self) -> None:
        super().finalize_options()
        # The two groups' libraries compile side by side (about 10 s of a 90 s build here).
        self.parallel = os.cpu_count() or 1

    def copy_file(  # type: ignore[override]
        self, infile: str, outfile: str, *args: Any, **kwargs: Any
    ) -> tuple[str, bool]:
        partial = f"{outfile}.{os.getpid()}.partial"
        _, copied = super().copy_file(infile, partial, *args, **kwargs)
        os.replace(partial, outfile)
        return outfile, bool(copied)


setup(ext_modules=_extensions(), cmdclass={"build_ext": _ReplacingBuildExt})
