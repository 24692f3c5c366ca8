#!/usr/bin/env bash
# The reliability command (reports/RELIABILITY.md is its output; docs/TESTING.md explains it):
#
#   bash scripts/reliability.sh [PART...]     PART: soak faults oracle mutants (default: all four)
#
#   soak     walks under concurrent writers, every backend, both variants:
#            KEYSET_SOAK_SECS seconds each (default 600: ten minutes; 60 minutes in all)
#   faults   killed connection, statement timeout, server restart (through an in-process
#            proxy), connection cut mid-result: PostgreSQL and MariaDB
#   oracle   the oracle property test, release build: KEYSET_ORACLE_CASES cases per backend
#            (default 10000) on KEYSET_ORACLE_BACKENDS (default "sqlite postgres mysql");
#            KEYSET_ORACLE_SEED fixes the seed (default: a new one, recorded)
#   mutants  cargo-mutants (installed if missing) on the SQL rules and page assembly of
#            keyset-diesel and on keyset-derive's checks, each mutant tested by the unit tests
#            and the SQLite suite (KEYSET_MUTANTS_FILES to choose files, KEYSET_MUTANTS_JOBS
#            parallel jobs, default 1; hours on two cores). KEYSET_MUTANTS_IMPORT="DIR..."
#            instead summarises earlier cargo-mutants runs, each DIR holding `mutants.out` and
#            the command in `command.txt`; a later run's outcome for a mutant replaces an
#            earlier one's (e.g. survivors retested after new tests).
#
# Each part rewrites only its own section of reports/RELIABILITY.md, stating when it ran, on
# which machine, with which settings and how long it took; the other sections stay as they
# were. Every figure comes from this run's raw output (target/reliability/<time>/). A part
# that fails still writes its section (marked FAILED) and the command exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

command -v python3 >/dev/null || { echo "python3 is needed to write the report" >&2; exit 1; }

parts=("$@")
[ "${#parts[@]}" -gt 0 ] || parts=(soak faults oracle mutants)
for p in "${parts[@]}"; do
    case "$p" in soak | faults | oracle | mutants) ;; *) echo "unknown part: $p" >&2; exit 2 ;; esac
done

bash scripts/setup.sh

target_dir=${CARGO_TARGET_DIR:-$root/target}
out=$target_dir/reliability/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
export KEYSET_RELIABILITY_DIR=$out
echo "raw output: $out" >&2

# The machine, once per run.
{
    echo "os=$(uname -srm)"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "cores=$(nproc)"
    echo "memory=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "rustc=$(rustc --version)"
    echo "postgres=$(psql -h 127.0.0.1 -U postgres -d test -Atc 'SHOW server_version' 2>/dev/null || echo unknown)"
    echo "mariadb=$(mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -uroot -N -e 'SELECT VERSION()' 2>/dev/null || echo unknown)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
} >"$out/machine.txt"

failed=0
run_part() {
    local part=$1
    shift
    local start end status=0
    start=$(date -u +%s)
    "$@" >"$out/$part.log" 2>&1 || status=$?
    end=$(date -u +%s)
    echo "part $part: exit $status, $((end - start)) s" >&2
    [ "$status" -eq 0 ] || failed=1
    python3 scripts/reliability_report.py "$out" "$part" "$status" "$start" "$end" reports/RELIABILITY.md
}

soak() {
    KEYSET_SOAK_SECS=${KEYSET_SOAK_SECS:-600} cargo nextest run \
        -p keyset-tests-sqlite -p keyset-tests-postgres -p keyset-tests-mysql --test-threads 1 --no-fail-fast \
        -E 'test(/^concurrent_writers::/)'
}

faults() {
    cargo nextest run -p keyset-tests-postgres -p keyset-tests-mysql \
        --test-threads 1 --no-fail-fast -E 'test(/^faults::/)'
}

oracle() {
    local b
    local status=0
    for b in ${KEYSET_ORACLE_BACKENDS:-sqlite postgres mysql}; do
        KEYSET_ORACLE_CASES=${KEYSET_ORACLE_CASES:-10000} cargo nextest run --release \
            -p "keyset-tests-$b" --no-capture \
            -E 'test(oracle_property)' || status=1
    done
    return $status
}

mutants() {
    if [ -n "${KEYSET_MUTANTS_IMPORT:-}" ]; then
        local i=0 d
        touch "$out/mutants-imported"
        for d in $KEYSET_MUTANTS_IMPORT; do
            i=$((i + 1))
            mkdir -p "$out/mutants-$i"
            cp -r "$d/mutants.out" "$out/mutants-$i/"
            cp "$d/command.txt" "$out/mutants-$i/command.txt"
        done
        return 0
    fi
    cargo mutants --version >/dev/null 2>&1 || cargo install cargo-mutants --locked
    local files=${KEYSET_MUTANTS_FILES:-keyset-diesel/src/query/sql.rs keyset-diesel/src/query/seek.rs keyset-diesel/src/query/union.rs keyset-diesel/src/query/shape.rs keyset-diesel/src/load/assemble.rs keyset-diesel/src/page.rs keyset-diesel/src/cursor.rs keyset-diesel/src/checks.rs keyset-derive/src/check.rs}
    local args=() f
    for f in $files; do args+=(-f "$f"); done
    # The SQLite data-set tests read ../shared/data beside the repository; the mutants are
    # built in a copy of the tree, so name it absolutely.
    if [ -z "${KEYSET_SHARED_DIR:-}" ] && [ -d "$root/../shared" ]; then
        export KEYSET_SHARED_DIR
        KEYSET_SHARED_DIR=$(cd "$root/../shared" && pwd)
    fi
    # The baseline is skipped: cargo-mutants 27 runs it on the mutated packages only, where
    # the SQLite suite's filter matches nothing; the unmutated tree is the test command's.
    local cmd=(cargo mutants --baseline=skip --timeout "${KEYSET_MUTANTS_TIMEOUT:-900}"
        --build-timeout 3600 --jobs "${KEYSET_MUTANTS_JOBS:-1}" --output "$out/mutants-1" "${args[@]}"
        --test-package keyset-diesel,keyset-derive,keyset-tests-sqlite
        --test-tool nextest --
        -E 'package(keyset-diesel) | package(keyset-derive) | binary_id(keyset-tests-sqlite::sqlite)')
    mkdir -p "$out/mutants-1"
    echo "${cmd[*]}" >"$out/mutants-1/command.txt"
    # Missed mutants make cargo-mutants exit 2: the report lists them, the part did run.
    local status=0
    "${cmd[@]}" || status=$?
    [ "$status" -eq 0 ] || [ "$status" -eq 2 ] || [ "$status" -eq 3 ] || return "$status"
}

started=$(date -u +%s)
for p in "${parts[@]}"; do
    run_part "$p" "$p"
done
echo "reliability run: $(($(date -u +%s) - started)) s; reports/RELIABILITY.md written" >&2
exit $failed
