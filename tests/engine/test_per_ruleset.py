"""brandeln.engine.per_ruleset: a table is built once per ruleset object, by identity, and
bounded."""

from __future__ import annotations

from dataclasses import replace

from brandeln.engine.per_ruleset import PerRuleset
from brandeln.engine.rulesets import Ruleset, find_ruleset


def test_a_table_is_built_once_per_ruleset_object_and_equal_rulesets_get_their_own() -> None:
    built: list[Ruleset] = []

    def build(ruleset: Ruleset) -> list[int]:
        built.append(ruleset)
        return [ruleset.players]

    tables = PerRuleset(build)
    standard = find_ruleset("standard")
    twin = replace(standard)  # equal by value, another object
    assert tables.of(standard) is tables.of(standard)
    assert tables.of(twin) == [4]
    assert tables.of(twin) is not tables.of(standard)
    assert [id(r) for r in built] == [id(standard), id(twin)]


def test_the_bound_starts_over_instead_of_growing() -> None:
    tables = PerRuleset(lambda ruleset: object(), kept=2)
    rulesets = [find_ruleset(name) for name in ("standard", "haferl", "russian")]
    first = tables.of(rulesets[0])
    tables.of(rulesets[1])
    tables.of(rulesets[2])  # a third: the two kept are dropped
    assert tables.of(rulesets[0]) is not first


def test_rulesets_asked_in_turn_each_get_their_own_table() -> None:
    # of() answers a repeated ruleset from its last entry: asking for others in between must
    # never hand one ruleset's table to another.
    tables = PerRuleset(lambda ruleset: [ruleset.id])
    rulesets = [find_ruleset(name) for name in ("standard", "haferl", "russian")]
    for ruleset in [*rulesets, *rulesets, rulesets[1], rulesets[1], rulesets[0]]:
        assert tables.of(ruleset) == [ruleset.id]
        assert tables.of(ruleset) is tables.of(ruleset)
