"""examples/seasons/: a season file for every ruleset, and a russian example that ends.

A russian season of the sample bots used to run every match to the 120-deal cap (nobody
reached 21). The example's bots must finish a match by the target, within its deals_per_match.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from brandeln.arena import codec
from brandeln.arena.spec import deal_seed
from brandeln.engine.match import MatchState
from brandeln.engine.rulesets import RULESET_IDS, Ruleset, find_ruleset
from brandeln.ladder.season.config import CommandBot, SeasonConfig, load_season
from brandeln.sample_bots.heuristic import HeuristicBot
from brandeln.sample_bots.montecarlo import MonteCarloBot
from brandeln.sdk import Bot, resolve_answer
from tests.bots.botkit_table import match_started_for, request_for

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "seasons"
# Generous clocks so that only max_samples bounds montecarlo's search: the test is then the
# same on a loaded machine (it never reads the clock to decide).
NO_CLOCK_MS = 600_000


def _examples() -> dict[Path, SeasonConfig]:
    return {path: load_season(path) for path in sorted(EXAMPLES.glob("*.toml"))}


def test_every_ruleset_of_the_engine_has_an_example_season_that_parses() -> None:
    covered = {config.ruleset for config in _examples().values()}
    missing = [ruleset_id for ruleset_id in RULESET_IDS if ruleset_id not in covered]
    assert not missing, f"no examples/seasons/*.toml plays {missing}"


def _bot_of(spec: CommandBot) -> Bot:
    """The sample bot a season's command starts, in this process."""
    words = spec.command if len(spec.command) > 1 else tuple(shlex.split(spec.command[0]))
    name = words[words.index("run") + 1]
    seed = int(words[words.index("--seed") + 1]) if "--seed" in words else None
    if name == "heuristic":
        return HeuristicBot()
    assert name == "montecarlo", f"the russian example runs {name}, which this test cannot play"
    return MonteCarloBot(seed=seed, think_ms=NO_CLOCK_MS, max_samples=8)


@pytest.mark.parametrize("example", ["russian.toml"])
def test_russian_matches_of_the_examples_bots_mostly_end_by_the_target_before_the_cap(
    example: str,
) -> None:
    config = load_season(EXAMPLES / example)
    ruleset = find_ruleset(config.ruleset)
    assert ruleset.target_score is not None
    specs = [bot for bot in config.bots if isinstance(bot, CommandBot)][: ruleset.players]
    # The examples give their seed (a file without one is dealt from a secret, committed seed).
    assert config.seed is not None
    ended = [_play_match(ruleset, specs, config.seed + k, config.deals_per_match) for k in range(4)]
    # Deterministic (montecarlo is bounded by its sample count), and most matches end by the
    # target: a russian match is slow, and some still reach the cap (as the seasons page says).
    by_target = [deals for deals, balances in ended if max(balances) >= ruleset.target_score]
    assert len(by_target) >= 3, ended
    assert all(deals < config.deals_per_match for deals in by_target), ended


def _play_match(
    ruleset: Ruleset, specs: list[CommandBot], seed: int, deals: int
) -> tuple[int, tuple[int, ...]]:
    """One match of the example's bots in this process: its deals played and its balances."""
    bots = [_bot_of(spec) for spec in specs]
    for index, bot in enumerate(bots):
        bot.match = match_started_for(ruleset, index)
    match = MatchState.new(ruleset, deals=deals)
    request_id = 0
    while not match.is_over:
        # The referee's deal seeds (brandeln.arena.spec.deal_seed) for this seed.
        deal = match.deal_for_seed(deal_seed(seed, match.deal_number + 1))
        state = match.start_deal(deal)
        while not state.is_over():
            request_id += 1
            request = request_for(state, request_id, move_ms=NO_CLOCK_MS)
            seat = state.to_act
            assert seat is not None
            choice = resolve_answer(request, bots[seat].decide(request))
            state = state.apply(codec.choice_to_action(choice, state.phase))
        outcome = state.outcome()
        assert outcome is not None
        match = match.record(outcome)
    return match.deal_number, match.balances
