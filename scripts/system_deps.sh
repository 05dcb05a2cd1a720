#!/usr/bin/env bash
# System packages the tests need: PostgreSQL's server binaries (storage tests), Chromium
# (browser tests) and iproute2 (the cluster tests' namespaces). As root with apt-get, the missing ones are installed (and named); otherwise
# nothing is installed and those tests skip with a message saying how to install them.
set -u
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 \
    || missing+=(postgresql)
# `ip` makes the network namespaces of the cluster tests (brandeln/bench/testbed.py) and brings
# up the loopback of each docs page's (tests/docs/examples/netns.py).
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
for package in "$@"; do
    case "$package" in
        chromium) command -v chromium >/dev/null 2>&1 || missing+=(chromium) ;;
    esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing system packages the tests need: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || echo "apt-get install ${missing[*]} failed: those tests will skip"
else
    echo "not installing ${missing[*]} (needs root and apt-get): those tests will skip;" \
        "install with: sudo apt-get install ${missing[*]}"
fi
exit 0
