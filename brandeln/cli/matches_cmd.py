"""`brandeln matches ...` and `brandeln bots ...`: inspect what the referee recorded."""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from brandeln.cli.db_option import DbOption
from brandeln.cli.options import CaOption, DataOption, JsonOption, RefereeOption
from brandeln.cli.output import copyable as console
from brandeln.cli.output import fail, hint
from brandeln.cli.terminal_text import json_text, markup, plain, safe
from brandeln.engine.plurals import plural
from brandeln.services.sources import LocalSource, SourceError, open_source

if TYPE_CHECKING:
    from brandeln.arena.logreader import MatchLog
    from brandeln.arena.replay import ReplayReport
    from brandeln.cli.card_play import CardPlay
    from brandeln.engine.play_analysis import PlayAnalysis

matches_app = typer.Typer(help="List, show, export and verify matches.", no_args_is_help=True)
bots_app = typer.Typer(help="Register and list bot identities.", no_args_is_help=True)


def _time(ms: int) -> str:
    if not ms:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


def _players(names: tuple[str, ...], balances: tuple[int, ...]) -> Text:
    return Text(
        ", ".join(f"{safe(name)} {chips:+d}" for name, chips in zip(names, balances, strict=False))
    )


@bots_app.command("add")
def bots_add(
    name: str,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print {bot_id, name, token} as JSON.")
    ] = False,
) -> None:
    """Register a bot; prints its token once (only a hash is stored)."""
    try:
        bot, token = open_source(data, referee, ca, create=True).add_bot(name)
    except SourceError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(json_text({"bot_id": bot.bot_id, "name": bot.name, "token": token}, None))
        return
    # The token first: whatever the name holds, it must not cost the only copy of the token.
    console.print(f"token (shown once): [bold]{markup(token)}[/bold]")
    console.print(f"registered [bold]{markup(bot.name)}[/bold] as {markup(bot.bot_id)}")


@bots_app.command("list")
def bots_list(
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """The registered bots."""
    try:
        bots = open_source(data, referee, ca, db=db).bots()
    except SourceError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(json_text([dataclasses.asdict(b) for b in bots]))
        return
    from brandeln.cli.layout import compact_table, fixed, folding  # noqa: PLC0415

    table = compact_table(title="bots")
    fixed(table, "bot id")
    folding(table, "name")
    fixed(table, "registered")
    fixed(table, "revoked")
    for bot in bots:
        table.add_row(
            plain(bot.bot_id), plain(bot.name), _time(bot.created_at), "yes" if bot.revoked else ""
        )
    console.print(table, soft_wrap=False)


@bots_app.command("revoke")
def bots_revoke(
    name: Annotated[str, typer.Argument(help="The bot's name or id.")], data: DataOption = None
) -> None:
    """Revoke a bot's token in the local referee database (a running referee too).

    Its next Hello is refused (UNAUTHENTICATED); sessions it has open play on until they end,
    and a dropped seat of it cannot be resumed.
    """
    try:
        source = LocalSource(data)
        bot_id = source.resolve_bot(name)
        source.revoke_bot(bot_id)
    except SourceError as error:
        raise fail(str(error)) from None
    console.print(
        f"revoked [bold]{markup(name)}[/bold] ({markup(bot_id)}): its token is refused from now on"
    )


@matches_app.command("list")
def matches_list(
    season: Annotated[
        str | None, typer.Option(help="Only this ladder season's matches (from its database).")
    ] = None,
    bot: Annotated[str | None, typer.Option(help="Only this bot's matches (name or id).")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 20,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Finished and running matches, newest first (with --season: a season's, by block)."""
    if season is not None:
        _season_matches(season, bot, limit, data, referee, ca, as_json, db)
        return
    try:
        source = open_source(data, referee, ca, db=db)
        bot_id = source.resolve_bot(bot) if bot else ""
        rows = source.matches(bot_id, limit)
    except SourceError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(json_text([dataclasses.asdict(r) for r in rows]))
        return
    _show_matches(
        "matches, newest first (under each: its bots by seat, chips won)",
        [("started", False), ("ruleset", False), ("status", False)],
        [
            (
                r.match_id,
                [_time(r.started_at), safe(r.ruleset), safe(r.status)],
                r.deals_played,
                _players(r.bot_names, r.balances),
            )
            for r in rows
        ],
        data=data,
        referee=referee,
        ca=ca,
    )


def _season_matches(
    season: str,
    bot: str | None,
    limit: int,
    data: Path | None,
    referee: str | None,
    ca: Path | None,
    as_json: bool,
    db: str | None,
) -> None:
    """A season's matches as the ladder recorded them, newest block first."""
    from brandeln.cli.db_option import ladder_database  # noqa: PLC0415
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    # The ladder where `season run` put it: --db (or $BRANDELN_DB), else DATA/ladder.db.
    try:
        with LadderStore.open(ladder_database(db, data), create=False) as store:
            recorded = store.reads.matches(season)
    except LadderError as error:
        raise fail(str(error)) from None
    rows = [m for m in reversed(recorded) if bot is None or bot in m.bots][:limit]
    if as_json:
        typer.echo(json_text([{**dataclasses.asdict(m), "season": season} for m in rows]))
        return
    # The season's matches live at the referee that played them: the hint keeps --referee.
    _show_matches(
        f"season {safe(season)}: matches, newest block first (under each: bots by seat, chips)",
        [("block", True), ("rotation", True), ("suits", False)],
        [
            (
                m.match_id,
                [str(m.block_index), str(m.rotation), safe(m.suit_permutation)],
                m.deals_played,
                _players(m.bots, m.balances),
            )
            for m in rows
        ],
        data=data,
        referee=referee,
        ca=ca,
    )


def _show_matches(
    title: str,
    columns: Sequence[tuple[str, bool]],
    rows: Sequence[tuple[str, list[str], int, Text]],
    *,
    data: Path | None,
    referee: str | None,
    ca: Path | None,
) -> None:
    """A listing of matches: each row's id, its ``columns`` (name, right-aligned) and deals,
    its players on a second line; then the command that shows the newest one (``data``,
    ``referee`` and ``ca`` say where they were read, for that command)."""
    from brandeln.cli.layout import two_line_list  # noqa: PLC0415 - keep --help fast

    listing = two_line_list(
        title,
        [("match id", False), *columns, ("deals", True)],
        [
            ([safe(match_id), *cells, str(deals)], players)
            for match_id, cells, deals, players in rows
        ],
    )
    console.print(listing, soft_wrap=False)
    if rows:
        from brandeln.cli import hints  # noqa: PLC0415 - keep --help fast

        hint(
            "inspect one",
            hints.command("matches", "show", rows[0][0], data=data, referee=referee, ca=ca),
        )


def _load(
    match_id: str, data: Path | None, referee: str | None, ca: Path | None, db: str | None
) -> LoadedLog:
    """The match's log (by id or unique prefix), read and validated: a one-line error (exit 1)
    when it cannot be."""
    from brandeln.arena.logreader import MatchLogError, read_log  # noqa: PLC0415 - keep --help fast

    try:
        source = open_source(data, referee, ca, db=db)
        record, text = source.match(match_id)
        name = source.log_name(record)
        return LoadedLog(name, text, read_log(text, name), dataclasses.asdict(record))
    except (SourceError, MatchLogError) as error:
        raise fail(str(error)) from None


def _warn_not_reproduced(match_id: str, problems: Sequence[str]) -> None:
    """One line before a view of a log whose shown results the replay does not give."""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    console.print(
        plain(
            f"not reproduced: {problems[0]}{more}; the results below are the replay's "
            f"(brandeln matches verify {match_id})",
            style="red",
        ),
        soft_wrap=True,
    )


@dataclasses.dataclass(frozen=True)
class LoadedLog:
    name: str  # how errors name it: its file (and the referee it came from)
    text: str
    log: MatchLog
    indexed: dict[str, Any]  # the match index's row: what lists, ratings and leaderboards show

    def replay(self) -> tuple[ReplayReport, list[str]]:
        """The replay of this log and every result it (or its index row) shows that the
        replay does not give."""
        from brandeln.arena.replay import replay  # noqa: PLC0415 - keep --help fast

        report = replay(self.log)
        return report, [*report.problems, *report.index_problems(self.indexed)]


MatchIdArgument = Annotated[str, typer.Argument(help="A match id, or any unique prefix of one.")]


@matches_app.command("show")
def matches_show(
    match_id: MatchIdArgument,
    deal: Annotated[int | None, typer.Option(help="Show this deal trick by trick.")] = None,
    logs: Annotated[
        str | None,
        typer.Option(
            "--logs",
            metavar="SEAT",
            help="Also show what this seat's bot logged (seat number, bot name or id); "
            "with --deal, that deal's lines only.",
        ),
    ] = None,
    double_dummy: Annotated[
        bool,
        typer.Option(
            "--double-dummy",
            help="Judge every card with the exact solver, every hand known (as bridge programs "
            "analyse a hand record): with --deal, mark the cards that gave their side's goal "
            "away, with the cards that would have kept it; else each seat's tally.",
        ),
    ] = False,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """A match at a glance, or one deal: hands, auction, trump, every trick, settlement."""
    from brandeln.cli.match_view import (  # noqa: PLC0415 - keep --help fast
        bot_log_json,
        bot_log_view,
        deal_detail,
        deal_detail_json,
        double_dummy_json,
        match_overview,
        match_overview_json,
        seat_of,
    )

    loaded = _load(match_id, data, referee, ca, db)
    log = loaded.log
    full_id = log.header.match_id
    # The result shown is the replay's, never the footer's word for it (an edited log would
    # otherwise show edited ranks); a log that does not reproduce says so first.
    report, problems = loaded.replay()
    try:
        seat = None if logs is None else seat_of(log.header, logs)
        analysis = None if deal is None or not double_dummy else _analysis(log, deal)
        play = _seats_card_play(full_id, log) if double_dummy and deal is None else None
        if as_json:
            document = (
                match_overview_json(log, report) if deal is None else deal_detail_json(log, deal)
            )
            document["reproduced"] = not problems
            document["problems"] = problems
            if analysis is not None:
                document["double_dummy"] = double_dummy_json(analysis)
            if play is not None:
                from brandeln.cli.card_play import card_play_json  # noqa: PLC0415

                document["double_dummy"] = card_play_json(play)
            if seat is not None:
                document["bot_log"] = {"seat": seat, "lines": bot_log_json(log, seat, deal)}
            typer.echo(json_text(document))
            return
        view = match_overview(log, report) if deal is None else deal_detail(log, deal, analysis)
    except KeyError as error:
        raise fail(str(error.args[0])) from None
    if problems and log.footer is not None:
        _warn_not_reproduced(full_id, problems)
    console.print(view, soft_wrap=False)
    if play is not None:
        from brandeln.cli.card_play import card_play_table  # noqa: PLC0415

        console.print(card_play_table(play, "seat"), soft_wrap=False)
        for line in play.unread:
            console.print(plain(f"not judged: {line}", style="yellow"), soft_wrap=True)
    if seat is not None:
        console.print(bot_log_view(log, seat, deal), soft_wrap=False)
    if deal is None:
        from brandeln.cli import hints  # noqa: PLC0415

        hint(
            "one deal trick by trick",
            hints.command(
                "matches", "show", full_id, "--deal", "1", data=data, referee=referee, ca=ca
            ),
        )


def _seats_card_play(match_id: str, log: MatchLog) -> CardPlay:
    """Each seat's card play over the match, judged double dummy (brandeln.cli.card_play)."""
    from brandeln.cli.card_play import CardPlay, judge_match  # noqa: PLC0415
    from brandeln.cli.match_view import seat_names  # noqa: PLC0415
    from brandeln.engine.play_analysis import SeatPlay  # noqa: PLC0415

    seats = tuple(seat_names(log.header))
    play = CardPlay({seat: SeatPlay() for seat in seats})
    judge_match(play, _Seated(match_id, seats), log)
    return play


@dataclasses.dataclass(frozen=True)
class _Seated:
    match_id: str
    bots: tuple[str, ...]


def _analysis(log: MatchLog, deal: int) -> PlayAnalysis:
    """The double-dummy analysis of one deal of a validated log; a one-line error (exit 1)
    when its recorded play does not replay."""
    from brandeln.arena.replay import logged_deal  # noqa: PLC0415 - keep --help fast
    from brandeln.engine.errors import EngineError  # noqa: PLC0415
    from brandeln.engine.play_analysis import analyse_play  # noqa: PLC0415

    try:
        ruleset, dealt, actions = logged_deal(log, deal)
        return analyse_play(ruleset, dealt, actions)
    except (EngineError, ValueError) as error:
        raise fail(f"deal {deal} cannot be replayed for its analysis: {error}") from None


@matches_app.command("export")
def matches_export(
    match_id: MatchIdArgument,
    html: Annotated[
        bool,
        typer.Option(
            "--html",
            help="Export the deal replay as one self-contained HTML file (styles, script and "
            "data inline; it loads nothing from the network) instead of the log.",
        ),
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write to this file instead of printing.", dir_okay=False
        ),
    ] = None,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    db: DbOption = None,
) -> None:
    """Print the match's full JSON Lines log (after checking it reads as one), or with --html
    its replay as one HTML file to mail or attach to an issue."""
    loaded = _load(match_id, data, referee, ca, db)
    if html:
        from brandeln.web.export_html import export_html  # noqa: PLC0415 - keep --help fast

        text = export_html(loaded.log)
    else:
        text = terminal_safe_jsonl(loaded.text) if output is None else loaded.text
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise fail(f"cannot write {output}: {error.strerror or error}") from None
    what = "the replay (HTML)" if html else "the log (JSON Lines)"
    console.print(
        f"wrote {what} of match {markup(loaded.log.header.match_id)} to {markup(str(output))}"
    )


def terminal_safe_jsonl(text: str) -> str:
    """The log as written (already read and validated: every line parses), except that a line
    holding a raw control or format character (only a damaged or edited log has one: the
    writer escapes them) is printed re-encoded with JSON escapes, which mean the same and
    cannot act on the terminal."""
    if text.isascii() and all(line.isprintable() for line in text.splitlines()):
        return text
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if not line.strip() or body.isprintable():
            out.append(line)
            continue
        out.append(json_text(json.loads(body), None) + line[len(body) :])
    return "".join(out)


@matches_app.command("verify")
def matches_verify(
    match_id: MatchIdArgument,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the replay report as JSON (reproduced, balances, problems).",
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Replay the match's log through the engine and check every result it shows.

    Exit 0 when reproduced; else exit 1 and list what differs, the first differing field first.
    """
    loaded = _load(match_id, data, referee, ca, db)
    report, problems = loaded.replay()
    reproduced = report.reproduced and not problems
    if as_json:
        document = {
            "match_id": report.match_id,
            "reproduced": reproduced,
            "complete": report.complete,
            "deals_replayed": report.deals_replayed,
            "recorded_balances": report.recorded_balances,
            "replayed_balances": list(report.replayed_balances),
            "problems": problems,
        }
        typer.echo(json_text(document))
        if not reproduced:
            raise typer.Exit(1)
        return
    if reproduced:
        console.print(
            f"[green]reproduced[/green]: {plural(report.deals_replayed, 'deal')} replayed; "
            "contracts, "
            f"tricks, payments, balances {list(report.replayed_balances)}, ranks, strikes and "
            "forfeits match the log",
            highlight=False,
        )
        return
    console.print(f"[red]not reproduced[/red]: {markup(loaded.name)}", highlight=False)
    for problem in problems:
        console.print(f"- {markup(problem)}", highlight=False)
    raise typer.Exit(1)
