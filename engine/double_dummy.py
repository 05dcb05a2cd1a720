"""Exact double-dummy search of the play (R8) for the soloist's goal (R9, R10).

Every hand is known (a search bot's sampled deal): the solver answers whether the soloist makes
the contract from a position when both sides play perfectly, the soloist alone against the
defenders as one side. The payoff of a contract depends only on whether it is made (R10), so
the search is a two-valued game, searched with:

- **pruning by the goal**: a position whose result no share of the remaining tricks can change
  is scored at once (this is also every early end of R9.2 and of ``early_stop = when_decided``,
  which cannot change the result either);
- **sure tricks**: a trump that no card of the other side can beat takes the trick it is played
  in (R8.4), whenever that is; the soloist's such trumps are tricks it will take, the defenders'
  are tricks it will lose (up to N-1 of them in one trick), so the soloist's final count lies in
  a range, and a position whose result is the same over that range is scored at once;
- **masters on lead**: a card no card of the other side beats (a *master*) wins the trick it
  is led to, and its side keeps the lead, so a soloist on lead that wants tricks can take at
  least as many more as it holds masters, and defenders on lead holding nothing but masters
  take every trick left (the same range);
- **equivalent cards merged**: two cards of one hand that are neighbours in the deal's order of
  their suit, among the cards still live (in the hands or on the table), win and lose against
  exactly the same cards, so only one of them is searched;
- **a transposition table** at the start of each trick, keyed by the four hands, the leader and
  the soloist's tricks;
- **move ordering**: the side to move tries its cards from the strongest down, the soloist of a
  zero contract from the weakest up.

It runs on the same rules core as the engine: :func:`brandeln.engine.trick_rules.legal_card_mask`
for the duties of R8.3 and the tables of :func:`brandeln.engine.trick_rules.duties_for` for the
trick (R8.4). The russian free play (no soloist) is no two-sided game and is not solved here.

>>> from brandeln.engine.cards import CardSet, Suit, parse_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> standard = find_ruleset("standard")
>>> solver = DoubleDummy(standard, standard.contract("brand"), soloist=0, trump=Suit.HEARTS)
>>> hands = [CardSet(parse_cards(text)).mask for text in ("HJ HA", "SA SK", "CA CK", "DA DK")]
>>> solver.makes(hands, tricks_won=(3, 1, 1, 0), leader=0)  # two trumps win the last two
True
>>> solver.max_tricks(hands, tricks_won=(3, 1, 1, 0), leader=0)
5
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Final

from brandeln.engine.cards import RANK_COUNT, SUIT_COUNT, Suit
from brandeln.engine.rulesets import Contract, Goal, Ruleset
from brandeln.engine.seats import left_of_each, seat_after
from brandeln.engine.trick_rules import NO_CARD, NO_TRICK, duties_for, legal_card_mask, trick_state

__all__ = ["BudgetExceeded", "DoubleDummy", "SolverStats"]

_SUIT_BITS: Final = (1 << RANK_COUNT) - 1


# A table of results by two trick counts (see _fixed_results), None where undecided.
_Results = tuple[tuple[bool | None, ...], ...]

_CLOCK_EVERY: Final = 1023  # look at the clock after every 1024 positions (a mask)


class BudgetExceeded(Exception):  # noqa: N818 - it is an outcome of the search, not a bug
    """A search visited more positions than its ``budget`` allowed, or ran past its
    ``deadline`` (a bot out of time)."""


@dataclass(slots=True)
class SolverStats:
    """What the last searches cost: positions visited and transposition-table hits."""

    nodes: int = 0
    table_hits: int = 0


class DoubleDummy:
    """The exact solver for one contract of one ruleset, soloist and trump.

    Its transposition table is kept between calls on the same deal (positions of one deal
    recur from one card decision to the next); :meth:`clear` empties it, and a call with
    different hands never reads a wrong entry (the key holds the hands).
    """

    def __init__(
        self, ruleset: Ruleset, contract: Contract, soloist: int, trump: Suit | None
    ) -> None:
        self.ruleset = ruleset
        self.contract = contract
        self.soloist = soloist
        self.trump = None if not contract.trump else trump
        self.stats = SolverStats()
        self._duties = duties_for(ruleset, self.trump)
        self._players = ruleset.players
        self._tricks = ruleset.tricks
        self._left = left_of_each(ruleset.players)
        self._fixed = _fixed_results(contract, ruleset.tricks)
        self._ranges = _range_results(contract, ruleset.tricks)
        self._trump_mask = 0 if self.trump is None else _SUIT_BITS << (int(self.trump) * RANK_COUNT)
        self._table: dict[tuple[int, ...], bool] = {}
        self.budget = 0  # positions one search may visit (0: no limit), see BudgetExceeded
        # A reading of ``clock`` past which a search stops (0: none). The clock is the
        # caller's (the engine reads no clock of its own): a bot hands in time.monotonic.
        self.deadline = 0.0
        self.clock: Callable[[], float] | None = None

    def clear(self) -> None:
        """Forget the positions solved so far (a new deal)."""
        self._table.clear()

    def makes(
        self,
        hands: Sequence[int],
        tricks_won: Sequence[int],
        leader: int,
        trick: Sequence[int] = (),
    ) -> bool:
        """Whether the soloist makes the contract from here with best play on both sides.

        ``hands`` are the seats' card masks (the cards of ``trick`` already out of them),
        ``tricks_won`` the tricks taken per seat, ``trick`` the card indices of the trick in
        progress, led by ``leader``.
        """
        return self._search(list(hands), tricks_won, leader, trick)

    def card_values(
        self,
        hands: Sequence[int],
        tricks_won: Sequence[int],
        leader: int,
        trick: Sequence[int] = (),
    ) -> dict[int, bool]:
        """For each legal card of the seat to play, whether the soloist then makes it.

        Equivalent cards (neighbours among the live cards of their suit) are searched once."""
        duties = self._duties
        seat = seat_after(leader, len(trick), self._players)
        led, win, head, _ = trick_state(trick, duties)
        hand = hands[seat]
        legal = legal_card_mask(hand, led, win, head, duties)
        live = 0
        for other in hands:
            live |= other
        for card in trick:
            live |= 1 << card
        values: dict[int, bool] = {}
        for run in _runs(hand, legal, live, duties.suit_indices):
            after = list(hands)
            after[seat] ^= 1 << run[0]
            value = self._search(after, tricks_won, leader, [*trick, run[0]])
            for card in run:
                values[card] = value
        return values

    def max_tricks(
        self,
        hands: Sequence[int],
        tricks_won: Sequence[int],
        leader: int,
        trick: Sequence[int] = (),
    ) -> int:
        """The most tricks the soloist can be sure of in total, every seat playing for it (or
        against it), whatever the contract's goal: for a bid's "at least N" evaluation."""
        low = tricks_won[self.soloist]
        high = low + self._tricks - sum(tricks_won)
        while low < high:  # the largest k such that the soloist can take at least k
            k = (low + high + 1) // 2
            goal = replace(self.contract, goal=Goal.AT_LEAST, tricks=k)
            probe = DoubleDummy(self.ruleset, goal, self.soloist, self.trump)
            if probe.makes(hands, tricks_won, leader, trick):
                low = k
            else:
                high = k - 1
            self.stats.nodes += probe.stats.nodes
        return low

    # --- the search ----------------------------------------------------------------------
    def _search(
        self, hands: list[int], tricks_won: Sequence[int], leader: int, trick: Sequence[int]
    ) -> bool:
        search = _Search(self)
        try:
            return search.start(hands, tricks_won, leader, trick)
        finally:
            self.stats.nodes = search.nodes
            self.stats.table_hits = search.hits


class _Search:
    """One search of a :class:`DoubleDummy`: its constants as attributes and the recursion as
    methods, so that the compiled module (setup.py) calls them natively, not through closures.
    """

    def __init__(self, solver: DoubleDummy) -> None:
        duties = solver._duties
        self.duties = duties
        self.takes: tuple[tuple[int, ...], ...] = duties.takes
        self.heads: tuple[tuple[int, ...], ...] = duties.heads
        self.beats: tuple[int, ...] = duties.beats
        self.suit_indices: tuple[tuple[tuple[int, ...], ...], ...] = duties.suit_indices
        self.players: int = solver._players
        self.soloist: int = solver.soloist
        self.left_of: tuple[int, ...] = solver._left
        self.fixed: _Results = solver._fixed
        self.ranges: _Results = solver._ranges
        self.trump_mask: int = solver._trump_mask
        self.defenders_per_trick: int = solver._players - 1
        self.total: int = solver._tricks
        self.table: dict[tuple[int, ...], bool] = solver._table
        self.nodes: int = solver.stats.nodes
        self.hits: int = solver.stats.table_hits
        self.limit: int = self.nodes + solver.budget if solver.budget else -1
        self.deadline: float = solver.deadline
        self.clock: Callable[[], float] | None = solver.clock
        goal = solver.contract.goal
        self.zero_goal: bool = goal is Goal.ZERO
        self.exact_goal: bool = goal is Goal.EXACT
        self.rising_goal: bool = goal is Goal.AT_LEAST or goal is Goal.ALL
        self.target: int = solver.contract.tricks

    def start(
        self, hands: list[int], tricks_won: Sequence[int], leader: int, trick: Sequence[int]
    ) -> bool:
        """The search from a position given as the public API gives it."""
        players = self.players
        soloist = self.soloist
        played = sum(tricks_won)
        won = tricks_won[soloist]
        in_hands = 0
        for hand in hands:
            in_hands |= hand
        if not trick:
            return self.play(
                hands, won, played, leader, leader, 0, NO_CARD, NO_CARD, leader, 0, in_hands
            )
        _, win, head, win_position = trick_state(trick, self.duties)
        on_table = 0
        for card in trick:
            on_table |= 1 << card
        in_trick = len(trick)
        win_seat = seat_after(leader, win_position, players)
        if in_trick == players:  # a complete trick: score it, its winner leads
            won += win_seat == soloist
            return self.play(
                hands,
                won,
                played + 1,
                win_seat,
                win_seat,
                0,
                NO_CARD,
                NO_CARD,
                win_seat,
                0,
                in_hands,
            )
        seat = seat_after(leader, in_trick, players)
        return self.play(
            hands,
            won,
            played,
            seat,
            leader,
            in_trick,
            win,
            head,
            win_seat,
            on_table,
            in_hands | on_table,
        )

    def choices(self, hand: int, legal: int, live: int) -> list[int]:
        """One card of each run of equivalent legal cards (low to high in each suit)."""
        picked: list[int] = []
        suit_indices = self.suit_indices
        for suit in range(SUIT_COUNT):
            if not legal >> (suit * RANK_COUNT) & _SUIT_BITS:
                continue
            order = suit_indices[suit][live >> (suit * RANK_COUNT) & _SUIT_BITS]
            in_run = False
            for card in order:  # low to high among the live cards of the suit
                if hand >> card & 1:
                    if legal >> card & 1 and not in_run:
                        picked.append(card)
                    in_run = True
                else:
                    in_run = False
        return picked

    def ordered(self, cards: list[int], live: int, wants: bool, beating: int) -> list[int]:
        """The search order: the card likeliest to be best first. A side that wants the trick
        tries its cheapest card that takes it, one that does not want it (or whose side
        already holds it) its dearest card that stays under; ``beating`` is the mask of the
        cards that would take the trick (every card when leading). A card is the stronger the
        fewer live cards beat it; among equals the order of ``cards`` is kept."""
        beats = self.beats
        if beating == -1:  # leading: strongest first if it wants tricks, else weakest first
            weakest = _stable_sorted(cards, [-(beats[c] & live).bit_count() for c in cards])
            if wants:
                weakest.reverse()
            return weakest
        over: list[int] = []
        under: list[int] = []
        for card in cards:
            (over if beating >> card & 1 else under).append(card)
        weakest_over = _stable_sorted(over, [-(beats[c] & live).bit_count() for c in over])
        if wants:
            return weakest_over + _stable_sorted(
                under, [-(beats[c] & live).bit_count() for c in under]
            )
        return _stable_sorted(under, [(beats[c] & live).bit_count() for c in under]) + weakest_over

    def play(
        self,
        hands: list[int],
        won: int,
        played: int,
        seat: int,
        leader: int,
        in_trick: int,
        win: int,
        head: int,
        win_seat: int,
        table_cards: int,
        live: int,
    ) -> bool:
        """Whether the soloist makes it from this position: ``seat`` to play the
        ``in_trick``-th card of a trick led by ``leader``, ``win``/``head``/``win_seat`` the
        trick so far, ``won`` the soloist's tricks of the ``played`` ones, ``live`` every card
        still in a hand or on the table."""
        self.nodes += 1
        if self.nodes == self.limit:
            raise BudgetExceeded
        clock = self.clock
        if (
            self.deadline
            and clock is not None
            and not self.nodes & _CLOCK_EVERY
            and clock() > self.deadline
        ):
            raise BudgetExceeded
        soloist = self.soloist
        players = self.players
        if in_trick == 0:
            left = self.total - played
            result = self.fixed[won][left]
            if result is not None:
                return result
            beats = self.beats
            own = hands[soloist]
            others = 0
            for other_seat in range(players):
                if other_seat != soloist:
                    others |= hands[other_seat]
            sure = 0
            high = won + left
            trump_mask = self.trump_mask
            if trump_mask:
                # Sure tricks: the trumps no card of the other side beats (see above).
                sure = _unbeaten(own & trump_mask, others, beats)
                lost = _unbeaten(others & trump_mask, own, beats)
                high -= -(-lost // self.defenders_per_trick)
            # Masters on lead (see above): a soloist that wants tricks can lead each of its
            # masters in turn, keeping the lead (a soloist of a zero or exact goal need not:
            # no bound); defenders holding nothing but masters take every trick left, whatever
            # anyone plays.
            if seat == soloist:
                if self.rising_goal:
                    sure = max(sure, _unbeaten(own, others, beats))
            elif _unbeaten(others, own, beats) == others.bit_count():
                high = won
            if sure or high < won + left:
                result = self.ranges[min(won + sure, high)][high]
                if result is not None:
                    return result
            known = self.table.get((*hands, leader, won))
            if known is not None:
                self.hits += 1
                return known
        led = NO_TRICK if in_trick == 0 else head // RANK_COUNT
        hand = hands[seat]
        legal = legal_card_mask(hand, led, win, head, self.duties)
        soloist_moves = seat == soloist
        cards = self.choices(hand, legal, live)
        if len(cards) > 1:
            # Does this seat's side want tricks now? (Exact goals: only short of the mark.)
            wants = not self.zero_goal and not (self.exact_goal and won >= self.target)
            if not soloist_moves and self.zero_goal:
                wants = False  # a defender of a zero contract leaves the tricks to it
            if in_trick == 0:
                beating = -1
            elif (win_seat == soloist) == soloist_moves:
                beating = 0  # the side already holds the trick: stay under if possible
                wants = False
            else:
                beating = self.beats[win]
            cards = self.ordered(cards, live, wants, beating)
        # The soloist looks for one card that makes it; a defender for one that beats it.
        wanted = soloist_moves
        outcome = not wanted
        takes, heads = self.takes, self.heads
        for card in cards:
            new_win = takes[win][card]
            new_head = heads[head][card]
            new_win_seat = seat if new_win == card else win_seat
            hands[seat] = hand ^ (1 << card)
            if in_trick + 1 < players:
                result = self.play(
                    hands,
                    won,
                    played,
                    self.left_of[seat],
                    leader,
                    in_trick + 1,
                    new_win,
                    new_head,
                    new_win_seat,
                    table_cards | 1 << card,
                    live,
                )
            else:  # the trick is complete (R8.4); its winner leads the next (R8.1)
                result = self.play(
                    hands,
                    won + (new_win_seat == soloist),
                    played + 1,
                    new_win_seat,
                    new_win_seat,
                    0,
                    NO_CARD,
                    NO_CARD,
                    new_win_seat,
                    0,
                    live & ~(table_cards | 1 << card),
                )
            hands[seat] = hand
            if result == wanted:
                outcome = wanted
                break
        if in_trick == 0:
            self.table[(*hands, leader, won)] = outcome
        return outcome


def _unbeaten(cards: int, other: int, beats: tuple[int, ...]) -> int:
    """How many of ``cards`` no card of ``other`` beats."""
    count = 0
    while cards:
        low = cards & -cards
        if not beats[low.bit_length() - 1] & other:
            count += 1
        cards ^= low
    return count


def _stable_sorted(cards: list[int], keys: list[int]) -> list[int]:
    """``cards`` in ascending order of their ``keys``, equal keys in their order (an insertion
    sort: a hand's few cards, and no key function called per comparison)."""
    out = list(cards)
    order = list(keys)
    for i in range(1, len(out)):
        card, key = out[i], order[i]
        j = i - 1
        while j >= 0 and order[j] > key:
            out[j + 1], order[j + 1] = out[j], order[j]
            j -= 1
        out[j + 1], order[j + 1] = card, key
    return out


# Both tables are made once per contract: a bot builds solvers at every decision (one per
# contract and trump at a bid), and a table costs a few hundred made_with calls.
@cache
def _fixed_results(contract: Contract, tricks: int) -> _Results:
    """``fixed[taken][left]``: the result when it no longer depends on the ``left`` tricks to
    come (the soloist has taken ``taken``), else None."""
    table: list[tuple[bool | None, ...]] = []
    for taken in range(tricks + 1):
        row: list[bool | None] = []
        for left in range(tricks + 1):
            results = {contract.made_with(taken + more) for more in range(left + 1)}
            row.append(results.pop() if len(results) == 1 else None)
        table.append(tuple(row))
    return tuple(table)


def _runs(
    hand: int, legal: int, live: int, suit_indices: tuple[tuple[tuple[int, ...], ...], ...]
) -> list[list[int]]:
    """The legal cards of ``hand`` in runs of equivalent cards: neighbours in their suit's order
    among the ``live`` cards (a run's cards are all legal or all not: the card to beat is live
    and would split it)."""
    runs: list[list[int]] = []
    for suit in range(SUIT_COUNT):
        if not legal >> (suit * RANK_COUNT) & _SUIT_BITS:
            continue
        run: list[int] = []
        for card in suit_indices[suit][live >> (suit * RANK_COUNT) & _SUIT_BITS]:
            if hand >> card & 1 and legal >> card & 1:
                run.append(card)
                continue
            if run:
                runs.append(run)
            run = []
        if run:
            runs.append(run)
    return runs


@cache
def _range_results(contract: Contract, tricks: int) -> _Results:
    """``ranges[low][high]``: the result when the soloist ends with ``low`` to ``high`` tricks,
    if it is the same over the whole range (and the range is not empty), else None."""
    table: list[tuple[bool | None, ...]] = []
    for low in range(tricks + 1):
        row: list[bool | None] = []
        for high in range(tricks + 1):
            results = {contract.made_with(taken) for taken in range(low, high + 1)}
            row.append(results.pop() if len(results) == 1 else None)
        table.append(tuple(row))
    return tuple(table)
