"""Copy the web front's pinned third-party files into brandeln/web/static/vendor/ (run after
`npm ci`).

The versions are those of brandeln/web/frontend/package-lock.json; each library's files go with its
licence, and the copies are committed, so the app runs offline with no npm at run time
(tests/web/test_vendored.py checks that the copies carry the lockfile's versions).

    cd web/frontend && npm ci && cd ../.. && python scripts/vendor_web.py
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
MODULES: Final = ROOT / "brandeln" / "web" / "frontend" / "node_modules"
VENDOR: Final = ROOT / "brandeln" / "web" / "static" / "vendor"

# package -> the files the app serves (paths inside the package), its licence file first.
FILES: Final = {
    "chart.js": ("LICENSE.md", "dist/chart.umd.min.js"),
    "tablesort": ("LICENCE", "dist/tablesort.min.js", "dist/sorts/tablesort.number.min.js"),
}


def main() -> None:
    for package, files in FILES.items():
        target = VENDOR / package
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in files:
            shutil.copyfile(MODULES / package / name, target / Path(name).name)
            print(f"{package}/{Path(name).name}")


if __name__ == "__main__":
    main()
