"""The modules the install compiles are listed once (brandeln/compiled/modules.py): setup.py
compiles them, the Makefile reinstalls when one changes, and each package runs them compiled,
all from that list; and every mypyc library stays inside the namespace."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

import pytest

from brandeln.compiled.extensions import CompiledModules
from brandeln.compiled.modules import COMPILED, group, sources
from tests.conftest import ROOT


@pytest.mark.parametrize("package", sorted(COMPILED))
def test_each_package_compiles_what_the_list_names(package: str) -> None:
    modules = importlib.import_module(package)._MODULES
    assert isinstance(modules, CompiledModules)
    assert modules.compilable == COMPILED[package]
    for source in sources(package):
        assert (ROOT / source).is_file(), source


def test_the_makefile_reads_the_list_and_reinstalls_when_a_listed_source_changes() -> None:
    printed = subprocess.run(
        [sys.executable, "brandeln/compiled/modules.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert printed == sources()
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")  # continued lines
    assert re.search(
        r"^COMPILED_SOURCES := \$\(shell \$\(PYTHON\) brandeln/compiled/modules\.py\)$",
        makefile,
        re.M,
    )
    [stamp] = re.findall(r"^\$\(STAMP\):(.*)$", makefile, re.M)
    assert "$(COMPILED_SOURCES)" in stamp.split()
    assert "brandeln/compiled/modules.py" in stamp.split()
    # setup.py runs it to record the compiled sources' hashes, which a new build must rewrite.
    assert "brandeln/compiled/source_hashes.py" in stamp.split()


def test_setup_and_the_makefile_name_no_compiled_module_of_their_own() -> None:
    # A second list, however short, would drift from the first.
    packages = "|".join(name.replace(".", "/").removeprefix("brandeln/") for name in COMPILED)
    for name in ("setup.py", "Makefile"):
        text = (ROOT / name).read_text()
        assert re.findall(rf"\b(?:brandeln/)?(?:{packages})/[\w/]+\.py\b", text) == [], name


def test_every_mypyc_library_is_inside_its_package() -> None:
    # setup.py names each group after its package's list; the shared library is the group's
    # name with __mypyc, a module inside the package: nothing but brandeln at the top level.
    for package in COMPILED:
        assert group(package).startswith(f"{package}.")
        assert package.split(".")[0] == "brandeln"
