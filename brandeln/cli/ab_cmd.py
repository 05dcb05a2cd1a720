"""`brandeln ab --a BOT --b BOT`: is B better than A? (brandeln.ladder.season.ab plays,
brandeln.ladder.ratings.sprt decides.)

Exit code: 0 when the test accepts H1 (B is better by the threshold), 1 when it accepts H0 (it
is not), 3 when it stopped at ``--max-deals`` undecided; 2 for a usage error. With ``--deals N``
it plays exactly N deals and reports B - A with its interval, no test deciding: exit code 0.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from brandeln.cli.options import CaOption, DataOption, SeasonRefereeOption, referee_credentials
from brandeln.cli.output import console, fail
from brandeln.cli.terminal_text import json_text, markup
from brandeln.cli.wrapped_text import TOGETHER, Hanging
from brandeln.engine.plurals import plural
from brandeln.services import data_folder

if TYPE_CHECKING:
    from brandeln.ladder.ratings.sprt import Sprt
    from brandeln.ladder.season.ab import AbConfig, AbProgress, AbResult

H0_EXIT = 1
UNDECIDED_EXIT = 3
DEFAULT_CHIPS1 = 1.0
DEFAULT_ERROR_RATE = 0.05  # alpha and beta
DEFAULT_MAX_DEALS = 2000


def ab(
    a: Annotated[str, typer.Option("--a", metavar="BOT", help="The baseline (A).")],
    b: Annotated[str, typer.Option("--b", metavar="BOT", help="The candidate (B).")],
    against: Annotated[
        list[str] | None,
        typer.Option(
            metavar="BOT",
            help="An opponent (repeat for each other seat; cycled) [default: A in every seat].",
        ),
    ] = None,
    ruleset: Annotated[str, typer.Option(help="The ruleset.")] = "standard",
    elo0: Annotated[float | None, typer.Option(help="H0 in Elo on deal outcomes.")] = None,
    elo1: Annotated[float | None, typer.Option(help="H1 in Elo on deal outcomes.")] = None,
    chips0: Annotated[
        float | None, typer.Option(help="H0: B's gain in chips per deal [default: 0].")
    ] = None,
    chips1: Annotated[
        float | None, typer.Option(help="H1: B's gain in chips per deal [default: 1].")
    ] = None,
    alpha: Annotated[
        float | None, typer.Option(help="False 'B is better' rate [default: 0.05].")
    ] = None,
    beta: Annotated[
        float | None, typer.Option(help="False 'B is not better' rate [default: 0.05].")
    ] = None,
    max_deals: Annotated[
        int | None, typer.Option(min=2, help="Stop undecided after this [default: 2000].")
    ] = None,
    deals: Annotated[
        int | None,
        typer.Option(
            # An interval needs two deals at least: one deal's spread is unknown.
            min=2,
            help="Play exactly this many deals, no test deciding: B - A with its 95% interval "
            "(exit code 0).",
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Deal seed [default: random, printed].")] = None,
    move_ms: Annotated[
        int, typer.Option(min=0, help="Move time per decision [default: the referee's].")
    ] = 0,
    bank_ms: Annotated[int, typer.Option(min=0, help="Time bank per match.")] = 0,
    pairs: Annotated[
        int, typer.Option(min=1, max=32, help="Rotations played at once (two matches each).")
    ] = 2,
    data: DataOption = None,
    referee: SeasonRefereeOption = None,
    ca: CaOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Is B better than A? The same deals with A and with B in a seat, until an SPRT decides.

    Exit code 0: B is better (H1); 1: it is not better by the threshold (H0); 3: undecided
    at --max-deals. With --deals N: exactly N deals, B - A and its interval, exit code 0.
    """
    from brandeln.cli.bot_spec import BotArgError, parse_bots  # noqa: PLC0415
    from brandeln.engine.errors import EngineError  # noqa: PLC0415
    from brandeln.engine.rulesets import find_ruleset  # noqa: PLC0415
    from brandeln.ladder.season.ab import AbConfig  # noqa: PLC0415
    from brandeln.ladder.season.config import ExternalBot, TimeControl  # noqa: PLC0415

    try:
        players = find_ruleset(ruleset).players
    except EngineError as error:
        raise fail(str(error), code=2) from None
    test_options = {
        "--elo0": elo0, "--elo1": elo1, "--chips0": chips0, "--chips1": chips1,
        "--alpha": alpha, "--beta": beta, "--max-deals": max_deals,
    }  # fmt: skip
    given = [name for name, value in test_options.items() if value is not None]
    if deals is not None and given:
        raise fail(
            "--deals plays a fixed number of deals: the sequential test's options "
            f"({', '.join(given)}) do not apply; give one or the other",
            code=2,
        )
    sprt = _sprt(
        elo0,
        elo1,
        chips0,
        chips1,
        DEFAULT_ERROR_RATE if alpha is None else alpha,
        DEFAULT_ERROR_RATE if beta is None else beta,
    )
    opponents = list(against or [a])
    seated = [opponents[i % len(opponents)] for i in range(players - 1)]
    try:
        specs = parse_bots([a, b, *seated])
    except BotArgError as error:
        raise fail(str(error), code=2) from None
    if referee is None and any(isinstance(spec, ExternalBot) for spec in specs):
        raise fail("a registered bot id needs --referee (the referee it connects to)", code=2)
    seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    config = AbConfig(
        a=specs[0],
        b=specs[1],
        against=tuple(specs[2:]),
        ruleset=ruleset,
        players=players,
        deals_per_match=2 * players,
        max_deals=deals or max_deals or DEFAULT_MAX_DEALS,
        sequential=deals is None,
        seed=seed,
        pairs_at_once=pairs,
        time_control=TimeControl(move_ms=move_ms, bank_ms=bank_ms),
    )
    result = _run(config, sprt, data, referee, ca, quiet=as_json)
    if as_json:
        typer.echo(json_text(_document(config, sprt, result)))
    else:
        console.print(Hanging(_final_line(config, result)))
    if result.verdict == "H1" or not config.sequential:
        return
    raise typer.Exit(H0_EXIT if result.verdict == "H0" else UNDECIDED_EXIT)


def _sprt(
    elo0: float | None,
    elo1: float | None,
    chips0: float | None,
    chips1: float | None,
    alpha: float,
    beta: float,
) -> Sprt:
    from brandeln.ladder.ratings.sprt import Sprt  # noqa: PLC0415

    by_elo = elo0 is not None or elo1 is not None
    if by_elo and (chips0 is not None or chips1 is not None):
        raise fail("give --elo0/--elo1 or --chips0/--chips1, not both", code=2)
    try:
        if by_elo:
            if elo0 is None or elo1 is None:
                raise fail("--elo0 and --elo1 go together", code=2)
            return Sprt.elo(elo0, elo1, alpha=alpha, beta=beta)
        return Sprt.chips(
            0.0 if chips0 is None else chips0,
            DEFAULT_CHIPS1 if chips1 is None else chips1,
            alpha=alpha,
            beta=beta,
        )
    except ValueError as error:
        raise fail(str(error), code=2) from None


def _run(
    config: AbConfig,
    sprt: Sprt,
    data: Path | None,
    referee: str | None,
    ca: Path | None,
    *,
    quiet: bool,
) -> AbResult:
    import asyncio  # noqa: PLC0415

    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from brandeln.arena.errors import StoreError  # noqa: PLC0415
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415

    data_dir = data or data_folder.data_dir()
    admin_token, roots = referee_credentials(referee, ca)
    if not quiet:
        lower, upper = sprt.bounds
        test = (
            f"{_hypotheses(sprt)}, LLR bounds {lower:+.2f} / {upper:+.2f}"
            if config.sequential
            else f"{plural(config.max_deals, 'deal')}, fixed length"
        )
        console.print(
            f"ab: [bold]{markup(config.b.name)}[/bold] (B) against "
            f"[bold]{markup(config.a.name)}[/bold] (A), {config.ruleset}, seed {config.seed}; "
            + test,
            highlight=False,
        )
    try:
        return asyncio.run(_play(config, sprt, data_dir, referee, admin_token, roots, quiet))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except (LadderError, StoreError) as error:
        raise fail(str(error)) from None


async def _play(
    config: AbConfig,
    sprt: Sprt,
    data_dir: Path,
    referee: str | None,
    admin_token: str | None,
    roots: bytes | None,
    quiet: bool,
) -> AbResult:
    from brandeln.ladder.season.ab import run_ab  # noqa: PLC0415

    logs = data_dir / "ab" / "bots"
    with _ProgressView(config, quiet) as show:
        if referee is not None and admin_token is not None:
            return await run_ab(
                config, sprt, referee, admin_token, logs, progress=show, root_certificates=roots
            )
        from brandeln.arena.embedded import EmbeddedReferee  # noqa: PLC0415

        async with EmbeddedReferee(data_dir / "ab" / "referee") as embedded:
            return await run_ab(
                config, sprt, embedded.address, embedded.admin_token, logs, progress=show
            )


class _ProgressView:
    """Deals compared, the LLR between its bounds, chips per deal so far."""

    def __init__(self, config: AbConfig, quiet: bool) -> None:
        self.sequential = config.sequential
        self.progress = Progress(
            TextColumn("deals"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TextColumn("{task.fields[llr]}"),
            TextColumn("{task.fields[chips]}"),
            TimeElapsedColumn(),
            console=console,
            disable=quiet,
        )
        self.task = self.progress.add_task("ab", total=config.max_deals, llr="", chips="")

    def __enter__(self) -> _ProgressView:
        self.progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.progress.stop()

    def __call__(self, update: AbProgress) -> None:
        lower, upper = update.bounds
        self.progress.update(
            self.task,
            completed=update.deals,
            llr=f"LLR {update.llr:+.2f} ({lower:+.2f}, {upper:+.2f})" if self.sequential else "",
            chips=f"{update.mean:+.2f} chips/deal",
        )


def _hypotheses(sprt: Sprt) -> str:
    if sprt.elo0 is not None and sprt.elo1 is not None:
        return f"H0 elo {sprt.elo0:g}, H1 elo {sprt.elo1:g}"
    return f"H0 {sprt.mu0:+g}, H1 {sprt.mu1:+g} chips/deal"


_VERDICTS = {
    "H1": "H1: B is better",
    "H0": "H0: B is not better by the threshold",
    "undecided": "undecided at --max-deals",
}


def _final_line(config: AbConfig, result: AbResult) -> str:
    figures = (
        f"B{TOGETHER}-{TOGETHER}A: {result.mean:+.3f} chips/deal (95% interval "
        f"{result.low:+.3f} .. {result.high:+.3f}) over {plural(result.deals, 'deal')} "
        f"({plural(result.matches, 'match')}, {result.seconds:.0f}{TOGETHER}s)"
    )
    if config.sequential:
        return f"{figures}; LLR {result.llr:+.2f}: {_VERDICTS[str(result.verdict)]}"
    if result.low > 0:
        return f"{figures}; fixed length: B is ahead (the interval is above zero)"
    if result.high < 0:
        return f"{figures}; fixed length: B is behind (the interval is below zero)"
    return f"{figures}; fixed length: no difference shown (the interval holds zero)"


def _document(config: AbConfig, sprt: Sprt, result: AbResult) -> dict[str, object]:
    lower, upper = result.bounds
    sequential = config.sequential  # a fixed-length run has no test to report: nulls
    return {
        "a": config.a.name,
        "b": config.b.name,
        "against": [bot.name for bot in config.against],
        "ruleset": config.ruleset,
        "seed": config.seed,
        "test": "sprt" if sequential else "fixed",
        "scale": str(sprt.scale) if sequential else None,
        "mu0": sprt.mu0 if sequential else None,
        "mu1": sprt.mu1 if sequential else None,
        "alpha": sprt.alpha if sequential else None,
        "beta": sprt.beta if sequential else None,
        "verdict": str(result.verdict) if sequential else None,
        "deals": result.deals,
        "matches": result.matches,
        "seconds": result.seconds,
        "llr": result.llr if sequential else None,
        "llr_bounds": [lower, upper] if sequential else None,
        "chips_per_deal": result.mean,
        "interval95": [result.low, result.high],
    }
