"""The `expert` sample bot: perfect-information Monte Carlo with an exact double-dummy solver.

The approach of the strong Skat programs and of bridge's GIB. For a card decision it samples
the cards it cannot see, consistently with what the play has shown (as the `montecarlo` bot
does: voids, failures to trump, failures to beat), solves the rest of each sampled deal exactly
for the contract's result (:mod:`engine.double_dummy`), and plays the card that makes (as
soloist) or beats (as defender) the contract in the most samples; ties are broken by the
`montecarlo` bot's greedy playouts on the same samples, which also play the russian free play
(no soloist, no two-sided game to solve). For bids and trump it solves each contract (with each
trump) in sampled deals and bids the contract whose expected chips beat passing by a margin.

**Levels** (``--level 1..5``) cap the samples per decision (4, 8, 16, 32, 64); every level
also keeps to its time budget, a share of the request's ``move_ms``: the solver counts the
positions it visits and stops at a budget derived from the time left, so a decision never
overruns, whatever the deal.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Final

from brandeln.v1 import bot_pb2
from engine.cards import Suit
from engine.double_dummy import BudgetExceeded, DoubleDummy
from engine.rulesets import Contract, Goal, Ruleset
from engine.settlement import contract_payments
from engine.trick_rules import duties_for
from sample_bots.montecarlo import Deal, MonteCarloBot, Playout, card_index, engine_suit
from sample_bots.sdk import Answer

LEVEL_SAMPLES: Final = {1: 4, 2: 8, 3: 16, 4: 32, 5: 64}
DEFAULT_LEVEL: Final = 3
BID_MARGIN: Final = 0.25  # of the contract's value V: the solver sees every hand, players don't
# A first estimate of the solver's speed, corrected after every search (positions per second).
INITIAL_NODE_RATE: Final = 100_000.0
TIE_WEIGHT: Final = 1e-3  # the playouts only break ties between equally good cards


def level_samples(level: int) -> int:
    """The sample cap of a level (1 weakest, 5 strongest)."""
    if level not in LEVEL_SAMPLES:
        raise ValueError(f"expert level must be 1 to 5, not {level}")
    return LEVEL_SAMPLES[level]


def made_payoff(ruleset: Ruleset, contract: Contract, made: bool) -> int:
    """The soloist's chips for making (or failing) ``contract``, settled by the engine."""
    target = contract.tricks
    if made:
        taken = target
    elif contract.goal is Goal.ZERO:
        taken = 1
    else:
        taken = target - 1 if target > 0 else 1
    tricks = [0] * ruleset.players
    tricks[0] = taken
    _, payments, _ = contract_payments(ruleset, contract, 0, tuple(tricks), pool=0)
    return payments[0]


class ExpertBot(MonteCarloBot):
    """Double-dummy Monte Carlo; the `montecarlo` bot's sampling, playouts and fallbacks."""

    name = "expert"
    version = "1.0"
    bid_margin = BID_MARGIN  # search_bid is montecarlo's, on this evaluate_contract

    def __init__(self, seed: int | None = None, level: int = DEFAULT_LEVEL) -> None:
        super().__init__(seed=seed, max_samples=level_samples(level))
        self.level = level
        self.node_rate = INITIAL_NODE_RATE

    def node_budget(self, deadline: float) -> int:
        """Positions the solver may visit before ``deadline`` at its measured speed."""
        return max(1, int((deadline - time.monotonic()) * self.node_rate))

    def learn_rate(self, nodes: int, seconds: float) -> None:
        if nodes > 1000 and seconds > 0:
            self.node_rate = 0.7 * self.node_rate + 0.3 * (nodes / seconds)

    # --- cards ---------------------------------------------------------------------------
    def search_card(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        view = request.view
        if not view.HasField("soloist") or not view.contract:
            return super().search_card(request, ruleset)  # the free play: no two sides
        trump = engine_suit(view.trump) if view.trump else None
        duties = duties_for(ruleset, trump)
        soloist = view.soloist
        contract = ruleset.contract(view.contract)
        solver = DoubleDummy(ruleset, contract, soloist, trump)
        hands, counts, unseen, forbidden = self.world(view, ruleset, duties)
        candidates = [card_index(choice.card) for choice in request.legal]
        playout = Playout(ruleset, self.rng)
        wins = [0] * len(candidates)
        ties = [0.0] * len(candidates)
        trick = [card_index(c) for c in view.current_trick]
        deadline, samples = self.deadline(request), 0
        on_side = view.seat == soloist
        while self.more(samples) and time.monotonic() < deadline:
            dealt = self.sample(hands, counts, unseen, forbidden)[: ruleset.players]
            started, nodes = time.monotonic(), solver.stats.nodes
            solver.budget = self.node_budget(deadline)
            try:
                values = solver.card_values(
                    dealt, view.tricks_won, view.current_trick_leader, trick
                )
            except BudgetExceeded:
                break  # out of time: decide on the samples solved so far
            finally:
                self.learn_rate(solver.stats.nodes - nodes, time.monotonic() - started)
            deal = Deal(
                hands=list(dealt),
                leader=view.current_trick_leader,
                trick=trick,
                tricks_won=list(view.tricks_won),
                soloist=soloist,
                contract=contract,
                trump=trump,
            )
            for i, card in enumerate(candidates):
                wins[i] += values[card] == on_side
                won = playout.run(deal, first=card)
                ties[i] += self.payoff(ruleset, view.seat, soloist, view.contract, won)
            samples += 1
        self.samples_last = samples
        if samples == 0:  # not even one sample in time: the playouts' choice, at once
            return super().search_card(request, ruleset)
        return max(range(len(candidates)), key=lambda i: wins[i] + TIE_WEIGHT * ties[i] / samples)

    # --- bids and trump ------------------------------------------------------------------
    def evaluate_contract(
        self,
        request: bot_pb2.DecisionRequest,
        ruleset: Ruleset,
        contract_id: str,
        trumps: Sequence[Suit | None],
        deadline: float,
    ) -> list[float]:
        """Expected chips of playing ``contract_id`` as soloist (leading) with each trump:
        the share of sampled deals the solver makes it in, settled by the engine."""
        view = request.view
        contract = ruleset.contract(contract_id)
        hands, counts, unseen, forbidden = self.world(view, ruleset, duties_for(ruleset, trumps[0]))
        made = [0] * len(trumps)
        solvers = [DoubleDummy(ruleset, contract, view.seat, trump) for trump in trumps]
        zeros, samples = [0] * ruleset.players, 0
        while self.more(samples) and time.monotonic() < deadline:
            dealt = self.sample(hands, counts, unseen, forbidden)[: ruleset.players]
            results = []
            try:
                for solver in solvers:
                    started, nodes = time.monotonic(), solver.stats.nodes
                    solver.budget = self.node_budget(deadline)
                    solver.clear()  # a new deal: its positions never recur
                    results.append(solver.makes(dealt, zeros, view.seat))
                    self.learn_rate(solver.stats.nodes - nodes, time.monotonic() - started)
            except BudgetExceeded:
                break
            for i, result in enumerate(results):
                made[i] += result
            samples += 1
        if samples == 0:
            return super().evaluate_contract(request, ruleset, contract_id, trumps, deadline)
        win, lose = made_payoff(ruleset, contract, True), made_payoff(ruleset, contract, False)
        return [(m * win + (samples - m) * lose) / samples for m in made]
