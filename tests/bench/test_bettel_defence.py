"""brandeln.bench.bettel_defence: a bot's bettels replayed against other defenders (a few fast
deals)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brandeln.bench.bettel_defence import auction, defend, main, play
from brandeln.bench.duel import DuelConfig
from brandeln.engine.double_dummy import DoubleDummy


def test_the_auction_keeps_the_deals_that_end_in_a_bettel_and_repeats_them() -> None:
    config = DuelConfig(a="montecarlo", b="random", deals=6, seed=900, samples=16)
    found = [auction(config, deal) for deal in range(config.deals)]
    kept = [(deal, item[0]) for deal, item in enumerate(found) if item is not None]
    assert kept, "no bettel in these deals: pick another seed"
    for deal, state in kept:
        assert state.contract is not None
        assert state.contract.id == "bettel"
        assert state.soloist is not None
        again = auction(config, deal)
        assert again is not None
        assert again[0].soloist == state.soloist


def test_defenders_who_see_every_hand_beat_exactly_the_bettels_that_can_be_beaten() -> None:
    # Three oracles defend as the solver says: a bettel is made only where no defence beats
    # it with every card seen. Honest defenders would not match the solver deal for deal.
    config = DuelConfig(a="montecarlo", b="oracle", deals=6, seed=900, samples=16, level=1)
    beatable = 0
    for deal in range(config.deals):
        found = auction(config, deal)
        if found is None:
            continue
        state, _ = found
        assert state.soloist is not None
        assert state.contract is not None
        solver = DoubleDummy(state.ruleset, state.contract, state.soloist, None)
        hands = [hand.mask for hand in state.hands]
        makes = solver.makes(hands, [0] * state.ruleset.players, state.soloist)
        result = defend(config, deal)
        assert result is not None
        assert result.soloist == state.soloist
        if not makes:
            assert not result.made, deal
            beatable += 1
    assert beatable, "no bettel here that every-card defenders beat: pick another seed"


def test_the_command_counts_the_bettels_made_and_saves_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "bettels.json"
    argv = ["--defenders", "heuristic", "--deals", "4", "--samples", "8", "--workers", "1"]
    assert main([*argv, "--save", str(save)]) == 0
    out = capsys.readouterr().out
    saved = json.loads(save.read_text())
    made = sum(1 for _, _, was_made in saved if was_made)
    assert f"montecarlo's bettels against heuristic: made {made} of {len(saved)}" in out
    config = DuelConfig(a="montecarlo", b="heuristic", deals=4, seed=900, samples=8)
    assert [[r.deal, r.soloist, r.made] for r in play(config, workers=1)] == saved
    assert main(["--defenders", "nobody", "--deals", "2", "--workers", "1"]) == 2
    assert "unknown bot" in capsys.readouterr().err
