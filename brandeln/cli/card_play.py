"""`ratings --double-dummy`: a season's card play judged from its match logs, bot by bot
(and `matches show --double-dummy`: one match's, seat by seat).

Every card of every finished deal of the season's matches is judged by
:mod:`brandeln.engine.play_analysis` (the exact solver, every hand known). Per bot: the cards that
mattered (its side could still reach its goal) and the ones that gave the goal away, as
soloist and as defender. Chips and ratings mix card play with bidding and the cards dealt; this
is the card play alone. A log that cannot be read, or a deal whose play does not replay, is
counted as not read and named, never an error for the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rich.table import Table

from brandeln.arena.logreader import MatchLog, MatchLogError, read_log
from brandeln.arena.replay import engine_deal
from brandeln.cli.layout import compact_table, fixed, folding
from brandeln.cli.terminal_text import plain
from brandeln.engine.errors import EngineError
from brandeln.engine.play_analysis import SeatPlay, analyse_play
from brandeln.engine.plurals import plural
from brandeln.services.sources import SourceError

__all__ = [
    "CardPlay",
    "Seated",
    "card_play_json",
    "card_play_table",
    "judge_match",
    "season_card_play",
]


class Seated(Protocol):
    """A match to judge: its id and who sat where (a season's ``RecordedMatch`` is one)."""

    @property
    def match_id(self) -> str: ...
    @property
    def bots(self) -> tuple[str, ...]: ...


# The log of one match, by id: (its text, the name its errors give), or SourceError.
ReadLog = Callable[[str], tuple[str, str]]


@dataclass
class CardPlay:
    """Each bot's tally, in the order the bots were given, and what could not be judged."""

    bots: dict[str, SeatPlay]
    deals: int = 0
    unread: list[str] = field(default_factory=list)  # "m_...: why", one per match or deal


def season_card_play(
    matches: Sequence[Seated],
    bots: Sequence[str],
    read: ReadLog,
    progress: Callable[[], None] = lambda: None,
) -> CardPlay:
    """Judge every card of ``matches`` (a season's, whose ``bots`` name each seat's season
    bot); ``progress`` is called once per match."""
    found = CardPlay({bot: SeatPlay() for bot in bots})
    for match in matches:
        try:
            text, name = read(match.match_id)
            log = read_log(text, name)
        except (SourceError, MatchLogError) as error:
            found.unread.append(f"{match.match_id}: {error}")
        else:
            judge_match(found, match, log)
        progress()
    return found


def judge_match(found: CardPlay, match: Seated, log: MatchLog) -> None:
    """Add every card of the match's log to ``found``, each seat's to the bot ``match.bots``
    seats there."""
    for logged in log.deals():
        try:
            analysis = analyse_play(*engine_deal(log, logged))
        except (EngineError, ValueError) as error:
            found.unread.append(f"{match.match_id} deal {logged.number}: {error}")
            continue
        found.deals += 1
        for verdict in analysis.verdicts:
            if verdict.seat < len(match.bots):
                found.bots.setdefault(match.bots[verdict.seat], SeatPlay()).add(verdict)


def _rate(errors: int, mattered: int) -> str:
    return "-" if not mattered else f"{100 * errors / mattered:.1f}%"


def card_play_table(play: CardPlay, who: str = "bot") -> Table:
    """Bot (or seat), then as soloist and as defender: the cards that mattered, those that gave
    the goal away and their share. Fits 80 columns."""
    table = compact_table(
        title=f"card play, double dummy ({plural(play.deals, 'deal')}, every hand known)",
        caption="cards: those that mattered (the side could still reach its goal) · "
        "slips: those that gave it away",
    )
    folding(table, who)
    for column in ("solo cards", "slips", "share", "def. cards", "slips", "share"):
        fixed(table, column, right=True)
    for bot, tally in play.bots.items():
        table.add_row(
            plain(bot),
            str(tally.soloist_mattered),
            str(tally.soloist_errors),
            _rate(tally.soloist_errors, tally.soloist_mattered),
            str(tally.defender_mattered),
            str(tally.defender_errors),
            _rate(tally.defender_errors, tally.defender_mattered),
        )
    return table


def card_play_json(play: CardPlay) -> dict[str, Any]:
    return {
        "deals": play.deals,
        "bots": [
            {
                "bot": bot,
                "soloist_cards": tally.soloist_mattered,
                "soloist_slips": tally.soloist_errors,
                "defender_cards": tally.defender_mattered,
                "defender_slips": tally.defender_errors,
            }
            for bot, tally in play.bots.items()
        ],
        "unread": list(play.unread),
    }
