"""The engine's front door: what a first program needs, in one `from brandeln.engine import`."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

import brandeln.engine
from brandeln.engine import (
    PASS,
    Bid,
    DealOutcome,
    DealState,
    IllegalActionError,
    PlayCard,
    deal_cards,
    find_ruleset,
    parse_action,
)


def test_a_first_program_plays_a_whole_deal_from_one_import() -> None:
    ruleset = find_ruleset("standard")
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=7))
    rng = random.Random(7)
    while not state.is_over():
        actions = state.legal_actions()
        state = state.apply(actions[rng.randrange(len(actions))])
    outcome = state.outcome()
    assert isinstance(outcome, DealOutcome)
    assert sum(outcome.payments) == 0


def test_the_front_door_names_the_actions_and_the_error_apply_raises() -> None:
    ruleset = find_ruleset("standard")
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=7))
    assert parse_action("pass") == PASS
    assert isinstance(PASS, Bid)
    assert not any(isinstance(action, PlayCard) for action in state.legal_actions())
    with pytest.raises(IllegalActionError):
        state.apply(parse_action("CA"))


@pytest.mark.parametrize("name", brandeln.engine.__all__)
def test_every_name_in_all_resolves(name: str) -> None:
    assert getattr(brandeln.engine, name) is not None


def test_importing_the_engine_loads_none_of_the_rules_modules() -> None:
    # Every start of the CLI imports the package: the front door's names load on first use.
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, brandeln.engine; "
            "print(sorted(m for m in sys.modules if m.startswith('brandeln.engine.')))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert loaded == "[]"
