"""brandeln.bench.duel: the in-process duplicate duel of two bots (a few fast deals)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from brandeln.bench.duel import (
    SAMPLES_GUARD_MS,
    DuelConfig,
    Hybrid,
    build_bot,
    deal_difference,
    main,
    play_duel,
    summarize,
)
from brandeln.bench.oracle import OracleBot, SoloistSeer
from brandeln.engine.dealing import deal_cards
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState
from brandeln.sample_bots.expert import ExpertBot
from brandeln.sample_bots.montecarlo import MonteCarloBot
from brandeln.v1 import bot_pb2
from tests.bots.botkit_table import match_started_for, request_for


def test_duel_is_duplicate_zero_sum_and_reproducible() -> None:
    config = DuelConfig(a="random", b="heuristic", deals=4, seed=3)
    first = list(play_duel(config, workers=1))
    again = list(play_duel(config, workers=1))
    assert [[t.payments for t in pair] for pair in first] == [
        [t.payments for t in pair] for pair in again
    ]
    for pair in first:
        # The same cards at both tables, the bots swapped: each side holds every hand once.
        assert [t.sides for t in pair] == [("B", "A", "B", "A"), ("A", "B", "A", "B")]
        assert all(sum(t.payments) == 0 for t in pair)
    report = summarize(first, config)
    assert "B - A:" in report
    assert "as soloist" in report


def test_same_bot_on_both_sides_differs_by_nothing_on_average_per_seat() -> None:
    config = DuelConfig(a="heuristic", b="heuristic", deals=3, seed=5)
    # A deterministic bot against itself: both tables of a deal mirror each other exactly.
    assert all(deal_difference(pair) == 0 for pair in play_duel(config, workers=1))


def test_hybrid_bots_and_tunables(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--a", "random", "--b", "heuristic/random", "--deals", "2", "--workers", "1"]
    assert main(argv) == 0
    assert "B=heuristic/random vs A=random" in capsys.readouterr().out
    bot = "montecarlo:bid_margin=0.5"
    config = DuelConfig(a="random", b=bot, deals=1, samples=2)
    assert len(next(iter(play_duel(config, workers=1)))) == 2
    with pytest.raises(ValueError, match="no tunable"):
        list(play_duel(DuelConfig(a="random", b="random:nonsense=1", deals=1), workers=1))


def test_a_hybrids_settings_go_to_the_part_they_follow() -> None:
    config = DuelConfig(a="random", b="random", clock="cpu")
    bot = build_bot("montecarlo:bid_margin=0.5/expert:card_prior=0", 1, config)
    assert isinstance(bot, Hybrid)
    assert isinstance(bot.bidder, MonteCarloBot)
    assert bot.bidder.bid_margin == 0.5
    assert isinstance(bot.player, ExpertBot)
    assert bot.player.card_prior == 0.0
    assert bot.player.clock is time.process_time  # the duel's clock reaches both parts


def test_pool_reads_saved_runs_and_refuses_other_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "one.json", tmp_path / "two.json"
    first.write_text("[2.0, -1.0]")
    second.write_text("[4, 3]")
    assert main(["--pool", str(first), str(second)]) == 0
    assert "pooled 4 deals from 2 file(s): B - A +2.00 +-" in capsys.readouterr().out
    broken = tmp_path / "broken.json"
    broken.write_text('{"not": "a list"}')
    assert main(["--pool", str(broken)]) == 1
    assert "is not a --save file" in capsys.readouterr().err
    assert main(["--pool", str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_a_duel_needs_both_bots() -> None:
    with pytest.raises(SystemExit):
        main(["--a", "random"])


def test_on_sample_caps_the_search_bots_clock_guards_only_against_a_hang() -> None:
    request = bot_pb2.DecisionRequest(move_ms=2000, bank_ms=2000)
    for spec in ("montecarlo", "expert"):
        capped = build_bot(spec, 1, DuelConfig(a=spec, b=spec))
        assert isinstance(capped, MonteCarloBot)
        assert capped.exact_samples
        assert capped.guard_ms == SAMPLES_GUARD_MS
        # The caps end its searches: its clock allows two minutes, not a season's 3 s.
        assert capped.deadline(request) - capped.clock() == pytest.approx(120, abs=1)
        timed = build_bot(spec, 1, DuelConfig(a=spec, b=spec, clock="cpu"))
        assert isinstance(timed, MonteCarloBot)
        assert timed.guard_ms is None
    # Outside a duel, on sample caps, the guard is the move's time and half the bank.
    bot = MonteCarloBot(seed=1, max_samples=8)
    bot.exact_samples = True
    assert bot.deadline(request) - bot.clock() == pytest.approx(3.0, abs=0.1)


def test_the_oracle_samples_the_true_deal_and_refuses_to_guess() -> None:
    bot = OracleBot(seed=1, level=1)
    hands, counts, unseen = [0b0011, 0, 0], [0, 1, 2], 0b11100
    with pytest.raises(RuntimeError, match="not shown the deal"):
        bot.sample(hands, counts, unseen, [0, 0, 0])
    # Dealt: seat 1 held 0b0100 and 0b1000000 (played since, so no longer unseen).
    bot.true_hands = (0b0011, 0b1000100, 0b11000)
    assert bot.sample(hands, counts, unseen, [0, 0, 0]) == [0b0011, 0b0100, 0b11000]


def test_the_oracle_makes_every_contract_it_bids() -> None:
    # Shown every hand, its solver is exact: it bids only what it can force against any
    # defence, and then forces it. A ceiling only if it really sees the deal, as this holds.
    config = DuelConfig(a="heuristic", b="oracle", deals=4, seed=2, level=1)
    assert isinstance(build_bot("expert/oracle", 1, config), Hybrid)
    bid = 0
    for pair in play_duel(config, workers=1):
        for table in pair:
            soloist = table.soloist
            if soloist is None or table.sides[soloist] != "B" or table.estimate is None:
                continue  # not the oracle's own bid (a pass-out's brandle is forced)
            bid += 1
            assert table.payments[soloist] > 0, table
            assert table.estimate == table.payments[soloist]
    assert bid > 0


class _SpySeer(SoloistSeer):
    """The seer, keeping every deal it sampled."""

    def __init__(self) -> None:
        super().__init__(seed=3, level=1)
        self.samples: list[list[int]] = []

    def sample(
        self, hands: list[int], counts: list[int], unseen: int, forbidden: list[int]
    ) -> list[int]:
        dealt = super().sample(hands, counts, unseen, forbidden)
        self.samples.append(dealt)
        return dealt


def test_the_seer_defends_seeing_the_soloists_hand_and_nothing_else() -> None:
    ruleset = find_ruleset("standard")
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=8))
    bid = state.legal_actions()[1]  # forehand (seat 0) bids the lowest contract
    state = state.apply(bid)
    while state.phase is not Phase.PLAY:
        state = state.apply(state.legal_actions()[0])  # the others pass; a trump is named
    assert state.soloist == 0
    state = state.apply(state.legal_actions()[0])  # the soloist leads
    seat = state.to_act
    assert seat == 1
    request = request_for(state, 1, move_ms=60_000)
    bot = _SpySeer()
    bot.match = match_started_for(ruleset, seat)
    with pytest.raises(RuntimeError, match="not shown the deal"):
        bot.decide(request)
    bot.true_hands = tuple(hand.mask for hand in state.hands)
    bot.samples.clear()
    bot.decide(request)
    assert bot.samples
    # The soloist's cards are its own, as they are now; the partners' are guessed.
    assert all(dealt[0] == state.hands[0].mask for dealt in bot.samples)
    assert any(dealt[2] != state.hands[2].mask for dealt in bot.samples)
    # Soloist itself, it has no one to read: it samples as the expert does, shown or not.
    soloist = _SpySeer()
    soloist.match = match_started_for(ruleset, 0)
    while state.to_act != 0 or len(state.legal_actions()) < 2:
        state = state.apply(state.legal_actions()[0])
    soloist.decide(request_for(state, 2, move_ms=60_000))
    assert soloist.samples
