"""`brandeln admin token [--reset]`: how to get a local referee's admin token, or a new one.

The referee stores only a hash of its admin token, so a lost token cannot be shown again; a
reset writes a new hash into the database and prints the new token once. A running
`brandeln serve` reads the stored hash on every Admin call, so it accepts the new token at once
(and refuses the old one): a reset is how an operator who lost the token gets back in without
stopping the referee.
"""

from __future__ import annotations

import hmac
import os
from pathlib import Path
from typing import Annotated

import typer

from brandeln.cli.hints import reset_command
from brandeln.cli.options import DataOption
from brandeln.cli.output import copyable, fail
from brandeln.cli.output import notes as say
from brandeln.services import data_folder

# The new token alone goes to stdout, so `export BRANDELN_ADMIN_TOKEN=$(brandeln admin token
# --reset)` works; everything else is for the operator, on stderr (`say`).

admin_app = typer.Typer(help="Operate a local referee: its admin token.", no_args_is_help=True)

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="The referee database, as given to `serve --db` "
        f"[default: DATA/{data_folder.REFEREE_DB}].",
    ),
]


@admin_app.command("token")
def token(
    reset: Annotated[
        bool,
        typer.Option(
            "--reset",
            help="Make a new admin token, store its hash and print it once (a running "
            "referee on that database accepts it at once; the old one stops working).",
        ),
    ] = False,
    data: DataOption = None,
    db: DbOption = None,
) -> None:
    """Say how to get the admin token of a local referee (`brandeln serve`), or --reset it.

    Only the token's hash is stored, so a token cannot be shown twice. Without --reset this
    says whether a token is set, whether $BRANDELN_ADMIN_TOKEN is the right one, and which
    referee runs on the database now.
    """
    from brandeln.arena.datalock import current_holder  # noqa: PLC0415 - keep --help fast
    from brandeln.arena.errors import StoreError  # noqa: PLC0415
    from brandeln.arena.store.database import RefereeStore, hash_token, new_token  # noqa: PLC0415

    db_path = db or data_folder.referee_db(data)
    try:
        holder = current_holder(db_path)
        if not reset and not db_path.is_file():
            say.print(
                f"no referee database at {db_path} yet: `brandeln serve` makes an admin token "
                f"on its first start and prints it once (or takes ${data_folder.ADMIN_TOKEN_ENV}); "
                f"`{reset_command(db_path)}` makes one now",
                markup=False,
            )
            return
        store = RefereeStore(db_path)
    except StoreError as error:
        raise fail(str(error)) from None
    try:
        if holder is not None:
            say.print(f"running on it now: {holder.describe()}", markup=False)
        if reset:
            fresh = new_token()
            store.set_admin_token(fresh)
            say.print(
                "new admin token (shown once; export it as BRANDELN_ADMIN_TOKEN; the old one "
                "is refused from now on):",
                markup=False,
            )
            copyable.print(fresh, markup=False, highlight=False)
            if holder is not None:
                say.print(
                    "the running referee accepts it at once; if it was started with "
                    f"${data_folder.ADMIN_TOKEN_ENV}, it stores that one again when it restarts",
                    markup=False,
                )
            return
        stored = store.admin_token_hash()
        if stored is None:
            say.print(
                f"no admin token is set in {db_path}: `brandeln serve` makes one on its next "
                f"start and prints it, or `{reset_command(db_path)}` makes one now",
                markup=False,
            )
            return
        say.print(
            f"an admin token is set in {db_path}; only its hash is stored, so it cannot be "
            f"shown again. Lost it? `{reset_command(db_path)}` prints a new one",
            markup=False,
        )
        exported = os.environ.get(data_folder.ADMIN_TOKEN_ENV)
        if exported:
            matches = hmac.compare_digest(hash_token(exported), stored)
            verdict = "is the right one" if matches else "is NOT the right one"
            say.print(f"${data_folder.ADMIN_TOKEN_ENV} {verdict}", markup=False)
    finally:
        store.close()
