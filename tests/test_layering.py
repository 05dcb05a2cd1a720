"""The import directions of ARCHITECTURE.md, checked mechanically on the source's AST.

engine is pure (standard library only); arena and ladder never import each other; sample bots
use only the stubs, the SDK and (optionally) the engine; generated stubs import no project code.
brandeln/services/ (what the CLI and the web front both compose) sits below them and above arena and
ladder. brandeln/bench/ (the benchmarks) may import every layer but the CLI; no runtime package
imports bench: the CLI mounts `brandeln bench` by name, loaded only when it runs.
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
            "datastore",
            "brandeln",
            "brandeln.cli",
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
            "web",
            "cluster",
            "services",
            "protocol",
            "ray",
        }
    ),
    # Both stores' base: no project code (the standard library and the SQL toolkit only,
    # see test_datastore_uses_only_the_standard_library_and_the_sql_toolkit).
    "datastore": frozenset(
        {
            "engine",
            "arena",
            "ladder",
            "brandeln",
            "brandeln.cli",
            "sample_bots",
            "bench",
            "web",
            "cluster",
            "services",
            "protocol",
        }
    ),
    "arena": frozenset(
        {
            "ladder",
            "brandeln.cli",
            "sample_bots",
            "typer",
            "bench",
            "web",
            "cluster",
            "services",
            "ray",
        }
    ),
    "ladder": frozenset(
        {
            "arena",
            "brandeln.cli",
            "sample_bots",
            "typer",
            "bench",
            "web",
            "cluster",
            "services",
            "ray",
        }
    ),
    # The web front composes the stores and the Admin client like the CLI, beside it: it reads
    # through arena's and ladder's own modules, never through the CLI's.
    "web": frozenset({"brandeln.cli", "sample_bots", "typer", "rich", "bench", "cluster", "ray"}),
    # The cluster executor composes arena and ladder beside the CLI (ARCHITECTURE.md), never
    # through it; Ray is imported by it alone.
    "cluster": frozenset({"brandeln.cli", "sample_bots", "typer", "rich", "bench", "web"}),
    "sample_bots": frozenset(
        {"arena", "ladder", "brandeln.cli", "bench", "web", "cluster", "services"}
    ),
    # The generated stubs: no project code. The rest of the `brandeln` folder is the research
    # environments (below), the namespace the packages move into (ARCHITECTURE.md).
    "brandeln/v1": frozenset(
        {
            "engine",
            "arena",
            "ladder",
            "brandeln.cli",
            "sample_bots",
            "bench",
            "web",
            "services",
            "protocol",
        }
    ),
    # The learning environments consume the engine like the arena does (ARCHITECTURE.md): the
    # engine, the encoding and the sample bots, and the arena's codec to ask those bots; never
    # the operators' layers above them.
    **dict.fromkeys(
        (
            "brandeln/pettingzoo",
            "brandeln/gymnasium_env",
            "brandeln/openspiel",
            "brandeln/engine_encoding.py",
        ),
        frozenset(
            {"ladder", "datastore", "brandeln.cli", "bench", "web", "cluster", "services", "ray"}
        ),
    ),
    # The public contract's values both sides of the wire share (statuses, event records, the
    # reading of a streamed event): the engine's values and the stubs, nothing else of ours,
    # so the arena and the ladder may both import it without importing each other.
    "protocol": frozenset(
        {
            "arena",
            "ladder",
            "datastore",
            "brandeln.cli",
            "sample_bots",
            "bench",
            "web",
            "cluster",
            "services",
            "grpc",
            "typer",
            "rich",
            "ray",
        }
    ),
    # What the CLI and the web front both compose: below them, it never imports either (nor the
    # benchmarks or the cluster executor), and it prints nothing, so no typer, no rich.
    "services": frozenset({"brandeln.cli", "web", "bench", "cluster", "typer", "rich", "ray"}),
    # `brandeln bench` is mounted by name and loaded when it runs (brandeln/cli/main.py).
    "brandeln.cli": frozenset({"bench", "ray"}),
    # The benchmarks measure every layer: they may import all of them but the CLI, which
    # mounts them (an import back would make a cycle through the entry point).
    "bench": frozenset({"brandeln.cli"}),
}


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
    place = root / layer  # a package's folder, or one module
    for path in [place] if place.is_file() else sorted(place.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for line, module in imported_top_levels(path):
            if module in FORBIDDEN[layer]:
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


# What the stores' base is built on besides the standard library (pyproject's dependencies).
SQL_TOOLKIT = frozenset({"sqlalchemy", "alembic", "psycopg"})


def test_datastore_uses_only_the_standard_library_and_the_sql_toolkit() -> None:
    allowed = set(sys.stdlib_module_names) | {"datastore"} | SQL_TOOLKIT
    outside = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / "brandeln" / "datastore").rglob("*.py"))
        for line, module in imported_top_levels(path)
        if module not in allowed
    ]
    assert outside == []


def test_the_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    # Guard the guard: a planted violation must be reported.
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "bad.py").write_text("import grpc\nfrom brandeln.arena import server\n")
    assert violations("engine", tmp_path) == [
        "engine/bad.py:1 imports grpc",
        "engine/bad.py:2 imports arena",
    ]


def test_the_checker_catches_a_runtime_package_importing_the_benchmarks(tmp_path: Path) -> None:
    (tmp_path / "ladder").mkdir()
    (tmp_path / "ladder" / "slow.py").write_text(
        "from brandeln.bench.season import run_season_bench\n"
    )
    assert violations("ladder", tmp_path) == ["ladder/slow.py:1 imports bench"]


def test_the_checker_catches_the_benchmarks_importing_the_cli(tmp_path: Path) -> None:
    # The CLI mounts the benchmarks: an import back is the cycle this layering removed.
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "cli.py").write_text("from brandeln.cli.output import console\n")
    assert violations("bench", tmp_path) == ["brandeln/bench/cli.py:1 imports brandeln.cli"]


# The project's own packages, whose modules make the import graph.
PACKAGES = (
    "engine",
    "arena",
    "ladder",
    "brandeln.cli",
    "sample_bots",
    "bench",
    "datastore",
    "web",
    "cluster",
    "services",
    "protocol",
)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports (TYPE_CHECKING imports too: a cycle that only
    the type checker sees is still two modules that know each other)."""
    paths = {
        module_name(path, root): path
        for package in PACKAGES
        if (root / package).is_dir()
        for path in sorted((root / package).rglob("*.py"))
        if "node_modules" not in path.parts
    }
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                # `from arena import codec` imports the module brandeln.arena.codec.
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                if target in paths and target != name:
                    graph[name].add(target)
                    break
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles_between_project_modules() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_checker_catches_a_planted_cycle(tmp_path: Path) -> None:
    # Guard the guard: two modules that import each other, one only for the type checker.
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "__init__.py").write_text("")
    (tmp_path / "arena" / "a.py").write_text("from brandeln.arena import b\n")
    (tmp_path / "arena" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from arena.a import X\n"
    )
    (tmp_path / "arena" / "c.py").write_text("from . import a\n")
    assert cycles(import_graph(tmp_path)) == [["arena.a", "arena.b"]]


# The arena modules that may import both the stubs and the engine: the codec alone crosses
# the boundary between protocol and engine values.
CODEC_MODULES = frozenset(
    {
        "arena/codec/values.py",
        "arena/codec/snapshots.py",
        "arena/codec/messages.py",
        "arena/codec/requests.py",
        "arena/codec/seat_side.py",
    }
)


def modules_crossing_the_boundary(root: Path = ROOT) -> list[str]:
    """The arena modules importing both."""
    found = []
    for path in sorted((root / "arena").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        modules = {module for _, module in imported_top_levels(path)}
        if {"brandeln", "engine"} <= modules and relative not in CODEC_MODULES:
            found.append(relative)
    return found


def test_only_the_codec_imports_both_the_stubs_and_the_engine() -> None:
    assert modules_crossing_the_boundary() == []


def test_the_boundary_checker_catches_a_second_codec(tmp_path: Path) -> None:
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "table.py").write_text(
        "from brandeln.v1 import bot_pb2\nfrom brandeln.engine.state import DealState\n"
    )
    (tmp_path / "arena" / "session.py").write_text("from brandeln.v1 import bot_pb2\n")
    assert modules_crossing_the_boundary(tmp_path) == ["arena/table.py"]
