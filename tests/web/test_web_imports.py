"""The web front speaks values only: no module of ``brandeln/web/`` imports the generated protocol
stubs (the Admin client and ``brandeln.protocol.decode`` read the wire for it) nor
``brandeln.arena.matchlog`` (the log writer; logs are read typed, by ``brandeln.arena.logreader``).
Checked on the source's AST, with a planted import to prove the check sees one."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

WEB = ROOT / "brandeln" / "web"
FORBIDDEN = ("brandeln.v1", "brandeln.arena.matchlog")


def imported(source: str) -> set[str]:
    """Every module a source imports (``from a import b`` counts ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def forbidden(source: str) -> set[str]:
    return {
        name
        for name in imported(source)
        if any(name == banned or name.startswith(f"{banned}.") for banned in FORBIDDEN)
    }


def test_no_web_module_imports_the_stubs_or_the_old_log_readers() -> None:
    modules = sorted(WEB.rglob("*.py"))
    assert len(modules) > 10
    found = {
        str(path.relative_to(ROOT)): sorted(names)
        for path in modules
        if (names := forbidden(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_check_sees_a_planted_import() -> None:
    planted = (
        "from brandeln.v1 import cards_pb2\n"
        "import brandeln.arena.matchlog\nfrom brandeln.arena import matchlog\n"
    )
    assert forbidden(planted) == {
        "brandeln.v1",
        "brandeln.v1.cards_pb2",
        "brandeln.arena.matchlog",
    }
    assert forbidden("from brandeln.arena.logreader import read_log\n") == set()
