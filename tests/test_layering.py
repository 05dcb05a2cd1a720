"""The import directions of ARCHITECTURE.md, checked mechanically on the source's AST.

engine is pure (standard library only); arena and ladder never import each other; sample bots
use only the stubs, the SDK and (optionally) the engine; generated stubs import no project code.
bench/ (the benchmarks) may import everything; no runtime package imports bench, except the
CLI's entry point, which mounts `brandeln bench`.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Top-level modules each layer must never import.
FORBIDDEN: dict[str, frozenset[str]] = {
    "engine": frozenset(
        {
            "arena",
            "ladder",
            "brandeln",
            "brandeln_cli",
            "sample_bots",
            "grpc",
            "google",
            "asyncio",
            "typer",
            "rich",
            "trueskill",
            "logging",
            "sqlite3",
            "socket",
            "time",
            "threading",
            "subprocess",
            "bench",
        }
    ),
    "arena": frozenset({"ladder", "brandeln_cli", "sample_bots", "typer", "bench"}),
    "ladder": frozenset({"arena", "brandeln_cli", "sample_bots", "typer", "bench"}),
    "sample_bots": frozenset({"arena", "ladder", "brandeln_cli", "bench"}),
    "brandeln": frozenset({"engine", "arena", "ladder", "brandeln_cli", "sample_bots", "bench"}),
    "brandeln_cli": frozenset({"bench"}),
    # The benchmarks measure every layer: they may import all of them.
    "bench": frozenset(),
}

# `brandeln bench` is the benchmarks' entry point: the CLI's main module alone mounts it.
EXEMPT: dict[str, frozenset[str]] = {"brandeln_cli/main.py": frozenset({"bench"})}


def imported_top_levels(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (line, top-level module) for every import in a file, relative ones excepted."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def violations(layer: str, root: Path = ROOT) -> list[str]:
    found = []
    for path in sorted((root / layer).rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for line, module in imported_top_levels(path):
            exempt = EXEMPT.get(path.relative_to(root).as_posix(), frozenset())
            if module in FORBIDDEN[layer] and module not in exempt:
                found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_follow_the_architecture(layer: str) -> None:
    assert violations(layer) == []


def test_engine_uses_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"engine"}
    outside = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / "engine").rglob("*.py"))
        for line, module in imported_top_levels(path)
        if module not in allowed
    ]
    assert outside == []


def test_the_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    # Guard the guard: a planted violation must be reported.
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "bad.py").write_text("import grpc\nfrom arena import server\n")
    assert violations("engine", tmp_path) == [
        "engine/bad.py:1 imports grpc",
        "engine/bad.py:2 imports arena",
    ]


def test_the_checker_catches_a_runtime_package_importing_the_benchmarks(tmp_path: Path) -> None:
    (tmp_path / "ladder").mkdir()
    (tmp_path / "ladder" / "slow.py").write_text("from bench.season import run_season_bench\n")
    assert violations("ladder", tmp_path) == ["ladder/slow.py:1 imports bench"]
