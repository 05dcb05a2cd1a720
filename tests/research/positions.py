"""Random positions of every ruleset for the research tests: seeded playouts on the engine."""

from __future__ import annotations

import random
from collections.abc import Iterator

from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState


def random_positions(ruleset_id: str, seed: int) -> Iterator[DealState]:
    """Every state of one random deal of ``ruleset_id``, from the first bid to the end."""
    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(seed)
    state = DealState.new(ruleset, deal_cards(ruleset, rng.randrange(ruleset.players), seed))
    yield state
    while not state.is_over():
        legal = state.legal_actions()
        state = state.apply(legal[rng.randrange(len(legal))])
        yield state
