"""`python -m brandeln.cli` is the `brandeln` command."""

from brandeln.cli.main import app

app()
