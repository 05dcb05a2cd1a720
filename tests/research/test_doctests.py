"""The docstring examples of the encoding, its SDK adapter and the OpenSpiel game run as tests
(those of brandeln.openspiel only where OpenSpiel is installed)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util

import pytest

SDK_MODULES = ["brandeln.sdk.encoding", "brandeln.sdk.observation", "brandeln.sdk.policy"]
OPENSPIEL_MODULES = [
    "brandeln.openspiel",
    "brandeln.openspiel.chance_deal",
    "brandeln.engine_encoding",
    "brandeln.openspiel.game",
    "brandeln.openspiel.hidden_hands",
    "brandeln.openspiel.limits",
    "brandeln.openspiel.observer",
]


@pytest.mark.parametrize("name", SDK_MODULES + OPENSPIEL_MODULES)
def test_docstring_examples(name: str) -> None:
    if name in OPENSPIEL_MODULES and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("install the research extra: pip install -e '.[research]'")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
