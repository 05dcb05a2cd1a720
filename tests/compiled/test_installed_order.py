"""A compiled package laid out as pip installs a wheel keeps its extensions in use.

pip writes a wheel's ``.py`` files after its extensions, so every source is newer than the
library compiled from it; a build judged by file times ran the installed arena as pure Python
(issue 49). Here the checkout's own compiled build (``make install``) is copied in that order
into a folder of the test's, and imported from there by a fresh interpreter: the compiled
modules load, with no warning. An edited source still falls back, saying so. (The suite's
wheels are built pure: a compiled build takes minutes of both cores.)
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brandeln.compiled.modules import COMPILED, LIBRARY
from brandeln.compiled.source_hashes import RECORD

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)

# Imports a package's compiled modules and prints the file each came from; a fallback to the
# sources warns (RuntimeWarning), an error unless the test allows it.
SHOW = """
import importlib, sys, warnings
if sys.argv[2] == "strict":
    warnings.simplefilter("error", RuntimeWarning)
for module in sys.argv[3:]:
    print(importlib.import_module(f"{sys.argv[1]}.{module}").__file__)
"""


def _folder(package: str) -> Path:
    return (ROOT / Path(*package.split("."))).resolve()


def _install_as_pip_does(package: str, site: Path) -> Path:
    """The package's build and record first, its sources after (each then newer than every
    extension, as after pip's install); its folder under ``site``."""
    source = _folder(package)
    target = site / Path(*package.split("."))
    built = [p for p in source.rglob("*") if p.is_file() and p.name.endswith(SUFFIXES)]
    for path in [*built, source / RECORD]:
        (target / path.relative_to(source).parent).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / path.relative_to(source))
    later = time.time() + 10
    for path in source.rglob("*.py"):
        copied = target / path.relative_to(source)
        copied.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copied)
        os.utime(copied, (later, later))
    return target


def _show(site: Path, package: str, strict: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            SHOW,
            package,
            "strict" if strict else "lenient",
            *COMPILED[package],
        ],
        cwd=site,
        # The copy first on the path: its brandeln/ is the namespace's first portion.
        env={
            **{k: v for k, v in os.environ.items() if k != "BRANDELN_PURE_PYTHON"},
            "PYTHONPATH": str(site),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(params=sorted(COMPILED))
def package(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    folder = _folder(name)
    if not list(folder.glob(f"{LIBRARY}__mypyc*")) or not (folder / RECORD).exists():
        pytest.skip(f"{name} was installed as pure Python here: `make install` compiles it")
    return name


def test_a_build_installed_sources_last_runs_compiled(package: str, tmp_path: Path) -> None:
    target = _install_as_pip_does(package, tmp_path)
    done = _show(tmp_path, package, strict=True)
    assert done.returncode == 0, done.stderr[-2000:]
    files = [Path(line) for line in done.stdout.split()]
    assert len(files) == len(COMPILED[package])
    assert all(f.is_relative_to(target) and f.name.endswith(SUFFIXES) for f in files), files


def test_an_edited_source_of_that_build_falls_back_saying_so(package: str, tmp_path: Path) -> None:
    target = _install_as_pip_does(package, tmp_path)
    edited = target / Path(*COMPILED[package][0].split(".")).with_suffix(".py")
    edited.write_text(edited.read_text() + "\n# an edit after the build\n")
    done = _show(tmp_path, package, strict=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "runs as pure Python until `make install`" in done.stderr
    assert all(line.endswith(".py") for line in done.stdout.split()), done.stdout
