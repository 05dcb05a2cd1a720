"""``python -m brandeln.sample_bots NAME [options]``: a sample bot, as ``brandeln bot run``
plays it, without the CLI's dependencies. (Any program behind the stdio bridge:
``python -m brandeln.sdk.bridge``.)
"""

from __future__ import annotations

import argparse
import os
import sys

# gRPC reads its log level when it is imported: errors only, unless the user chose otherwise.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from brandeln.sample_bots.launcher import run_sample_bot
from brandeln.sample_bots.registry import BOT_NAMES
from brandeln.sdk.launch import (
    add_session_options,
    bot_name,
    configure_logging,
    exit_status,
    join_values,
    resolve_tables,
    session_options,
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m brandeln.sample_bots", description=__doc__)
    p.add_argument("name", help=" | ".join(BOT_NAMES))
    add_session_options(p)
    p.add_argument("--seed", type=int, help="seed of the bot's random choices")
    p.add_argument("--level", type=int, help="expert: strength 1 (weakest) to 5 [3]")
    p.add_argument("--samples", type=int, help="montecarlo: at most this many samples per option")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(join_values(sys.argv[1:] if argv is None else argv))
    configure_logging(args.verbose)
    return exit_status(
        lambda: run_sample_bot(
            args.name,
            session_options(args),
            resolve_tables(args.tables),
            args.seed,
            bot_name(args.bot_name),
            args.level,
            args.samples,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
