"""The `oracle`: the expert bot given every hand, a ceiling for the duel and not a player.

A bot can only guess the cards it cannot see; the oracle is handed them by the duel's harness
(:func:`brandeln.bench.duel.play_table`), so each of its "sampled" deals is the true one and its
double-dummy solver is exact in bidding and in play. Dueled against a bot (``python -m
brandeln.bench.duel --a montecarlo --b oracle``), it measures what seeing every card is worth
against that opponent: the most any honest bot could gain by better inference, and, split with the
duel's ``BIDDER/PLAYER`` specs (``expert/oracle``: the expert's bids, the oracle's card play),
where that worth lies. It lives in the bench, never in the bot registry: it cheats, and no
referee could seat it.

Its priors and margins are zero: where every sample is the true deal, the solver's verdict is
the deal's result against defenders who see every card, so the playouts and the margins that
correct the honest expert's guesses have nothing to correct.

The `seer` is a narrower ceiling: the expert shown one hand only, the soloist's, and only in
the card play (at a bid no soloist exists yet; as the soloist it knows its own hand anyway). It
defends reading the soloist's hand perfectly and guessing its partners' as the expert does, so
what it gains over the expert is the worth of the soloist's hand: what a defender's inference
from the auction and the play could at best learn.
"""

from __future__ import annotations

from brandeln.engine.rulesets import Ruleset
from brandeln.sample_bots.expert import ExpertBot
from brandeln.sdk import Answer
from brandeln.v1 import bot_pb2

__all__ = ["ORACLE", "SEER", "OracleBot", "SoloistSeer"]

ORACLE = "oracle"
SEER = "seer"


class OracleBot(ExpertBot):
    """The expert whose samples are the true deal (``true_hands``, set before each deal)."""

    name = ORACLE
    card_prior = 0.0
    bid_prior = 0.0
    zero_prior = 0.0
    bid_margin = 0.0
    at_least_margin = 0.0
    zero_margin = 0.0

    def __init__(self, seed: int | None = None, level: int = 4) -> None:
        super().__init__(seed=seed, level=level)
        # Every seat's hand as dealt (card masks); the cards played since are no longer
        # "unseen" and drop out when a sample is taken.
        self.true_hands: tuple[int, ...] = ()

    def sample(
        self,
        hands: list[int],
        counts: list[int],
        unseen: int,
        forbidden: list[int],
    ) -> list[int]:
        """The true deal: each hidden seat's dealt hand less what it has played."""
        if not self.true_hands:
            raise RuntimeError("the oracle was not shown the deal (brandeln.bench.duel shows it)")
        out = list(hands)
        for seat, hand in enumerate(self.true_hands):
            if counts[seat] > 0:
                out[seat] = hand & unseen
        return out


class SoloistSeer(ExpertBot):
    """The expert that, defending, samples the soloist's true hand (``true_hands``, set
    before each deal) and guesses the others' as usual."""

    name = SEER

    def __init__(self, seed: int | None = None, level: int = 4) -> None:
        super().__init__(seed=seed, level=level)
        self.true_hands: tuple[int, ...] = ()
        self._soloist: int | None = None  # the seat whose hand is shown in this decision

    def search_card(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        view = request.view
        defending = view.HasField("soloist") and view.seat != view.soloist
        self._soloist = view.soloist if defending else None
        try:
            return super().search_card(request, ruleset)
        finally:
            self._soloist = None

    def sample(
        self,
        hands: list[int],
        counts: list[int],
        unseen: int,
        forbidden: list[int],
    ) -> list[int]:
        """The soloist's true remaining hand, the other hidden cards sampled around it."""
        soloist = self._soloist
        if soloist is None or counts[soloist] <= 0:
            return super().sample(hands, counts, unseen, forbidden)
        if not self.true_hands:
            raise RuntimeError("the seer was not shown the deal (brandeln.bench.duel shows it)")
        held = self.true_hands[soloist] & unseen
        hands, counts = list(hands), list(counts)
        hands[soloist], counts[soloist] = held, 0
        return super().sample(hands, counts, unseen & ~held, forbidden)
