"""Command groups mounted by name, imported only when a command line resolves one.

`brandeln bench` is the benchmarks' (brandeln/bench/), which import every layer: `brandeln --help`
must not pay for them, and no runtime package imports them (tests/test_layering.py). So the
top-level group lists such a group from a placeholder (an empty group with its one-line help)
and builds the real one only when a command line names it: to run one of its commands, print
its help or complete its words. The real group is mounted exactly as ``add_typer`` would have
mounted it here, so its help, options and errors read as before.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

import typer
import typer.main
from typer.core import TyperGroup

if TYPE_CHECKING:
    # The click that this typer builds on (typer vendors it): for the types of the override.
    from typer._click import Command, Context


class LazyGroups(TyperGroup):
    """A group whose sub-groups named in :attr:`lazy` are placeholders until resolved.

    Subclass it with ``lazy`` set, give the subclass as ``typer.Typer(cls=...)`` and add each
    lazy group's placeholder where the group belongs in the list:
    ``app.add_typer(typer.Typer(help=...), name=...)``.
    """

    # A lazy group's name -> "module:attribute" of its typer.Typer.
    lazy: ClassVar[Mapping[str, str]] = {}

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        """The sub-command a command line names; a lazy group's real group, loaded now."""
        name, command, rest = super().resolve_command(ctx, args)
        if name is not None and name in self.lazy:
            command = self.load(name)
        return name, command, rest

    def load(self, name: str) -> Command:
        """Import the lazy group ``name`` and build it as this group's sub-group."""
        module, _, attribute = self.lazy[name].partition(":")
        group = getattr(importlib.import_module(module), attribute)
        if not isinstance(group, typer.Typer):
            raise TypeError(f"{self.lazy[name]} is no typer.Typer")
        # A parent with this group's settings (the ones a sub-group inherits) mounts it, the
        # way add_typer on the real parent would have.
        parent = typer.Typer(
            rich_markup_mode=self.rich_markup_mode, suggest_commands=self.suggest_commands
        )
        parent.add_typer(group, name=name)
        return typer.main.get_group(parent).commands[name]
