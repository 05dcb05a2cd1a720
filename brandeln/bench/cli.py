"""`brandeln bench ...`: benchmarks, each measured against its floor in the same run.

``brandeln --help`` does not import this module (brandeln.cli.main mounts it by name); heavy
imports (grpc, the arena) happen inside the commands, so ``brandeln bench --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from brandeln.bench.output import console, errors, fail, markup

bench_app = typer.Typer(
    help="Benchmarks, each against its floor in the same run (figures, not pass/fail).",
    no_args_is_help=True,
)


def _table_counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise typer.BadParameter(f"expected numbers like 1,16,64, got {text!r}") from None
    if not counts or any(n < 1 for n in counts):
        raise typer.BadParameter("table counts must be positive, e.g. 1,16,64")
    return counts


@bench_app.command("referee")
def referee(
    tables: Annotated[
        str, typer.Option("--tables", help="Comma-separated table counts to measure.")
    ] = "1,16,64",
    quick: Annotated[
        bool, typer.Option("--quick", help="A short run: fewer decisions and repeats.")
    ] = False,
    snapshot_only: Annotated[
        bool,
        typer.Option("--snapshot-only", help="Bots say snapshot_only in Hello (fewer events)."),
    ] = False,
    repeats: Annotated[
        int | None, typer.Option("--repeats", min=1, help="Repeats per table count [3; quick 2].")
    ] = None,
    decisions: Annotated[
        int | None,
        typer.Option(
            "--decisions",
            min=1,
            help="Decisions per repeat to aim for, which sets the matches per table "
            "[6000; quick 1500].",
        ),
    ] = None,
    matches: Annotated[
        int | None,
        typer.Option(
            "--matches", min=1, help="Matches per table per repeat (overrides --decisions)."
        ),
    ] = None,
    deals: Annotated[int, typer.Option("--deals", min=1, help="Deals per match.")] = 8,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every benchmark match.")] = 7,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
    loop_profile: Annotated[
        bool,
        typer.Option(
            "--loop-profile",
            help="Also time what each server's event loop runs, per decision, side by side "
            "(about a microsecond a callback more).",
        ),
    ] = False,
) -> None:
    """The referee against its floor (the same messages, no rules): decisions/s, latency, CPU.

    Four instant bots per table over loopback gRPC, in one load-generator process; the floor is
    a bare gRPC server replaying the messages the referee sent in a recorded match. Ratios are
    referee/floor, computed within the run.
    """
    import asyncio  # noqa: PLC0415 - keep --help fast

    from brandeln.bench.referee.referee_bench import (  # noqa: PLC0415
        RefereeBenchSettings,
        run_referee_bench,
    )

    changes: dict[str, Any] = {
        "tables": _table_counts(tables),
        "snapshot_only": snapshot_only,
        "deals": deals,
        "seed": seed,
        "matches_per_table": matches,
        "loop_profile": loop_profile,
    }
    if repeats is not None:
        changes["repeats"] = repeats
    if decisions is not None:
        changes["decisions_per_repeat"] = decisions
    settings = RefereeBenchSettings.quick(**changes) if quick else RefereeBenchSettings(**changes)

    def progress(text: str) -> None:
        errors.print(f"[dim]{markup(text)}[/dim]")

    try:
        figures = asyncio.run(run_referee_bench(settings, progress))
    except (OSError, RuntimeError, TimeoutError) as error:
        raise fail(f"the benchmark failed: {error}") from None
    print_referee_figures(figures)
    if loop_profile:
        print_loop_profiles(figures)
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        console.print(f"figures written to {markup(str(json_path))}")


def _cell(spread: dict[str, float], digits: int) -> str:
    """``median ±h%``, h = half the range over the repeats as a share of the median."""
    median = spread["median"]
    half = (spread["max"] - spread["min"]) / 2
    share = f" ±{half / median:.0%}" if median else ""
    return f"{median:,.{digits}f}{share}"


def print_referee_figures(figures: dict[str, Any]) -> None:
    """The figures of ``run_referee_bench`` as rich tables."""
    settings = figures["settings"]
    script = figures["script"]
    mode = "snapshot_only bots" if settings["snapshot_only"] else "bots receive every event"
    table = Table(
        title=f"referee vs floor: {script['deals']} deals per match (seed {script['seed']}), "
        f"{script['decisions_per_match']} decisions per match, {mode}",
        caption="median over the repeats ±half their range. latency per decision: from a seat "
        "starting to write its answer to its table's next request arriving, in the load "
        "generator. busy: CPU s per wall s, server / load generator",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    for column in ("tables", "server", "decisions/s", "p50 ms", "p99 ms", "CPU ms/dec", "busy"):
        table.add_column(column, justify="right", no_wrap=True)
    for config in figures["configs"]:
        for name in ("referee", "floor"):
            summary = config[name]["summary"]
            table.add_row(
                str(config["tables"]) if name == "referee" else "",
                name,
                _cell(summary["decisions_per_s"], 0),
                _cell(summary["p50_ms"], 3),
                _cell(summary["p99_ms"], 1),
                _cell(summary["cpu_ms_per_decision"], 2),
                f"{summary['server_busy']['median']:.2f}/{summary['loadgen_busy']['median']:.2f}",
            )
        ratios = config["ratios"]
        table.add_row(
            "",
            "[bold]ratio[/bold]",
            _cell(ratios["decisions_per_s"], 2),
            _cell(ratios["p50_ms"], 2),
            _cell(ratios["p99_ms"], 2),
            _cell(ratios["cpu_ms_per_decision"], 2),
            "",
            end_section=True,
        )
    console.print(table)
    targets = Table(
        title="targets: ratios referee/floor (median of the repeats' ratios)", box=box.SIMPLE_HEAD
    )
    for column in ("target", "ratio", "limit", "met"):
        targets.add_column(column, justify="left" if column == "target" else "right")
    for target in figures["targets"]:
        ratio = target["ratio"]
        met = target["met"]
        targets.add_row(
            target["name"],
            "-" if ratio is None else f"{ratio:.2f}",
            ("<= " if target["at_most"] else ">= ") + f"{target['limit']:g}",
            "not measured" if met is None else ("[green]yes[/green]" if met else "[red]no[/red]"),
        )
    console.print(targets)
    same = all(
        c["messages_per_seat_per_match"]["referee"] == c["messages_per_seat_per_match"]["floor"]
        for c in figures["configs"]
    )
    console.print(
        f"messages per seat per match: {script['messages_per_seat']} "
        + ("(referee and floor alike)" if same else "[red](referee and floor differ)[/red]")
        + f"; run took {figures['elapsed_s']:.0f} s"
    )


# The montecarlo bot's strength run in `bench all`: about four minutes on two cores, an
# interval of some +-2 chips a deal (deals swing by tens of chips between these bots).
STRENGTH_DEALS = 200
LOOP_ROWS = 9  # the largest rows of a loop profile shown; the rest are summed in one
LOOP_NAME_CHARS = 46


def print_loop_profiles(figures: dict[str, Any]) -> None:
    """Each table count's loop profiles (``--loop-profile``): the servers' CPU per decision by
    what their loops ran, the largest rows first, referee beside floor."""
    for config in figures["configs"]:
        referee = config["referee"]["loop_us_per_decision"]
        floor = config["floor"]["loop_us_per_decision"]
        names = sorted(
            dict.fromkeys([*referee, *floor]),
            key=lambda n: referee.get(n, 0.0) + floor.get(n, 0.0),
            reverse=True,
        )
        table = Table(
            title=f"{config['tables']} table(s): server CPU per decision, µs",
            caption="what the event loop ran: a task by its coroutine, a callback by its "
            "function (medians over the repeats)",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            collapse_padding=True,
        )
        table.add_column("what the loop ran", no_wrap=True)
        table.add_column("referee", justify="right", no_wrap=True)
        table.add_column("floor", justify="right", no_wrap=True)
        for name in names[:LOOP_ROWS]:
            shown = name if len(name) <= LOOP_NAME_CHARS else name[: LOOP_NAME_CHARS - 1] + "…"
            table.add_row(
                markup(shown), f"{referee.get(name, 0.0):.1f}", f"{floor.get(name, 0.0):.1f}"
            )
        rest = names[LOOP_ROWS:]
        if rest:
            table.add_row(
                f"({len(rest)} more)",
                f"{sum(referee.get(n, 0.0) for n in rest):.1f}",
                f"{sum(floor.get(n, 0.0) for n in rest):.1f}",
            )
        table.add_row(
            "[bold]total[/bold]",
            f"{sum(referee.values()):.1f}",
            f"{sum(floor.values()):.1f}",
            end_section=True,
        )
        console.print(table)


@bench_app.command("season")
def season(
    quick: Annotated[bool, typer.Option("--quick", help="One short repeat.")] = False,
    blocks: Annotated[int | None, typer.Option(min=2, help="Blocks per season [6].")] = None,
    repeats: Annotated[int | None, typer.Option(min=1, help="Repeats [3].")] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """A season of four random bot processes end to end (logs, database, ratings included)
    against the referee benchmark at the same number of tables, in the same run."""
    import asyncio  # noqa: PLC0415 - keep --help fast
    import dataclasses  # noqa: PLC0415

    from brandeln.bench.season import SeasonBenchSettings, run_season_bench  # noqa: PLC0415

    settings = SeasonBenchSettings.quick() if quick else SeasonBenchSettings()
    if blocks is not None:
        settings = dataclasses.replace(settings, blocks=blocks)
    if repeats is not None:
        settings = dataclasses.replace(settings, repeats=repeats)
    figures = asyncio.run(run_season_bench(settings, _say))
    print_season_figures(figures)
    _write_json(json_path, figures)


@bench_app.command("cluster")
def cluster(
    quick: Annotated[bool, typer.Option("--quick", help="4 blocks.")] = False,
    blocks: Annotated[
        int | None, typer.Option(min=1, help="Blocks of the light season [12].")
    ] = None,
    season: Annotated[
        Path | None,
        typer.Option(help="A season file to play instead (e.g. examples/seasons/strength.toml)."),
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """A season on a Ray cluster of 1 and 2 nodes (network namespaces here; needs root)
    against one machine without Ray, each run's results compared; the driver's cost per
    block."""
    import dataclasses  # noqa: PLC0415

    from brandeln.bench.cluster import (  # noqa: PLC0415 - keep --help fast
        ClusterBenchSettings,
        print_cluster_figures,
        run_cluster_bench,
    )

    settings = ClusterBenchSettings.quick() if quick else ClusterBenchSettings()
    if blocks is not None:
        settings = dataclasses.replace(settings, blocks=blocks)
    if season is not None:
        settings = dataclasses.replace(settings, season=season)
    figures = run_cluster_bench(settings, _say)
    print_cluster_figures(figures, lambda line: console.print(line, markup=False, highlight=False))
    _write_json(json_path, figures)


@bench_app.command("storage")
def storage(
    quick: Annotated[
        bool, typer.Option("--quick", help="Sizes 1k and 10k matches, fewer repeats.")
    ] = False,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help="A PostgreSQL database to measure (it gets bench-N seasons) [default: a "
            "throwaway server, if PostgreSQL is installed].",
        ),
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """The ladder's store on SQLite and PostgreSQL at 1k and 100k recorded matches: blocks
    recorded per second and the latency of `brandeln ratings`' reads."""
    from brandeln.bench.storage import (  # noqa: PLC0415 - keep --help fast
        StorageBenchSettings,
        print_storage_figures,
        run_storage_bench,
    )

    settings = StorageBenchSettings.quick(db) if quick else StorageBenchSettings(db=db)
    figures = run_storage_bench(settings, _say)
    print_storage_figures(figures, lambda line: console.print(line, markup=False, highlight=False))
    _write_json(json_path, figures)


def _say(text: str) -> None:
    errors.print(f"[dim]{markup(text)}[/dim]")


def _write_json(path: Path | None, figures: dict[str, Any]) -> None:
    if path is not None:
        path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        console.print(f"figures written to {markup(str(path))}")


def print_season_figures(figures: dict[str, Any]) -> None:
    season_summary = figures["season"]["summary"]
    referee_summary = figures["referee"]["summary"]
    table = Table(title="season end to end vs the referee", box=box.SIMPLE_HEAD)
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = (
        ("season deals/s (first to last block)", _cell(season_summary["deals_per_s"], 1)),
        ("season deals/s with bot start-up", _cell(season_summary["end_to_end_deals_per_s"], 1)),
        ("season decisions/s", _cell(season_summary["decisions_per_s"], 0)),
        ("season decisions per deal", _cell(season_summary["decisions_per_deal"], 1)),
        ("referee decisions/s, same tables", _cell(referee_summary["decisions_per_s"], 0)),
        ("referee deals/s (its own deals)", _cell(referee_summary["deals_per_s"], 1)),
        ("season / referee, decisions/s", _cell(figures["ratio"], 2)),
        ("match log bytes per deal", _cell(season_summary["log_bytes_per_deal"], 0)),
    )
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
    met = "[green]met[/green]" if figures["target"]["met"] else "[red]missed[/red]"
    console.print(f"target: season / referee >= {figures['target']['limit']:g}: {met}")


@bench_app.command("solver")
def solver(
    seconds: Annotated[float, typer.Option(min=0.1, help="Seconds per measurement.")] = 1.0,
    rounds: Annotated[int, typer.Option(min=1, help="Measurements per figure (median).")] = 3,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """The double-dummy solver (brandeln.engine.double_dummy): solves/s from trick 1, 3 and 5."""
    from brandeln.bench.solver import START_TRICKS, run_solver_bench  # noqa: PLC0415

    figures = run_solver_bench(seconds=seconds, rounds=rounds)
    table = Table(
        title="double-dummy solves per second (positions per solve) by starting trick",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("ruleset")
    for start in START_TRICKS:
        table.add_column(f"trick {start}", justify="right", no_wrap=True)
    for ruleset_id, by_start in figures["rulesets"].items():
        cells = (by_start[str(start)] for start in START_TRICKS)
        table.add_row(
            ruleset_id,
            *(f"{cell['solves_per_s']:,.0f} ({cell['nodes_per_solve']:,.0f})" for cell in cells),
        )
    console.print(table)
    _write_json(json_path, figures)


@bench_app.command("storage-referee")
def storage_referee(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="An empty PostgreSQL database to fill [default: a throwaway server from "
            "Debian's binaries, in a source tree].",
        ),
    ] = None,
    sizes: Annotated[
        str, typer.Option("--sizes", help="Comma-separated match counts to measure at.")
    ] = "1000,100000",
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """The referee's storage on SQLite and PostgreSQL: `matches list` latency and matches
    recorded per second at each size, and a deal's log bytes in the store."""
    from brandeln.bench.storage_referee import (  # noqa: PLC0415
        RefereeStorageBenchSettings,
        print_storage_figures,
        run_storage_bench,
    )

    settings = RefereeStorageBenchSettings(sizes=_table_counts(sizes))
    figures = run_storage_bench(settings, db, _say)
    print_storage_figures(figures)
    _write_json(json_path, figures)


@bench_app.command("all")
def bench_all(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for report.md and report.json.")
    ] = Path("bench-results"),
    quick: Annotated[bool, typer.Option("--quick", help="Short runs of everything.")] = False,
) -> None:
    """Every benchmark in one go: engine vs OpenSpiel, the montecarlo bot's playouts and their
    worth at the same time budget (a short duplicate run against its pure-Python reference),
    referee vs floor at 1/16/64 tables (also snapshot_only) with CPU per decision, referee
    memory at 64 and 256 tables and over a 10,000-deal soak, season end to end, CLI start-up;
    one report."""
    import asyncio  # noqa: PLC0415 - keep --help fast
    import dataclasses  # noqa: PLC0415

    from brandeln.bench import report as bench_report  # noqa: PLC0415
    from brandeln.bench.engine import run_benchmarks  # noqa: PLC0415
    from brandeln.bench.montecarlo import run_playout_bench, run_strength_bench  # noqa: PLC0415
    from brandeln.bench.referee.memory import MemoryBenchSettings, run_memory_bench  # noqa: PLC0415
    from brandeln.bench.referee.own_cost import OwnCostSettings, run_own_cost  # noqa: PLC0415
    from brandeln.bench.referee.referee_bench import RefereeBenchSettings, run_referee_bench  # noqa: PLC0415
    from brandeln.bench.season import SeasonBenchSettings, run_season_bench  # noqa: PLC0415

    figures: dict[str, Any] = {"benchmark": "all", "machine": bench_report.machine()}
    _say("engine: random deals through the public API and the fast path, OpenSpiel if present")
    figures["engine"] = run_benchmarks(seconds=0.5 if quick else 1.0, rounds=3 if quick else 5)
    referee_settings = (
        RefereeBenchSettings.quick(tables=(1, 16, 64))
        if quick
        else RefereeBenchSettings(tables=(1, 16, 64))
    )
    _say("montecarlo bot: playouts/s, engine as installed and as its pure-Python reference")
    figures["montecarlo"] = run_playout_bench(seconds=0.5 if quick else 1.0, rounds=3)
    strength_deals = 16 if quick else STRENGTH_DEALS
    _say(
        f"montecarlo bot: {strength_deals} duplicate deals as installed against its pure-Python "
        "reference, same time budget (brandeln ab)"
    )
    figures["montecarlo"]["strength"] = run_strength_bench(strength_deals)
    with bench_report.RssSampler() as rss:
        figures["referee"] = asyncio.run(run_referee_bench(referee_settings, _say))
    _say("referee again, every bot snapshot_only (fewer events per decision)")
    figures["referee_snapshot_only"] = asyncio.run(
        run_referee_bench(dataclasses.replace(referee_settings, snapshot_only=True), _say)
    )
    _say("referee alone, no gRPC: its own CPU per decision (sessions answered in-process)")
    own_matches = 1 if quick else 4
    figures["referee_own_cost"] = {
        key: dataclasses.asdict(
            asyncio.run(run_own_cost(OwnCostSettings(matches=own_matches, snapshot_only=snap)))
        )
        for key, snap in (("normal", False), ("snapshot_only", True))
    }
    memory_settings = (
        MemoryBenchSettings(tables=(64, 256), soak_deals=1000, soak_chunks=4)
        if quick
        else MemoryBenchSettings()
    )
    figures["memory"] = asyncio.run(run_memory_bench(memory_settings, _say))
    figures["memory"]["referee_bench_peak_mib"] = rss.peak_kib / 1024
    for key in ("referee", "referee_snapshot_only"):
        for target in figures[key]["targets"]:
            name = "ratio_p50_1" if target["metric"] == "p50_ms" else "ratio_decisions_16"
            figures[key][name] = target["ratio"]
        figures[key]["decision_ratios"] = {
            str(config["tables"]): config["ratios"]["decisions_per_s"]["median"]
            for config in figures[key]["configs"]
        }
    season_settings = SeasonBenchSettings.quick() if quick else SeasonBenchSettings()
    figures["season"] = asyncio.run(run_season_bench(season_settings, _say))
    from brandeln.bench.storage import StorageBenchSettings, run_storage_bench  # noqa: PLC0415

    _say("storage: the ladder's store on SQLite and PostgreSQL at two sizes")
    figures["storage"] = run_storage_bench(
        StorageBenchSettings.quick() if quick else StorageBenchSettings(), _say
    )
    _say("PettingZoo environment: random masked play against PettingZoo's classic card games")
    figures["pettingzoo"] = _pettingzoo_figures(seconds=0.5 if quick else 1.0)
    _say("OpenSpiel game: random play through pyspiel against OpenSpiel's C++ oh_hell")
    figures["openspiel"] = _openspiel_figures(seconds=0.5 if quick else 1.0)
    _say("CLI start-up: brandeln --help")
    figures["cli"] = bench_report.cli_startup()
    figures["targets"] = bench_report.targets(figures)
    out.mkdir(parents=True, exist_ok=True)
    markdown = bench_report.render_markdown(figures)
    (out / "report.md").write_text(markdown, encoding="utf-8")
    (out / "report.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    console.print(markdown, markup=False, highlight=False)
    console.print(
        f"report written to {markup(str(out / 'report.md'))} and {markup(str(out / 'report.json'))}"
    )


def _pettingzoo_figures(seconds: float) -> dict[str, Any] | None:
    """The PettingZoo benchmark's figures, or None without the research extra."""
    try:
        import pettingzoo  # noqa: F401, PLC0415 - the research extra, optional

        from brandeln.bench.research_pettingzoo import run_pettingzoo_bench  # noqa: PLC0415
    except ImportError:
        _say("PettingZoo not installed (pip install -e '.[research]'): not measured")
        return None
    return run_pettingzoo_bench(seconds=seconds)


def _openspiel_figures(seconds: float) -> dict[str, Any] | None:
    """The OpenSpiel game's figures, or None without the research extra."""
    try:
        import pyspiel  # noqa: F401, PLC0415 - the research extra, optional

        from brandeln.bench.research_envs import run_research_bench  # noqa: PLC0415
    except ImportError:
        _say("OpenSpiel not installed (pip install -e '.[research]'): not measured")
        return None
    return run_research_bench(seconds=seconds)


@bench_app.command("openspiel")
def openspiel_game(
    seconds: Annotated[float, typer.Option(min=0.01, help="Seconds per game per round.")] = 1.0,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds (medians count).")] = 3,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """The OpenSpiel game's steps/s with random play through the pyspiel API, against
    OpenSpiel's C++ oh_hell (4 players, 32 cards, 7 tricks) through the same API."""
    from brandeln.bench.research_envs import markdown, run_research_bench  # noqa: PLC0415

    figures = run_research_bench(seconds=seconds, rounds=rounds)
    console.print("\n".join(markdown(figures)), markup=False, highlight=False)
    _write_json(json_path, figures)


@bench_app.command("pettingzoo")
def pettingzoo_env(
    seconds: Annotated[float, typer.Option(min=0.01, help="Seconds per game per round.")] = 1.0,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds (medians count).")] = 3,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """The PettingZoo environment's steps/s with random masked play, against PettingZoo's
    classic card games (those whose packages are installed) and the engine alone."""
    from brandeln.bench.research_pettingzoo import markdown, run_pettingzoo_bench  # noqa: PLC0415

    figures = run_pettingzoo_bench(seconds=seconds, rounds=rounds)
    console.print("\n".join(markdown(figures)), markup=False, highlight=False)
    _write_json(json_path, figures)


@bench_app.command("web")
def web(
    quick: Annotated[
        bool, typer.Option("--quick", help="Smaller sizes (1k and 10k) and fewer requests.")
    ] = False,
    sizes: Annotated[
        str | None,
        typer.Option("--sizes", help="Comma-separated recorded-match counts [1000,100000]."),
    ] = None,
    requests: Annotated[
        int | None, typer.Option("--requests", min=1, help="Requests per page and size [40].")
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write every figure to this JSON file.")
    ] = None,
) -> None:
    """The web pages' times at 1k and 100k recorded matches (a real season's pages, the rest
    of the stores filled with synthetic rows): leaderboard and match pages within 2x."""
    import dataclasses  # noqa: PLC0415 - keep --help fast

    from brandeln.bench.web import WebBenchSettings, run_web_bench  # noqa: PLC0415

    settings = WebBenchSettings.quick() if quick else WebBenchSettings()
    if sizes is not None:
        settings = dataclasses.replace(settings, sizes=_table_counts(sizes))
    if requests is not None:
        settings = dataclasses.replace(settings, requests=requests)
    if len(settings.sizes) < 2:
        raise typer.BadParameter("give at least two sizes to compare, e.g. 1000,100000")
    figures = run_web_bench(settings, _say)
    print_web_figures(figures)
    _write_json(json_path, figures)


def print_web_figures(figures: dict[str, Any]) -> None:
    sizes = figures["sizes"]
    table = Table(
        title="web pages: median ms per request (in-process, stores opened per request)",
        caption="ratio: median over the rounds of the largest size's time over the smallest's",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("page")
    for size in sizes:
        table.add_column(f"{size['matches']:,} matches", justify="right")
    table.add_column("ratio", justify="right")
    targets = set(figures["target"]["pages"])
    for page, ratio in figures["ratios"].items():
        name = f"{page} (target)" if page in targets else page
        cells = [f"{size['pages'][page]['median']:.2f}" for size in sizes]
        table.add_row(name, *cells, f"{ratio:.2f}")
    console.print(table)
    filled = ", ".join(f"{s['synthetic']:,} synthetic in {s['fill_s']:.1f} s" for s in sizes)
    console.print(f"stores filled: {filled}")
    met = "[green]met[/green]" if figures["target"]["met"] else "[red]missed[/red]"
    console.print(
        f"target: leaderboard and match pages at most {figures['target']['limit']:g}x "
        f"at {sizes[-1]['matches']:,} matches what they take at {sizes[0]['matches']:,}: {met}"
    )
