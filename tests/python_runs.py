"""A fresh interpreter for the compiled-build tests: the choice between compiled extensions
and sources is made once, at a package's first import, so each build is seen in a process of
its own."""

from __future__ import annotations

import os
import subprocess
import sys

from brandeln.engine import PURE_PYTHON_ENV
from tests.conftest import ROOT


def run_python(code: str, *args: str, pure: bool) -> str:
    """Run ``code`` at the project root, from the sources (``pure``) or the build as installed,
    and return what it printed; a fallback warning (a stale or partial build) fails it."""
    env = {key: value for key, value in os.environ.items() if key != PURE_PYTHON_ENV}
    if pure:
        env[PURE_PYTHON_ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", code, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout
