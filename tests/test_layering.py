"""The import directions of ARCHITECTURE.md, checked mechanically on the source's AST.

Every module lives under the ``brandeln`` namespace; the old top-level names (``engine``,
``web``, ...) are imported nowhere, although the editable install would resolve some of them
(the project root is on sys.path, and engine/ is a folder there). The engine is pure (standard
library, and the build's choice of its compiled modules); arena and ladder never import each
other; the SDK and the stubs (brandeln-bot) import only the standard library, grpc and protobuf;
sample bots use only the stubs, the SDK and (optionally) the engine. services (what the CLI and
the web front both compose) sits below them and above arena and ladder. bench (the benchmarks)
may import every layer but the CLI; no runtime package imports bench: the CLI mounts
`brandeln bench` by name, loaded only when it runs.

Every package named here must be where the checks look and hold modules: a package renamed or
moved would otherwise leave its checks reading nothing, and passing.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SDK_ROOT = Path("sdk") / "python"

# The project's packages: brandeln.<name>, each in one folder (through brandeln/'s symlinks for
# engine, arena, ladder and sample_bots; in the SDK's subproject for sdk and v1).
PACKAGES = (
    "engine",
    "compiled",
    "arena",
    "ladder",
    "cli",
    "sample_bots",
    "bench",
    "datastore",
    "web",
    "cluster",
    "services",
    "protocol",
    "sdk",
    "v1",
    # The learning environments, and the engine's side of their one encoding (a module).
    "openspiel",
    "pettingzoo",
    "gymnasium_env",
    "engine_encoding",
)
SDK_PACKAGES = frozenset({"sdk", "v1"})
# The names the project's packages had before the namespace: importing one is always a mistake.
OLD_TOP_LEVELS = frozenset(
    {
        "engine",
        "arena",
        "ladder",
        "sample_bots",
        "brandeln_cli",
        "web",
        "services",
        "datastore",
        "cluster",
        "protocol",
        "bench",
    }
)


def package_dir(name: str, root: Path = ROOT) -> Path:
    base = root / SDK_ROOT if name in SDK_PACKAGES else root
    return base / "brandeln" / name


def layer_of(module: str) -> str:
    """``brandeln.ladder.store.bots`` -> ``brandeln.ladder``; ``grpc.aio`` -> ``grpc``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "brandeln" and len(parts) > 1 else parts[0]


def ours(*names: str) -> frozenset[str]:
    return frozenset(f"brandeln.{name}" for name in names)


def all_but(*names: str) -> frozenset[str]:
    return ours(*(name for name in PACKAGES if name not in names))


# What each layer must never import: our packages (brandeln.<name>) and third-party names.
FORBIDDEN: dict[str, frozenset[str]] = {
    "engine": all_but("engine", "compiled")
    | {
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
        "ray",
    },
    # Both stores' base: no project code (the standard library and the SQL toolkit only,
    # see test_datastore_uses_only_the_standard_library_and_the_sql_toolkit).
    "datastore": all_but("datastore"),
    "arena": ours("ladder", "cli", "sample_bots", "sdk", "bench", "web", "cluster", "services")
    | {"typer", "ray"},
    "ladder": ours("arena", "cli", "sample_bots", "sdk", "bench", "web", "cluster", "services")
    | {"typer", "ray"},
    # The web front composes the stores and the Admin client like the CLI, beside it: it reads
    # through arena's and ladder's own modules, never through the CLI's.
    "web": ours("cli", "sample_bots", "bench", "cluster") | {"typer", "rich", "ray"},
    # The cluster executor composes arena and ladder beside the CLI (ARCHITECTURE.md), never
    # through it; Ray is imported by it alone.
    "cluster": ours("cli", "sample_bots", "bench", "web") | {"typer", "rich"},
    "sample_bots": ours("arena", "ladder", "cli", "bench", "web", "cluster", "services"),
    # The public contract's values both sides of the wire share (statuses, event records, the
    # reading of a streamed event): the engine's values and the stubs, nothing else of ours,
    # so the arena and the ladder may both import it without importing each other.
    "protocol": ours(
        "arena",
        "ladder",
        "datastore",
        "cli",
        "sample_bots",
        "sdk",
        "bench",
        "web",
        "cluster",
        "services",
    )
    | {"grpc", "typer", "rich", "ray"},
    # What the CLI and the web front both compose: below them, it never imports either (nor the
    # benchmarks or the cluster executor), and it prints nothing, so no typer, no rich.
    "services": ours("cli", "web", "bench", "cluster") | {"typer", "rich", "ray"},
    # `brandeln bench` is mounted by name and loaded when it runs (brandeln/cli/main.py).
    "cli": ours("bench") | {"ray"},
    # The benchmarks measure every layer: they may import all of them but the CLI, which
    # mounts them (an import back would make a cycle through the entry point).
    "bench": ours("cli"),
    # The learning environments consume the engine like the arena does (ARCHITECTURE.md): the
    # engine, the encoding and the sample bots, and the arena's codec to ask those bots; never
    # the operators' layers above them.
    **dict.fromkeys(
        ("openspiel", "pettingzoo", "gymnasium_env", "engine_encoding"),
        ours("ladder", "datastore", "cli", "bench", "web", "cluster", "services") | {"ray"},
    ),
}


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (line, module) for every import in a file, relative ones excepted (``from a
    import b`` yields ``a``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def python_files(folder: Path) -> list[Path]:
    """A package's modules; a module's own file where the name is one (``engine_encoding``)."""
    if folder.with_suffix(".py").is_file():
        return [folder.with_suffix(".py")]
    return sorted(p for p in folder.rglob("*.py") if not {"node_modules"} & set(p.parts))


class MissingPackageError(LookupError):
    """A package the checks name has no modules where they look for them."""


def package_modules(name: str, root: Path = ROOT) -> list[Path]:
    """The modules of package ``brandeln.<name>``; an error where there are none (the folder
    renamed, moved, emptied, or a symlink of brandeln/ left dangling)."""
    folder = package_dir(name, root)
    files = python_files(folder)
    if not files:
        raise MissingPackageError(f"brandeln.{name}: no modules at {folder.relative_to(root)}")
    return files


def violations(layer: str, root: Path = ROOT) -> list[str]:
    found = []
    for path in package_modules(layer, root):
        for line, module in imported_modules(path):
            if layer_of(module) in FORBIDDEN[layer]:
                found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_follow_the_architecture(layer: str) -> None:
    assert violations(layer) == []


def project_files(root: Path = ROOT) -> list[Path]:
    """Every Python file of the project: its packages, its tests, its scripts."""
    files = [p for name in PACKAGES for p in package_modules(name, root)]
    for folder in ("tests", "scripts"):
        files += python_files(root / folder)
    return sorted({*files, *root.glob("*.py")})


def old_names_imported(root: Path = ROOT) -> list[str]:
    return [
        f"{path.relative_to(root)}:{line} imports {module}"
        for path in project_files(root)
        for line, module in imported_modules(path)
        if module.split(".")[0] in OLD_TOP_LEVELS
    ]


def test_nothing_imports_a_name_from_before_the_namespace() -> None:
    assert old_names_imported() == []


def test_the_checker_catches_an_old_name_even_where_it_would_import(tmp_path: Path) -> None:
    for name in PACKAGES:  # a project whose packages are all there
        folder = package_dir(name, tmp_path)
        folder.parent.mkdir(parents=True, exist_ok=True)
        if name == "engine_encoding":  # a module, not a package
            folder.with_suffix(".py").write_text("")
        else:
            folder.mkdir()
            (folder / "__init__.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import engine.state\nfrom brandeln.engine import state\nfrom web import app\n"
    )
    assert old_names_imported(tmp_path) == [
        "tests/test_x.py:1 imports engine.state",
        "tests/test_x.py:3 imports web",
    ]


def outside(package: str, allowed: set[str], root: Path = ROOT) -> list[str]:
    """Imports of ``package``'s modules whose module is not in ``allowed`` (a module or any
    module below it counts)."""
    return [
        f"{path.relative_to(root)}:{line} imports {module}"
        for path in package_modules(package, root)
        for line, module in imported_modules(path)
        if not any(module == name or module.startswith(f"{name}.") for name in allowed)
    ]


STANDARD_LIBRARY = set(sys.stdlib_module_names)


def test_engine_uses_only_the_standard_library() -> None:
    # And the build's choice between its compiled modules and their sources (brandeln.compiled,
    # standard library only itself).
    allowed = STANDARD_LIBRARY | {"brandeln.engine", "brandeln.compiled"}
    assert outside("engine", allowed) == []
    assert outside("compiled", STANDARD_LIBRARY | {"brandeln.compiled"}) == []


# What brandeln-bot depends on: a bot author's environment holds nothing else.
SDK_DEPENDENCIES = frozenset({"grpc", "google.protobuf"})


def sdk_outside(root: Path = ROOT) -> list[str]:
    allowed = STANDARD_LIBRARY | SDK_DEPENDENCIES | {"brandeln.sdk", "brandeln.v1"}
    return outside("sdk", allowed, root) + outside("v1", allowed, root)


def test_the_sdk_and_the_stubs_import_only_the_standard_library_grpc_and_protobuf() -> None:
    assert sdk_outside() == []


def test_the_sdk_checker_catches_an_import_of_the_arena(tmp_path: Path) -> None:
    sdk = tmp_path / SDK_ROOT / "brandeln" / "sdk"
    sdk.mkdir(parents=True)
    (sdk.parent / "v1").mkdir()
    (sdk.parent / "v1" / "bot_pb2.py").write_text("from google.protobuf import descriptor\n")
    (sdk / "bot.py").write_text(
        "import grpc\nfrom google.protobuf import message\nfrom brandeln.v1 import bot_pb2\n"
        "from brandeln.engine.state import DealState\nimport google.auth\n"
    )
    assert sdk_outside(tmp_path) == [
        "sdk/python/brandeln/sdk/bot.py:4 imports brandeln.engine.state",
        "sdk/python/brandeln/sdk/bot.py:5 imports google.auth",
    ]


# What the stores' base is built on besides the standard library (pyproject's dependencies).
SQL_TOOLKIT = frozenset({"sqlalchemy", "alembic", "psycopg"})


def test_datastore_uses_only_the_standard_library_and_the_sql_toolkit() -> None:
    allowed = STANDARD_LIBRARY | {"brandeln.datastore"} | SQL_TOOLKIT
    assert outside("datastore", allowed) == []


def test_the_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    # Guard the guard: a planted violation must be reported.
    (tmp_path / "brandeln" / "engine").mkdir(parents=True)
    (tmp_path / "brandeln" / "engine" / "bad.py").write_text(
        "import grpc\nfrom brandeln.arena import server\n"
    )
    assert violations("engine", tmp_path) == [
        "brandeln/engine/bad.py:1 imports grpc",
        "brandeln/engine/bad.py:2 imports brandeln.arena",
    ]


def test_the_checker_catches_a_runtime_package_importing_the_benchmarks(tmp_path: Path) -> None:
    (tmp_path / "brandeln" / "ladder").mkdir(parents=True)
    (tmp_path / "brandeln" / "ladder" / "slow.py").write_text(
        "from brandeln.bench.season import run_season_bench\n"
    )
    assert violations("ladder", tmp_path) == [
        "brandeln/ladder/slow.py:1 imports brandeln.bench.season"
    ]


def test_the_checker_catches_the_benchmarks_importing_the_cli(tmp_path: Path) -> None:
    # The CLI mounts the benchmarks: an import back is the cycle this layering removed.
    (tmp_path / "brandeln" / "bench").mkdir(parents=True)
    (tmp_path / "brandeln" / "bench" / "cli.py").write_text(
        "from brandeln.cli.output import console\n"
    )
    assert violations("bench", tmp_path) == ["brandeln/bench/cli.py:1 imports brandeln.cli.output"]


def module_name(path: Path, package: str, root: Path) -> str:
    parts = list(path.relative_to(package_dir(package, root).parent.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the project modules it imports (TYPE_CHECKING imports too: a cycle that only
    the type checker sees is still two modules that know each other), in ``packages``."""
    paths = {
        module_name(path, package, root): path
        for package in packages
        for path in package_modules(package, root)
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
                # `from brandeln.arena import codec` imports the module brandeln.arena.codec.
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
    graph = import_graph()
    assert "brandeln.ladder.store.database" in graph  # the graph sees the topic sub-packages
    assert cycles(graph) == []


def test_the_cycle_checker_catches_a_planted_cycle(tmp_path: Path) -> None:
    # Guard the guard: two modules that import each other, one only for the type checker.
    arena = tmp_path / "brandeln" / "arena"
    arena.mkdir(parents=True)
    (arena / "__init__.py").write_text("")
    (arena / "a.py").write_text("from brandeln.arena import b\n")
    (arena / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from brandeln.arena.a import X\n"
    )
    (arena / "c.py").write_text("from . import a\n")
    assert cycles(import_graph(tmp_path, ("arena",))) == [["brandeln.arena.a", "brandeln.arena.b"]]


# The arena modules that may import both the stubs and the engine: the codec alone crosses
# the boundary between protocol and engine values.
CODEC_MODULES = frozenset(
    {
        "brandeln.arena.codec.values",
        "brandeln.arena.codec.snapshots",
        "brandeln.arena.codec.messages",
        "brandeln.arena.codec.requests",
        "brandeln.arena.codec.seat_side",
    }
)


def modules_crossing_the_boundary(root: Path = ROOT) -> list[str]:
    """The arena modules importing both."""
    found = []
    for path in package_modules("arena", root):
        name = module_name(path, "arena", root)
        layers = {layer_of(module) for _, module in imported_modules(path)}
        if {"brandeln.v1", "brandeln.engine"} <= layers and name not in CODEC_MODULES:
            found.append(name)
    return found


def test_only_the_codec_imports_both_the_stubs_and_the_engine() -> None:
    assert modules_crossing_the_boundary() == []


def test_the_boundary_checker_catches_a_second_codec(tmp_path: Path) -> None:
    arena = tmp_path / "brandeln" / "arena"
    arena.mkdir(parents=True)
    (arena / "table.py").write_text(
        "from brandeln.v1 import bot_pb2\nfrom brandeln.engine.state import DealState\n"
    )
    (arena / "session.py").write_text("from brandeln.v1 import bot_pb2\n")
    assert modules_crossing_the_boundary(tmp_path) == ["brandeln.arena.table"]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_package_the_checks_name_is_there_with_its_modules(name: str) -> None:
    assert package_modules(name)


def test_a_package_renamed_away_fails_the_checks_instead_of_passing_them(tmp_path: Path) -> None:
    # Guard the guard: engine/ moved away leaves brandeln/engine a dangling symlink, then an
    # empty folder; neither may read as "no forbidden imports".
    (tmp_path / "brandeln").mkdir()
    (tmp_path / "brandeln" / "engine").symlink_to(Path("..") / "engine")
    with pytest.raises(
        MissingPackageError, match=r"^brandeln\.engine: no modules at brandeln/engine$"
    ):
        violations("engine", tmp_path)
    (tmp_path / "engine").mkdir()
    with pytest.raises(MissingPackageError):
        outside("engine", STANDARD_LIBRARY, tmp_path)
    (tmp_path / "engine" / "state.py").write_text("import grpc\n")
    assert violations("engine", tmp_path) == ["brandeln/engine/state.py:1 imports grpc"]
    with pytest.raises(MissingPackageError, match=r"^brandeln\.compiled: "):
        project_files(tmp_path)
