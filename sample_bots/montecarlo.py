"""The `montecarlo` sample bot: determinization search with the engine's rules core.

For a card decision it samples the cards it cannot see, consistently with what the play has
shown (a seat that played card c can hold no unseen card x that would have made c illegal:
failing to follow reveals a void, failing to trump reveals no trumps, failing to beat reveals
no higher card), plays each legal card out in every sample with a fast greedy policy for all
seats, and picks the card with the best average chips for itself. Bids and trump naming are
searched the same way: each contract (with each trump) is played out in sampled deals and
bid when its average beats passing by a margin. It stops sampling at its time budget, a share
of the request's ``move_ms``; for what it cannot search (an unknown ruleset) it plays like
the heuristic bot.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from brandeln.v1 import bot_pb2, cards_pb2
from engine.cards import RANK_COUNT, Suit
from engine.rulesets import SWITCHES, Ruleset, find_ruleset
from engine.trick_rules import NO_TRICK, PlayDuties, duties_for, legal_card_mask
from sample_bots.heuristic import HeuristicBot
from sample_bots.sdk import PASS, Answer

BUDGET_SHARE = 0.5  # of move_ms, leaving the rest for the network and the unexpected
MAX_THINK_MS = 400  # even with a generous clock, keep matches moving
MIN_THINK_MS = 20
BID_MARGIN = 0.35  # bid only when a contract beats passing by this many values V
EPSILON = 0.1  # share of random moves in the playout policy


def card_index(card: cards_pb2.Card) -> int:
    """The engine's index of a proto card (proto enums start at 1, engine ones at 0)."""
    return (card.suit - 1) * RANK_COUNT + (card.rank - 1)


def bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass
class Deal:
    """A determinized position: every hand known, the trick so far, the contract."""

    hands: list[int]
    leader: int
    trick: list[int]
    tricks_won: list[int]
    soloist: int | None
    goal: str
    target: int
    duties: PlayDuties


class Playout:
    """Finish a determinized deal with a greedy policy; report the soloist's tricks."""

    def __init__(self, players: int, tricks: int, rng: random.Random) -> None:
        self.players, self.tricks, self.rng = players, tricks, rng

    def run(self, deal: Deal, first: int | None = None) -> list[int]:
        hands, trick, won = list(deal.hands), list(deal.trick), list(deal.tricks_won)
        beats, leader, n = deal.duties.beats, deal.leader, self.players
        while sum(won) < self.tricks and hands[(leader + len(trick)) % n]:
            seat = (leader + len(trick)) % n
            led = trick[0] // RANK_COUNT if trick else NO_TRICK
            win = head = -1
            if trick:
                win = head = trick[0]
                for card in trick[1:]:
                    if beats[win] >> card & 1:
                        win = card
                    if card // RANK_COUNT == led and beats[head] >> card & 1:
                        head = card
            legal = legal_card_mask(hands[seat], led, win, head, deal.duties)
            if first is not None:
                card, first = first, None
            else:
                card = self.choose(deal, seat, legal, trick, win, won, leader)
            hands[seat] &= ~(1 << card)
            trick.append(card)
            if len(trick) == n:
                best = trick[0]
                at = 0
                for position, played in enumerate(trick[1:], 1):
                    if beats[best] >> played & 1:
                        best, at = played, position
                leader = (leader + at) % n
                won[leader] += 1
                trick = []
                if self.decided(deal, won):
                    break
        return won

    def decided(self, deal: Deal, won: list[int]) -> bool:
        if deal.soloist is None:
            return False
        mine = won[deal.soloist]
        theirs = sum(won) - mine
        if deal.goal == "zero":
            return mine > 0
        if deal.goal == "all":
            return theirs > 0
        return mine >= deal.target if deal.goal == "at_least" else mine > deal.target

    def choose(
        self,
        deal: Deal,
        seat: int,
        legal: int,
        trick: list[int],
        win: int,
        won: list[int],
        leader: int,
    ) -> int:
        cards = bits(legal)
        if len(cards) == 1:
            return cards[0]
        if not trick or self.rng.random() < EPSILON:
            return cards[self.rng.randrange(len(cards))]
        beats = deal.duties.beats

        # Cheap = beaten by many cards; a trump J is beaten by none.
        def weakest(options: list[int]) -> int:
            return max(options, key=lambda c: beats[c].bit_count())

        def strongest(options: list[int]) -> int:
            return min(options, key=lambda c: beats[c].bit_count())

        winners = [c for c in cards if beats[win] >> c & 1]
        n = self.players
        winning_seat = (leader + trick.index(win)) % n
        soloist = deal.soloist
        if soloist is None:
            wants = True
        elif deal.goal == "zero":
            if seat == soloist:  # stay under
                under = [c for c in cards if c not in winners]
                return strongest(under) if under else strongest(cards)
            if winning_seat == soloist:
                under = [c for c in cards if c not in winners]
                return strongest(under) if under else weakest(cards)
            return weakest(cards)
        elif seat == soloist:
            wants = deal.goal != "exact" or won[seat] < deal.target
        else:
            wants = winning_seat == soloist
        if wants and winners:
            return weakest(winners)
        return weakest(cards)


class MonteCarloBot(HeuristicBot):
    """Flat Monte Carlo over determinizations; falls back to the heuristic it extends."""

    name = "montecarlo"
    version = "1.0"
    decide_in_thread = True

    def __init__(
        self, seed: int | None = None, think_ms: int = MAX_THINK_MS, max_samples: int = 0
    ) -> None:
        """``think_ms`` caps the time per decision; ``max_samples`` (0: no cap) caps the samples
        per searched option, which with a generous ``think_ms`` makes the bot reproducible."""
        super().__init__()
        self.rng = random.Random(seed)
        self.think_ms = think_ms
        self.max_samples = max_samples
        self.samples_last = 0

    # --- plumbing ------------------------------------------------------------------------
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
        budget = min(self.think_ms, (request.move_ms or MAX_THINK_MS) * BUDGET_SHARE)
        return time.monotonic() + max(MIN_THINK_MS, budget) / 1000

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
        """This seat's chips from a played-out deal."""
        if soloist is None:
            return won[seat] - max(won)
        info = ruleset.contract(contract)
        made = info.made_with(won[soloist])
        value = info.value if made else -info.value
        if seat == soloist:
            return value * (ruleset.players - 1 if ruleset.zero_sum else 1)
        return -value if ruleset.zero_sum else 0

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
        beats = duties.beats
        for leader, cards in tricks:
            for position in range(1, len(cards)):
                seat, card = (leader + position) % players, cards[position]
                led = cards[0] // RANK_COUNT
                win = head = cards[0]
                for earlier in cards[1:position]:
                    if beats[win] >> earlier & 1:
                        win = earlier
                    if earlier // RANK_COUNT == led and beats[head] >> earlier & 1:
                        head = earlier
                for other in bits(unseen & ~forbidden[seat]):
                    hand = 1 << card | 1 << other
                    if not legal_card_mask(hand, led, win, head, duties) >> card & 1:
                        forbidden[seat] |= 1 << other
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
            offset = (seat - view.current_trick_leader) % players
            counts[seat] = ruleset.hand_size - done - (offset < len(view.current_trick))
        counts[players] = unseen.bit_count() - sum(counts)
        forbidden = self.shown(view, players, duties, unseen)
        return hands, counts, unseen, forbidden

    # --- the three searches --------------------------------------------------------------
    def search_card(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        view = request.view
        trump = Suit(view.trump - 1) if view.trump else None
        duties = duties_for(ruleset, trump)
        soloist = view.soloist if view.HasField("soloist") else None
        contract = ruleset.contract(view.contract) if view.contract else None
        hands, counts, unseen, forbidden = self.world(view, ruleset, duties)
        candidates = [card_index(choice.card) for choice in request.legal]
        playout = Playout(ruleset.players, ruleset.tricks, self.rng)
        totals = [0.0] * len(candidates)
        deadline, samples = self.deadline(request), 0
        while samples < 2 or (self.more(samples) and time.monotonic() < deadline):
            dealt = self.sample(hands, counts, unseen, forbidden)
            deal = Deal(
                hands=dealt[: ruleset.players],
                leader=view.current_trick_leader,
                trick=[card_index(c) for c in view.current_trick],
                tricks_won=list(view.tricks_won),
                soloist=soloist,
                goal=str(contract.goal) if contract else "",
                target=contract.tricks if contract else 0,
                duties=duties,
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
        playout = Playout(ruleset.players, ruleset.tricks, self.rng)
        totals = [0.0] * len(trumps)
        duties = [duties_for(ruleset, t) for t in trumps]
        hands, counts, unseen, forbidden = self.world(view, ruleset, duties[0])
        samples = 0
        while samples < 4 or (self.more(samples) and time.monotonic() < deadline):
            dealt = self.sample(hands, counts, unseen, forbidden)
            for i, rules in enumerate(duties):
                deal = Deal(
                    dealt[: ruleset.players],
                    view.seat,
                    [],
                    [0] * ruleset.players,
                    view.seat,
                    str(contract.goal),
                    contract.tricks,
                    rules,
                )
                won = playout.run(deal)
                totals[i] += self.payoff(ruleset, view.seat, view.seat, contract_id, won)
            samples += 1
        return [t / samples for t in totals]

    def search_trump(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        suits = [Suit(choice.trump - 1) for choice in request.legal]
        scores = self.evaluate_contract(
            request, ruleset, request.view.contract, suits, self.deadline(request)
        )
        return max(range(len(suits)), key=lambda i: scores[i])

    def search_bid(self, request: bot_pb2.DecisionRequest, ruleset: Ruleset) -> Answer:
        """Bid the contract whose best average, less a safety margin, beats passing (0)."""
        bids = [(i, c.bid.contract) for i, c in enumerate(request.legal) if c.bid.contract != PASS]
        end = self.deadline(request)
        best, best_score = 0, 0.0  # index 0 is "pass"
        for number, (index, contract_id) in enumerate(bids):
            contract = ruleset.contract(contract_id)
            trumps: list[Suit | None] = list(Suit) if contract.trump else [None]
            now = time.monotonic()
            slice_end = now + (end - now) / (len(bids) - number)
            scores = self.evaluate_contract(request, ruleset, contract_id, trumps, slice_end)
            score = max(scores) - BID_MARGIN * contract.value
            if score > best_score:
                best, best_score = index, score
        return best
