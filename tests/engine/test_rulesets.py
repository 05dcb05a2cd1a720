"""Rulesets as data: R4 and every row of RULES.md section 6, the switches, the registry."""

from __future__ import annotations

import pytest

from brandeln.engine.errors import RulesetOptionError, UnknownContractError, UnknownRulesetError
from brandeln.engine.rulesets import (
    RULESET_IDS,
    Contract,
    EarlyStop,
    Goal,
    HeadRule,
    PassOut,
    Ruleset,
    Scoring,
    Stichzwang,
    Trumpfzwang,
    TrumpOrder,
    Undertrump,
    find_ruleset,
)


def ladder(ruleset_id: str) -> list[tuple[str, str, int, bool, int]]:
    return [
        (c.id, str(c.goal), c.tricks, c.trump, c.value) for c in find_ruleset(ruleset_id).contracts
    ]


def test_registry_ids_in_order() -> None:
    assert RULESET_IDS == (
        "standard",
        "three-player",
        "haferl",
        "classic-1860",
        "classic-1905",
        "russian",
        "russian-32",
    )
    assert all(find_ruleset(i).id == i for i in RULESET_IDS)


def test_unknown_ruleset_lists_known_ids() -> None:
    with pytest.raises(UnknownRulesetError) as error:
        find_ruleset("skat")
    assert "'skat'" in str(error.value)
    assert "standard, three-player, haferl" in str(error.value)
    assert isinstance(error.value, ValueError)


def test_r4_standard_contract_ladder() -> None:
    assert ladder("standard") == [
        ("brandle", "at_least", 3, True, 3),
        ("brand", "at_least", 4, True, 4),
        ("bettel", "zero", 0, False, 6),
        ("mord", "all", 7, True, 12),
        ("herrenmord", "all", 7, False, 18),
    ]
    standard = find_ruleset("standard")
    assert (standard.players, standard.tricks, standard.hand_size) == (4, 7, 7)
    assert standard.packets == (2, 3, 2)
    assert standard.pass_out is PassOut.MUSS
    assert standard.trump_order is TrumpOrder.JACK_SEVEN_FIRST
    assert standard.holds
    assert standard.zero_sum
    assert standard.default_deals == 8


def test_section6_three_player() -> None:
    r = find_ruleset("three-player")
    assert (r.players, r.blind, r.deal_rows, r.tricks, len(r.deck())) == (3, True, 4, 7, 28)
    assert ladder("three-player") == ladder("standard")
    assert r.default_deals % r.players == 0


def test_section6_haferl() -> None:
    r = find_ruleset("haferl")
    assert r.pass_out is PassOut.HAFERL
    assert ladder("haferl") == ladder("standard")


def test_section6_classic_1860() -> None:
    r = find_ruleset("classic-1860")
    assert ladder("classic-1860") == [
        ("brandle", "at_least", 3, True, 3),
        ("four", "at_least", 4, True, 4),
        ("five", "at_least", 5, True, 5),
        ("six", "at_least", 6, True, 6),
        ("bettel", "zero", 0, False, 7),
        ("mord", "all", 7, True, 8),
    ]
    assert r.stichzwang is Stichzwang.NO_TRUMP_ONLY
    assert r.trumpfzwang is Trumpfzwang.ANY_TRUMP
    assert r.pass_out is PassOut.THROWN_IN


def test_section6_classic_1905() -> None:
    r = find_ruleset("classic-1905")
    assert ladder("classic-1905") == ladder("classic-1860")
    assert r.stichzwang is Stichzwang.ALWAYS
    assert r.trumpfzwang is Trumpfzwang.NONE
    assert r.pass_out is PassOut.THROWN_IN


def test_section6_russian() -> None:
    r = find_ruleset("russian")
    assert ladder("russian") == [
        ("three", "exact", 3, True, 1),
        ("four", "exact", 4, True, 2),
        ("five", "exact", 5, True, 3),
        ("six", "exact", 6, True, 4),
        ("null", "zero", 0, False, 5),
        ("all", "all", 7, True, 6),
        ("all-no-trump", "all", 7, False, 7),
    ]
    assert len(r.deck()) == 28
    assert r.trump_order is TrumpOrder.NATURAL
    assert not r.holds
    assert r.stichzwang is Stichzwang.NEVER
    assert r.trumpfzwang is Trumpfzwang.ANY_TRUMP
    assert r.scoring is Scoring.SOLOIST_ONLY
    assert r.pass_out is PassOut.FREE_PLAY
    assert (r.target_score, r.max_deals) == (21, 120)
    assert not r.zero_sum


def test_section6_russian_32() -> None:
    r = find_ruleset("russian-32")
    assert (len(r.deck()), r.hand_size, r.tricks, r.packets) == (32, 8, 8, (2, 3, 3))
    assert r.contract("all").tricks == 8
    assert r.contract("all-no-trump").tricks == 8
    assert r.contract("six").tricks == 6


def test_contract_lookup_error_names_known_ids() -> None:
    with pytest.raises(UnknownContractError) as error:
        find_ruleset("standard").contract("four")
    assert str(error.value) == (
        "ruleset 'standard' has no contract 'four'; its contracts: "
        "brandle, brand, bettel, mord, herrenmord"
    )
    assert isinstance(error.value, KeyError)


@pytest.mark.parametrize(
    ("goal", "tricks", "taken", "made"),
    [
        (Goal.AT_LEAST, 3, 2, False),
        (Goal.AT_LEAST, 3, 3, True),
        (Goal.AT_LEAST, 3, 7, True),
        (Goal.EXACT, 4, 5, False),
        (Goal.EXACT, 4, 4, True),
        (Goal.EXACT, 4, 3, False),
        (Goal.ZERO, 0, 0, True),
        (Goal.ZERO, 0, 1, False),
        (Goal.ALL, 7, 7, True),
        (Goal.ALL, 7, 6, False),
    ],
)
def test_r10_1_made_with(goal: Goal, tricks: int, taken: int, made: bool) -> None:
    assert Contract("x", goal, tricks, True, 1).made_with(taken) is made


def test_switch_defaults_and_values() -> None:
    r = find_ruleset("standard")
    assert (r.head_rule, r.undertrump, r.early_stop) == (
        HeadRule.TRICK,
        Undertrump.FORCED,
        EarlyStop.RULES,
    )
    r = find_ruleset(
        "russian", {"head_rule": "suit", "undertrump": "free", "early_stop": "when_decided"}
    )
    assert (r.head_rule, r.undertrump, r.early_stop) == (
        HeadRule.SUIT,
        Undertrump.FREE,
        EarlyStop.WHEN_DECIDED,
    )
    assert r.id == "russian"
    assert find_ruleset("haferl", {"early_stop": "never"}).early_stop is EarlyStop.NEVER


def test_unknown_switch_is_named() -> None:
    with pytest.raises(RulesetOptionError, match="unknown switch 'trumps'; known switches"):
        find_ruleset("standard", {"trumps": "none"})


def test_bad_switch_value_lists_allowed() -> None:
    with pytest.raises(RulesetOptionError) as error:
        find_ruleset("standard", {"early_stop": "soon"})
    assert str(error.value) == (
        "switch 'early_stop' cannot be 'soon'; allowed values: rules, when_decided, never"
    )


def test_options_strings() -> None:
    opts = find_ruleset("standard", {"undertrump": "free"}).options()
    assert opts["head_rule"] == "trick"
    assert opts["undertrump"] == "free"
    assert opts["early_stop"] == "rules"
    assert opts["pass_out"] == "muss"
    assert opts["deck"] == "28"
    assert "target_score" not in opts
    assert all(isinstance(v, str) for v in opts.values())
    assert find_ruleset("russian-32").options()["deck"] == "32"


def test_rulesets_are_hashable_values() -> None:
    assert find_ruleset("standard") == find_ruleset("standard", {})
    assert hash(find_ruleset("standard")) == hash(find_ruleset("standard"))
    assert find_ruleset("standard") != find_ruleset("standard", {"head_rule": "suit"})


def test_inconsistent_ruleset_is_rejected() -> None:
    with pytest.raises(ValueError, match="inconsistent"):
        Ruleset(id="bad", players=4, tricks=7, hand_size=7, contracts=(), packets=(2, 3, 3))
