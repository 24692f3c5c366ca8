#!/usr/bin/env bash
# The benchmark command (reports/PERFORMANCE.md is its output): set-up, then every benchmark on every
# backend, then reports/PERFORMANCE.md written from that run (after section 2a, CPU instructions
# per page counted by valgrind, and section 2b, nullable keys, whose targets it lists), then
# sections 2c (peers), 4a (concurrent walkers through a connection pool) and 4e (the HTTP
# path) measured and written into it. The data set (1,300,100 rows per
# backend) is loaded on the first run and reused afterwards. Extra arguments go to criterion
# (e.g. a name filter); KEYSET_BENCH_BACKENDS=postgres,sqlite runs a subset.
#
#   bash scripts/bench.sh instructions   # only section 2a (a few minutes, load-independent)
#   bash scripts/bench.sh concurrency    # only section 4a (concurrent walkers, about 3 minutes)
#   bash scripts/bench.sh nullable       # only section 2b (a nullable key, deep against first)
#   bash scripts/bench.sh compile        # only section 5 (what the derive costs to compile;
#                                        # not in the full run)
#   bash scripts/bench.sh scale          # only section 4b (10M rows on one tenant; not in the
#                                        # full run: the first run loads ~3 GB per backend)
#   bash scripts/bench.sh peers          # only section 2c (i-love-jesus against this crate
#                                        # and OFFSET on PostgreSQL; about 2 minutes)
#   bash scripts/bench.sh http           # only section 4e (the feed server against a
#                                        # hand-written handler, wrk; about 2 minutes)
#   bash scripts/bench.sh shards         # only section 4c (a table partitioned across two
#                                        # PostgreSQL servers; not in the full run)
#   bash scripts/bench.sh spider         # only section 4f (a MariaDB Spider table over two
#                                        # MariaDB servers; not in the full run)
#   bash scripts/bench.sh seaorm         # only section 2d (sea-orm's cursor against this
#                                        # crate and OFFSET on PostgreSQL; an opt-in crate,
#                                        # bench/seaorm, with its own workspace; not in the
#                                        # full run)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

# valgrind counts the instructions of section 2a.
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "[bench] installing valgrind" >&2
    sudo_if() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    export DEBIAN_FRONTEND=noninteractive
    sudo_if apt-get install -y --no-install-recommends valgrind >/dev/null \
        || { sudo_if apt-get update >/dev/null && sudo_if apt-get install -y --no-install-recommends valgrind >/dev/null; }
fi

# wrk loads the HTTP path of section 4e.
if ! command -v wrk >/dev/null; then
    echo "[bench] installing wrk" >&2
    sudo_if() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    export DEBIAN_FRONTEND=noninteractive
    sudo_if apt-get install -y --no-install-recommends wrk >/dev/null \
        || { sudo_if apt-get update >/dev/null && sudo_if apt-get install -y --no-install-recommends wrk >/dev/null; }
fi

if [ "${1:-}" = "instructions" ]; then
    cargo bench -p keyset-bench --bench instructions
    exit
fi
if [ "${1:-}" = "compile" ]; then
    cargo bench -p keyset-bench --bench compile
    exit
fi
if [ "${1:-}" = "nullable" ]; then
    cargo bench -p keyset-bench --bench nullable
    exit
fi
if [ "${1:-}" = "concurrency" ]; then
    cargo bench -p keyset-bench --bench concurrency
    exit
fi
if [ "${1:-}" = "scale" ]; then
    cargo bench -p keyset-bench --bench scale
    exit
fi
if [ "${1:-}" = "peers" ]; then
    cargo bench -p keyset-bench --bench peers
    exit
fi
if [ "${1:-}" = "http" ]; then
    cargo bench -p keyset-bench --bench http
    exit
fi
if [ "${1:-}" = "shards" ]; then
    cargo bench -p keyset-bench --bench shards
    exit
fi
if [ "${1:-}" = "spider" ]; then
    cargo bench -p keyset-bench --bench spider
    exit
fi
if [ "${1:-}" = "seaorm" ]; then
    cargo run --release --manifest-path bench/seaorm/Cargo.toml --target-dir target
    exit
fi

# Sections 2a and 2b first: the pagination part's table of targets holds their goals, and its
# "Why each miss" cites their figures.
cargo bench -p keyset-bench --bench instructions
cargo bench -p keyset-bench --bench nullable
cargo bench -p keyset-bench --bench pagination -- "$@"
cargo bench -p keyset-bench --bench peers
cargo bench -p keyset-bench --bench concurrency
cargo bench -p keyset-bench --bench http
