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

from setuptools import setup

# The hot core: what a deal's play goes through, in the public API and in the fast playouts.
# Classes that callers subclass, pickle or inspect (cards, actions, events, outcomes, rulesets)
# stay interpreted: mypyc's native classes cannot be subclassed from Python or carry their own
# __setattr__, and the gain there is small.
COMPILED = (
    "engine/seats.py",
    "engine/auction.py",
    "engine/trick_rules.py",
    "engine/settlement.py",
    "engine/dealing.py",
    "engine/state.py",
    "engine/playout.py",
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


setup(ext_modules=_extensions())
