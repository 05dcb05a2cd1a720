"""What a request means at the table, worked out from its ``view`` alone (no engine).

:class:`Situation` answers the questions most bots ask first: who is the soloist and which
contract is played, which card is winning the current trick and for which side, which cards
have been played and which are still out.

>>> from brandeln.sdk.notation import parse_card
>>> view = cards_pb2.PlayerView(seat=2, hand=[parse_card("HA")], trump=cards_pb2.SUIT_HEARTS,
...     soloist=0, contract="brandle", current_trick_leader=0,
...     current_trick=[parse_card("HK"), parse_card("H9")], tricks_won=[0, 0, 0, 0])
>>> situation = Situation.of(bot_pb2.DecisionRequest(view=view), match=None)
>>> situation.winning_seat, situation.is_friend(situation.winning_seat), situation.is_last
(0, False, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from brandeln.sdk.trick import TrickRules, trick_winner
from brandeln.v1 import bot_pb2, cards_pb2

# The four suits in the protocol's order, and the 28-card pack's ranks (R2.1), low to high.
SUITS = (
    cards_pb2.SUIT_CLUBS,
    cards_pb2.SUIT_SPADES,
    cards_pb2.SUIT_HEARTS,
    cards_pb2.SUIT_DIAMONDS,
)
RANKS_28 = (
    cards_pb2.RANK_SEVEN,
    cards_pb2.RANK_NINE,
    cards_pb2.RANK_TEN,
    cards_pb2.RANK_JACK,
    cards_pb2.RANK_QUEEN,
    cards_pb2.RANK_KING,
    cards_pb2.RANK_ACE,
)

CardKey = tuple[int, int]
"""A card as a hashable ``(suit, rank)`` pair (proto messages are not hashable)."""


def key(card: cards_pb2.Card) -> CardKey:
    """The hashable ``(suit, rank)`` of a card."""
    return (int(card.suit), int(card.rank))


def deck(ruleset: cards_pb2.Ruleset | None) -> list[cards_pb2.Card]:
    """Every card of the ruleset's pack: 28 cards, or 32 with the 8s (option ``deck``)."""
    ranks: Iterable[cards_pb2.Rank.ValueType] = RANKS_28
    if ruleset is not None and ruleset.options.get("deck") == "32":
        ranks = (*RANKS_28, cards_pb2.RANK_EIGHT)
    return [cards_pb2.Card(suit=s, rank=r) for s in SUITS for r in ranks]


@dataclass
class Situation:
    """The request's view, digested. Build it with :meth:`of`."""

    view: cards_pb2.PlayerView
    ruleset: cards_pb2.Ruleset | None
    contract: cards_pb2.ContractInfo | None
    rules: TrickRules
    players: int
    soloist: int | None
    winning_seat: int | None
    winning_card: cards_pb2.Card | None
    played: set[CardKey]
    unseen: list[cards_pb2.Card]

    @staticmethod
    def of(request: bot_pb2.DecisionRequest, match: bot_pb2.MatchStarted | None) -> Situation:
        """Digest ``request`` (``match`` adds the ruleset; ``None`` assumes the standard)."""
        view = request.view
        ruleset = match.ruleset if match is not None else None
        players = (ruleset.players if ruleset else 0) or len(view.tricks_won) or 4
        contract = None
        if ruleset is not None and view.contract:
            contract = next((c for c in ruleset.contracts if c.id == view.contract), None)
        rules = TrickRules.for_deal(ruleset, view.trump)
        played = {key(c) for trick in view.tricks for c in trick.cards}
        played |= {key(c) for c in view.current_trick}
        mine = {key(c) for c in view.hand}
        unseen = [c for c in deck(ruleset) if key(c) not in played and key(c) not in mine]
        winning_seat = winning_card = None
        if view.current_trick:
            index = trick_winner(view.current_trick, rules)
            winning_seat = (view.current_trick_leader + index) % players
            winning_card = view.current_trick[index]
        return Situation(
            view=view,
            ruleset=ruleset,
            contract=contract,
            rules=rules,
            players=players,
            soloist=view.soloist if view.HasField("soloist") else None,
            winning_seat=winning_seat,
            winning_card=winning_card,
            played=played,
            unseen=unseen,
        )

    @property
    def seat(self) -> int:
        return self.view.seat

    @property
    def is_soloist(self) -> bool:
        return self.soloist == self.view.seat

    @property
    def is_leading(self) -> bool:
        return not self.view.current_trick

    @property
    def is_last(self) -> bool:
        """Whether this seat plays the trick's last card."""
        return len(self.view.current_trick) == self.players - 1

    def is_friend(self, seat: int | None) -> bool:
        """Whether ``seat`` is on this seat's side (itself, or a fellow defender)."""
        if seat is None:
            return False
        if seat == self.view.seat:
            return True
        return self.soloist is not None and self.view.seat != self.soloist != seat

    def has_played(self, seat: int) -> bool:
        """Whether ``seat`` has already played to the current trick."""
        offset = (seat - self.view.current_trick_leader) % self.players
        return offset < len(self.view.current_trick)

    def power(self, card: cards_pb2.Card) -> int:
        """A card's general worth: trumps above every plain card, then the suit's order."""
        return (100 if self.rules.is_trump(card) else 0) + self.rules.rank_strength(card)

    def is_master(self, card: cards_pb2.Card) -> bool:
        """No unseen card of its suit ranks above it."""
        strength = self.rules.rank_strength(card)
        return all(
            self.rules.rank_strength(other) < strength
            for other in self.unseen
            if other.suit == card.suit
        )

    def unseen_trumps(self) -> int:
        """How many trumps the other seats may still hold."""
        return sum(1 for card in self.unseen if self.rules.is_trump(card))
