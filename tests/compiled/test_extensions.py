"""When a package's compiled modules are usable as a whole (brandeln.compiled.extensions), on a
fake build of a package inside a namespace: extensions are empty files here, never imported, and
the build's record of its sources (brandeln.compiled.source_hashes) is written as setup.py's
build writes it."""

from __future__ import annotations

import importlib.machinery
import os
from pathlib import Path

import pytest

from brandeln.compiled.extensions import CompiledModules
from brandeln.compiled.source_hashes import RECORD, read_record, source_digest, write_record

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def package(tmp_path: Path) -> Path:
    folder = tmp_path / "ns" / "pkg"
    (folder / "sub").mkdir(parents=True)
    for source in ("__init__.py", "hot.py", "cold.py", "sub/__init__.py", "sub/wire.py"):
        (folder / source).write_text(f"# {source}\n")
    return folder


def _modules(package: Path) -> CompiledModules:
    return CompiledModules("ns.pkg", package, ("hot", "sub.wire"))


def _build(package: Path, *names: str, library: bool = True, record: bool = True) -> None:
    for name in names:
        (package / f"{name}{SUFFIX}").write_bytes(b"")
    if library:
        (package / f"compiled__mypyc{SUFFIX}").write_bytes(b"")  # inside the package
    if record:
        compiled = {name.replace("/", "."): package / f"{name}.py" for name in names}
        write_record(package, {name: source_digest(path) for name, path in compiled.items()})


def _touch_later(package: Path, source: Path) -> None:
    """Give ``source`` a time after every extension's, as pip's install of a wheel does."""
    later = max(path.stat().st_mtime for path in package.rglob(f"*{SUFFIX}")) + 10
    os.utime(source, (later, later))


def test_no_build_and_a_whole_current_build_are_usable(package: Path) -> None:
    assert _modules(package).unusable_build() is None
    _build(package, "hot", "sub/wire")
    assert _modules(package).unusable_build() is None


def test_sources_written_after_their_extensions_but_unchanged_are_usable(package: Path) -> None:
    # A wheel's install: pip writes the .py files after the extensions (issue 49).
    _build(package, "hot", "sub/wire")
    for source in ("hot.py", "sub/wire.py"):
        (package / source).write_bytes((package / source).read_bytes())
        _touch_later(package, package / source)
    assert _modules(package).unusable_build() is None


def test_a_source_edited_after_its_build_sends_the_package_to_its_sources(package: Path) -> None:
    # An editable install's edit.
    _build(package, "hot", "sub/wire")
    with (package / "sub" / "wire.py").open("a") as source:
        source.write("x = 1\n")
    assert (
        _modules(package).unusable_build()
        == "ns/pkg/sub/wire.py changed since its compiled extension was built"
    )


def test_an_edit_is_noticed_whatever_the_file_times_say(package: Path) -> None:
    # The edit keeps the old time (a copy with its times, a checkout of an older file).
    _build(package, "hot", "sub/wire")
    source = package / "hot.py"
    before = source.stat()
    source.write_text("y = 2\n")
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (
        _modules(package).unusable_build()
        == "ns/pkg/hot.py changed since its compiled extension was built"
    )


def test_a_build_without_its_record_of_the_sources_is_unusable(package: Path) -> None:
    # An older build's, or one whose record was lost: nothing vouches for its sources.
    _build(package, "hot", "sub/wire", record=False)
    assert _modules(package).unusable_build() == (
        f"the compiled ns.pkg modules' source record {RECORD} is missing"
    )


def test_a_record_that_misses_a_module_is_unusable(package: Path) -> None:
    _build(package, "hot", "sub/wire")
    write_record(package, {"hot": source_digest(package / "hot.py")})  # sub.wire's hash lost
    assert (
        _modules(package).unusable_build()
        == "ns/pkg/sub/wire.py changed since its compiled extension was built"
    )


DIGEST = "ab" * 32


@pytest.mark.parametrize(
    "text",
    [
        "",
        f"hot.py: {DIGEST}\n",  # not sha256sum's format
        f"{DIGEST}  hot.py\nsomething else\n",
        f"{DIGEST.upper()}  hot.py\n",
        f"{DIGEST}  ../hot.py\n",
        f"{DIGEST} hot.py\n",
    ],
)
def test_a_damaged_record_is_no_record(package: Path, text: str) -> None:
    _build(package, "hot", "sub/wire")
    (package / RECORD).write_text(text)
    assert read_record(package) is None
    assert "source record" in str(_modules(package).unusable_build())


def test_a_module_whose_source_is_gone_runs_its_extension(package: Path) -> None:
    _build(package, "hot", "sub/wire")
    (package / "hot.py").unlink()
    assert _modules(package).unusable_build() is None


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
