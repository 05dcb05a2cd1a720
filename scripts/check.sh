#!/usr/bin/env bash
# The whole check: the test suite in the foreground (its progress live), ruff and mypy beside
# it. The suite spends much of its time waiting on servers, bots and browsers, so the linters
# use a core it leaves idle instead of adding a minute or two after it. Their output is
# printed once the suite is done; the exit code is the first failure's.
# Usage: scripts/check.sh BIN PYTEST_COMMAND...
set -uo pipefail
bin=$1
shift
lint_out=$(mktemp)
(
	status=0
	"$bin/ruff" check . || status=1
	"$bin/ruff" format --check . || status=1
	"$bin/mypy" || status=1
	exit "$status"
) >"$lint_out" 2>&1 &
lint=$!
stop_lint() {
	kill "$lint" 2>/dev/null
	rm -f "$lint_out"
}
trap 'stop_lint; exit 130' INT
trap 'stop_lint; exit 143' TERM
"$@"
tests=$?
wait "$lint"
linters=$?
echo "---- ruff and mypy ----"
cat "$lint_out"
rm -f "$lint_out"
if ((tests != 0)); then exit "$tests"; fi
exit "$linters"
