#!/usr/bin/env bash
# Run a command beside one busy-looping process per core, the way CI runs beside other work:
# a test whose verdict depends on the machine's speed fails here. The hogs are started here
# and stopped here, by PID, however the command ends (exit, Ctrl-C, SIGTERM).
set -uo pipefail
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
hogs=()
stop_hogs() {
	((${#hogs[@]})) || return 0
	kill "${hogs[@]}" 2>/dev/null
	wait "${hogs[@]}" 2>/dev/null
	echo "with_cpu_hogs: stopped CPU hog(s) ${hogs[*]}"
	hogs=()
}
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT
trap 'stop_hogs; exit 143' TERM
for _ in $(seq "$cores"); do
	python3 -c 'while True: pass' &
	hogs+=("$!")
done
echo "with_cpu_hogs: $cores CPU hog(s) running beside '$*' (PIDs ${hogs[*]})"
"$@"
