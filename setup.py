"""Build hook of the normal install (``pip install -e .``, ``make install``): compiles the
engine's hot core with mypyc, next to its pure-Python sources.

The modules listed in :data:`COMPILED` stay plain Python files, the reference: the compiled
extension of each (``engine/<name>.cpython-*.so``) is imported in their place when it exists,
and ``BRANDELN_PURE_PYTHON=1`` at run time imports the sources instead (engine/__init__.py).
Where no C compiler or mypyc is at hand, or with ``BRANDELN_PURE_PYTHON=1`` at install time,
the install goes on without the extensions and the engine runs as pure Python.
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


def _extensions() -> list[object]:
    if os.environ.get("BRANDELN_PURE_PYTHON", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415 - a build-time requirement only
    except ImportError:
        print("mypyc not found: the engine installs as pure Python", file=sys.stderr)
        return []
    extensions = mypycify(list(COMPILED), opt_level="3", group_name="brandeln_engine_core")
    for extension in extensions:
        # No C compiler: setuptools skips the extension (and says so) instead of failing.
        extension.optional = True
    return list(extensions)


class _ReplacingBuildExt(build_ext):
    """Puts each built extension beside its source by replacing the file, not rewriting it:
    a referee or bot still running maps the old one, and a library truncated under a running
    process crashes it (SIGBUS) when it next reads a page of it."""

    def copy_file(  # type: ignore[override]
        self, infile: str, outfile: str, *args: Any, **kwargs: Any
    ) -> tuple[str, bool]:
        partial = f"{outfile}.{os.getpid()}.partial"
        _, copied = super().copy_file(infile, partial, *args, **kwargs)
        os.replace(partial, outfile)
        return outfile, bool(copied)


setup(ext_modules=_extensions(), cmdclass={"build_ext": _ReplacingBuildExt})
