"""The referee: the gRPC services, the tables that run matches, their logs and store.

The install compiles the referee's per-decision path with mypyc (setup.py), as it does the
engine's core: the modules below run compiled where their extensions were built, and from their
Python sources with ``BRANDELN_PURE_PYTHON=1`` or when the build is stale
(brandeln.compiled.extensions).
"""

from __future__ import annotations

from brandeln.compiled.extensions import CompiledModules

__all__ = ["compiled_modules"]

# What the install compiles (brandeln.compiled.modules), in its own mypyc group.
_MODULES = CompiledModules.listed(__name__, __path__[0])
_MODULES.choose()


def compiled_modules() -> tuple[str, ...]:
    """The arena modules imported so far from a compiled extension rather than a source file:
    empty in a pure-Python install or with ``BRANDELN_PURE_PYTHON=1``."""
    return _MODULES.compiled_modules()
