"""Every docstring example in the engine runs and shows what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

MODULES = [
    "engine",
    *sorted(info.name for info in pkgutil.iter_modules(engine.__path__, prefix="engine.")),
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_public_module_has_examples() -> None:
    without = []
    for name in MODULES:
        module = importlib.import_module(name)
        if not doctest.DocTestFinder().find(module) or not any(
            test.examples for test in doctest.DocTestFinder().find(module)
        ):
            without.append(name)
    assert without == []
