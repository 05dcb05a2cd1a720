"""The one parser of a BOT argument, for `match run`, `ab` and `bot check`.

A BOT on the command line is one of:

- a **sample bot** by name: ``random``, ``heuristic``, ``montecarlo``
  (``brandeln.sample_bots.registry``), ``bridge`` (the stdio bridge's example child,
  ``sample_bots/bridge_examples/simple_bot.py``) or ``node`` (the Node.js sample bot; needs
  ``node``, and its bundle or packages: ``brandeln.sample_bots.node_bot``);
- a **command**: ``cmd:python mybot.py`` (split like a shell would, without a shell), or the
  words after ``--`` at the end of the command line (``brandeln match run random random random
  -- python mybot.py``; see :class:`CommandAfterDashes`);
- an **OpenSpiel search**: ``openspiel:ismcts`` or ``openspiel:mcts``, options after a colon
  (``openspiel:ismcts:simulations=50``), run by ``brandeln bot run`` (the research extra);
- a **registered bot id** (``bot_0123456789ab``, or ``id:ANY-ID``): a bot that connects by
  itself to a running referee (``--referee``).

Each becomes the description a season file gives (``brandeln.ladder.season.config.CommandBot`` or
``ExternalBot``), so the ladder's own pieces start, register and stop them. A command bot is
started with ``BRANDELN_SERVER``, ``BRANDELN_TOKEN``, ``BRANDELN_BOT_NAME`` and
``BRANDELN_TABLES`` in its environment, exactly as in a season.

>>> [bot.name for bot in parse_bots(["random", "random", "cmd:python my_bot.py"])]
['random', 'random-2', 'my_bot']
>>> parse_bot("bot_0123456789ab")
ExternalBot(name='bot_0123456789ab', bot_id='bot_0123456789ab')
"""

from __future__ import annotations

import difflib
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import typer

from brandeln.cli.argument_help import ArgumentHelpCommand
from brandeln.sample_bots.node_bot import NodeBotUnavailableError, node_bot_command

# The commands' modules import this one for CommandAfterDashes when `brandeln --help` runs:
# the ladder and the sample bots (the engine, 0.3 s) are imported where a BOT is parsed.
if TYPE_CHECKING:
    from brandeln.ladder.season.config import BotSpec, CommandBot

__all__ = [
    "COMMAND_PREFIX",
    "ID_PREFIX",
    "BotArgError",
    "CommandAfterDashes",
    "command_bot",
    "parse_bot",
    "parse_bots",
    "registered_ids",
    "sample_names",
    "trailing_command",
]

COMMAND_PREFIX: Final = "cmd:"
OPENSPIEL_PREFIX: Final = "openspiel:"
ID_PREFIX: Final = "id:"
# What the referee hands out (brandeln.arena.store.database: "bot_" and 12 hex digits); other ids
# need `id:`.
BOT_ID_PATTERN: Final = re.compile(r"^bot_[0-9a-f]{12}$")
# The sample bots a season file can name by command, beside brandeln.sample_bots.registry's.
EXAMPLE_NAMES: Final = ("bridge", "node")
# Where CommandAfterDashes leaves the words after `--`, in the click context's meta.
_META_KEY: Final = "brandeln.command_after_dashes"
_SAMPLE_ROOT: Final = Path(__file__).resolve().parent.parent / "sample_bots"
BRIDGE_CHILD: Final = _SAMPLE_ROOT / "bridge_examples" / "simple_bot.py"


class BotArgError(ValueError):
    """A BOT argument that names no bot; the message is one line, fit for ``error:``."""


def sample_names() -> tuple[str, ...]:
    """Every sample bot a BOT may name: the registry's, then the bridge and Node examples."""
    from brandeln.sample_bots.registry import BOT_NAMES  # noqa: PLC0415 - see the imports

    return (*BOT_NAMES, *EXAMPLE_NAMES)


def _sample_command(name: str) -> tuple[str, ...]:
    """The command a season file would give for the sample bot ``name``."""
    if name not in EXAMPLE_NAMES:
        from brandeln.services.play.sample_players import sample_command  # noqa: PLC0415 - see the imports

        return sample_command(name)
    if name == "bridge":
        # The child runs under this interpreter too: "python" on PATH may be another one.
        bridge = ("python", "-m", "brandeln.cli", "bot", "bridge", "--")
        return (*bridge, sys.executable, str(BRIDGE_CHILD))
    try:
        return node_bot_command()
    except NodeBotUnavailableError as error:
        raise BotArgError(str(error)) from None


def _name_for(command: Sequence[str]) -> str:
    """A bot name (NAME_PATTERN) from a command: its script's stem, else its program's name.

    >>> _name_for(["python", "-u", "bots/my bot.py"]), _name_for(["./run.sh"])
    ('my-bot', 'run')
    """
    from brandeln.ladder.season.config import NAME_PATTERN  # noqa: PLC0415

    words = [word for word in command if not word.startswith("-")]
    scripts = [word for word in words[1:] if Path(word).suffix in {".py", ".js", ".ts", ".rb"}]
    chosen = Path(scripts[0] if scripts else words[0] if words else command[0])
    stem = chosen.stem if chosen.suffix else chosen.name
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-._")[:64]
    return name if NAME_PATTERN.match(name) else "bot"


def command_bot(command: Sequence[str], *, name: str | None = None, tables: int = 1) -> CommandBot:
    """A command bot running ``command`` (named after its script unless ``name`` is given)."""
    from brandeln.ladder.season.config import CommandBot  # noqa: PLC0415

    parts = tuple(command)
    if not parts or not parts[0]:
        raise BotArgError("a command bot needs a program to run")
    return CommandBot(name=name or _name_for(parts), command=parts, tables=tables)


def parse_bot(text: str, *, tables: int = 1) -> BotSpec:
    """One BOT argument (see the module docstring); raises :class:`BotArgError`."""
    from brandeln.ladder.season.config import CommandBot, ExternalBot  # noqa: PLC0415

    samples = sample_names()
    if text in samples:
        return CommandBot(name=text, command=_sample_command(text), tables=tables)
    if text.startswith(OPENSPIEL_PREFIX):
        # Seated by `brandeln bot run`, which checks the spec (and OpenSpiel) when it starts.
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-._")[:64]
        command = ("python", "-m", "brandeln.cli", "bot", "run", text)
        return CommandBot(name=name, command=command, tables=tables)
    if text.startswith(COMMAND_PREFIX):
        source = text[len(COMMAND_PREFIX) :]
        try:
            parts = shlex.split(source)
        except ValueError as error:
            raise BotArgError(f"cannot split the command {source!r}: {error}") from None
        if not parts:
            raise BotArgError(f"{text!r}: write the command after `cmd:` (cmd:python mybot.py)")
        return command_bot(parts, tables=tables)
    if text.startswith(ID_PREFIX):
        bot_id = text[len(ID_PREFIX) :]
        if not bot_id:
            raise BotArgError(f"{text!r}: write the bot id after `id:`")
        return ExternalBot(name=_name_for([bot_id]), bot_id=bot_id)
    if BOT_ID_PATTERN.match(text):
        return ExternalBot(name=text, bot_id=text)
    close = difflib.get_close_matches(text, samples, n=1)
    suggestion = f"did you mean {close[0]!r}? " if close else ""
    raise BotArgError(
        f"unknown bot {text!r}: {suggestion}give a sample bot ({', '.join(samples)}), "
        f"an OpenSpiel search (openspiel:ismcts, openspiel:mcts), "
        f"a command (`cmd:python mybot.py`, or `-- python mybot.py` last) or a registered "
        "bot id (bot_...)"
    )


def parse_bots(
    args: Sequence[str], command: Sequence[str] = (), *, tables: int = 1
) -> tuple[BotSpec, ...]:
    """The BOT arguments by seat, then ``command`` (the words after ``--``) as one more bot.

    Names are made unique (``random``, ``random-2``, ...), since the ladder's pieces key bots
    by name; a bot id given twice is the same bot in two seats (the referee seats it twice if
    it has two sessions).
    """
    from brandeln.ladder.season.config import CommandBot, ExternalBot  # noqa: PLC0415

    specs: list[BotSpec] = [parse_bot(arg, tables=tables) for arg in args]
    if command:
        specs.append(command_bot(command, tables=tables))
    seen: set[str] = set()
    unique: list[BotSpec] = []
    for spec in specs:
        name, suffix = spec.name, 2
        while name in seen:
            name = f"{spec.name[:60]}-{suffix}"
            suffix += 1
        seen.add(name)
        if isinstance(spec, CommandBot):
            unique.append(CommandBot(name=name, command=spec.command, tables=spec.tables))
        else:
            unique.append(ExternalBot(name=name, bot_id=spec.bot_id))
    return tuple(unique)


def registered_ids(specs: Sequence[BotSpec]) -> list[str]:
    """The bot ids of the bots that connect by themselves (they need a running referee)."""
    from brandeln.ladder.season.config import ExternalBot  # noqa: PLC0415

    return [spec.bot_id for spec in specs if isinstance(spec, ExternalBot)]


class CommandAfterDashes(ArgumentHelpCommand):
    """A command whose last words after ``--`` are one bot's command line.

    Click would merge them into the positional arguments (``a b -- python x.py`` reads as four
    BOTs); this keeps them apart for :func:`trailing_command`::

        @app.command(cls=CommandAfterDashes)
        def run(ctx: typer.Context, bots: list[str]) -> None:
            specs = parse_bots(bots, trailing_command(ctx))
    """

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        if "--" in args:
            at = args.index("--")
            ctx.meta[_META_KEY] = tuple(args[at + 1 :])
            args = args[:at]
        return super().parse_args(ctx, args)


def trailing_command(ctx: typer.Context) -> tuple[str, ...]:
    """The words after ``--`` (empty when there were none)."""
    words = ctx.meta.get(_META_KEY, ())
    return tuple(str(word) for word in words)
