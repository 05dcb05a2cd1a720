"""``python -m brandeln.sample_bots NAME [options]`` /
``python -m brandeln.sdk.bridge [options] -- CMD``.

The same as ``brandeln bot run`` / ``brandeln bot bridge``, without the CLI's dependencies.
"""

from __future__ import annotations

import argparse
import os
import sys

# gRPC reads its log level when it is imported: errors only, unless the user chose otherwise.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from brandeln.sample_bots.launcher import (
    configure_logging,
    resolve_options,
    resolve_tables,
    run_bridge,
    run_sample_bot,
)
from brandeln.sample_bots.registry import BOT_NAMES
from brandeln.sdk import BotKitError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m brandeln.sample_bots", description=__doc__)
    p.add_argument("name", help=f"{' | '.join(BOT_NAMES)} | bridge")
    p.add_argument("--server", help="referee HOST:PORT [env BRANDELN_SERVER]")
    p.add_argument("--token", help="the bot's token [env BRANDELN_TOKEN]")
    p.add_argument("--tables", type=int, help="tables to play at once [env BRANDELN_TABLES, 1]")
    p.add_argument("--ca", help="CA certificate (PEM) to reach a TLS referee [env BRANDELN_CA]")
    p.add_argument("--seed", type=int, help="seed of the bot's random choices")
    p.add_argument("--level", type=int, help="expert: strength 1 (weakest) to 5 [3]")
    p.add_argument("--samples", type=int, help="montecarlo: at most this many samples per option")
    p.add_argument("--matches", type=int, help="stop after this many matches per table")
    p.add_argument(
        "--connect-timeout",
        type=float,
        help="seconds to keep trying to reach the referee [env BRANDELN_CONNECT_TIMEOUT, 120]",
    )
    p.add_argument("--bot-name", help="display name sent in Hello")
    p.add_argument("--snapshot-only", action="store_true", help="bridge: no events to the child")
    p.add_argument("--max-restarts", type=int, default=3, help="bridge: child restarts per match")
    p.add_argument("-v", "--verbose", action="store_true")
    p.epilog = "bridge: write the child's command after --, e.g. bridge --token T -- ./my_bot"
    return p


VALUE_OPTIONS = frozenset({"--server", "--token", "--ca", "--bot-name"})


def join_values(argv: list[str]) -> list[str]:
    """``--token -x1`` as ``--token=-x1``: argparse would take a value that starts with a dash
    (tokens may) for an option and fail."""
    out: list[str] = []
    index = 0
    while index < len(argv):
        if argv[index] in VALUE_OPTIONS and index + 1 < len(argv):
            out.append(f"{argv[index]}={argv[index + 1]}")
            index += 2
        else:
            out.append(argv[index])
            index += 1
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command: list[str] = []
    if "--" in argv:  # everything after -- is the bridge's child command
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    args = parser().parse_args(join_values(argv))
    configure_logging(args.verbose)
    try:
        options = resolve_options(
            args.server, args.token, args.ca, args.matches, args.connect_timeout
        )
        tables = resolve_tables(args.tables)
        if args.name == "bridge":
            run_bridge(
                command, options, tables, args.bot_name, args.snapshot_only, args.max_restarts
            )
        else:
            run_sample_bot(
                args.name, options, tables, args.seed, args.bot_name, args.level, args.samples
            )
    except (BotKitError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
