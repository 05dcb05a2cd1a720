"""One encoding of Brandeln for learning and play: the action index and the observation tensors.

Standard library only (no numpy, no engine), so a bot built on the SDK computes exactly what
an environment trained it on. The facts come from two adapters: the SDK's
:func:`brandeln.sdk.observation.observation_from_request` (a ``DecisionRequest``) and the
research environments' ``brandeln.engine_encoding.encoding_from_engine`` (an engine
``PlayerView``); both build the same :class:`Observation` for the same position.

**Actions.** One index per distinct action over every phase and every ruleset, keyed by the
text of a protocol ``Choice`` (:func:`brandeln.sdk.notation.choice_text`): ``pass`` and the
contract ids, a trump suit's letter (``"H"``; ``"trump H"``, the engine's spelling, is read
too), a card (``"HJ"``). Within every ruleset's ladder a higher contract has a higher index,
and cards go by ``suit * 8 + rank`` (ranks 7 8 9 T J Q K A), the engine's card index.

========  ======  ======================================================================
indices   count   actions
========  ======  ======================================================================
0         1       ``pass``
1-12      12      bids: three brandle brand four five six null bettel mord herrenmord all
                  all-no-trump
13-16     4       name trump: C S H D
17-48     32      play a card: C7 C8 C9 CT CJ CQ CK CA S7 ... DA
========  ======  ======================================================================

>>> action_index("brand"), action_index("trump H"), action_index("H"), action_index("HJ")
(3, 15, 15, 37)
>>> action_of(37), len(legal_mask([0, 3])), legal_mask([0, 3])[:4]
('HJ', 49, [1, 0, 0, 1])

**Seats** are relative to the observer, so a policy generalises over seats: ``+0`` is the
observer, ``+1`` the seat to its left (who plays after it), and so on clockwise. The
observer's place at the table is its ``position``: its distance from forehand (0 is forehand,
``players - 1`` the dealer, R1.3).

**Tensors.** Every feature is 0 or 1 (one-hot or a set of cards), so a tensor is also given
as the positions of its ones (:func:`observation_ones`). One layout serves every ruleset; its
sizes are the largest over them (4 seats, 32 cards, 8 tricks), and seats or tricks a ruleset
does not have stay 0. The *observation* says what is true now; the *information state* adds
the order of everything (perfect recall): each auction action and each trick card in its
place. The view a seat gets is a full snapshot of what it may know, so both come from the same
facts; the information state leaves out only the order in which the seat's own cards were
dealt, which no decision can depend on.

Observation tensor (:data:`OBSERVATION_SIZE` floats):

=================  ======  ======  =============================================================
slice              offset  length  meaning
=================  ======  ======  =============================================================
ruleset            0       7       one-hot ruleset id, in the order of :data:`RULESET_IDS`
phase              7       5       one-hot phase: deal, auction, trump, play, done
position           12      4       one-hot observer's distance from forehand (3 = dealer of 4)
hand               16      32      the observer's cards now, by card index
last_bid           48      52      per relative seat (4 x 13): its latest auction action, one-hot
                                   over pass and the 12 contracts (action indices 0-12)
contract           100     12      one-hot contract (action index - 1)
soloist            112     4       one-hot relative seat of the soloist
passed_out         116     1       1 when every player passed (R6)
trump              117     4       one-hot trump suit C S H D
played             121     128     per relative seat (4 x 32): the cards it has played this deal
trick              249     128     per relative seat (4 x 32): its card in the current trick
trick_leader       377     4       one-hot relative seat that led the current trick
tricks_won         381     36      per relative seat (4 x 9): one-hot count of tricks taken, 0-8
=================  ======  ======  =============================================================

Information-state tensor (:data:`INFORMATION_STATE_SIZE` floats):

=================  ======  ======  =============================================================
slice              offset  length  meaning
=================  ======  ======  =============================================================
ruleset            0       7       as in the observation
phase              7       5       as in the observation
position           12      4       as in the observation
hand               16      32      the observer's cards now
dealt              48      32      the observer's cards as dealt (now and played)
auction            80      476     28 slots (MAX_AUCTION, the longest auction) of (4 + 13):
                                   the relative seat one-hot, then its action one-hot, in order
contract           556     12      as in the observation
soloist            568     4       as in the observation
passed_out         572     1       as in the observation
trump              573     4       as in the observation
tricks             577     1056    8 slots of (4 + 4 x 32): the leader's relative seat one-hot,
                                   then per place in the trick (1st, 2nd, ...) its card one-hot;
                                   completed tricks in order, then the current one
tricks_won         1633    36      as in the observation
=================  ======  ======  =============================================================

>>> view = Observation(ruleset="standard", players=4, phase="auction", position=0,
...     hand=(card_index("HJ"), card_index("CA")), auction=())
>>> len(observation_tensor(view)) == OBSERVATION_SIZE, sum(observation_tensor(view))
(True, 5.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

__all__ = [
    "ACTION_KINDS",
    "CARD_COUNT",
    "CARD_OFFSET",
    "CONTRACT_IDS",
    "INFORMATION_STATE_LAYOUT",
    "INFORMATION_STATE_SIZE",
    "MAX_AUCTION",
    "MAX_PLAYERS",
    "MAX_TRICKS",
    "NUM_ACTIONS",
    "NUM_BIDS",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "PASS_INDEX",
    "PHASES",
    "RANK_LETTERS",
    "RULESET_IDS",
    "SUIT_LETTERS",
    "TRUMP_OFFSET",
    "EncodingError",
    "Observation",
    "Slice",
    "Trick",
    "action_index",
    "action_kind",
    "action_of",
    "card_index",
    "card_text",
    "information_state_ones",
    "information_state_string",
    "information_state_tensor",
    "legal_mask",
    "observation_ones",
    "observation_string",
    "observation_tensor",
    "passed_out",
]

# --------------------------------------------------------------------------- sizes

SUIT_LETTERS: Final = "CSHD"
"""Suit letters in canonical order (R12.3); a suit's number is its place here."""
RANK_LETTERS: Final = "789TJQKA"
"""Rank letters low to high in natural order; a rank's number is its place here."""
SUIT_COUNT: Final = len(SUIT_LETTERS)
RANK_COUNT: Final = len(RANK_LETTERS)
CARD_COUNT: Final = SUIT_COUNT * RANK_COUNT
"""Cards of the largest deck (the 32-card pack); a card's index is ``suit * 8 + rank``."""
MAX_PLAYERS: Final = 4
MAX_TRICKS: Final = CARD_COUNT // MAX_PLAYERS
"""The most tricks a deal has (russian-32: 8)."""

RULESET_IDS: Final = (
    "standard",
    "three-player",
    "haferl",
    "classic-1860",
    "classic-1905",
    "russian",
    "russian-32",
)
"""The named rulesets (docs/RULES.md section 6), the engine's order (a test holds the two)."""

CONTRACT_IDS: Final = (
    "three",
    "brandle",
    "brand",
    "four",
    "five",
    "six",
    "null",
    "bettel",
    "mord",
    "herrenmord",
    "all",
    "all-no-trump",
)
"""Every ruleset's contracts once, ordered so that each ruleset's ladder ascends (a test
holds it): a legal bid list is already sorted by index."""

# The longest auction: each contract level is bid once and then held by at most N - 1 more
# senior players (R5.3), and each player passes at most once (R5.2), so an auction has at most
# N * (levels + 1) actions; classic-1860's 6 levels and 4 players make 28 (a test computes it
# for every ruleset).
_LONGEST_LADDER_WITH_HOLDS: Final = 6
MAX_AUCTION: Final = MAX_PLAYERS * (_LONGEST_LADDER_WITH_HOLDS + 1)

PASS_TEXT: Final = "pass"
PASS_INDEX: Final = 0
NUM_BIDS: Final = 1 + len(CONTRACT_IDS)
"""Auction actions: pass and the contracts, indices 0 to 12."""
TRUMP_OFFSET: Final = NUM_BIDS
CARD_OFFSET: Final = TRUMP_OFFSET + SUIT_COUNT
NUM_ACTIONS: Final = CARD_OFFSET + CARD_COUNT
"""The size of the action space (OpenSpiel's ``num_distinct_actions``)."""

PHASES: Final = ("deal", "auction", "trump", "play", "done")
"""The phases an observation may be in; ``deal`` only inside an environment's chance nodes."""
ACTION_KINDS: Final = ("bid", "trump", "card")

_TRUMP_WORD: Final = "trump"
_WON_VALUES: Final = MAX_TRICKS + 1  # 0..8 tricks taken


class EncodingError(ValueError):
    """A text, index or fact outside the encoding (the message says what is expected)."""


# --------------------------------------------------------------------------- actions

_CARD_TEXTS: Final = tuple(s + r for s in SUIT_LETTERS for r in RANK_LETTERS)
_ACTION_TEXTS: Final[tuple[str, ...]] = (PASS_TEXT, *CONTRACT_IDS, *SUIT_LETTERS, *_CARD_TEXTS)
_INDEX_OF_TEXT: Final[Mapping[str, int]] = {text: i for i, text in enumerate(_ACTION_TEXTS)}


def card_index(text: str) -> int:
    """The index (0-31) of a card written ``"HJ"`` (case-insensitive): ``suit * 8 + rank``.

    >>> card_index("C7"), card_index("ha"), card_index("DA")
    (0, 23, 31)
    """
    index = _INDEX_OF_TEXT.get(text.strip().upper(), -1) - CARD_OFFSET
    if index < 0:
        raise EncodingError(f"{text!r} is not a card: a suit letter (C S H D) and a rank letter")
    return index


def card_text(index: int) -> str:
    """The notation of card ``index``: ``card_text(20) == "HJ"``."""
    if not 0 <= index < CARD_COUNT:
        raise EncodingError(f"card index {index} is outside 0..{CARD_COUNT - 1}")
    return _CARD_TEXTS[index]


def action_index(text: str) -> int:
    """The index of the action written ``text``: a choice's text (``pass``, ``brand``, ``H``,
    ``HJ``) or the engine's (``trump H``). Raises :class:`EncodingError` for anything else.

    >>> action_index("pass"), action_index("all-no-trump"), action_index("C7")
    (0, 12, 17)
    """
    index = _INDEX_OF_TEXT.get(text)
    if index is not None:
        return index
    words = text.split()
    if len(words) == len(("trump", "H")) and words[0].lower() == _TRUMP_WORD:
        index = _INDEX_OF_TEXT.get(words[1].upper())
        if index is not None and TRUMP_OFFSET <= index < CARD_OFFSET:
            return index
    elif len(words) == 1:
        # Contract ids are lower-case words, suits and cards upper-case: no text is both.
        index = _INDEX_OF_TEXT.get(words[0].lower())
        if index is None:
            index = _INDEX_OF_TEXT.get(words[0].upper())
        if index is not None:
            return index
    raise EncodingError(
        f"{text!r} is not an action: expected pass, a contract id ({', '.join(CONTRACT_IDS)}), "
        "a suit letter (C S H D, or 'trump H') or a card (HJ)"
    )


def action_of(index: int) -> str:
    """The text of action ``index``, as a protocol ``Choice`` is written (``choice_text``).

    >>> [action_of(i) for i in (0, 1, 13, 48)]
    ['pass', 'three', 'C', 'DA']
    """
    if not 0 <= index < NUM_ACTIONS:
        raise EncodingError(f"action index {index} is outside 0..{NUM_ACTIONS - 1}")
    return _ACTION_TEXTS[index]


def action_kind(index: int) -> str:
    """``"bid"``, ``"trump"`` or ``"card"``: which phase's action ``index`` is.

    >>> action_kind(0), action_kind(14), action_kind(30)
    ('bid', 'trump', 'card')
    """
    if not 0 <= index < NUM_ACTIONS:
        raise EncodingError(f"action index {index} is outside 0..{NUM_ACTIONS - 1}")
    if index < TRUMP_OFFSET:
        return ACTION_KINDS[0]
    return ACTION_KINDS[1] if index < CARD_OFFSET else ACTION_KINDS[2]


def legal_mask(legal_action_indices: Iterable[int]) -> list[int]:
    """A list of :data:`NUM_ACTIONS` zeros with a 1 at each legal action's index.

    >>> sum(legal_mask([17, 18, 48]))
    3
    """
    mask = [0] * NUM_ACTIONS
    for index in legal_action_indices:
        if not 0 <= index < NUM_ACTIONS:
            raise EncodingError(f"action index {index} is outside 0..{NUM_ACTIONS - 1}")
        mask[index] = 1
    return mask


# --------------------------------------------------------------------------- facts


class Trick(NamedTuple):
    """A completed trick: who led it, its cards in play order, who took it (relative seats)."""

    leader: int
    cards: tuple[int, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat knows, as plain facts (seats relative to it, cards and actions as indices).

    ``auction`` holds ``(relative seat, action index)`` in order; ``contract`` is the action
    index of the contract's bid; ``trump`` a suit number (0-3, C S H D); ``tricks`` the
    completed tricks; ``trick_leader`` and ``current_trick`` the trick in progress (the leader
    is set during the play only); ``tricks_won`` is indexed by relative seat (empty means none
    yet). ``passed_out`` is derived from the auction (:func:`passed_out`).
    """

    ruleset: str
    players: int
    phase: str
    position: int
    hand: tuple[int, ...]
    auction: tuple[tuple[int, int], ...]
    contract: int | None = None
    soloist: int | None = None
    trump: int | None = None
    tricks: tuple[Trick, ...] = ()
    trick_leader: int | None = None
    current_trick: tuple[int, ...] = ()
    tricks_won: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.ruleset not in _RULESET_NUMBER:
            raise EncodingError(
                f"unknown ruleset {self.ruleset!r}; known rulesets: {', '.join(RULESET_IDS)}"
            )
        if not 0 < self.players <= MAX_PLAYERS or not 0 <= self.position < self.players:
            raise EncodingError(
                f"{self.players} players, position {self.position}: at most {MAX_PLAYERS} "
                "players, and the position is a distance from forehand"
            )
        if self.phase not in _PHASE_NUMBER:
            raise EncodingError(f"unknown phase {self.phase!r}; phases: {', '.join(PHASES)}")

    @property
    def passed_out(self) -> bool:
        """True when every player passed (R6)."""
        return passed_out(self.auction, self.players)

    def dealt(self) -> tuple[int, ...]:
        """The observer's cards as dealt: its hand and the cards it has played, ascending."""
        mine = set(self.hand)
        for leader, cards in self._all_tricks():
            place = (-leader) % self.players  # the observer (+0) plays this card of the trick
            if place < len(cards):
                mine.add(cards[place])
        return tuple(sorted(mine))

    def _all_tricks(self) -> list[tuple[int, tuple[int, ...]]]:
        """(leader, cards) of every trick, completed ones first, then the current one."""
        tricks = [(trick.leader, trick.cards) for trick in self.tricks]
        if self.trick_leader is not None:
            tricks.append((self.trick_leader, self.current_trick))
        return tricks


def passed_out(auction: Sequence[tuple[int, int]], players: int) -> bool:
    """True when every player passed: passing is final (R5.2) and an auction with a holder ends
    with the others' passes (R5.5), so only a pass-out holds ``players`` passes.

    >>> passed_out([(0, 0), (1, 0), (2, 0), (3, 0)], 4), passed_out([(0, 2), (1, 0)], 4)
    (True, False)
    """
    return sum(1 for _, action in auction if action == PASS_INDEX) == players


# --------------------------------------------------------------------------- layouts


class Slice(NamedTuple):
    """One named part of a tensor: ``tensor[offset:offset + length]``, shaped ``shape``."""

    name: str
    offset: int
    shape: tuple[int, ...]
    meaning: str

    @property
    def length(self) -> int:
        """How many floats the slice holds."""
        size = 1
        for dimension in self.shape:
            size *= dimension
        return size


def _layout(*parts: tuple[str, tuple[int, ...], str]) -> dict[str, Slice]:
    layout: dict[str, Slice] = {}
    offset = 0
    for name, shape, meaning in parts:
        layout[name] = part = Slice(name, offset, shape, meaning)
        offset += part.length
    return layout


_HEAD: Final = (
    ("ruleset", (len(RULESET_IDS),), "one-hot ruleset id, in the order of RULESET_IDS"),
    ("phase", (len(PHASES),), "one-hot phase: deal, auction, trump, play, done"),
    ("position", (MAX_PLAYERS,), "one-hot observer's distance from forehand"),
    ("hand", (CARD_COUNT,), "the observer's cards now, by card index"),
)
_CONTRACT: Final = (
    ("contract", (len(CONTRACT_IDS),), "one-hot contract (action index - 1)"),
    ("soloist", (MAX_PLAYERS,), "one-hot relative seat of the soloist"),
    ("passed_out", (1,), "1 when every player passed (R6)"),
    ("trump", (SUIT_COUNT,), "one-hot trump suit C S H D"),
)
_WON: Final = (
    ("tricks_won", (MAX_PLAYERS, _WON_VALUES), "per relative seat: one-hot count of tricks"),
)

OBSERVATION_LAYOUT: Final[Mapping[str, Slice]] = _layout(
    *_HEAD,
    ("last_bid", (MAX_PLAYERS, NUM_BIDS), "per relative seat: its latest auction action"),
    *_CONTRACT,
    ("played", (MAX_PLAYERS, CARD_COUNT), "per relative seat: the cards it has played"),
    ("trick", (MAX_PLAYERS, CARD_COUNT), "per relative seat: its card in the current trick"),
    ("trick_leader", (MAX_PLAYERS,), "one-hot relative seat that led the current trick"),
    *_WON,
)
"""The observation tensor's slices by name (see the module docstring's table)."""

_AUCTION_SLOT: Final = MAX_PLAYERS + NUM_BIDS
_TRICK_SLOT: Final = MAX_PLAYERS + MAX_PLAYERS * CARD_COUNT

INFORMATION_STATE_LAYOUT: Final[Mapping[str, Slice]] = _layout(
    *_HEAD,
    ("dealt", (CARD_COUNT,), "the observer's cards as dealt"),
    ("auction", (MAX_AUCTION, _AUCTION_SLOT), "each action in order: relative seat, action"),
    *_CONTRACT,
    ("tricks", (MAX_TRICKS, _TRICK_SLOT), "each trick in order: leader, card per place"),
    *_WON,
)
"""The information-state tensor's slices by name (see the module docstring's table)."""


def _size(layout: Mapping[str, Slice]) -> int:
    last = list(layout.values())[-1]
    return last.offset + last.length


OBSERVATION_SIZE: Final = _size(OBSERVATION_LAYOUT)
INFORMATION_STATE_SIZE: Final = _size(INFORMATION_STATE_LAYOUT)

_RULESET_NUMBER: Final = {ruleset: i for i, ruleset in enumerate(RULESET_IDS)}
_PHASE_NUMBER: Final = {phase: i for i, phase in enumerate(PHASES)}


def _offsets(layout: Mapping[str, Slice]) -> dict[str, int]:
    return {name: part.offset for name, part in layout.items()}


_OBS: Final = _offsets(OBSERVATION_LAYOUT)
_INFO: Final = _offsets(INFORMATION_STATE_LAYOUT)


def _common_ones(view: Observation, at: Mapping[str, int]) -> list[int]:
    """The ones of the slices both tensors share (head, contract, tricks won)."""
    ones = [
        at["ruleset"] + _RULESET_NUMBER[view.ruleset],
        at["phase"] + _PHASE_NUMBER[view.phase],
        at["position"] + view.position,
    ]
    hand = at["hand"]
    ones.extend(hand + card for card in view.hand)
    if view.contract is not None:
        ones.append(at["contract"] + view.contract - 1)
    if view.soloist is not None:
        ones.append(at["soloist"] + view.soloist)
    if view.passed_out:
        ones.append(at["passed_out"])
    if view.trump is not None:
        ones.append(at["trump"] + view.trump)
    won = at["tricks_won"]
    ones.extend(won + seat * _WON_VALUES + count for seat, count in enumerate(view.tricks_won))
    return ones


def observation_ones(view: Observation) -> list[int]:
    """The positions of the ones of :func:`observation_tensor` (every other value is 0).

    >>> view = Observation("standard", 4, "auction", 1, (0,), ((0, 2),))
    >>> [OBSERVATION_LAYOUT["last_bid"].offset + 2 in observation_ones(view)]
    [True]
    """
    ones = _common_ones(view, _OBS)
    last: dict[int, int] = {}
    for seat, action in view.auction:
        last[seat] = action
    ones.extend(_OBS["last_bid"] + seat * NUM_BIDS + action for seat, action in last.items())
    players = view.players
    played, trick = _OBS["played"], _OBS["trick"]
    for leader, cards in view._all_tricks():
        for place, card in enumerate(cards):
            ones.append(played + (leader + place) % players * CARD_COUNT + card)
    if view.trick_leader is not None:
        leader = view.trick_leader
        ones.append(_OBS["trick_leader"] + leader)
        for place, card in enumerate(view.current_trick):
            ones.append(trick + (leader + place) % players * CARD_COUNT + card)
    return ones


def information_state_ones(view: Observation) -> list[int]:
    """The positions of the ones of :func:`information_state_tensor`."""
    ones = _common_ones(view, _INFO)
    dealt = _INFO["dealt"]
    ones.extend(dealt + card for card in view.dealt())
    if len(view.auction) > MAX_AUCTION:
        raise EncodingError(f"an auction of {len(view.auction)} actions: at most {MAX_AUCTION}")
    auction = _INFO["auction"]
    for slot, (seat, action) in enumerate(view.auction):
        base = auction + slot * _AUCTION_SLOT
        ones.append(base + seat)
        ones.append(base + MAX_PLAYERS + action)
    tricks = _INFO["tricks"]
    for slot, (leader, cards) in enumerate(view._all_tricks()):
        base = tricks + slot * _TRICK_SLOT
        ones.append(base + leader)
        ones.extend(
            base + MAX_PLAYERS + place * CARD_COUNT + card for place, card in enumerate(cards)
        )
    return ones


def _tensor(size: int, ones: Iterable[int]) -> list[float]:
    tensor = [0.0] * size
    for position in ones:
        tensor[position] = 1.0
    return tensor


def observation_tensor(view: Observation) -> list[float]:
    """The observation tensor: :data:`OBSERVATION_SIZE` floats, laid out as the module
    docstring's table says (:data:`OBSERVATION_LAYOUT`)."""
    return _tensor(OBSERVATION_SIZE, observation_ones(view))


def information_state_tensor(view: Observation) -> list[float]:
    """The information-state tensor: :data:`INFORMATION_STATE_SIZE` floats, laid out as the
    module docstring's table says (:data:`INFORMATION_STATE_LAYOUT`)."""
    return _tensor(INFORMATION_STATE_SIZE, information_state_ones(view))


# --------------------------------------------------------------------------- strings


def _seat(relative: int) -> str:
    return f"+{relative}"


def _cards(cards: Iterable[int]) -> str:
    return " ".join(_CARD_TEXTS[card] for card in cards) or "-"


def _contract_line(view: Observation) -> str:
    if view.contract is None:
        return "contract: passed out" if view.passed_out else "contract: -"
    soloist = "-" if view.soloist is None else _seat(view.soloist)
    trump = "-" if view.trump is None else SUIT_LETTERS[view.trump]
    return f"contract: {_ACTION_TEXTS[view.contract]} by {soloist}, trump {trump}"


def _head(view: Observation) -> list[str]:
    return [
        f"{view.ruleset}, {view.players} players, position {view.position}, {view.phase}",
        f"hand: {_cards(view.hand)}",
    ]


def _won_line(view: Observation) -> str:
    return "won: " + (" ".join(str(count) for count in view.tricks_won) or "-")


def information_state_string(view: Observation) -> str:
    """Everything the observer knows, in order (seats ``+0`` the observer, ``+1`` its left).

    >>> view = Observation("standard", 4, "auction", 3, (0, 23), ((1, 0), (2, 3)))
    >>> print(information_state_string(view))
    standard, 4 players, position 3, auction
    hand: C7 HA
    auction: +1 pass, +2 brand
    contract: -
    won: -
    """
    lines = _head(view)
    auction = ", ".join(f"{_seat(s)} {_ACTION_TEXTS[a]}" for s, a in view.auction)
    lines.append(f"auction: {auction or '-'}")
    lines.append(_contract_line(view))
    for number, trick in enumerate(view.tricks, start=1):
        lines.append(
            f"trick {number}: {_seat(trick.leader)} led {_cards(trick.cards)}, "
            f"{_seat(trick.winner)} took it"
        )
    if view.trick_leader is not None:
        lines.append(f"current: {_seat(view.trick_leader)} led {_cards(view.current_trick)}")
    lines.append(_won_line(view))
    return "\n".join(lines)


def observation_string(view: Observation) -> str:
    """What is true now: each seat's latest bid, the cards each has played, the trick.

    >>> view = Observation("standard", 4, "auction", 3, (0, 23), ((1, 0), (2, 3), (1, 0)))
    >>> print(observation_string(view))
    standard, 4 players, position 3, auction
    hand: C7 HA
    last bids: +1 pass, +2 brand
    contract: -
    won: -
    """
    lines = _head(view)
    last: dict[int, int] = {}
    for seat, action in view.auction:
        last[seat] = action
    bids = ", ".join(f"{_seat(s)} {_ACTION_TEXTS[last[s]]}" for s in sorted(last))
    lines.append(f"last bids: {bids or '-'}")
    lines.append(_contract_line(view))
    played: dict[int, list[int]] = {}
    for leader, cards in view._all_tricks():
        for place, card in enumerate(cards):
            played.setdefault((leader + place) % view.players, []).append(card)
    if played:
        lines.append(
            "played: "
            + "; ".join(f"{_seat(s)} {_cards(sorted(played[s]))}" for s in sorted(played))
        )
    if view.trick_leader is not None:
        lines.append(f"trick: {_seat(view.trick_leader)} led {_cards(view.current_trick)}")
    lines.append(_won_line(view))
    return "\n".join(lines)
