"""A match: a sequence of deals for fixed seats, with chip balances and the Haferl pool (R11).

>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.actions import PASS
>>> ruleset = find_ruleset("haferl")
>>> match = MatchState.new(ruleset, deals=4)
>>> state = match.start_deal(deal_cards(ruleset, match.dealer_of_next_deal, seed=1))
>>> for _ in range(4):
...     state = state.apply(PASS)
>>> match = match.record(state.outcome())
>>> match.deal_number, match.dealer_of_next_deal, match.balances, match.pool
(1, 1, (-1, -1, -1, -1), 4)
>>> match.final_balances(), match.ranks(forfeited=[2])
((0, 0, 0, 0), (1, 1, 4, 1))
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from brandeln.engine.dealing import Deal, deal_cards
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.rulesets import PassOut, Ruleset
from brandeln.engine.seats import forehand_of, seat_after, seats_from
from brandeln.engine.state import DealState

__all__ = ["MatchState"]


@dataclass(frozen=True, slots=True)
class MatchState:
    """The match so far; immutable, :meth:`record` returns the next value.

    ``deals`` is the length of the match (for a target-score ruleset, its most deals);
    ``deal_number`` counts the deals recorded so far, so the next deal is number
    ``deal_number + 1``. ``balances`` are chips per seat (points in the russian rulesets);
    ``pool`` is the Haferl pool.
    """

    ruleset: Ruleset
    deals: int
    first_dealer: int
    deal_number: int
    balances: tuple[int, ...]
    pool: int
    outcomes: tuple[DealOutcome, ...]

    @classmethod
    def new(cls, ruleset: Ruleset, deals: int | None = None, first_dealer: int = 0) -> MatchState:
        """A match of ``deals`` deals (default: the ruleset's, R11.1), first dealt by
        ``first_dealer`` (R1.2)."""
        count = ruleset.default_deals if deals is None else deals
        if count < 1:
            raise ValueError(f"a match needs at least one deal, not {count}")
        if not 0 <= first_dealer < ruleset.players:
            raise ValueError(f"first dealer {first_dealer} is not a seat of {ruleset.id!r}")
        return cls(ruleset, count, first_dealer, 0, (0,) * ruleset.players, 0, ())

    @property
    def dealer_of_next_deal(self) -> int:
        """R1.2: the deal passes left after every deal (a passed-out one too)."""
        return seat_after(self.first_dealer, self.deal_number, self.ruleset.players)

    @property
    def is_over(self) -> bool:
        """True after the last deal, or once a seat reached the target score (russian)."""
        if self.deal_number >= self.deals:
            return True
        target = self.ruleset.target_score
        return target is not None and max(self.balances) >= target

    def deal_for_seed(self, seed: int) -> Deal:
        """The next deal, shuffled with ``seed``, dealt by :attr:`dealer_of_next_deal`."""
        return deal_cards(self.ruleset, self.dealer_of_next_deal, seed)

    def start_deal(self, deal: Deal) -> DealState:
        """The first state of the next deal, carrying the Haferl pool into it."""
        if deal.dealer != self.dealer_of_next_deal:
            raise ValueError(
                f"the next deal is dealt by seat {self.dealer_of_next_deal}, not {deal.dealer}"
            )
        return DealState.new(self.ruleset, deal, pool=self.pool)

    def record(self, outcome: DealOutcome) -> MatchState:
        """The match after ``outcome``; raises ``ValueError`` on an outcome that does not fit."""
        if self.is_over:
            raise ValueError("the match is over; no more deals can be recorded")
        players = self.ruleset.players
        if len(outcome.payments) != players or outcome.dealer != self.dealer_of_next_deal:
            raise ValueError(
                f"outcome of a deal dealt by seat {outcome.dealer} with "
                f"{len(outcome.payments)} payments does not fit deal {self.deal_number + 1} "
                f"(dealer {self.dealer_of_next_deal}, {players} seats)"
            )
        pool = self.pool + outcome.pool_delta
        taking = outcome.pool_delta < 0 or bool(outcome.made and self.pool)
        if taking and outcome.pool_delta != -self.pool:
            raise ValueError(
                f"the outcome moves the pool by {outcome.pool_delta} but the pool holds "
                f"{self.pool}: start deals with MatchState.start_deal so they see the pool"
            )
        if self.ruleset.pass_out is not PassOut.HAFERL and outcome.pool_delta:
            raise ValueError(f"ruleset {self.ruleset.id!r} has no pool")
        balances = tuple(b + p for b, p in zip(self.balances, outcome.payments, strict=True))
        # The constructor, not dataclasses.replace, which looks the fields up on every call.
        return MatchState(
            ruleset=self.ruleset,
            deals=self.deals,
            first_dealer=self.first_dealer,
            deal_number=self.deal_number + 1,
            balances=balances,
            pool=pool,
            outcomes=(*self.outcomes, outcome),
        )

    def final_balances(self) -> tuple[int, ...]:
        """The balances with the Haferl pool returned in equal shares (section 6).

        The pool only ever grows by one chip per seat and is only taken whole, so it divides
        evenly; were there a remainder, it would go one chip per seat clockwise from the first
        deal's forehand.
        """
        players = self.ruleset.players
        share, remainder = divmod(self.pool, players)
        balances = [balance + share for balance in self.balances]
        for seat in seats_from(forehand_of(self.first_dealer, players), players)[:remainder]:
            balances[seat] += 1
        return tuple(balances)

    def ranks(self, forfeited: Collection[int] = ()) -> tuple[int, ...]:
        """Rank per seat by final balance, 1 best; equal balances share a rank (1, 1, 3) (R11.1).

        Forfeited seats rank after every other seat, whatever their chips, sharing that rank.
        """
        players = self.ruleset.players
        out = set(forfeited)
        if any(not 0 <= seat < players for seat in out):
            raise ValueError(
                f"forfeited seats {sorted(out)} include a seat outside 0..{players - 1}"
            )
        balances = self.final_balances()
        ranked = [seat for seat in range(players) if seat not in out]
        ranks = [0] * players
        for seat in ranked:
            ranks[seat] = 1 + sum(1 for other in ranked if balances[other] > balances[seat])
        for seat in out:
            ranks[seat] = len(ranked) + 1
        return tuple(ranks)
