"""The command line of a benchmark timed in rounds of a few seconds (``--seconds``,
``--rounds``, ``--json``): the research environments' two share it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

Figures = dict[str, Any]


def timed_bench_main(
    prog: str,
    description: str | None,
    run: Callable[[float, int], Figures],
    render: Callable[[Figures], list[str]],
    argv: Sequence[str] | None,
) -> int:
    """Parse ``argv``, run ``run(seconds, rounds)``, print ``render``'s lines and, with
    ``--json PATH``, write the figures there too."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per game per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; medians count")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here as JSON")
    args = parser.parse_args(argv)
    figures = run(args.seconds, args.rounds)
    print("\n".join(render(figures)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
            handle.write("\n")
    return 0
