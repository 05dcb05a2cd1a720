"""The state of one deal as an immutable value: auction, trump, play, settlement.

``DealState.new(ruleset, deal)`` starts a deal; ``legal_actions()`` lists what the seat to act
may do (in the canonical order of R12.3); ``apply(action)`` returns the next state or raises
:class:`IllegalActionError` with the reason; ``step(action)`` also returns the public events the
action caused; ``view(seat)`` is what one seat may know; ``outcome()`` is set once it is over.

>>> from brandeln.engine.actions import PASS, Bid, NameTrump
>>> from brandeln.engine.cards import Suit
>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> ruleset = find_ruleset("standard")
>>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=42))
>>> state.phase, state.to_act, [str(a) for a in state.legal_actions()]
(<Phase.AUCTION: 'auction'>, 0, ['pass', 'brandle', 'brand', 'bettel', 'mord', 'herrenmord'])
>>> state = state.apply(Bid("brand"))
>>> for _ in range(3):
...     state = state.apply(PASS)
>>> state, events = state.step(NameTrump(Suit.HEARTS))
>>> state.phase, state.to_act, state.soloist, state.contract.id, [str(e) for e in events]
(<Phase.PLAY: 'play'>, 0, 0, 'brand', ['trump H'])
>>> state.illegal_reason(Bid("mord"))
'it is the play, not the auction'
>>> state.apply(Bid("mord"))
Traceback (most recent call last):
...
brandeln.engine.errors.IllegalActionError: it is the play, not the auction
"""

from __future__ import annotations

from typing import Final, TypeAlias

from brandeln.engine.actions import (
    NAME_TRUMPS,
    PASS,
    PASS_ID,
    PLAY_CARDS,
    Action,
    Bid,
    NameTrump,
    PlayCard,
)
from brandeln.engine.auction import (
    NO_BID,
    AuctionState,
    auction_result,
    lowest_legal_level,
    next_to_speak,
)
from brandeln.engine.cards import CARDS, Card, CardSet, Suit
from brandeln.engine.dealing import Deal, trusted_card_set, validate_deal
from brandeln.engine.errors import IllegalActionError
from brandeln.engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    Event,
    TrickTaken,
    TrumpNamed,
)
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.per_ruleset import PerRuleset
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Contract, PassOut, Ruleset
from brandeln.engine.seats import forehand_of, left_of_each, seat_after
from brandeln.engine.settlement import deal_ends_after, deal_outcome
from brandeln.engine.trick_rules import (
    CARD_BITS,
    NO_CARD,
    NO_TRICK,
    RANK_BITS,
    PlayDuties,
    canonical_play_cards,
    duties_for,
    explain_illegal_card,
    legal_card_mask,
)
from brandeln.engine.view import PlayerView

__all__ = [
    "DealOutcome",
    "DealState",
    "IllegalActionError",
    "Phase",
    "PlayerView",
]

# A persistent (shared-tail) list of (seat, action), newest first, of the auction and the trump:
# the cards played are already recorded by the tricks (and the trick in progress), so the play
# loop allocates no node per card and ``history`` reads them from there. The tail is typed
# ``object`` (it is a _History or None), not recursively: mypyc, which compiles this module
# (setup.py), crashes on a recursive type alias.
_History: TypeAlias = "tuple[object, int, Action]"
# A completed trick as the play loop records it: (leader, cards in play order, winner). The
# TrickTaken events are built from these only when asked for (``tricks``, ``step``, ``view``).
_TrickRecord: TypeAlias = "tuple[int, tuple[Card, ...], int]"
# ``_legal`` caches what legality needs: the legal-card mask in the play, the lowest legal bid
# level in the auction (both are never negative); _UNKNOWN until first used.
_UNKNOWN: Final = -1


class _RulesetFacts:
    """What every deal of one ruleset shares: its bids as actions, their levels, the seats,
    and the two switches read after every trick (a Ruleset's fields are attribute lookups on
    an interpreted class; these are native fields)."""

    __slots__ = (
        "bid_actions",
        "early_stop",
        "left",
        "levels",
        "no_hands",
        "players",
        "ruleset",
        "tricks",
        "won_by_code",
        "won_units",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.players = ruleset.players
        self.tricks = ruleset.tricks
        self.early_stop = ruleset.early_stop
        self.left = left_of_each(ruleset.players)
        self.bid_actions = tuple(Bid(c.id) for c in ruleset.contracts)
        self.levels = {c.id: level for level, c in enumerate(ruleset.contracts)}
        # Every hand's mask once all the cards are played: the common end of a deal.
        self.no_hands = (0,) * ruleset.players
        # The tricks won per seat as one tuple per count, shared by every deal of the ruleset:
        # a state carries the counts also as a code (_WON_BITS per seat, see _won_code), and a
        # trick taken looks the next tuple up by it instead of building a list and a tuple.
        # At most one entry per way of sharing out up to ``tricks`` tricks: a bounded table.
        self.won_units = tuple(1 << _WON_BITS * seat for seat in range(ruleset.players))
        self.won_by_code: dict[int, tuple[int, ...]] = {0: (0,) * ruleset.players}


# Bits per seat in a state's code of the tricks won (_RulesetFacts.won_by_code): room for
# 255 tricks a seat, far more than any deck deals.
_WON_BITS: Final = 8


_FACTS: Final[PerRuleset[_RulesetFacts]] = PerRuleset(_RulesetFacts)


class _Context:
    """What stays fixed through a deal; shared by all its states."""

    __slots__ = (
        "bid_actions",
        "deal",
        "dealer",
        "dealt",
        "early_stop",
        "facts",
        "forehand",
        "left",
        "levels",
        "players",
        "pool",
        "ruleset",
        "tricks",
    )

    def __init__(self, ruleset: Ruleset, deal: Deal, pool: int) -> None:
        self.facts = facts = _FACTS.of(ruleset)
        self.ruleset = ruleset
        self.deal = deal
        self.dealt = tuple(hand.mask for hand in deal.hands)
        self.players = facts.players
        self.tricks = facts.tricks
        self.early_stop = facts.early_stop
        self.dealer = deal.dealer
        self.forehand = forehand_of(deal.dealer, facts.players)
        self.left = facts.left
        self.pool = pool
        self.bid_actions = facts.bid_actions
        self.levels = facts.levels


class _Game:
    """The auction so far (AuctionState's fields), its result and the trump: what changes a
    few times a deal (each bid, the auction's end, naming trump) and never in the play, so a
    card played copies one reference for all of it. A new value at every change; states with
    the same auction share one, so ``bids``, built when first asked for, serves them all."""

    __slots__ = (
        "bids",
        "contract",
        "duties",
        "holder",
        "level",
        "passed",
        "passed_out",
        "soloist",
        "trump",
    )

    def __init__(
        self,
        holder: int | None,
        level: int,
        passed: int,
        bids: tuple[BidMade, ...] | None,
        soloist: int | None = None,
        contract: Contract | None = None,
        passed_out: bool = False,
        trump: Suit | None = None,
        duties: PlayDuties | None = None,
    ) -> None:
        self.holder = holder
        self.level = level
        self.passed = passed
        # The auction's BidMade records, built when asked for (None: not yet); a bid extends
        # those of the game before it once they are built.
        self.bids = bids
        self.soloist = soloist
        self.contract = contract
        self.passed_out = passed_out
        self.trump = trump
        self.duties = duties


# Bound once: the hot path compares phases by identity and allocates states directly.
_PLAY: Final = Phase.PLAY
_AUCTION: Final = Phase.AUCTION
_TRUMP: Final = Phase.TRUMP
_DONE: Final = Phase.DONE
_EXPECTED: Final = {Bid: Phase.AUCTION, NameTrump: Phase.TRUMP, PlayCard: Phase.PLAY}
# The classes the hot path tests types against, and the actions it lists, bound once for the
# same reason: an imported name is a lookup in the module's dict at every use.
_CARD: Final = Card
_PLAY_CARD: Final = PlayCard
_BID: Final = Bid
_NAME_TRUMP: Final = NameTrump
_PASS: Final = PASS
_NAME_TRUMPS: Final = NAME_TRUMPS
# Each card alone in a tuple, by index: a card joins the trick by one tuple concatenation.
# Typed as tuples of any length: compiled, a tuple[Card] is unboxed into a C struct on reading
# and boxed again into a fresh tuple on use, the very allocation this table is to save.
_ALONE: Final[tuple[tuple[Card, ...], ...]] = tuple((card,) for card in CARDS)


class DealState:
    """One deal at one moment. Immutable: ``apply`` returns a new state.

    Build with :meth:`DealState.new`; see the module docstring for an example.
    """

    __slots__ = (
        "_ctx",
        "_game",
        "_head",
        "_history",
        "_leader",
        "_led",
        "_legal",
        "_outcome",
        "_phase",
        "_to_act",
        "_trick",
        "_trick_log",
        "_tricks",
        "_tricks_won",
        "_unplayed",
        "_win",
        "_win_seat",
        "_won_code",
    )

    _ctx: _Context
    _phase: Phase
    _to_act: int | None
    # The cards not played yet, of every hand: a seat's hand is what it was dealt & this, so
    # a card played changes one int instead of rebuilding a tuple of hands.
    _unplayed: int
    # The auction so far, its result and the trump (see _Game).
    _game: _Game
    _trick: tuple[Card, ...]
    _leader: int
    _led: int
    _win: int
    _win_seat: int
    _head: int
    # The completed tricks as records, and as TrickTaken events once asked for (as the auction's).
    _trick_log: tuple[_TrickRecord, ...]
    _tricks: tuple[TrickTaken, ...] | None
    _tricks_won: tuple[int, ...]
    # _tricks_won as a code, _WON_BITS per seat: the key of its tuple in the facts' table.
    _won_code: int
    _history: _History | None
    _outcome: DealOutcome | None
    _legal: int

    @classmethod
    def new(cls, ruleset: Ruleset, deal: Deal, pool: int = 0) -> DealState:
        """The state before the first bid. ``pool`` is the Haferl pool at the start of this
        deal (``haferl`` only), so that a soloist who makes the contract takes it.

        Raises :class:`brandeln.engine.errors.InvalidDealError` when ``deal`` does not fit
        ``ruleset``.
        """
        validate_deal(ruleset, deal)
        if pool < 0 or (pool and ruleset.pass_out is not PassOut.HAFERL):
            raise ValueError(f"a pool of {pool} makes no sense in ruleset {ruleset.id!r}")
        state = _new_state(cls)
        state._ctx = ctx = _Context(ruleset, deal, pool)
        state._phase = Phase.AUCTION
        state._to_act = ctx.forehand  # R5.1
        unplayed = 0
        for mask in ctx.dealt:
            unplayed |= mask
        state._unplayed = unplayed
        state._game = _Game(None, NO_BID, 0, None)
        state._trick = ()
        state._leader = ctx.forehand
        state._led = NO_TRICK
        state._win = NO_CARD
        state._win_seat = 0
        state._head = NO_CARD
        state._trick_log = ()
        state._tricks = None
        state._tricks_won = ctx.facts.won_by_code[0]
        state._won_code = 0
        state._history = None
        state._outcome = None
        state._legal = _UNKNOWN
        return state

    # ----------------------------------------------------------------- reading the state

    @property
    def ruleset(self) -> Ruleset:
        """The rules of this deal."""
        return self._ctx.ruleset

    @property
    def deal(self) -> Deal:
        """The cards as dealt."""
        return self._ctx.deal

    @property
    def pool(self) -> int:
        """The Haferl pool at the start of this deal."""
        return self._ctx.pool

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self._ctx.dealer

    @property
    def forehand(self) -> int:
        """Forehand's seat (R1.3)."""
        return self._ctx.forehand

    @property
    def phase(self) -> Phase:
        """Auction, trump, play or done."""
        return self._phase

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is, or ``None`` when the deal is over."""
        return self._to_act

    @property
    def hands(self) -> tuple[CardSet, ...]:
        """Every seat's current hand (the referee's view: all of them)."""
        return tuple(trusted_card_set(mask) for mask in self._hand_masks())

    def hand(self, seat: int) -> CardSet:
        """One seat's current hand."""
        return trusted_card_set(self._ctx.dealt[seat] & self._unplayed)

    def _hand_masks(self) -> tuple[int, ...]:
        unplayed = self._unplayed
        return tuple(mask & unplayed for mask in self._ctx.dealt)

    @property
    def auction(self) -> tuple[BidMade, ...]:
        """Every auction action so far, in order."""
        game = self._game
        bids = game.bids
        if bids is None:  # built once per auction, from the history (newest first)
            made: list[BidMade] = []
            node = self._history
            while node is not None:
                tail, seat, action = node
                if type(action) is Bid:
                    made.append(BidMade(seat, action))
                node = tail  # type: ignore[assignment]  # the tail of a _History is one or None
            made.reverse()
            bids = game.bids = tuple(made)  # a cache: every state sharing the game agrees
        return bids

    @property
    def auction_state(self) -> AuctionState:
        """The auction so far as a value: holder, level, passed seats and every action."""
        game = self._game
        return AuctionState(game.holder, game.level, game.passed, self.auction)

    @property
    def soloist(self) -> int | None:
        """The soloist, once the auction has one."""
        return self._game.soloist

    @property
    def contract(self) -> Contract | None:
        """The contract, once the auction has one."""
        return self._game.contract

    @property
    def passed_out(self) -> bool:
        """True when every player passed (R6)."""
        return self._game.passed_out

    @property
    def trump(self) -> Suit | None:
        """The trump suit, once named (never in a no-trump contract)."""
        return self._game.trump

    @property
    def tricks(self) -> tuple[TrickTaken, ...]:
        """The completed tricks, in order."""
        tricks = self._tricks
        if tricks is None:  # built once per state; later states extend what is built
            tricks = self._tricks = tuple(
                TrickTaken(number, leader, cards, winner)
                for number, (leader, cards, winner) in enumerate(self._trick_log, start=1)
            )
        return tricks

    @property
    def current_trick(self) -> tuple[tuple[int, Card], ...]:
        """The cards of the trick in progress as ``(seat, card)``, in play order."""
        players = self._ctx.players
        return tuple(
            (seat_after(self._leader, position, players), card)
            for position, card in enumerate(self._trick)
        )

    @property
    def leader(self) -> int | None:
        """The seat that leads (or led) the trick in progress, during the play."""
        return self._leader if self._phase is _PLAY else None

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """Tricks taken so far, per seat."""
        return self._tricks_won

    @property
    def history(self) -> tuple[tuple[int, Action], ...]:
        """Every action so far as ``(seat, action)``, in order."""
        items: list[tuple[int, Action]] = []
        node = self._history
        while node is not None:
            tail, seat, action = node
            items.append((seat, action))
            node = tail  # type: ignore[assignment]  # the tail of a _History is one or None
        items.reverse()
        players = self._ctx.players
        for leader, cards, _ in self._trick_log:
            for position, card in enumerate(cards):
                items.append((seat_after(leader, position, players), PLAY_CARDS[card.index]))
        leader = self._leader
        for position, card in enumerate(self._trick):
            items.append((seat_after(leader, position, players), PLAY_CARDS[card.index]))
        return tuple(items)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action so far, in order (what :func:`brandeln.engine.replay.replay` takes)."""
        return tuple(action for _, action in self.history)

    @property
    def duties(self) -> PlayDuties | None:
        """The play duties in force (set once the play has started)."""
        return self._game.duties

    def is_over(self) -> bool:
        """True once the deal has ended."""
        return self._phase is _DONE

    def outcome(self) -> DealOutcome | None:
        """The deal's outcome once it is over, else ``None``."""
        return self._outcome

    def legal_card_mask(self) -> int:
        """The legal cards of the seat to act as a mask (0 outside the play)."""
        if self._phase is not _PLAY:
            return 0
        mask = self._legal
        if mask == _UNKNOWN:
            mask = self._legal = legal_card_mask(  # a cache; the state's value is unchanged
                self._ctx.dealt[self._to_act] & self._unplayed,  # type: ignore[index]
                self._led,
                self._win,
                self._head,
                self._game.duties,  # type: ignore[arg-type]
            )
        return mask

    def trick_position(self) -> tuple[int, int, int]:
        """``(led, win, head)`` of the trick in progress, as :func:`legal_card_mask` takes
        them: the led suit, the index of the winning card and of the highest card of the led
        suit (``NO_TRICK``, ``NO_CARD``, ``NO_CARD`` before the lead)."""
        return (self._led, self._win, self._head)

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, in canonical order (R12.3); empty when over.

        The auction: ``pass`` then contracts low to high; the trump: suits C S H D; the play:
        cards by suit C S H D, each suit from low to high in this deal's order.
        """
        phase = self._phase
        if phase is _PLAY:
            duties: PlayDuties = self._game.duties  # type: ignore[assignment]
            mask = self._legal
            if mask == _UNKNOWN:
                mask = self._legal = legal_card_mask(
                    self._ctx.dealt[self._to_act] & self._unplayed,  # type: ignore[index]
                    self._led,
                    self._win,
                    self._head,
                    duties,
                )
            return canonical_play_cards(mask, duties)  # type: ignore[return-value]
        if phase is _AUCTION:
            return [_PASS, *self._ctx.bid_actions[self._lowest_bid_level() :]]
        if phase is _TRUMP:
            return list(_NAME_TRUMPS)
        return []

    def is_legal(self, action: object) -> bool:
        """True when ``action`` may be applied now (:meth:`illegal_reason` gives none)."""
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: object) -> str | None:
        """Why ``action`` may not be applied now, or ``None`` when it may: the reason
        :meth:`apply` raises :class:`IllegalActionError` with.

        >>> from brandeln.engine.dealing import deal_cards
        >>> from brandeln.engine.rulesets import find_ruleset
        >>> ruleset = find_ruleset("standard")
        >>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=1))
        >>> state = state.apply(Bid("brand"))
        >>> state.illegal_reason(PASS) is None
        True
        >>> state.illegal_reason(Bid("brandle"))
        'brandle is lower than the contract already bid, brand'
        >>> state.illegal_reason(Bid("grand"))
        "'grand' is not a bid in 'standard'; bids: pass, brandle, brand, bettel, mord, herrenmord"
        """
        phase = self._phase
        kind = type(action)
        if kind is _PLAY_CARD and phase is _PLAY:
            card = action.card  # type: ignore[attr-defined]
            if type(card) is not _CARD:
                return f"{card!r} is not a card"
            if self.legal_card_mask() >> card.index & 1:
                return None
            duties: PlayDuties = self._game.duties  # type: ignore[assignment]
            return explain_illegal_card(
                self._ctx.dealt[self._to_act] & self._unplayed,  # type: ignore[index]
                card.index,
                led=self._led,
                win=self._win,
                head=self._head,
                duties=duties,
            )
        if kind is _BID and phase is _AUCTION:
            contract = action.contract  # type: ignore[attr-defined]
            if contract == PASS_ID:
                return None  # R5.2: a pass is always legal
            bid_level = self._ctx.levels.get(contract) if isinstance(contract, str) else None
            if bid_level is not None and bid_level >= self._lowest_bid_level():
                return None  # R5.3
            return self._explain_bid(contract, bid_level)
        if kind is _NAME_TRUMP and phase is _TRUMP:
            suit = action.suit  # type: ignore[attr-defined]
            return None if isinstance(suit, Suit) else f"{suit!r} is not a suit"
        expected = _EXPECTED.get(kind)
        if expected is None:
            return f"not an action: {action!r}"
        if phase is _DONE:
            return "the deal is over"
        return f"it is {phase.noun}, not {expected.noun}"

    def _explain_bid(self, contract: object, bid_level: int | None) -> str:
        """Why bidding ``contract`` at ``bid_level`` (``None``: no such contract) is illegal."""
        ctx = self._ctx
        if bid_level is None:
            known = ", ".join((PASS_ID, *ctx.levels))
            return f"{contract!r} is not a bid in {ctx.ruleset.id!r}; bids: {known}"
        level = self._game.level
        current = ctx.ruleset.contracts[level].id
        wanted = ctx.ruleset.contracts[bid_level].id
        if bid_level < level:
            return f"{wanted} is lower than the contract already bid, {current}"
        if ctx.ruleset.holds:
            return f"a junior may not hold {current}: bid higher or pass (R5.3)"
        return f"{wanted} does not raise {current}; {ctx.ruleset.id} has no holds"

    def _lowest_bid_level(self) -> int:
        low = self._legal
        if low == _UNKNOWN:  # legal_actions and apply both ask: compute it once per state
            ctx = self._ctx
            game = self._game
            assert self._to_act is not None
            low = self._legal = lowest_legal_level(
                game.level,
                game.holder,
                self._to_act,
                dealer=ctx.dealer,
                players=ctx.players,
                holds=ctx.ruleset.holds,
            )
        return low

    # ------------------------------------------------------------------- moving forward

    def apply(self, action: Action) -> DealState:
        """The state after the seat to act takes ``action``; raises
        :class:`IllegalActionError` with the reason when the rules forbid it."""
        if type(action) is _PLAY_CARD and self._phase is _PLAY:
            return self._play(action, None)
        reason = self.illegal_reason(action)  # the hot path plays cards; this is the rest
        if reason is not None:
            raise IllegalActionError(reason)
        if type(action) is _BID:
            return self._bid(action, None)
        return self._name_trump(action, None)  # type: ignore[arg-type]  # legal: NameTrump

    def step(self, action: Action) -> tuple[DealState, list[Event]]:
        """Like :meth:`apply`, also returning the public events the action caused, in order:
        the action itself, then ``ContractSet``, ``TrickTaken``, ``DealEnded`` as they happen.
        """
        events: list[Event] = []
        if type(action) is _PLAY_CARD and self._phase is _PLAY:
            return self._play(action, events), events
        reason = self.illegal_reason(action)
        if reason is not None:
            raise IllegalActionError(reason)
        if type(action) is _BID:
            return self._bid(action, events), events
        return self._name_trump(action, events), events  # type: ignore[arg-type]  # legal: NameTrump

    def _copy(self) -> DealState:
        new = DealState()  # no __init__: compiled, a bare native allocation
        new._ctx = self._ctx
        new._phase = self._phase
        new._to_act = self._to_act
        new._unplayed = self._unplayed
        new._game = self._game
        new._trick = self._trick
        new._leader = self._leader
        new._led = self._led
        new._win = self._win
        new._win_seat = self._win_seat
        new._head = self._head
        new._trick_log = self._trick_log
        new._tricks = self._tricks
        new._tricks_won = self._tricks_won
        new._won_code = self._won_code
        new._history = self._history
        new._outcome = None
        new._legal = _UNKNOWN
        return new

    def _bid(self, bid: Bid, events: list[Event] | None) -> DealState:
        ctx = self._ctx
        seat = self._to_act
        assert seat is not None
        game = self._game
        holder, level, passed = game.holder, game.level, game.passed
        if bid.contract == PASS_ID:
            passed |= 1 << seat  # R5.2
        else:  # a raise, or a hold by a senior player (R5.3); illegal_reason has checked it
            holder, level = seat, ctx.levels[bid.contract]
        new = self._copy()
        new._history = (self._history, seat, bid)
        bids = game.bids
        new_bids: tuple[BidMade, ...] | None = None
        if events is not None or bids is not None:
            made = BidMade(seat, bid)
            new_bids = None if bids is None else (*bids, made)
            if events is not None:
                events.append(made)
        new._game = _Game(holder, level, passed, new_bids)
        following = next_to_speak(seat, passed, holder, ctx.players)
        if following is not None:
            new._to_act = following
            return new
        new._end_auction(events)
        return new

    def _end_auction(self, events: list[Event] | None) -> None:
        """R5.5 and R6: the auction's result, then naming trump, the play or the end."""
        ctx = self._ctx
        game = self._game
        soloist, contract, passed_out, leader = auction_result(
            ctx.ruleset, game.holder, game.level, ctx.dealer
        )
        self._game = _Game(
            game.holder, game.level, game.passed, game.bids, soloist, contract, passed_out
        )
        if events is not None:
            events.append(ContractSet(soloist, contract.id if contract else None, passed_out))
        if leader is None:  # passed out, no play (haferl, thrown in)
            self._finish(events)
        elif contract is not None and contract.trump:  # R7.1: trump before the first lead
            self._phase = _TRUMP
            self._to_act = leader
        else:  # R7.2
            self._start_play(leader, None)

    def _start_play(self, leader: int, trump: Suit | None) -> None:
        game = self._game
        duties = duties_for(self._ctx.ruleset, trump)
        self._game = _Game(
            game.holder,
            game.level,
            game.passed,
            game.bids,
            game.soloist,
            game.contract,
            game.passed_out,
            trump,
            duties,
        )
        self._phase = _PLAY
        self._to_act = self._leader = leader  # R8.1

    def _name_trump(self, action: NameTrump, events: list[Event] | None) -> DealState:
        suit = action.suit
        seat = self._to_act
        assert seat is not None
        new = self._copy()
        new._history = (self._history, seat, action)
        if events is not None:
            events.append(TrumpNamed(suit))
        new._start_play(seat, suit)
        return new

    def _play(self, action: PlayCard, events: list[Event] | None) -> DealState:
        # The hot path: every card of every deal comes through here, so it builds the next
        # state directly instead of through _copy.
        card = action.card
        seat: int = self._to_act  # type: ignore[assignment]
        if type(card) is not _CARD:
            raise IllegalActionError(self.illegal_reason(action))
        index = card.index
        mask = self._legal
        if mask == _UNKNOWN:
            mask = self.legal_card_mask()
        if not mask >> index & 1:
            raise IllegalActionError(self.illegal_reason(action))
        ctx = self._ctx
        game = self._game
        new = DealState()  # no __init__: compiled, a bare native allocation
        new._ctx = ctx
        new._phase = _PLAY
        new._game = game
        new._outcome = None
        new._legal = _UNKNOWN
        new._leader = self._leader
        new._trick_log = self._trick_log
        new._tricks = self._tricks
        new._tricks_won = self._tricks_won
        new._won_code = self._won_code
        new._unplayed = self._unplayed ^ 1 << index
        new._history = self._history  # the card is recorded by the trick (see _History)
        if events is not None:
            events.append(CardPlayed(seat, card))
        # brandeln.engine.trick_rules.add_to_trick, inlined: the hot path reads its tables directly.
        duties: PlayDuties = game.duties  # type: ignore[assignment]
        new._win = win = duties.takes_flat[self._win << CARD_BITS | index]
        new._head = head = duties.heads_flat[self._head << CARD_BITS | index]
        new._led = head >> RANK_BITS
        new._win_seat = seat if win == index else self._win_seat
        trick = self._trick + _ALONE[index]  # one allocation; (*trick, card) makes a list too
        if len(trick) < ctx.players:
            new._trick = trick
            new._to_act = ctx.left[seat]
            return new
        new._complete_trick(trick, events)
        return new

    def _complete_trick(self, trick: tuple[Card, ...], events: list[Event] | None) -> None:
        ctx = self._ctx
        winner = self._win_seat  # R8.4
        log = self._trick_log
        # Concatenated: compiled, the unpacking (*log, record) builds a list first.
        self._trick_log = log + ((self._leader, trick, winner),)  # noqa: RUF005
        tricks = self._tricks
        if events is not None or tricks is not None:
            taken = TrickTaken(len(log) + 1, self._leader, trick, winner)
            self._tricks = None if tricks is None else (*tricks, taken)
            if events is not None:
                events.append(taken)
        facts = ctx.facts
        self._won_code = code = self._won_code + facts.won_units[winner]
        tricks_won = facts.won_by_code.get(code)
        if tricks_won is None:  # the first deal of the ruleset to reach these counts
            won = list(self._tricks_won)
            won[winner] += 1
            tricks_won = facts.won_by_code[code] = tuple(won)
        self._tricks_won = tricks_won
        self._trick = ()
        self._led = NO_TRICK
        self._win = self._head = NO_CARD
        game = self._game
        played = len(log) + 1
        if not deal_ends_after(
            played, ctx.tricks, ctx.early_stop, game.contract, game.soloist, tricks_won
        ):
            self._to_act = self._leader = winner  # R8.1: the winner leads the next trick
            return
        self._finish(events)

    def _finish(self, events: list[Event] | None) -> None:
        ctx = self._ctx
        game = self._game
        self._phase = _DONE
        self._to_act = None
        self._outcome = outcome = deal_outcome(
            ctx.ruleset,
            ctx.deal,
            ctx.pool,
            soloist=game.soloist,
            contract=game.contract,
            trump=game.trump,
            passed_out=game.passed_out,
            tricks_won=self._tricks_won,
            hands=ctx.facts.no_hands if not self._unplayed else self._hand_masks(),
        )
        if events is not None:
            events.append(DealEnded.of(outcome))

    # ---------------------------------------------------------------------------- views

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now (R12.1): its own hand and the public record."""
        ctx = self._ctx
        if not 0 <= seat < ctx.players:
            raise ValueError(f"seat {seat} is not a seat of {ctx.ruleset.id!r}")
        game = self._game
        outcome = self._outcome
        return PlayerView(
            seat=seat,
            dealer=ctx.dealer,
            forehand=ctx.forehand,
            hand=self.hand(seat),
            auction=self.auction,
            soloist=game.soloist,
            contract=game.contract.id if game.contract is not None else None,
            trump=game.trump,
            tricks=self.tricks,
            current_trick_leader=self.leader,
            current_trick=self._trick,
            tricks_won=self._tricks_won,
            deal_payments=outcome.payments if outcome is not None else (),
            trump_order=ctx.ruleset.trump_order,
        )

    # ---------------------------------------------------------------------- comparisons

    def _key(self) -> tuple[object, ...]:
        return (self._ctx.ruleset, self._ctx.deal, self._ctx.pool, self.actions)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DealState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"<DealState {self._ctx.ruleset.id} dealer={self._ctx.dealer} "
            f"phase={self._phase.name} to_act={self._to_act} "
            f"tricks={len(self._trick_log)} current={[str(c) for c in self._trick]}>"
        )


# A state without its constructor's frame: the hot path fills in every slot itself. It is
# DealState.__new__, not object.__new__: compiled by mypyc, DealState is a native class, and
# only its own __new__ allocates its layout (in pure Python the two are the same function).
_new_state = DealState.__new__
