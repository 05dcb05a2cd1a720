"""Help that names a command's arguments the way they are typed: ``BOT...``, ``[NAME]``.

Typer writes a required argument as ``{bots}`` in the usage line and gives each argument its
Python type (``bots... <list[str]>``), and a repeatable option its list type
(``--ruleset <list[str]>``): notation of Python, not of a command line. Every command of the
CLI is built as :class:`ArgumentHelpCommand` instead (:func:`name_arguments_plainly`, called
once on the whole app), which writes an argument as its metavar or its name in capitals,
``[...]`` around an optional one and ``...`` after one that takes several, and a repeatable
option by the type of one value.

>>> usage_name("BOT", required=True, many=True), usage_name("NAME", required=False, many=False)
('BOT...', '[NAME]')
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import typer
from typer.core import TyperArgument, TyperCommand, TyperOption

if TYPE_CHECKING:
    from typer._click import Context, HelpFormatter

__all__ = ["ArgumentHelpCommand", "name_arguments_plainly", "usage_name"]

MANY = "..."
_LIST_TYPE = re.compile(r"<list\[([^\]]*)\]>")  # Typer's type of a repeatable option


def usage_name(name: str, *, required: bool, many: bool) -> str:
    """An argument as a usage line shows it: ``NAME``, ``[NAME]``, ``NAME...``."""
    shown = name if required else f"[{name}]"
    return shown + MANY if many and not name.endswith(MANY) else shown


def _argument_name(argument: TyperArgument) -> str:
    return argument.metavar or (argument.name or "").upper()


def _many(argument: TyperArgument) -> bool:
    return argument.nargs != 1


class ArgumentHelpCommand(TyperCommand):
    """A Typer command whose help writes its arguments and repeatable options plainly."""

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                if not param.hidden:
                    name = _argument_name(param)
                    pieces.append(usage_name(name, required=param.required, many=_many(param)))
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            shown, text = record
            if isinstance(param, TyperArgument):
                name = _argument_name(param)
                arguments.append((usage_name(name, required=True, many=_many(param)), text))
            elif isinstance(param, TyperOption):
                options.append((_LIST_TYPE.sub(r"<\1>", shown), text))
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        if options:
            with formatter.section("Options"):
                formatter.write_dl(options)


def name_arguments_plainly(app: typer.Typer) -> None:
    """Build every command of ``app`` and of its groups, to any depth, as
    :class:`ArgumentHelpCommand` (a command given a class of its own must derive from it)."""
    for info in app.registered_commands:
        if info.cls is None or info.cls is TyperCommand:
            info.cls = ArgumentHelpCommand
        elif not issubclass(info.cls, ArgumentHelpCommand):
            raise TypeError(f"{info.cls.__name__} does not derive from ArgumentHelpCommand")
    for group in app.registered_groups:
        if group.typer_instance is not None:
            name_arguments_plainly(group.typer_instance)
