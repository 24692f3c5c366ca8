#!/usr/bin/env bash
# Idempotent set-up for the test suite on a machine of our kind (Debian, Rust toolchain,
# PostgreSQL 15 and MariaDB 10.11 installed): installs what is missing and starts the
# database servers that are not running. Safe to run any number of times.
set -euo pipefail

log() { printf '[setup] %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

# --- system packages -------------------------------------------------------------------------
# libpq-dev: the PostgreSQL client library (diesel/postgres); libmariadb-dev: the MySQL client
# library (diesel/mysql); pkg-config: how mysqlclient-sys finds it.
missing=()
for pkg in libpq-dev libmariadb-dev pkg-config; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! as_root apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; then
        as_root apt-get update >/dev/null
        as_root apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
    fi
fi

# --- cargo tools -----------------------------------------------------------------------------
if ! cargo nextest --version >/dev/null 2>&1; then
    log "installing cargo-nextest"
    cargo install cargo-nextest --locked
fi

# --- PostgreSQL: 127.0.0.1:5432, user postgres, database test ---------------------------------
pg_ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if ! pg_ready; then
    log "starting PostgreSQL"
    for version in $(ls /etc/postgresql 2>/dev/null); do
        as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    done
    for _ in $(seq 1 60); do pg_ready && break; sleep 0.5; done
    pg_ready || { log "PostgreSQL did not start"; exit 1; }
fi
if ! psql -h 127.0.0.1 -U postgres -d test -Atc 'SELECT 1' >/dev/null 2>&1; then
    log "creating PostgreSQL database test"
    psql -h 127.0.0.1 -U postgres -d postgres -c 'CREATE DATABASE test' >/dev/null
fi

# --- MariaDB: 127.0.0.1:3306, root without password, database test ----------------------------
maria_ready() { mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 -uroot ping >/dev/null 2>&1; }
if ! maria_ready; then
    log "starting MariaDB"
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
    for _ in $(seq 1 60); do maria_ready && break; sleep 0.5; done
    maria_ready || { log "MariaDB did not start"; exit 1; }
fi
mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -uroot -e 'CREATE DATABASE IF NOT EXISTS test'

log "ready"
