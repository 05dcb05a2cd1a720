"""``python -m brandeln.sdk.bridge [options] -- COMMAND``: COMMAND as a bot speaking JSON Lines
on its stdin and stdout, as ``brandeln bot bridge`` runs it, with the SDK alone installed.
"""

from __future__ import annotations

import argparse
import os
import sys

# gRPC reads its log level when it is imported: errors only, unless the user chose otherwise.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from brandeln.sdk.bridge.run import run_bridge
from brandeln.sdk.launch import (
    add_session_options,
    configure_logging,
    exit_status,
    join_values,
    resolve_tables,
    session_options,
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m brandeln.sdk.bridge", description=__doc__)
    add_session_options(p)
    p.add_argument("--snapshot-only", action="store_true", help="no events to the child")
    p.add_argument("--max-restarts", type=int, default=3, help="child restarts per match")
    p.epilog = "write the child's command after --, e.g. --token T -- ./my_bot"
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command: list[str] = []
    if "--" in argv:  # everything after -- is the child's command
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    args = parser().parse_args(join_values(argv))
    configure_logging(args.verbose)
    return exit_status(
        lambda: run_bridge(
            command,
            session_options(args),
            resolve_tables(args.tables),
            args.bot_name,
            args.snapshot_only,
            args.max_restarts,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
