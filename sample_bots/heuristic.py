"""The `heuristic` sample bot: rule-based bidding and play, no search.

Bidding: for each suit as trump it estimates the tricks the hand takes (top trumps in the order
J 7 A K Q T 9 are sure tricks, longer trumps and side aces are likely ones, voids let it ruff)
and bids the highest legal contract it expects to make; ``bettel`` with a hand of low cards.
Trump: the suit with the best estimate (its longest strong suit). Play: the soloist draws
trumps with its top trumps and cashes its masters; a defender takes a trick from the soloist
when it can, cheaply when it plays last, and otherwise throws its least useful card.

Exact contracts (russian): it bids the count its estimate rounds to, a little low; as soloist
it takes its tricks with its highest cards and sheds high cards on the tricks it loses, then
ducks every further trick, which the defenders try to feed it. Without Stichzwang it also bids
null on a hand that can duck in every suit.
"""

from __future__ import annotations

from collections.abc import Sequence

from brandeln.sdk import PASS, Answer, Bot, Situation, TrickRules
from brandeln.sdk.situation import RANKS_28, SUITS
from brandeln.sdk.trick import natural_strength
from brandeln.v1 import bot_pb2, cards_pb2

MARGIN = 0.4  # bid only with this many tricks to spare
# Exact contracts (russian): bid the count the estimate rounds to after this shift, found by
# playing the heuristic against itself (400 deals: it makes 60% of its exact contracts with
# the shift and the play of `reach`, 46% without).
EXACT_BIAS = -0.15
EXACT_WINDOW = 0.5
# Russian null: the queens, kings and aces a hand of 7 (russian) or 8 cards (russian-32) may
# hold; it makes 70% and 60% of its nulls so.
DUCKABLE_HIGH_CARDS = {7: 2, 8: 1}


def estimate_tricks(
    hand: Sequence[cards_pb2.Card], trump: cards_pb2.Suit.ValueType, jack_seven_on_top: bool = True
) -> float:
    """Tricks the hand should take with ``trump`` (``SUIT_UNSPECIFIED``: no trump) when leading."""
    rules = TrickRules(trump=trump, jack_seven_on_top=jack_seven_on_top)
    trumps = sorted((rules.rank_strength(c) for c in hand if rules.is_trump(c)), reverse=True)
    order = sorted(
        (rules.rank_strength(cards_pb2.Card(suit=trump, rank=r)) for r in RANKS_28), reverse=True
    )
    sure = 0
    for held, top in zip(trumps, order, strict=False):
        if held != top:
            break
        sure += 1
    tricks = sure + max(0, len(trumps) - sure) * (0.55 if len(trumps) >= 4 else 0.35)
    for suit in SUITS:
        if suit == trump:
            continue
        ranks = sorted((natural_strength(c.rank) for c in hand if c.suit == suit), reverse=True)
        if not ranks:
            tricks += 0.6 if len(trumps) >= 3 else 0.0  # a void to ruff in
            continue
        if ranks[0] == cards_pb2.RANK_ACE:
            tricks += 0.9 if len(ranks) <= 4 else 0.6
            if len(ranks) > 1 and ranks[1] == cards_pb2.RANK_KING:
                tricks += 0.6
        elif ranks[0] == cards_pb2.RANK_KING and len(ranks) >= 2:
            tricks += 0.3
        if len(ranks) == 1 and ranks[0] != cards_pb2.RANK_ACE and len(trumps) >= 3:
            tricks += 0.3  # a singleton soon becomes a void
    return tricks


def low_hand(hand: Sequence[cards_pb2.Card]) -> bool:
    """A `bettel` hand: no queen, king or ace, and at most one jack (natural order)."""
    high = [c for c in hand if c.rank >= cards_pb2.RANK_QUEEN]
    jacks = [c for c in hand if c.rank == cards_pb2.RANK_JACK]
    return not high and len(jacks) <= 1


def duckable_hand(hand: Sequence[cards_pb2.Card]) -> bool:
    """A no-trick hand where a follower need not beat the trick (no Stichzwang): every suit
    it holds has a nine or lower to duck with, and few queens, kings or aces to shed."""
    high = [c for c in hand if c.rank >= cards_pb2.RANK_QUEEN]
    ducks = {c.suit for c in hand if c.rank <= cards_pb2.RANK_NINE}
    allowed = DUCKABLE_HIGH_CARDS.get(len(hand), 1)
    return len(high) <= allowed and {c.suit for c in hand} <= ducks


def sweeps_without_trump(hand: Sequence[cards_pb2.Card]) -> bool:
    """Every suit held is a run from the ace down: leading, the hand takes every trick."""
    for suit in SUITS:
        ranks = sorted((c.rank for c in hand if c.suit == suit), reverse=True)
        if ranks != list(range(cards_pb2.RANK_ACE, cards_pb2.RANK_ACE - len(ranks), -1)):
            return False
    return True


class HeuristicBot(Bot):
    """Bids from a hand evaluation and plays by simple rules of thumb."""

    name = "heuristic"
    version = "1.0"
    decide_in_thread = False  # a few microseconds per decision

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        if request.phase == cards_pb2.PHASE_BID:
            return self.bid(request)
        if request.phase == cards_pb2.PHASE_TRUMP:
            return self.name_trump(request)
        return self.play(request)

    # --- the auction ---------------------------------------------------------------------
    def jack_seven_on_top(self) -> bool:
        ruleset = self.match.ruleset if self.match else None
        return TrickRules.for_deal(ruleset, cards_pb2.SUIT_CLUBS).jack_seven_on_top

    def free_ducking(self) -> bool:
        """Whether a player following suit may play under the trick (russian: no Stichzwang)."""
        ruleset = self.match.ruleset if self.match else None
        return ruleset is not None and ruleset.options.get("stichzwang") == "never"

    def best_trump(self, hand: Sequence[cards_pb2.Card]) -> tuple[float, cards_pb2.Suit.ValueType]:
        """The best estimate over the four trump suits, and its suit (ties: the longer suit)."""
        on_top = self.jack_seven_on_top()
        rated = [
            (estimate_tricks(hand, s, on_top), sum(c.suit == s for c in hand), s) for s in SUITS
        ]
        tricks, _, suit = max(rated)
        return tricks, suit

    def bid(self, request: bot_pb2.DecisionRequest) -> Answer:
        hand = list(request.view.hand)
        contracts = {c.id: c for c in self.match.ruleset.contracts} if self.match else {}
        with_trump, _ = self.best_trump(hand)
        without = estimate_tricks(hand, cards_pb2.SUIT_UNSPECIFIED)
        best, best_value = 0, -1  # index 0 is "pass" (canonical order)
        for index, choice in enumerate(request.legal):
            info = contracts.get(choice.bid.contract)
            if choice.bid.contract == PASS or info is None:
                continue
            tricks = with_trump if info.trump else without
            if info.goal == "at_least":
                makes = tricks >= info.tricks + MARGIN
            elif info.goal == "exact":
                # The nearest count, a little low: the play below steers to it more often
                # from above (shedding high cards) than it finds a missing trick.
                makes = abs(tricks + EXACT_BIAS - info.tricks) <= EXACT_WINDOW
            elif info.goal == "zero":
                makes = low_hand(hand) or (self.free_ducking() and duckable_hand(hand))
            elif info.goal == "all":
                makes = tricks >= 6.8 if info.trump else sweeps_without_trump(hand)
            else:
                makes = False
            if makes and info.value > best_value:
                best, best_value = index, info.value
        return best

    def name_trump(self, request: bot_pb2.DecisionRequest) -> Answer:
        _, suit = self.best_trump(list(request.view.hand))
        legal = [choice.trump for choice in request.legal]
        return legal.index(suit) if suit in legal else 0

    # --- the play ------------------------------------------------------------------------
    def play(self, request: bot_pb2.DecisionRequest) -> Answer:
        situation = Situation.of(request, self.match)
        cards = [choice.card for choice in request.legal]
        goal = situation.contract.goal if situation.contract else "at_least"
        if goal == "exact" and situation.contract and situation.soloist is not None:
            # Once the soloist has its tricks, every further trick breaks the contract: it
            # ducks them, and the defenders feed them to it (russian, docs/RULES.md section 6).
            taken = situation.view.tricks_won[situation.soloist]
            goal = "zero" if taken >= situation.contract.tricks else goal
            if goal == "exact" and situation.is_soloist:
                return cards.index(self.reach(situation, cards))
        if goal == "zero" and situation.soloist is not None:
            pick = (
                self.avoid(situation, cards)
                if situation.is_soloist
                else self.feed(situation, cards)
            )
        else:
            pick = self.take(situation, cards)
        return cards.index(pick)

    def take(self, s: Situation, cards: list[cards_pb2.Card]) -> cards_pb2.Card:
        """Play to win tricks for this side."""
        if s.is_leading:
            trumps = [c for c in cards if s.rules.is_trump(c)]
            masters = [c for c in cards if s.is_master(c) and not s.rules.is_trump(c)]
            if (
                s.is_soloist
                and trumps
                and s.unseen_trumps()
                and s.is_master(max(trumps, key=s.power))
            ):
                return max(trumps, key=s.power)  # draw the defenders' trumps
            if masters:
                return max(masters, key=s.power)
            plain = [c for c in cards if not s.rules.is_trump(c)] or cards
            return min(plain, key=lambda c: (sum(o.suit == c.suit for o in cards), s.power(c)))
        assert s.winning_card is not None
        winners = [c for c in cards if s.rules.beats(c, s.winning_card)]
        partner_holds = s.is_friend(s.winning_seat) and (
            s.is_last or s.is_master(s.winning_card) or s.has_played(s.soloist or 0)
        )
        if winners and not partner_holds:
            if s.is_last:
                return min(winners, key=s.power)
            safe = [c for c in winners if s.is_master(c)]
            return min(safe, key=s.power) if safe else max(winners, key=s.power)
        return self.throw(s, cards)

    def reach(self, s: Situation, cards: list[cards_pb2.Card]) -> cards_pb2.Card:
        """Soloist of an exact contract still short of its tricks: win them with its highest
        cards and shed high cards on the tricks it loses, so that the low cards it keeps let
        it duck the tricks it must not take once it has its count."""
        if s.is_leading:
            masters = [c for c in cards if s.is_master(c)]
            return max(masters or cards, key=s.power)
        assert s.winning_card is not None
        winners = [c for c in cards if s.rules.beats(c, s.winning_card)]
        return max(winners or cards, key=s.power)

    def throw(self, s: Situation, cards: list[cards_pb2.Card]) -> cards_pb2.Card:
        """The least useful card: low, not a trump, from a short suit."""
        return min(cards, key=lambda c: (s.power(c), sum(o.suit == c.suit for o in cards)))

    def avoid(self, s: Situation, cards: list[cards_pb2.Card]) -> cards_pb2.Card:
        """Soloist of a no-trick contract: stay under the trick, shed high cards safely."""
        if s.is_leading:
            return min(cards, key=s.power)
        assert s.winning_card is not None
        under = [c for c in cards if not s.rules.beats(c, s.winning_card)]
        return max(under, key=s.power) if under else max(cards, key=s.power)

    def feed(self, s: Situation, cards: list[cards_pb2.Card]) -> cards_pb2.Card:
        """Defender of a no-trick contract: make the soloist take a trick."""
        if s.is_leading or s.soloist is None or not s.has_played(s.soloist):
            return min(cards, key=s.power)  # low, so the soloist may have to go over it
        assert s.winning_card is not None
        if s.winning_seat == s.soloist:
            under = [c for c in cards if not s.rules.beats(c, s.winning_card)]
            if under:
                return max(under, key=s.power)
        return max(cards, key=s.power)  # the soloist escaped this trick: shed a high card
