"""`python -m brandeln_cli` is the `brandeln` command."""

from brandeln_cli.main import app

app()
