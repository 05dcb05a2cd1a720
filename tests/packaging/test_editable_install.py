"""The project installs cleanly: an editable install in pip's default mode is one .pth line per
distribution (the arena's to the project root, the SDK's to sdk/python; no import hook to slow
every start of the CLI) and builds without warnings."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

BUILD = "import setuptools.build_meta as backend, sys; print(backend.build_editable(sys.argv[1]))"


@pytest.mark.parametrize(
    ("project", "on_path"), [(ROOT, ROOT), (ROOT / "sdk" / "python", ROOT / "sdk" / "python")]
)
def test_an_editable_build_is_a_plain_pth_and_warns_of_nothing(
    project: Path, on_path: Path, tmp_path: Path
) -> None:
    built = subprocess.run(
        [sys.executable, "-W", "always", "-c", BUILD, str(tmp_path)],
        cwd=project,
        # Without compiling the engine core (setup.py): that takes a minute, and writes the
        # extensions beside the sources the other tests are importing.
        env={**os.environ, "BRANDELN_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "Warning" not in built.stderr, built.stderr  # e.g. setuptools' BuildBackendWarning
    wheel = zipfile.ZipFile(tmp_path / built.stdout.strip().splitlines()[-1])
    names = wheel.namelist()
    assert not [name for name in names if name.endswith("_finder.py")]
    [pth] = [name for name in names if name.endswith(".pth")]
    assert Path(wheel.read(pth).decode().strip()) == on_path
    metadata = next(name for name in names if name.endswith("METADATA"))
    assert "License-Expression: MIT" in wheel.read(metadata).decode()
