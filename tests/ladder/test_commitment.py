"""Committed seeds (brandeln.ladder.season.commitment): the text hashed, the commitment checked with
the manual's recipe (docs/operators/seasons.md: ``printf ... | sha256sum``, and hashlib), and every
deal of a season regenerated from the revealed seed alone."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import pytest

from brandeln.arena.spec import deal_seed as match_deal_seed
from brandeln.engine.cards import Suit
from brandeln.engine.dealing import deal_cards
from brandeln.engine.permutation import SuitPermutation
from brandeln.engine.rulesets import find_ruleset
from brandeln.ladder.season.commitment import (
    COMMITMENT_FORMAT,
    canonical_json,
    commitment_of,
    commitment_text,
    deal_seed,
    is_seed,
    matches_commitment,
    new_secret,
    period_schedule,
    public_seed,
    season_schedule,
)
from brandeln.ladder.season.duplicate import block_seed, plan_block, plan_seeded_block
from brandeln.ladder.store.seasons import season_settings
from tests.ladder.season_helpers import season_config

SETTINGS = season_settings(season_config(seed=7))


def test_the_commitment_is_the_sha256_of_the_documented_text() -> None:
    seed = new_secret()
    schedule = season_schedule("autumn", SETTINGS)
    text = commitment_text(seed, schedule)
    assert text == f"brandeln-commitment-v1\n{seed}\n{schedule}\n"
    assert COMMITMENT_FORMAT == "brandeln-commitment-v1"
    wanted = hashlib.sha256(f"brandeln-commitment-v1\n{seed}\n{schedule}\n".encode()).hexdigest()
    assert commitment_of(seed, schedule) == wanted
    assert "\n" not in schedule  # one line: printf's %s takes it whole


def test_the_schedule_is_the_settings_without_the_seed_in_one_canonical_line() -> None:
    schedule = season_schedule("autumn", SETTINGS)
    document = json.loads(schedule)
    assert "seed" not in document
    assert document["kind"] == "season"
    assert document["season"] == "autumn"
    assert document["bots"] == SETTINGS["bots"]
    # The same settings in another order give the same text (keys sorted, no spaces).
    shuffled = dict(reversed(list(SETTINGS.items())))
    assert season_schedule("autumn", shuffled) == schedule
    assert season_schedule("autumn", {**SETTINGS, "seed": 8}) == schedule
    assert season_schedule("winter", SETTINGS) != schedule
    assert canonical_json({"b": 1, "a": "ä"}) == '{"a":"\\u00e4","b":1}'
    period = json.loads(period_schedule("live", {"seed": 3, "run": {}, "players": 4}, 2, 200, 100))
    assert period == {
        "kind": "ladder-period",
        "ladder": "live",
        "period": 2,
        "first_block": 200,
        "blocks": 100,
        "players": 4,
    }


def test_a_seed_is_64_hex_digits_and_a_public_one_keeps_its_number() -> None:
    secret = new_secret()
    assert is_seed(secret)
    assert new_secret() != secret
    assert deal_seed(public_seed(7)) == 7
    assert deal_seed(public_seed(2**64 - 1)) == 2**64 - 1
    assert not is_seed("7")
    assert not is_seed(secret.upper())
    with pytest.raises(ValueError, match="64 lowercase hex digits"):
        deal_seed("xyz")
    with pytest.raises(ValueError, match="not negative"):
        public_seed(-1)
    # A season file's seed plays the deals it always did: the blocks' seeds are unchanged.
    assert block_seed(deal_seed(public_seed(7)), 3) == block_seed(7, 3)


def test_a_commitment_matches_its_seed_and_schedule_only() -> None:
    seed, schedule = new_secret(), season_schedule("autumn", SETTINGS)
    digest = commitment_of(seed, schedule)
    assert matches_commitment(digest, seed, schedule)
    assert not matches_commitment(digest, new_secret(), schedule)
    assert not matches_commitment(digest, seed, season_schedule("autumn2", SETTINGS))
    assert not matches_commitment(digest, seed, schedule.replace("}", ',"x":1}'))
    assert not matches_commitment(digest, "not a seed", schedule)
    assert not matches_commitment(digest, seed, schedule + "é")


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs coreutils' sha256sum")
def test_the_readme_recipe_with_printf_and_sha256sum_gives_the_commitment() -> None:
    seed, schedule = new_secret(), season_schedule("autumn", SETTINGS)
    done = subprocess.run(
        [
            "sh",
            "-c",
            'printf \'brandeln-commitment-v1\\n%s\\n%s\\n\' "$1" "$2" | sha256sum',
            "recipe",
            seed,
            schedule,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.split()[0] == commitment_of(seed, schedule)


def test_every_deal_is_regenerated_from_the_revealed_seed_alone() -> None:
    """Commit, reveal, check the commitment with hashlib, then deal every match of a block
    from the revealed seed: the hands are the ones the block's plan deals."""
    seed = new_secret()
    schedule = season_schedule("autumn", SETTINGS)
    published = commitment_of(seed, schedule)  # before the season
    # After it, an outsider has the seed and the schedule, and checks them.
    assert hashlib.sha256(commitment_text(seed, schedule).encode()).hexdigest() == published
    bots = ("a", "b", "c", "d")
    ruleset = find_ruleset("standard")
    number = deal_seed(seed)
    other = deal_seed(new_secret())
    for index in range(3):
        plan = plan_block(number, index, bots)
        assert plan == plan_seeded_block(block_seed(number, index), index, bots)
        assert {match.seed for match in plan.matches} == {block_seed(number, index)}
        assert plan != plan_block(other, index, bots)
        dealt = []
        for match in plan.matches:
            suits = SuitPermutation(Suit.parse(letter) for letter in match.suit_permutation)
            # As the referee deals deal n of a match (brandeln.arena.spec.MatchSpec.next_deal).
            dealt.append(
                [
                    suits.apply_deal(deal_cards(ruleset, n % 4, match_deal_seed(match.seed, n + 1)))
                    for n in range(4)
                ]
            )
        # Duplicate: every rotation deals the same cards, suits relabelled, so the rotations'
        # hands differ but their deals are one shuffle (the same seed per deal number).
        assert len({str(hands) for hands in dealt}) == len(plan.matches)
