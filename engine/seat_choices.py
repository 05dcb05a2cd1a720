"""What one seat may choose now, and why not the rest, from what that seat knows (R12.1).

A person at the table sees every bid, suit or card of a decision as a button: the legal ones
(the referee's list, in canonical order, R12.3) to press, the others disabled with the rule
that forbids them. The reasons are the engine's own (:meth:`DealState.illegal_reason`), read
off the seat's view alone, never off a hidden card:

- the auction depends on the bids only: a stand-in deal (the seat's own hand, the other cards
  given out in deck order) replays the view's bids, and the state says why a bid is illegal;
- a card depends on the seat's own hand and the cards of the current trick only:
  :func:`brandeln.engine.trick_rules.explain_illegal_card` says which duty (R8.3) forbids it;
- naming trump: every suit is legal (R7.1).

>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.actions import Bid
>>> ruleset = find_ruleset("standard")
>>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=1)).apply(Bid("brand"))
>>> choices = seat_choices(ruleset, state.view(1), Phase.AUCTION, state.legal_actions())
>>> for choice in choices[:3]:
...     print(choice.action, "|", choice.reason)
pass | None
brandle | brandle is lower than the contract already bid, brand
brand | a junior may not hold brand: bid higher or pass (R5.3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brandeln.engine.actions import NAME_TRUMPS, PASS, PLAY_CARDS, Action, Bid
from brandeln.engine.dealing import fixed_deal
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import duties_for, explain_illegal_card, trick_state
from brandeln.engine.view import PlayerView

__all__ = ["NOT_OFFERED", "SeatChoice", "seat_choices"]

# An action the referee did not offer though the seat's view finds no rule against it: the
# referee's list is the truth (the button stays disabled), and the page says only that.
NOT_OFFERED = "not among the choices the referee offers"


@dataclass(frozen=True, slots=True)
class SeatChoice:
    """One button: an action, and why it may not be taken (None: it is legal)."""

    action: Action
    reason: str | None

    @property
    def legal(self) -> bool:
        return self.reason is None


def seat_choices(
    ruleset: Ruleset, view: PlayerView, phase: Phase, legal: Sequence[Action]
) -> list[SeatChoice]:
    """Every choice of this kind of decision, in canonical order: the pass and each contract
    (the auction), the four suits (trump), the seat's hand (the play). ``legal`` is the
    referee's list: an action in it is legal; one outside it says why not."""
    offered = set(legal)
    if phase is Phase.AUCTION:
        actions: list[Action] = [PASS, *(Bid(contract) for contract in ruleset.contract_ids())]
        why = _auction_reasons(ruleset, view)
    elif phase is Phase.TRUMP:
        actions = list(NAME_TRUMPS)
        why = {}
    elif phase is Phase.PLAY:
        actions = [PLAY_CARDS[card.index] for card in view.hand_in_order()]
        why = _card_reasons(ruleset, view)
    else:
        return []
    return [
        SeatChoice(action, None if action in offered else why.get(action) or NOT_OFFERED)
        for action in actions
    ]


def _auction_reasons(ruleset: Ruleset, view: PlayerView) -> dict[Action, str]:
    """Why each bid is illegal now: the auction replayed on a stand-in deal (bids do not
    depend on the cards, R5)."""
    others = iter(sorted(ruleset.deck() - view.hand, key=lambda card: card.index))
    hands = [
        list(view.hand) if seat == view.seat else [next(others) for _ in range(ruleset.hand_size)]
        for seat in range(ruleset.players)
    ]
    state = DealState.new(ruleset, fixed_deal(ruleset, view.dealer, hands, list(others)))
    for made in view.auction:
        state = state.apply(made.bid)
    found: dict[Action, str] = {}
    for contract in ruleset.contract_ids():
        reason = state.illegal_reason(Bid(contract))
        if reason is not None:
            found[Bid(contract)] = reason
    return found


def _card_reasons(ruleset: Ruleset, view: PlayerView) -> dict[Action, str]:
    """Why each card of the hand may not be played to the current trick (R8.2, R8.3)."""
    duties = duties_for(ruleset, view.trump)
    led, win, head, _ = trick_state([card.index for card in view.current_trick], duties)
    hand = view.hand.mask
    found: dict[Action, str] = {}
    for card in view.hand:
        try:
            found[PLAY_CARDS[card.index]] = explain_illegal_card(
                hand, card.index, led=led, win=win, head=head, duties=duties
            )
        except ValueError:
            continue  # legal here
    return found
