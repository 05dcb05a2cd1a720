"""The `montecarlo` sample bot: determinization search with the engine's rules core.

For a card decision it samples the cards it cannot see, consistently with what the play has
shown (a seat that played card c can hold no unseen card x that would have made c illegal:
failing to follow reveals a void, failing to trump reveals no trumps, failing to beat reveals
no higher card), plays each legal card out in every sample with a fast greedy policy for all
seats, and picks the card with the best average chips for itself. Bids and trump naming are
searched the same way: each contract (with each trump) is played out in sampled deals and
bid when its average beats passing by a margin. It stops sampling at its time budget, a share
of the request's ``move_ms``; for what it cannot search (an unknown ruleset) it plays like
the heuristic bot. The samples are played out on the engine's fast path
(:func:`brandeln.engine.playout.playout_from`) with the greedy policy choosing the cards, so the bot
plays by the engine's rules and stops a sample as soon as its result is decided.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from brandeln.engine.cards import CARDS, Suit
from brandeln.engine.playout import playout_from
from brandeln.engine.rulesets import SWITCHES, Contract, EarlyStop, Goal, Ruleset, find_ruleset
from brandeln.engine.seats import seat_after, steps_from
from brandeln.engine.settlement import contract_payments
from brandeln.engine.trick_rules import (
    NO_CARD,
    NO_TRICK,
    PlayDuties,
    add_to_trick,
    duties_for,
    legal_card_mask,
)
from brandeln.sample_bots.deal_seed import deal_seed
from brandeln.sample_bots.heuristic import HeuristicBot
from brandeln.sdk import PASS, Answer
from brandeln.sdk.notation import parse_card, suit_letter
from brandeln.v1 import bot_pb2, cards_pb2

BUDGET_SHARE = 0.5  # of move_ms, leaving the rest for the network and the unexpected
MAX_THINK_MS = 400  # even with a generous clock, keep matches moving
MIN_THINK_MS = 20
BID_MARGIN = 0.35  # bid only when a contract beats passing by this many values V
EPSILON = 0.1  # share of random moves in the playout policy


# Proto card -> engine index, matched through the card's notation ("HJ") so no enum offset is
# computed here (the codec's concern on the referee's side).
_CARD_INDEX: dict[tuple[int, int], int] = {
    (pb.suit, pb.rank): card.index for card in CARDS for pb in [parse_card(str(card))]
}


def card_index(card: cards_pb2.Card) -> int:
    """The engine's index of a proto card."""
    return _CARD_INDEX[(card.suit, card.rank)]


def engine_suit(suit: cards_pb2.Suit.ValueType) -> Suit:
    """The engine's suit of a proto suit, by its letter."""
    return Suit.parse(suit_letter(suit))


def bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@cache
def _weights(beats: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(mask.bit_count() for mask in beats)


@dataclass
class DeterminizedDeal:
    """A determinized position: every hand known, the trick so far, the contract."""

    hands: list[int]
    leader: int
    trick: list[int]
    tricks_won: list[int]
    soloist: int | None
    contract: Contract | None
    trump: Suit | None


class Playout:
    """Finish a determinized deal on the engine's fast path with a greedy policy for every
    seat; report the tricks won."""

    def __init__(self, ruleset: Ruleset, rng: random.Random) -> None:
        self.rng = rng
        # A sample stops once its result is decided: the payoff of a contract depends only on
        # whether it is made, so "when decided" changes nothing but the time (Ruling 5). The
        # free play's payoff counts tricks, so it is played to the end.
        self.contract_rules = ruleset.with_options(early_stop=EarlyStop.WHEN_DECIDED)
        self.free_play_rules = ruleset.with_options(early_stop=EarlyStop.NEVER)
        self.deal = DeterminizedDeal([], 0, [], [], None, None, None)
        self.beats: tuple[int, ...] = ()
        self.weight: tuple[int, ...] = ()  # per card: how many cards beat it
        self.first: int | None = None

    def run(self, deal: DeterminizedDeal, first: int | None = None) -> list[int]:
        """Play ``deal`` out (``first``: the card the seat to act plays now); tricks per seat."""
        hands, won = list(deal.hands), list(deal.tricks_won)
        rules = self.free_play_rules if deal.contract is None else self.contract_rules
        self.deal, self.first = deal, first
        self.beats = duties_for(rules, deal.trump).beats
        self.weight = _weights(self.beats)
        playout_from(
            rules,
            hands,
            won,
            leader=deal.leader,
            trick=deal.trick,
            soloist=deal.soloist,
            contract=deal.contract,
            trump=deal.trump,
            rng=self.rng,
            policy=self.choose,
        )
        return won

    def choose(
        self, seat: int, legal: int, trick_size: int, win: int, win_seat: int, won: list[int]
    ) -> int:
        """The policy: the given first card, else greedy (see the module docstring).

        It works on the masks themselves: it runs for nearly every card of every sample, so
        it builds no lists and no closures (the cards it picks are those a list of the legal
        cards, lowest index first, would give).
        """
        if self.first is not None:
            card, self.first = self.first, None
            return card
        if not legal & (legal - 1):  # one legal card
            return legal.bit_length() - 1
        if not trick_size or self.rng.random() < EPSILON:
            cards = bits(legal)
            return cards[self.rng.randrange(len(cards))]
        weight = self.weight
        winners = legal & self.beats[win]
        soloist = self.deal.soloist
        contract = self.deal.contract
        if soloist is None or contract is None:
            wants = True
        elif contract.goal is Goal.ZERO:
            under = legal & ~winners
            if seat == soloist:  # stay under
                return strongest(under or legal, weight)
            if win_seat == soloist:
                return strongest(under, weight) if under else weakest(legal, weight)
            return weakest(legal, weight)
        elif seat == soloist:
            wants = contract.goal is not Goal.EXACT or won[seat] < contract.tricks
        else:
            wants = win_seat == soloist
        if wants and winners:
            return weakest(winners, weight)
        return weakest(legal, weight)


def weakest(mask: int, weight: tuple[int, ...]) -> int:
    """The cheapest card of ``mask``: beaten by the most cards (the lowest index of a tie)."""
    best, card = -1, -1
    while mask:
        low = mask & -mask
        index = low.bit_length() - 1
        if weight[index] > best:
            best, card = weight[index], index
        mask ^= low
    return card


def strongest(mask: int, weight: tuple[int, ...]) -> int:
    """The dearest card of ``mask``: beaten by the fewest (a trump J by none; lowest index of
    a tie)."""
    best, card = 1 << 30, -1
    while mask:
        low = mask & -mask
        index = low.bit_length() - 1
        if weight[index] < best:
            best, card = weight[index], index
        mask ^= low
    return card


class MonteCarloBot(HeuristicBot):
    """Flat Monte Carlo over determinizations; falls back to the heuristic it extends."""

    name = "montecarlo"
    version = "1.0"
    decide_in_thread = True
    bid_margin = BID_MARGIN  # of the contract's value V, over passing

    def __init__(
        self, seed: int | None = None, think_ms: int = MAX_THINK_MS, max_samples: int = 0
    ) -> None:
        """``think_ms`` caps the time per decision; ``max_samples`` (0: no cap) caps the samples
        per searched option, which with a generous ``think_ms`` makes the bot reproducible."""
        super().__init__()
        self.seed = seed
        self.rng = random.Random(seed)
        self.think_ms = think_ms
        self.max_samples = max_samples
        self.samples_last = 0
        # Set by `--samples` (brandeln.sample_bots.registry): the cap, not the clock, ends a search.
        self.exact_samples = False
        # With exact samples, the clock only guards against a timeout: by default the move's
        # time and half the bank. A bench that wants every search to reach its caps whatever
        # the machine's speed (brandeln.bench.duel) sets a longer guard, in ms.
        self.guard_ms: int | None = None
        # The clock the time budget is read on. A bench may hand in the process's CPU time
        # (time.process_time) to give each decision its share of the move on a busy machine
        # as on an idle one.
        self.clock: Callable[[], float] = time.monotonic
        # The last auction decision's expected chips per contract, for a bench to compare
        # with what the contract then brought.
        self.estimates: dict[str, float] = {}

    # --- plumbing ------------------------------------------------------------------------
    def on_deal_start(self, deal: bot_pb2.DealStarted) -> None:
        super().on_deal_start(deal)
        if self.seed is not None:  # reproducible whichever table the deal is at
            self.rng.seed(deal_seed(self.seed, deal))

    def engine_ruleset(self) -> Ruleset | None:
        if self.match is None:
            return None
        options = self.match.ruleset.options
        try:
            return find_ruleset(
                self.match.ruleset.id, {k: options[k] for k in SWITCHES if k in options}
            )
        except ValueError:
            return None

    def deadline(self, request: bot_pb2.DecisionRequest) -> float:
        if self.exact_samples:
            # Reproducible: the sample cap ends the search, not the clock (a slow or busy
            # machine must not change a choice). The clock is only a guard against a timeout:
            # the move's time and half the bank left.
            budget = (request.move_ms or MAX_THINK_MS) + request.bank_ms * BUDGET_SHARE
            if self.guard_ms is not None:
                budget = self.guard_ms
            return self.clock() + budget / 1000
        budget = min(self.think_ms, (request.move_ms or MAX_THINK_MS) * BUDGET_SHARE)
        return self.clock() + max(MIN_THINK_MS, budget) / 1000

    def more(self, samples: int) -> bool:
        return not self.max_samples or samples < self.max_samples

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        ruleset = self.engine_ruleset()
        if len(request.legal) == 1 or ruleset is None or self.match is None:
            return super().decide(request)
        if request.phase == cards_pb2.PHASE_CARD:
            return self.search_card(request, ruleset)
        if request.phase == cards_pb2.PHASE_TRUMP:
            return self.search_trump(request, ruleset)
        return self.search_bid(request, ruleset)

    def payoff(
        self, ruleset: Ruleset, seat: int, soloist: int | None, contract: str, won: list[int]
    ) -> float:
        """This seat's chips from a played-out deal, settled by the engine (R10); in the free
        play (no soloist) the tricks it took short of the most, a smoother aim than the score."""
        if soloist is None:
            return won[seat] - max(won)
        _, payments, _ = contract_payments(
            ruleset, ruleset.contract(contract), soloist, tuple(won), pool=0
        )
        return payments[seat]

    # --- sampling ------------------------------------------------------------------------
    def sample(
        self,
        hands: list[int],
        counts: list[int],
        unseen: int,
        forbidden: list[int],
    ) -> list[int]:
        """Deal ``unseen`` to the seats with ``counts[s] > 0``, avoiding ``forbidden[s]``."""
        cards = bits(unseen)
        for _ in range(20):
            self.rng.shuffle(cards)
            out, room = list(hands), list(counts)
            # The most constrained cards first: those fewest seats may hold.
            ordered = sorted(
                cards,
                key=lambda c: sum(1 for s, f in enumerate(forbidden) if room[s] and not f >> c & 1),
            )
            ok = True
            for card in ordered:
                seats = [s for s in range(len(room)) if room[s] and not forbidden[s] >> card & 1]
                if not seats:
                    ok = False
                    break
                seat = seats[self.rng.randrange(len(seats))]
                out[seat] |= 1 << card
                room[seat] -= 1
            if ok:
                return out
        out, room = list(hands), list(counts)  # inconsistent views: ignore what was shown
        for card in cards:
            seat = next(s for s in range(len(room)) if room[s])
            out[seat] |= 1 << card
            room[seat] -= 1
        return out

    def shown(
        self,
        view: cards_pb2.PlayerView,
        players: int,
        duties: PlayDuties,
        unseen: int,
    ) -> list[int]:
        """Per seat, the unseen cards it cannot hold given the cards it played (see above)."""
        forbidden = [0] * (players + 1)
        tricks = [(t.leader, [card_index(c) for c in t.cards]) for t in view.tricks]
        tricks.append((view.current_trick_leader, [card_index(c) for c in view.current_trick]))
        for leader, cards in tricks:
            led, win, head = NO_TRICK, NO_CARD, NO_CARD
            for position, card in enumerate(cards):
                seat = seat_after(leader, position, players)
                for other in bits(unseen & ~forbidden[seat]) if position else ():
                    hand = 1 << card | 1 << other
                    if not legal_card_mask(hand, led, win, head, duties) >> card & 1:
                        forbidden[seat] |= 1 << other
                led, win, head = add_to_trick(win, head, card, duties)
        return forbidden

    def world(
        self,
        view: cards_pb2.PlayerView,
        ruleset: Ruleset,
        duties: PlayDuties,
    ) -> tuple[list[int], list[int], int, list[int]]:
        """(known hands, cards still to deal per seat, unseen mask, forbidden per seat);
        index ``players`` is the three-player blind."""
        players = ruleset.players
        deck = ruleset.deck().mask
        played = 0
        for trick in view.tricks:
            for card in trick.cards:
                played |= 1 << card_index(card)
        for card in view.current_trick:
            played |= 1 << card_index(card)
        mine = 0
        for card in view.hand:
            mine |= 1 << card_index(card)
        unseen = deck & ~played & ~mine
        hands = [0] * (players + 1)
        hands[view.seat] = mine
        counts = [0] * (players + 1)
        done = len(view.tricks)
        for seat in range(players):
            if seat == view.seat:
                continue
            offset = steps_from(view.current_trick_leader, seat, players)
            counts[seat] = ruleset.hand_size - done - (offset < len(view.current_trick))
        counts[players] = unseen.bit_count() - sum(counts)
        forbidden = self.shown(view, players, duties, unseen)
        return hands, counts, unseen, forbidden

    # --- the three searches --------------------------------------------------------------
    def search_card(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        view = request.view
        trump = engine_suit(view.trump) if view.trump else None
        duties = duties_for(ruleset, trump)
        soloist = view.soloist if view.HasField("soloist") else None
        contract = ruleset.contract(view.contract) if view.contract else None
        hands, counts, unseen, forbidden = self.world(view, ruleset, duties)
        candidates = [card_index(choice.card) for choice in request.legal]
        playout = Playout(ruleset, self.rng)
        totals = [0.0] * len(candidates)
        deadline, samples = self.deadline(request), 0
        while samples < 2 or (self.more(samples) and self.clock() < deadline):
            dealt = self.sample(hands, counts, unseen, forbidden)
            deal = DeterminizedDeal(
                hands=dealt[: ruleset.players],
                leader=view.current_trick_leader,
                trick=[card_index(c) for c in view.current_trick],
                tricks_won=list(view.tricks_won),
                soloist=soloist,
                contract=contract,
                trump=trump,
            )
            for i, card in enumerate(candidates):
                won = playout.run(deal, first=card)
                totals[i] += self.payoff(ruleset, view.seat, soloist, view.contract, won)
            samples += 1
        self.samples_last = samples
        return max(range(len(candidates)), key=lambda i: totals[i])

    def evaluate_contract(
        self,
        request: bot_pb2.DecisionRequest,
        ruleset: Ruleset,
        contract_id: str,
        trumps: Sequence[Suit | None],
        deadline: float,
    ) -> list[float]:
        """Average chips of playing ``contract_id`` as soloist (leading) with each trump."""
        view = request.view
        contract = ruleset.contract(contract_id)
        playout = Playout(ruleset, self.rng)
        totals = [0.0] * len(trumps)
        hands, counts, unseen, forbidden = self.world(view, ruleset, duties_for(ruleset, trumps[0]))
        samples = 0
        while samples < 4 or (self.more(samples) and self.clock() < deadline):
            dealt = self.sample(hands, counts, unseen, forbidden)
            for i, trump in enumerate(trumps):
                deal = DeterminizedDeal(
                    dealt[: ruleset.players],
                    view.seat,
                    [],
                    [0] * ruleset.players,
                    view.seat,
                    contract,
                    trump,
                )
                won = playout.run(deal)
                totals[i] += self.payoff(ruleset, view.seat, view.seat, contract_id, won)
            samples += 1
        return [t / samples for t in totals]

    def search_trump(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        suits = [engine_suit(choice.trump) for choice in request.legal]
        scores = self.evaluate_contract(
            request, ruleset, request.view.contract, suits, self.deadline(request)
        )
        return max(range(len(suits)), key=lambda i: scores[i])

    def margin(self, contract: Contract) -> float:
        """How far, in values V, a bid on ``contract`` must beat passing."""
        return self.bid_margin

    def pass_value(self, ruleset: Ruleset) -> float:
        """What passing is worth to this seat, the bar a bid must clear (0 here; the expert
        bot counts passing's expected loss)."""
        return 0.0

    def search_bid(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        """Bid the contract whose best average, less a safety margin, beats passing."""
        bids = [(i, c.bid.contract) for i, c in enumerate(request.legal) if c.bid.contract != PASS]
        end = self.deadline(request)
        self.estimates = {}
        best, best_score = 0, self.pass_value(ruleset)  # index 0 is "pass"
        for number, (index, contract_id) in enumerate(bids):
            contract = ruleset.contract(contract_id)
            trumps: list[Suit | None] = list(Suit) if contract.trump else [None]
            now = self.clock()
            slice_end = now + (end - now) / (len(bids) - number)
            scores = self.evaluate_contract(request, ruleset, contract_id, trumps, slice_end)
            self.estimates[contract_id] = max(scores)
            score = max(scores) - self.margin(contract) * contract.value
            if score > best_score:
                best, best_score = index, score
        return best
