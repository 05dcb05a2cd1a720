"""The docstring examples of the referee's modules run as tests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import arena

MODULES = sorted(info.name for info in pkgutil.iter_modules(arena.__path__, "arena."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
