"""The build's docstring examples run as tests, so they cannot drift from the code: those of
brandeln.compiled's modules (the list of compiled modules, the record of their sources, which of
a module's extension and source a package imports) and those of setup.py."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

from brandeln import compiled
from tests.conftest import ROOT

MODULES = sorted(
    info.name for info in pkgutil.iter_modules(compiled.__path__, "brandeln.compiled.")
)


def _examples_of(module: ModuleType) -> doctest.TestResults:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    # A module of the build shows how it is used: none would let the test pass on nothing.
    assert result.attempted > 0, f"{module.__name__} has no docstring examples"
    return result


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    assert _examples_of(importlib.import_module(name)).failed == 0


def test_setup_docstring_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    # setup.py is a script: run as a module with its setup() call made a no-op, and compiling
    # nothing (its extensions are listed at run time, which would start mypyc).
    monkeypatch.setenv("BRANDELN_PURE_PYTHON", "1")
    monkeypatch.setattr("setuptools.setup", lambda **_: None)
    path = ROOT / "setup.py"
    module = ModuleType("setup")
    module.__file__ = str(path)
    exec(compile(path.read_text(), path, "exec"), module.__dict__)
    assert Path(module.__dict__["HERE"]) == ROOT
    assert _examples_of(module).failed == 0


def test_the_modules_found_are_the_builds() -> None:
    assert {"brandeln.compiled.extensions", "brandeln.compiled.modules"} <= set(MODULES)
