# The two commands a newcomer needs: `make demo` and `make test`. Both create the virtual
# environment on first use, so a fresh clone needs only Python 3.11+, make and git.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest proto install clean bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the project's dependency list changes. The editable install is one .pth
# line to the project root (pyproject.toml says package-dir = "."): no import hook to slow the
# CLI's start, no deprecated "compat" mode.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

NODE_BOT := sample_bots/node

# The Node.js sample bot joins the demo where npm is installed; without it the demo still runs.
$(NODE_BOT)/node_modules/.package-lock.json: $(NODE_BOT)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		(cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error) \
		|| echo "npm ci failed: the demo runs without the Node.js bot"; \
	else echo "npm not found: the demo runs without the Node.js bot"; fi

demo: $(STAMP) $(NODE_BOT)/node_modules/.package-lock.json
	$(BIN)/brandeln demo

# The storage tests run on SQLite and on a throwaway PostgreSQL server they start themselves;
# system_deps.sh installs Debian's postgresql first when root with apt-get (else it says how,
# and those tests skip with the same hint).
test: $(STAMP)
	scripts/system_deps.sh
	$(BIN)/python -m pytest
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

pytest: $(STAMP)
	scripts/system_deps.sh
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Regenerate the protocol stubs in brandeln/ from proto/ (never edit them by hand).
proto: $(STAMP)
	$(BIN)/python scripts/gen_proto.py

# Every benchmark (the bench/ package) in one report (bench-results/). OpenSpiel is the engine's yardstick; it is
# no dependency of the project, so it is installed here and the benchmark runs without it.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet open_spiel \
		|| echo "OpenSpiel not installed: the engine is measured without its yardstick"
	$(BIN)/brandeln bench all --out bench-results

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
