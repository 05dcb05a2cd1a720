"""The docstring examples of the referee's, the ladder's and the services' modules run as
tests (the engine's: tests/engine/test_doctests.py, which knows its compiled modules)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

from brandeln import arena, ladder, services

# Every module of their topic sub-packages too; not the migrations (Alembic runs them) nor a
# compiled package's mypyc library.
MODULES = sorted(
    info.name
    for package in (arena, ladder, services)
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
    if ".migrations." not in info.name and not info.name.endswith("__mypyc")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
