"""The engine's compiled hot core (setup.py, mypyc) against its pure-Python reference.

The compiled modules must play exactly as their sources: the same legal actions, the same
draws from the same generator, the same outcomes, on every ruleset. The sources stay
importable (``engine.pure_module``, ``BRANDELN_PURE_PYTHON=1``) and pass the engine's tests
where no compiler built the extensions.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import fields

import pytest

from brandeln.engine import PURE_PYTHON_ENV, pure_module
from brandeln.engine.dealing import (
    _PLANS,
    Deal,
    _rows_of_random_shuffle,
    _shuffled_rows,
    deal_cards,
)
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.playout import playout_deal
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from tests.conftest import ROOT
from tests.python_runs import run_python

# Plays random deals of every ruleset through the public API and the fast path, and prints
# every action and outcome as JSON, with the modules it ran compiled.
_PLAY = """
import json, random, sys
from brandeln import engine
from brandeln.engine.dealing import deal_cards
from brandeln.engine.playout import playout_deal
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState

games = []
for ruleset_id in RULESET_IDS:
    for options in ({}, {"early_stop": "never"}, {"early_stop": "when_decided"},
                    {"head_rule": "suit", "undertrump": "free"}):
        ruleset = find_ruleset(ruleset_id, options)
        for seed in range(int(sys.argv[1])):
            deal = deal_cards(ruleset, seed % ruleset.players, seed)
            rng = random.Random(seed)
            state = DealState.new(ruleset, deal)
            public = []
            while not state.is_over():
                legal = state.legal_actions()
                public.append([str(a) for a in legal])
                state = state.apply(legal[rng.randrange(len(legal))])
            record = []
            fast = playout_deal(ruleset, deal, random.Random(seed + 1), record=record)
            games.append([ruleset_id, options, seed, [str(h) for h in deal.hands], public,
                          repr(state.outcome()), [str(a) for a in record], repr(fast)])
print(json.dumps({"compiled": list(engine.compiled_modules()), "games": games}))
"""


def test_the_pure_python_switch_imports_every_engine_module_from_its_source() -> None:
    code = (
        "import importlib, pkgutil\n"
        "from brandeln import engine\n"
        "for info in pkgutil.iter_modules(engine.__path__, prefix='brandeln.engine.'):\n"
        "    if info.name.endswith('__mypyc'):\n"
        "        continue  # the compiled modules' shared library\n"
        "    module = importlib.import_module(info.name)\n"
        "    assert module.__file__.endswith('.py'), module.__file__\n"
        "print(list(engine.compiled_modules()))\n"
    )
    assert json.loads(run_python(code, pure=True)) == []


def test_compiled_core_and_pure_reference_agree_move_for_move_on_every_ruleset() -> None:
    compiled = json.loads(run_python(_PLAY, "25", pure=False))
    if not compiled["compiled"]:
        pytest.skip("this install has no compiled engine core (no C compiler or mypyc)")
    pure = json.loads(run_python(_PLAY, "25", pure=True))
    assert pure["compiled"] == []
    assert len(compiled["games"]) == len(pure["games"]) > 0
    for fast, reference in zip(compiled["games"], pure["games"], strict=True):
        assert fast == reference, fast[:3]


def test_the_engine_tests_pass_on_the_pure_python_reference() -> None:
    env = {**os.environ, PURE_PYTHON_ENV: "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/engine/test_playout.py",
            "tests/engine/test_state.py",
            "tests/engine/test_dealing.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]


def test_pure_module_runs_the_source_beside_the_installed_module() -> None:
    reference = pure_module("brandeln.engine.state")
    assert str(reference.__file__).endswith("state.py")
    assert sys.modules["brandeln.engine.state"] is not reference
    with pytest.raises(ModuleNotFoundError):
        pure_module("no_such_module")


@pytest.mark.parametrize("length", [0, 1, 2, 7, 24, 28, 32])
def test_the_deal_shuffle_is_random_shuffle_draw_for_draw(length: int) -> None:
    # _shuffled_rows gives each row's mask of the shuffled deck: rows 0 to 3 in turn here, so
    # every card's place in random.Random(seed).shuffle shows in the masks.
    order = tuple(range(length))
    row_of_position = tuple(position % 4 for position in range(length))
    for seed in [0, 1, 2, 99, -5, 2**31, 2**64 + 7, *range(100, 400)]:
        expected = list(order)
        random.Random(seed).shuffle(expected)
        rows = [0, 0, 0, 0]
        for position, card in enumerate(expected):
            rows[row_of_position[position]] |= 1 << card
        assert _shuffled_rows(order, row_of_position, seed) == tuple(rows), seed


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_fast_deal_rows_are_the_reference_shuffles(ruleset_id: str) -> None:
    # deal_cards shuffles straight into four row masks; any other deal takes the reference
    # way (random.Random(seed).shuffle, then the rows' positions): the two must agree.
    plan = _PLANS.of(find_ruleset(ruleset_id))
    assert plan.shuffles_fast
    for seed in range(300):
        reference = _rows_of_random_shuffle(plan, seed)
        fast = _shuffled_rows(plan.order, plan.row_of_position, seed)
        assert list(fast[: plan.rows]) == reference, seed
        assert not any(fast[plan.rows :])


def test_outcomes_built_field_by_field_equal_their_dataclass_constructor() -> None:
    # settlement.deal_outcome sets the frozen DealOutcome's fields one by one instead of calling
    # its __init__ (an interpreted frame in the hot path): every field must be set, to the
    # value the constructor would give it, and the constructor must do nothing more.
    assert not hasattr(DealOutcome, "__post_init__")
    for ruleset_id in RULESET_IDS:
        ruleset = find_ruleset(ruleset_id)
        for seed in range(20):
            deal = deal_cards(ruleset, seed % ruleset.players, seed)
            outcome = playout_deal(ruleset, deal, random.Random(seed))
            assert type(outcome) is DealOutcome
            again = DealOutcome(**{f.name: getattr(outcome, f.name) for f in fields(DealOutcome)})
            assert outcome == again
            assert repr(outcome) == repr(again)


def test_deals_built_field_by_field_equal_their_dataclass_constructor() -> None:
    # dealing.deal_cards sets the frozen Deal's fields one by one instead of calling its
    # __init__ (an interpreted frame even compiled): every field must be set, to the value the
    # constructor would give it, and the constructor must do nothing more.
    assert not hasattr(Deal, "__post_init__")
    for ruleset_id in RULESET_IDS:
        ruleset = find_ruleset(ruleset_id)
        for seed in range(20):
            deal = deal_cards(ruleset, seed % ruleset.players, seed)
            assert type(deal) is Deal
            again = Deal(**{f.name: getattr(deal, f.name) for f in fields(Deal)})
            assert deal == again
            assert repr(deal) == repr(again)
            assert hash(deal) == hash(again)
