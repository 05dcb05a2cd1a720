"""One name per thing: no two public classes of the project's packages share a name.

Two classes with one name (``NotFoundError`` in the arena, the web app and the services) make a
reader, a ``grep`` and an ``except`` clause guess which one is meant; an import of the wrong one
type-checks and catches nothing. Where two layers mean the same thing, one class lives in the
lowest layer both may import; where they mean different things, their names say how.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.test_layering import PACKAGES, ROOT, package_dir, python_files

# The generated stubs take their names from proto/ (a service ``Referee`` gives ``Referee`` and
# ``RefereeServicer``), and the arena subclasses the servicers under the same names, as grpc's
# own examples do: the stubs are not ours to name.
GENERATED = frozenset({"v1"})
# Names two packages may share on purpose, each with the reason. Keep it short.
ALLOWED: dict[str, str] = {}


def class_names(path: Path) -> list[str]:
    """The public classes a module defines at its top level."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    ]


def shared_class_names(root: Path = ROOT) -> dict[str, list[str]]:
    where: defaultdict[str, list[str]] = defaultdict(list)
    for name in PACKAGES:
        if name in GENERATED:
            continue
        for path in python_files(package_dir(name, root)):
            for cls in class_names(path):
                where[cls].append(str(path.relative_to(root)))
    return {cls: paths for cls, paths in where.items() if len(paths) > 1 and cls not in ALLOWED}


def test_no_two_classes_of_the_project_share_a_name() -> None:
    assert shared_class_names() == {}


def test_the_checker_finds_a_name_two_packages_share(tmp_path: Path) -> None:
    for package in ("arena", "web"):
        folder = package_dir(package, tmp_path)
        folder.mkdir(parents=True)
        (folder / "errors.py").write_text("class NotFoundError(Exception):\n    pass\n")
    assert shared_class_names(tmp_path) == {
        "NotFoundError": ["brandeln/arena/errors.py", "brandeln/web/errors.py"]
    }
