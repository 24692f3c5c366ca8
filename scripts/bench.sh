#!/usr/bin/env bash
# The benchmark command (docs/PERFORMANCE.md is its output): set-up, then every benchmark on every
# backend, then docs/PERFORMANCE.md written from that run. The data set (1,300,100 rows per
# backend) is loaded on the first run and reused afterwards. Extra arguments go to criterion
# (e.g. a name filter); KEYSET_BENCH_BACKENDS=postgres,sqlite runs a subset.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

cargo bench -p keyset-bench --bench pagination -- "$@"
