"""Compiled extensions beside their Python sources: which of the two a package imports.

The install compiles a package's hot modules with mypyc (setup.py, the list in
:mod:`brandeln.compiled.modules`), one shared library per package beside its modules and a small
extension beside each source (``<name>.cpython-*.so``), which the default import system takes
before the ``.py``. A package that has such modules calls :meth:`CompiledModules.choose` on
its :meth:`CompiledModules.listed` as it is imported (the engine's ``__init__``, the arena's):
the sources are imported instead, the reference, with
``BRANDELN_PURE_PYTHON=1`` or when the build is unusable (a source changed since its extension
was built, an extension, the shared library or the build's record of its sources missing, an
extension left from an older build). A source counts as changed when its SHA-256 differs from
the one the build recorded (:mod:`brandeln.compiled.source_hashes`), not when its file is newer:
pip writes a wheel's sources after its extensions. Compiled
modules call each other natively and check the types they are passed, so a package runs
compiled as a whole or not at all. Standard library only: the pure engine imports this and
nothing else of ours.

>>> import brandeln.engine
>>> modules = CompiledModules.listed("brandeln.engine", brandeln.engine.__path__[0])
>>> modules.source_of("brandeln.engine.seats").name
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

from brandeln.compiled.modules import COMPILED, LIBRARY
from brandeln.compiled.source_hashes import RECORD, read_record, source_digest

__all__ = ["PURE_PYTHON_ENV", "CompiledModules", "pure_python_requested"]

PURE_PYTHON_ENV = "BRANDELN_PURE_PYTHON"
"""Set to ``1`` to import every module from its Python source, the reference, even where the
install compiled the hot modules (setup.py); at install time, not to compile them."""


def pure_python_requested() -> bool:
    """Whether ``BRANDELN_PURE_PYTHON`` asks for the Python sources."""
    return os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0")


class CompiledModules:
    """The modules of package ``package`` (in ``directory``) that setup.py compiles, named
    relative to it (``"state"``, ``"codec.wire"``), in one mypyc group whose shared library
    (``compiled__mypyc``) the build puts in the package."""

    __slots__ = ("compilable", "directory", "package")

    def __init__(self, package: str, directory: Path, compilable: tuple[str, ...]) -> None:
        self.package = package
        self.directory = directory
        self.compilable = compilable

    @classmethod
    def listed(cls, package: str, directory: str | Path) -> CompiledModules:
        """Package ``package``'s compiled modules as :mod:`brandeln.compiled.modules` lists
        them; ``directory``: where its modules are (its ``__path__``)."""
        return cls(package, Path(directory), COMPILED[package])

    def source_of(self, fullname: str) -> Path | None:
        """The source file of module ``fullname`` of the package (None: not one of its
        modules, or a package)."""
        prefix = f"{self.package}."
        if not fullname.startswith(prefix):
            return None
        name = fullname[len(prefix) :]
        path = self.directory.joinpath(*name.split(".")).with_suffix(".py")
        return path if path.is_file() else None

    def built_any(self) -> bool:
        """Whether the install built an extension of any of these modules (none: no C
        compiler or mypyc, or a pure-Python install)."""
        return any(
            self.directory.joinpath(*name.split("."))
            .with_name(name.rpartition(".")[2] + suffix)
            .exists()
            for name in self.compilable
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
        )

    def unusable_build(self) -> str | None:
        """Why the compiled modules cannot be used as a whole (None: they can, or none was
        built, so the sources are imported anyway).

        It runs at every import of the package (``brandeln --help`` too), so it reads each
        folder once (os.scandir) and hashes only the compiled modules' sources (about 250 kB,
        half a millisecond)."""
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        listings: dict[str, dict[str, os.DirEntry[str]]] = {}

        def listing(folder: str) -> dict[str, os.DirEntry[str]]:
            if folder not in listings:
                try:
                    with os.scandir(folder) as entries:
                        listings[folder] = {entry.name: entry for entry in entries}
                except OSError:
                    listings[folder] = {}
            return listings[folder]

        root = str(self.directory)
        built: dict[str, tuple[str, os.DirEntry[str] | None]] = {}
        for name in self.compilable:
            *parents, stem = name.split(".")
            folder = os.path.join(root, *parents)
            entries = listing(folder)
            extension = next((entries[stem + s] for s in suffixes if stem + s in entries), None)
            built[name] = (folder, extension)
        if not any(extension for _, extension in built.values()):
            return None
        for name, (_, extension) in built.items():
            if extension is None:
                where = f"{self.package}.{name}".replace(".", "/") + ".py"
                return f"{where} has no compiled extension beside the others"
        recorded = read_record(root)
        if recorded is None:
            return f"the compiled {self.package} modules' source record {RECORD} is missing"
        for name, (folder, _) in built.items():
            source = listing(folder).get(name.rpartition(".")[2] + ".py")
            # A module without its source (deleted) has only its extension to run: nothing to
            # compare.
            if source is not None and recorded.get(name) != source_digest(source.path):
                where = f"{self.package}.{name}".replace(".", "/") + ".py"
                return f"{where} changed since its compiled extension was built"
        # An extension of a module the build no longer compiles (taken off the list) would be
        # imported before its source, and fail: its code is not in the new shared library.
        library = f"{LIBRARY}__mypyc"
        for folder in sorted({folder for folder, extension in built.values() if extension}):
            for entry_name in sorted(listing(folder)):
                if not entry_name.endswith(suffixes):
                    continue
                stem = entry_name.partition(".")[0]
                relative = os.path.relpath(os.path.join(folder, stem), root)
                if relative.replace(os.sep, ".") not in built and relative != library:
                    left = os.path.relpath(os.path.join(folder, entry_name), root)
                    folder_name = self.package.replace(".", "/")
                    return f"{folder_name}/{left.replace(os.sep, '/')} is left from an older build"
        if not any(library + suffix in listing(root) for suffix in suffixes):
            return f"the compiled {self.package} modules' library {library} is missing"
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
        library = f"{prefix}{LIBRARY}__mypyc"  # their shared library, no module of the package
        return tuple(
            sorted(
                name
                for name, module in list(sys.modules.items())
                if name.startswith(prefix)
                and name != library
                and not str(getattr(module, "__file__", "")).endswith(".py")
            )
        )

    def pure_module(self, name: str) -> ModuleType:
        """A fresh copy of module ``name`` (``"state"`` or ``"brandeln.engine.state"``) run from its
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
