"""brandeln.engine.double_dummy agrees with a plain minimax over every legal card (no pruning, no
table, no merged cards) on thousands of random small endgames of every ruleset and every goal
kind of the contract ladders (R4, R8, R9, R10)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from brandeln.engine import pure_module
from brandeln.engine.cards import Suit
from brandeln.engine.double_dummy import DoubleDummy
from brandeln.engine.rulesets import RULESET_IDS, Contract, Goal, Ruleset, find_ruleset
from brandeln.engine.seats import seat_after
from brandeln.engine.settlement import deal_ends
from brandeln.engine.trick_rules import NO_CARD, NO_TRICK, add_to_trick, duties_for, legal_card_mask


def bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


@dataclass(frozen=True)
class Endgame:
    ruleset: Ruleset
    contract: Contract
    soloist: int
    trump: Suit | None
    hands: tuple[int, ...]
    tricks_won: tuple[int, ...]
    leader: int
    trick: tuple[int, ...]

    def solver(self) -> DoubleDummy:
        return DoubleDummy(self.ruleset, self.contract, self.soloist, self.trump)


def brute_force(game: Endgame, objective: str = "made") -> int:
    """Minimax over every legal card, the deal played on by the engine's own deal_ends.

    ``made``: 1 when the soloist makes it; ``tricks``: the soloist's final tricks, every trick
    played (the soloist maximises, the defenders minimise)."""
    ruleset = game.ruleset
    duties = duties_for(ruleset, game.trump)
    players = ruleset.players

    def walk(hands: list[int], won: list[int], leader: int, trick: list[int]) -> int:
        if len(trick) == players:
            led, win, head = NO_TRICK, NO_CARD, NO_CARD
            winner = leader
            for position, card in enumerate(trick):
                led, win, head = add_to_trick(win, head, card, duties)
                if win == card:
                    winner = seat_after(leader, position, players)
            won = list(won)
            won[winner] += 1
            if objective == "made":
                if deal_ends(ruleset, game.contract, game.soloist, tuple(won)):
                    return int(game.contract.made_with(won[game.soloist]))
            elif sum(won) == ruleset.tricks:
                return won[game.soloist]
            return walk(hands, won, winner, [])
        led, win, head = NO_TRICK, NO_CARD, NO_CARD
        for card in trick:
            led, win, head = add_to_trick(win, head, card, duties)
        seat = seat_after(leader, len(trick), players)
        values = []
        for card in bits(legal_card_mask(hands[seat], led, win, head, duties)):
            hands[seat] ^= 1 << card
            values.append(walk(hands, won, leader, [*trick, card]))
            hands[seat] ^= 1 << card
        return max(values) if seat == game.soloist else min(values)

    return walk(list(game.hands), list(game.tricks_won), game.leader, list(game.trick))


def random_endgame(rng: random.Random, ruleset: Ruleset, left: int) -> Endgame:
    """``left`` tricks still to play (the first maybe under way); the deal not over yet."""
    players = ruleset.players
    contract = rng.choice(ruleset.contracts)
    soloist = rng.randrange(players)
    trump = rng.choice(list(Suit)) if contract.trump else None
    played = ruleset.tricks - left
    while True:
        won = [0] * players
        for _ in range(played):
            won[rng.randrange(players)] += 1
        if played == 0 or not deal_ends(ruleset, contract, soloist, tuple(won)):
            break
    leader = rng.randrange(players)
    in_trick = rng.randrange(players)
    cards = bits(ruleset.deck().mask)
    rng.shuffle(cards)
    trick = tuple(cards[:in_trick])
    rest = cards[in_trick:]
    hands = []
    for seat in range(players):
        count = left - (1 if (seat - leader) % players < in_trick else 0)
        hand = 0
        for card in rest[:count]:
            hand |= 1 << card
        rest = rest[count:]
        hands.append(hand)
    return Endgame(ruleset, contract, soloist, trump, tuple(hands), tuple(won), leader, trick)


def endgames(count: int, max_left: int, seed: int) -> Iterator[Endgame]:
    rng = random.Random(seed)
    rulesets = [find_ruleset(name) for name in RULESET_IDS]
    for number in range(count):
        ruleset = rulesets[number % len(rulesets)]
        yield random_endgame(rng, ruleset, rng.randint(1, min(max_left, ruleset.tricks)))


@pytest.mark.parametrize("seed", range(4))
def test_makes_agrees_with_brute_force_on_random_endgames(seed: int) -> None:
    for game in endgames(600, max_left=3, seed=seed):
        expected = brute_force(game) == 1
        assert game.solver().makes(game.hands, game.tricks_won, game.leader, game.trick) == (
            expected
        ), game


def test_every_goal_kind_of_every_ruleset_is_exercised() -> None:
    kinds = {(game.ruleset.id, game.contract.goal) for game in endgames(2400, 3, seed=0)}
    for name in RULESET_IDS:
        goals = {c.goal for c in find_ruleset(name).contracts}
        assert {(name, goal) for goal in goals} <= kinds


def test_card_values_agree_with_brute_force_card_by_card() -> None:
    for game in endgames(300, max_left=3, seed=11):
        solver = game.solver()
        values = solver.card_values(game.hands, game.tricks_won, game.leader, game.trick)
        seat = seat_after(game.leader, len(game.trick), game.ruleset.players)
        for card, made in values.items():
            hands = list(game.hands)
            hands[seat] ^= 1 << card
            changed = {"hands": tuple(hands), "trick": (*game.trick, card)}
            after = Endgame(**{**game.__dict__, **changed})
            assert made == (brute_force(after) == 1), (game, card)


def test_max_tricks_agrees_with_a_trick_counting_minimax() -> None:
    for game in endgames(300, max_left=3, seed=5):
        solver = game.solver()
        assert solver.max_tricks(game.hands, game.tricks_won, game.leader, game.trick) == (
            brute_force(game, "tricks")
        ), game


def test_a_four_trick_endgame_agrees_too() -> None:
    # Deeper trees, fewer of them: the table and the merged cards matter most here.
    for game in endgames(40, max_left=4, seed=21):
        if sum(game.tricks_won) + 4 > game.ruleset.tricks:
            continue
        expected = brute_force(game) == 1
        assert game.solver().makes(game.hands, game.tricks_won, game.leader, game.trick) == (
            expected
        ), game


def test_a_zero_contract_is_lost_with_the_soloists_first_trick() -> None:
    standard = find_ruleset("standard")
    bettel = next(c for c in standard.contracts if c.goal is Goal.ZERO)
    solver = DoubleDummy(standard, bettel, soloist=0, trump=None)
    # Seat 0 must lead its ace of clubs and nobody can follow or beat it: R9.2 sudden death.
    hands = [1 << 6, 1 << 8, 1 << 16, 1 << 24]  # CA, S7, H7, D7 (index = suit * 8 + rank)
    assert solver.makes(hands, (0, 2, 2, 2), leader=0) is False
    assert solver.stats.nodes > 0


def test_one_solver_reused_along_a_line_of_play_stays_exact() -> None:
    # A bot keeps one solver per deal and asks it again at every card: the positions it has
    # stored must be told apart by everything that decides them (hands, leader, tricks won).
    rng = random.Random(8)
    for game in endgames(250, max_left=3, seed=8):
        solver = game.solver()
        duties = duties_for(game.ruleset, game.trump)
        players = game.ruleset.players
        hands, won = list(game.hands), list(game.tricks_won)
        leader, trick = game.leader, list(game.trick)
        while sum(won) < game.ruleset.tricks and not (
            sum(won) > sum(game.tricks_won)
            and deal_ends(game.ruleset, game.contract, game.soloist, tuple(won))
        ):
            here = Endgame(
                game.ruleset,
                game.contract,
                game.soloist,
                game.trump,
                tuple(hands),
                tuple(won),
                leader,
                tuple(trick),
            )
            assert solver.makes(hands, won, leader, trick) == (brute_force(here) == 1), here
            led, win, head = NO_TRICK, NO_CARD, NO_CARD
            winner = leader
            for position, card in enumerate(trick):
                led, win, head = add_to_trick(win, head, card, duties)
                if win == card:
                    winner = seat_after(leader, position, players)
            seat = seat_after(leader, len(trick), players)
            card = rng.choice(bits(legal_card_mask(hands[seat], led, win, head, duties)))
            hands[seat] ^= 1 << card
            led, win, head = add_to_trick(win, head, card, duties)
            if win == card:
                winner = seat
            trick.append(card)
            if len(trick) == players:
                won[winner] += 1
                leader, trick = winner, []


def test_the_same_cards_with_another_score_are_another_position() -> None:
    rng = random.Random(13)
    for game in endgames(400, max_left=3, seed=13):
        solver = game.solver()
        players = game.ruleset.players
        played = sum(game.tricks_won)
        for _ in range(3):
            won = [0] * players
            for _ in range(played):
                won[rng.randrange(players)] += 1
            if played and deal_ends(game.ruleset, game.contract, game.soloist, tuple(won)):
                continue
            other = Endgame(**{**game.__dict__, "tricks_won": tuple(won)})
            assert solver.makes(other.hands, won, other.leader, other.trick) == (
                brute_force(other) == 1
            ), other


def test_a_search_over_its_budget_stops_and_the_solver_stays_exact() -> None:
    from brandeln.engine.double_dummy import BudgetExceeded  # noqa: PLC0415

    def cost(game: Endgame) -> int:
        solver = game.solver()
        solver.makes(game.hands, game.tricks_won, game.leader, game.trick)
        return solver.stats.nodes

    game = next(g for g in endgames(200, max_left=3, seed=3) if cost(g) > 50)
    solver = game.solver()
    solver.budget = 20
    with pytest.raises(BudgetExceeded):
        solver.makes(game.hands, game.tricks_won, game.leader, game.trick)
    # The table holds only positions searched to the end, so the next search may use them.
    solver.budget = 0
    assert solver.makes(game.hands, game.tricks_won, game.leader, game.trick) == (
        brute_force(game) == 1
    )


def test_a_search_past_its_deadline_stops() -> None:
    import time  # noqa: PLC0415

    from brandeln.engine.double_dummy import BudgetExceeded  # noqa: PLC0415

    # Whole deals from trick 1, one whose tree has far more than the 1024 positions between two
    # looks at the clock.
    standard = find_ruleset("standard")
    brandle = standard.contract("brandle")
    rng = random.Random(4)
    cards = bits(standard.deck().mask)
    while True:
        rng.shuffle(cards)
        hands = [sum(1 << c for c in cards[7 * seat : 7 * seat + 7]) for seat in range(4)]
        solver = DoubleDummy(standard, brandle, soloist=0, trump=Suit.HEARTS)
        expected = solver.makes(hands, (0, 0, 0, 0), leader=0)
        if solver.stats.nodes > 4096:
            break
    solver = DoubleDummy(standard, brandle, soloist=0, trump=Suit.HEARTS)
    solver.clock = time.monotonic
    solver.deadline = time.monotonic() - 1.0
    with pytest.raises(BudgetExceeded):
        solver.makes(hands, (0, 0, 0, 0), leader=0)
    assert solver.stats.nodes == 1024
    solver.deadline = 0.0
    assert solver.makes(hands, (0, 0, 0, 0), leader=0) == expected


def test_the_installed_solver_and_its_python_source_search_the_same_tree() -> None:
    # setup.py compiles engine/double_dummy.py; its source stays the reference. On deals from
    # every trick (whole deals included, where brute force is out of reach) the two give the
    # same results, card values and position counts: they walk the same tree, move for move.
    reference = pure_module("double_dummy")
    for game in endgames(240, max_left=7, seed=23):
        installed = game.solver()
        pure = reference.DoubleDummy(game.ruleset, game.contract, game.soloist, game.trump)
        position = (game.hands, game.tricks_won, game.leader, game.trick)
        assert installed.card_values(*position) == pure.card_values(*position), game
        assert installed.makes(*position) == pure.makes(*position), game
        assert (installed.stats.nodes, installed.stats.table_hits) == (
            pure.stats.nodes,
            pure.stats.table_hits,
        ), game
