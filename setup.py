"""Build hook of the normal install (``pip install -e .``, ``make install``, ``make dist``):
compiles the engine's hot core and the referee's hot path with mypyc, next to their pure-Python
sources.

What it compiles is listed once, in brandeln/compiled/modules.py (read here by path: nothing is
installed yet). Those modules stay plain Python files, the reference: the compiled extension of
each (``<name>.cpython-*.so``) is imported in their place when it exists, and
``BRANDELN_PURE_PYTHON=1`` at run time imports the sources instead
(brandeln/compiled/extensions.py). Where no C compiler or mypyc is at hand, or with
``BRANDELN_PURE_PYTHON=1`` at install time, the install goes on without the extensions and the
package runs as pure Python. Each package is its own mypyc group (one shared library each, in
the package), so one that fails to build leaves the other compiled. Beside each package's
extensions the build records the SHA-256 of every source it compiled
(brandeln/compiled/source_hashes.py, read here by path too): the package runs compiled only
while its sources still match (an edit in an editable install, never a wheel's install order).
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
LIST = runpy.run_path(str(HERE / "brandeln" / "compiled" / "modules.py"))
HASHES = runpy.run_path(str(HERE / "brandeln" / "compiled" / "source_hashes.py"))


def _compiled_sources(package: str) -> dict[str, Path]:
    """The source of each module of ``package`` that mypyc compiles, by its name in the package.

    >>> _compiled_sources("brandeln.arena")["codec.wire"].relative_to(HERE).parts
    ('brandeln', 'arena', 'codec', 'wire.py')
    """
    modules = LIST["COMPILED"][package]
    return {m: HERE / s for m, s in zip(modules, LIST["sources"](package), strict=True)}


# The SHA-256 of each compiled source as mypyc read it (taken just before), by package: what the
# build records beside the package's extensions, not the sources as an edit meanwhile left them;
# and only for the packages this build compiled, not for a library an earlier one left behind.
_DIGESTS: dict[str, dict[str, str]] = {}


def _extensions() -> list[object]:
    if os.environ.get("BRANDELN_PURE_PYTHON", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415 - a build-time requirement only
    except ImportError:
        print("mypyc not found: the engine and the arena install as pure Python", file=sys.stderr)
        return []
    extensions: list[object] = []
    for package in LIST["COMPILED"]:
        group = LIST["group"](package)
        _DIGESTS[package] = {
            module: HASHES["source_digest"](source)
            for module, source in _compiled_sources(package).items()
        }
        try:
            built = mypycify(LIST["sources"](package), opt_level="3", group_name=group)
        except (Exception, SystemExit) as error:  # mypyc reports a compile error by exiting
            print(
                f"mypyc could not compile {group}: it installs as pure Python ({error})",
                file=sys.stderr,
            )
            continue
        for extension in built:
            # No C compiler: setuptools skips the extension (and says so) instead of failing.
            extension.optional = True
        extensions.extend(built)
    return extensions


class _ReplacingBuildExt(build_ext):
    """Puts each built extension beside its source by replacing the file, not rewriting it:
    a referee or bot still running maps the old one, and a library truncated under a running
    process crashes it (SIGBUS) when it next reads a page of it."""

    def finalize_options(self) -> None:
        super().finalize_options()
        # The two groups' libraries compile side by side (about 10 s of a 90 s build here).
        self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        """Builds the extensions, then records beside each package's the SHA-256 of the sources
        they were compiled from (brandeln/compiled/source_hashes.py): in the build folder (the
        wheel's) and, in place, beside the sources (an editable install's)."""
        super().run()  # in place too (an editable install): the extensions copied to the sources
        build_py = self.get_finalized_command("build_py")
        for package, digests in _DIGESTS.items():
            library = self.get_ext_filename(f"{LIST['group'](package)}__mypyc")
            if not os.path.exists(os.path.join(self.build_lib, library)):
                continue  # not compiled (mypyc failed, no C compiler): nothing to vouch for
            folders = [Path(self.build_lib, library).parent]
            if self.inplace:
                folders.append(Path(build_py.get_package_dir(package)))
            for folder in folders:
                HASHES["write_record"](folder, digests)

    def copy_file(  # type: ignore[override]
        self, infile: str, outfile: str, *args: Any, **kwargs: Any
    ) -> tuple[str, bool]:
        partial = f"{outfile}.{os.getpid()}.partial"
        _, copied = super().copy_file(infile, partial, *args, **kwargs)
        os.replace(partial, outfile)
        return outfile, bool(copied)


setup(ext_modules=_extensions(), cmdclass={"build_ext": _ReplacingBuildExt})
