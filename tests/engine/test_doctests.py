"""Every docstring example in the engine runs and shows what it says.

The examples run on each module's Python source (``engine.pure_module``): a module compiled by
mypyc keeps its docstrings, but doctest cannot find them on its compiled functions.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

from brandeln import engine
from brandeln.engine import pure_module


def _with_docstrings(name: str) -> ModuleType:
    """The module as installed, or its source where the install compiled it."""
    module = importlib.import_module(name)
    compiled = not str(getattr(module, "__file__", "")).endswith(".py")
    return pure_module(name) if compiled else module


MODULES = [
    engine.__name__,
    *sorted(
        info.name
        for info in pkgutil.iter_modules(engine.__path__, prefix=f"{engine.__name__}.")
        if not info.name.endswith("__mypyc")  # the compiled modules' library
    ),
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = _with_docstrings(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_public_module_has_examples() -> None:
    without = []
    for name in MODULES:
        module = _with_docstrings(name)
        if not doctest.DocTestFinder().find(module) or not any(
            test.examples for test in doctest.DocTestFinder().find(module)
        ):
            without.append(name)
    assert without == []
