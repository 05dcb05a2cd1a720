# The two commands a newcomer needs: `make demo` and `make test`. Both create the virtual
# environment on first use, so a fresh clone needs only Python 3.11+, make and git.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-stress lint typecheck pytest proto install clean bench dist dist-python dist-node docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when a dependency list (the arena's pyproject.toml, the SDK's in sdk/python)
# or the compiled core changes. Each editable install is one .pth line (to the project root,
# to sdk/python): no import hook to slow the CLI's start, no deprecated "compat" mode.
# The install also compiles the engine's hot core and the referee's hot path (setup.py, mypyc;
# the list is brandeln/compiled/modules.py): an edit to one of those sources installs again,
# else that package would fall back to pure Python (brandeln/compiled/extensions.py: its source
# no longer matches the SHA-256 the build recorded, brandeln/compiled/source_hashes.py).
COMPILED_SOURCES := $(shell $(PYTHON) brandeln/compiled/modules.py)

$(STAMP): pyproject.toml sdk/python/pyproject.toml setup.py brandeln/compiled/modules.py \
		brandeln/compiled/source_hashes.py $(COMPILED_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77'
	@# The SDK first: the arena pins brandeln-bot, which pip then finds installed (this
	@# checkout's) instead of looking for it on PyPI.
	$(BIN)/python -m pip install --quiet --no-build-isolation -e sdk/python
	@# Twice: mypyc type-checks the arena's hot path against grpc, protobuf and SQLAlchemy as
	@# installed, so the dependencies go in first (compiling nothing), then the build compiles.
	@# Both builds use the environment's own setuptools and mypy (the dev extra's): an isolated
	@# build environment would install them again each time (about 20 s of the install).
	BRANDELN_PURE_PYTHON=1 $(BIN)/python -m pip install --quiet --no-build-isolation -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

NODE_BOT := sample_bots/node
NODE_SDK := sdk/node

# The Node.js sample bot joins the demo and the tests where npm is installed; without it the
# demo still runs and its tests skip, saying so. npm ci installs the SDK (sdk/node) as a copy, so
# an edit there installs again; the build bundles it all into $(NODE_BOT)/dist (the wheel's).
$(NODE_BOT)/node_modules/.package-lock.json: $(NODE_BOT)/package-lock.json $(NODE_BOT)/bot.js \
		$(NODE_BOT)/build.js $(wildcard $(NODE_SDK)/*.js $(NODE_SDK)/package.json $(NODE_SDK)/proto/*/*/*)
	@if command -v npm >/dev/null 2>&1; then \
		(cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build) \
		|| echo "npm ci failed: the demo runs without the Node.js bot; its tests try again"; \
	else echo "npm not found: the demo runs without the Node.js bot, its tests skip"; fi

demo: $(STAMP) $(NODE_BOT)/node_modules/.package-lock.json
	$(BIN)/brandeln demo

# The suite in TEST_WORKERS processes (pytest-xdist), a test module whole on one of them (its
# fixtures start their servers once): most of the suite waits on referees, bots, PostgreSQL,
# Ray and a browser, so three processes finish it in about half the time on 2 cores.
# `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= 3
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# System packages the tests need (PostgreSQL's server, Chromium): installed when missing and
# root, else named (those tests then skip, saying how to install them).
# ruff and mypy run beside the suite (scripts/check.sh), their output printed after it.
test: $(STAMP) $(NODE_BOT)/node_modules/.package-lock.json
	@bash scripts/system_deps.sh chromium
	bash scripts/check.sh $(BIN) $(PYTEST)

pytest: $(STAMP) $(NODE_BOT)/node_modules/.package-lock.json
	@bash scripts/system_deps.sh chromium
	$(PYTEST)

# The whole check beside one CPU hog per core (scripts/with_cpu_hogs.sh starts them and stops
# them by PID): a test whose verdict depends on the machine's speed fails here, not in CI.
test-stress: $(STAMP) $(NODE_BOT)/node_modules/.package-lock.json
	@bash scripts/system_deps.sh chromium
	bash scripts/with_cpu_hogs.sh $(MAKE) --no-print-directory test

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Where `make dist` puts the distributions: `make dist DIST=folder` builds into another folder
# (the packaging tests build into a temporary one, leaving the checkout's dist/ alone).
DIST ?= dist

# The Node SDK's npm tarball, $(DIST)/brandeln-bot-<version>.tgz.
dist-node:
	mkdir -p $(DIST) && cd $(NODE_SDK) && npm pack --pack-destination $(abspath $(DIST))

# The manual (mkdocs.yml): docs/ built into site/, which `brandeln web` serves under /manual/ and
# which opens from file:// too. --strict: a broken link or anchor, a page the nav leaves out, a
# docstring the API reference cannot render fails the build. The command-line reference is
# written from the CLI at each build (docs/hooks/cli_reference.py). NO_MKDOCS_2_WARNING: the
# theme's banner about its successor, printed at every build otherwise.
# `make docs SITE=folder` builds into another folder (the manual's tests build into a temporary one).
SITE ?= site

docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir $(SITE)

# Regenerate the protocol stubs (sdk/python/brandeln/v1) from proto/ (never edit them by hand).
proto: $(STAMP)
	$(BIN)/python scripts/gen_proto.py

# Every benchmark (the brandeln/bench/ package) in one report (bench-results/). OpenSpiel is the engine's yardstick; it is
# no dependency of the project, so it is installed here and the benchmark runs without it.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet open_spiel \
		|| echo "OpenSpiel not installed: the engine is measured without its yardstick"
	$(BIN)/brandeln bench all --out bench-results

# The distributions, into $(DIST) (dist/ unless told): the SDK's wheel and sdist (brandeln_bot-*), the arena's
# (brandeln_arena-*, compiled by mypyc as `make install` compiles it) and the Node SDK's
# tarball (dist-node). `python -m build` makes each wheel from its sdist, so a file the sdist
# lacks fails here; --no-isolation builds with this environment's setuptools and mypy, and
# mypyc type-checks the arena against the dependencies installed here.
dist: dist-python dist-node

dist-python: $(STAMP)
	rm -f $(DIST)/brandeln_bot-* $(DIST)/brandeln_arena-*
	$(BIN)/python -m build --no-isolation --outdir $(DIST) sdk/python
	$(BIN)/python -m build --no-isolation --outdir $(DIST) .

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist site
