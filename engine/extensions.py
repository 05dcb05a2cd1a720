"""Compiled extensions beside their Python sources: which of the two a package imports.

The install compiles a package's hot modules with mypyc (setup.py), one shared library per
package and a small extension beside each source (``<name>.cpython-*.so``), which the default
import system takes before the ``.py``. A package that has such modules describes them with a
:class:`CompiledModules` and calls :meth:`CompiledModules.choose` as it is imported (the
engine's ``__init__``, the arena's): the sources are imported instead, the reference, with
``BRANDELN_PURE_PYTHON=1`` or when the build is unusable (a source edited after its extension
was built, an extension or the shared library missing, one left from an older build). Compiled
modules call each other natively and check the types they are passed, so a package runs
compiled as a whole or not at all. Standard library only: the engine imports nothing of ours,
and the arena uses this too.

>>> from pathlib import Path
>>> modules = CompiledModules("engine", Path(__file__).parent, ("seats",), "brandeln_engine_core")
>>> modules.source_of("engine.seats").name
'seats.py'
>>> modules.pure_module("seats").left_of(3, 4)
0
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

__all__ = ["PURE_PYTHON_ENV", "CompiledModules", "pure_python_requested"]

PURE_PYTHON_ENV = "BRANDELN_PURE_PYTHON"
"""Set to ``1`` to import every module from its Python source, the reference, even where the
install compiled the hot modules (setup.py); at install time, not to compile them."""


def pure_python_requested() -> bool:
    """Whether ``BRANDELN_PURE_PYTHON`` asks for the Python sources."""
    return os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0")


class CompiledModules:
    """The modules of package ``package`` (in ``directory``) that setup.py compiles, named
    relative to it (``"state"``, ``"codec.wire"``), in the mypyc group ``group`` whose shared
    library the build puts beside the package."""

    __slots__ = ("compilable", "directory", "group", "package")

    def __init__(
        self, package: str, directory: Path, compilable: tuple[str, ...], group: str
    ) -> None:
        self.package = package
        self.directory = directory
        self.compilable = compilable
        self.group = group

    def source_of(self, fullname: str) -> Path | None:
        """The source file of module ``fullname`` of the package (None: not one of its
        modules, or a package)."""
        prefix, _, name = fullname.partition(".")
        if prefix != self.package or not name:
            return None
        path = self.directory.joinpath(*name.split(".")).with_suffix(".py")
        return path if path.is_file() else None

    def _built(self, name: str) -> Path | None:
        base = self.directory.joinpath(*name.split("."))
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            built = base.with_name(base.name + suffix)
            if built.exists():
                return built
        return None

    def unusable_build(self) -> str | None:
        """Why the compiled modules cannot be used as a whole (None: they can, or none was
        built, so the sources are imported anyway)."""
        built = {name: self._built(name) for name in self.compilable}
        if not any(built.values()):
            return None
        for name, extension in built.items():
            source = self.directory.joinpath(*name.split(".")).with_suffix(".py")
            where = f"{self.package}/{name.replace('.', '/')}.py"
            if extension is None:
                return f"{where} has no compiled extension beside the others"
            if source.stat().st_mtime > extension.stat().st_mtime:
                return f"{where} is newer than its compiled extension"
        # An extension of a module the build no longer compiles (taken off the list) would be
        # imported before its source, and fail: its code is not in the new shared library.
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        for folder in {path.parent for path in built.values() if path is not None}:
            for entry in folder.iterdir():
                stem = entry.name.partition(".")[0]
                relative = entry.with_name(stem).relative_to(self.directory).as_posix()
                if entry.name.endswith(suffixes) and relative.replace("/", ".") not in built:
                    left = entry.relative_to(self.directory)
                    return f"{self.package}/{left} is left from an older build"
        library = self.directory.parent / f"{self.group}__mypyc"
        if not any(
            library.with_name(library.name + suffix).exists()
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
        ):
            return f"the compiled {self.package} modules' library {library.name} is missing"
        return None

    def choose(self) -> None:
        """At the package's import: have its modules imported from their sources when
        ``BRANDELN_PURE_PYTHON`` says so or the build is unusable (with a warning)."""
        if pure_python_requested():
            sys.meta_path.insert(0, _SourceFirst(self))
            return
        reason = self.unusable_build()
        if reason is not None:
            warnings.warn(
                f"{reason}: {self.package} runs as pure Python until `make install` "
                "(or `pip install -e .`) compiles it again",
                RuntimeWarning,
                stacklevel=3,
            )
            sys.meta_path.insert(0, _SourceFirst(self))

    def compiled_modules(self) -> tuple[str, ...]:
        """The package's modules imported so far from a compiled extension rather than a
        source file: empty in a pure-Python install or with ``BRANDELN_PURE_PYTHON=1``."""
        prefix = f"{self.package}."
        return tuple(
            sorted(
                name
                for name, module in list(sys.modules.items())
                if name.startswith(prefix)
                and not str(getattr(module, "__file__", "")).endswith(".py")
            )
        )

    def pure_module(self, name: str) -> ModuleType:
        """A fresh copy of module ``name`` (``"state"`` or ``"engine.state"``) run from its
        Python source, whether or not the installed one is compiled: for doctests and for
        comparing the two. The copy is not registered in ``sys.modules``; it imports the other
        modules as installed."""
        prefix = f"{self.package}."
        fullname = name if name.startswith(prefix) else prefix + name
        source = self.source_of(fullname)
        if source is None:
            raise ModuleNotFoundError(f"no {self.package} module {name!r}")
        spec = importlib.util.spec_from_file_location(fullname, source)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        # Dataclasses look their module up in sys.modules while the class is made: register
        # the copy for the time it runs, then put back what was there.
        saved = sys.modules.get(fullname)
        sys.modules[fullname] = module
        try:
            spec.loader.exec_module(module)
        finally:
            if saved is None:
                del sys.modules[fullname]
            else:
                sys.modules[fullname] = saved
        return module


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds a package's modules in their ``.py`` before the default finder, which would take
    a compiled extension of the same name first."""

    def __init__(self, modules: CompiledModules) -> None:
        self._modules = modules

    def find_spec(
        self,
        fullname: str,
        path: object = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        source = self._modules.source_of(fullname)
        return None if source is None else importlib.util.spec_from_file_location(fullname, source)
