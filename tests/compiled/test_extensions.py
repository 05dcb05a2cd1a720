"""When a package's compiled modules are usable as a whole (brandeln.compiled.extensions), on a
fake build of a package inside a namespace: extensions are empty files here, never imported."""

from __future__ import annotations

import importlib.machinery
import os
from pathlib import Path

import pytest

from brandeln.compiled.extensions import CompiledModules

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def package(tmp_path: Path) -> Path:
    folder = tmp_path / "ns" / "pkg"
    (folder / "sub").mkdir(parents=True)
    for source in ("__init__.py", "hot.py", "cold.py", "sub/__init__.py", "sub/wire.py"):
        (folder / source).write_text("")
    return folder


def _modules(package: Path) -> CompiledModules:
    return CompiledModules("ns.pkg", package, ("hot", "sub.wire"))


def _build(package: Path, *names: str, library: bool = True) -> None:
    for name in names:
        built = package / f"{name}{SUFFIX}"
        built.write_bytes(b"")
        later = (package / f"{name}.py").stat().st_mtime + 10
        os.utime(built, (later, later))
    if library:
        (package / f"compiled__mypyc{SUFFIX}").write_bytes(b"")  # inside the package


def test_no_build_and_a_whole_current_build_are_usable(package: Path) -> None:
    assert _modules(package).unusable_build() is None
    _build(package, "hot", "sub/wire")
    assert _modules(package).unusable_build() is None


def test_a_source_edited_after_its_build_sends_the_package_to_its_sources(package: Path) -> None:
    _build(package, "hot", "sub/wire")
    later = (package / "sub" / f"wire{SUFFIX}").stat().st_mtime + 10
    os.utime(package / "sub" / "wire.py", (later, later))
    assert (
        _modules(package).unusable_build()
        == "ns/pkg/sub/wire.py is newer than its compiled extension"
    )


def test_a_partial_build_is_unusable(package: Path) -> None:
    _build(package, "hot")
    assert "ns/pkg/sub/wire.py has no compiled extension" in str(_modules(package).unusable_build())


def test_a_build_without_its_shared_library_is_unusable(package: Path) -> None:
    _build(package, "hot", "sub/wire", library=False)
    assert "library compiled__mypyc is missing" in str(_modules(package).unusable_build())


def test_an_extension_left_from_an_older_build_is_unusable(package: Path) -> None:
    _build(package, "hot", "sub/wire", "cold")
    assert _modules(package).unusable_build() == f"ns/pkg/cold{SUFFIX} is left from an older build"


def test_sources_are_found_for_modules_of_the_package_only(package: Path) -> None:
    modules = _modules(package)
    assert modules.source_of("ns.pkg.sub.wire") == package / "sub" / "wire.py"
    assert modules.source_of("ns.pkg.sub") is None  # a package: the default finder's
    assert modules.source_of("ns.other.hot") is None
    assert modules.source_of("ns.pkg") is None
    assert modules.source_of("ns.pkghot") is None
