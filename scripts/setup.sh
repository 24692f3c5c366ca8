#!/usr/bin/env bash
# Idempotent set-up for the test suite on a machine of our kind (Debian, Rust toolchain,
# PostgreSQL 15 and MariaDB 10.11 installed): installs what is missing and starts the
# database servers that are not running. Safe to run any number of times.
set -euo pipefail

log() { printf '[setup] %s\n' "$*" >&2; }

# psql says only what went wrong.
export PGOPTIONS='-c client_min_messages=warning'

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

# --- system packages -------------------------------------------------------------------------
# libpq-dev: the PostgreSQL client library (diesel/postgres); libmariadb-dev: the MySQL client
# library (diesel/mysql); pkg-config: how mysqlclient-sys finds it;
missing=()
# mariadb-plugin-spider: the Spider storage engine (a MariaDB table sharded across servers).
for pkg in libpq-dev libmariadb-dev pkg-config mariadb-plugin-spider; do
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

# postgres_fdw, for the sharded-table tests (the PostgreSQL suite's sharded.rs).
psql -h 127.0.0.1 -U postgres -d test -qc 'CREATE EXTENSION IF NOT EXISTS postgres_fdw SCHEMA public'

# --- Two PostgreSQL shards: clusters shard1 (127.0.0.1:5433) and shard2 (127.0.0.1:5434) ------
# The servers a table partitioned across machines lives on (postgres_fdw foreign partitions),
# each with database test, trust auth like the main cluster, and pg_stat_statements (the tests
# count the rows each shard sends per page from its FETCH statements).
pg_version=$(ls /etc/postgresql | sort -n | tail -1)
for n in 1 2; do
    cluster="shard$n"
    port=$((5432 + n))
    if ! pg_lsclusters -h | awk '{print $1 "/" $2}' | grep -qx "$pg_version/$cluster"; then
        log "creating PostgreSQL cluster $cluster on port $port"
        as_root pg_createcluster "$pg_version" "$cluster" -p "$port" -- --auth=trust >/dev/null
    fi
    conf="/etc/postgresql/$pg_version/$cluster/conf.d/keyset.conf"
    if [ ! -f "$conf" ]; then
        printf "shared_preload_libraries = 'pg_stat_statements'\n" | as_root tee "$conf" >/dev/null
        as_root pg_ctlcluster --skip-systemctl-redirect "$pg_version" "$cluster" stop >/dev/null 2>&1 || true
    fi
    if ! pg_isready -q -h 127.0.0.1 -p "$port" 2>/dev/null; then
        log "starting PostgreSQL cluster $cluster"
        as_root pg_ctlcluster --skip-systemctl-redirect "$pg_version" "$cluster" start
        for _ in $(seq 1 60); do pg_isready -q -h 127.0.0.1 -p "$port" 2>/dev/null && break; sleep 0.5; done
        pg_isready -q -h 127.0.0.1 -p "$port" || { log "PostgreSQL cluster $cluster did not start"; exit 1; }
    fi
    if ! psql -h 127.0.0.1 -p "$port" -U postgres -d test -Atc 'SELECT 1' >/dev/null 2>&1; then
        psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -qc 'CREATE DATABASE test'
    fi
    psql -h 127.0.0.1 -p "$port" -U postgres -d test -qc 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements'
done

# --- MariaDB: 127.0.0.1:3306, root without password, database test ----------------------------
maria_ready() { mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 -uroot ping >/dev/null 2>&1; }
if ! maria_ready; then
    log "starting MariaDB"
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
    for _ in $(seq 1 60); do maria_ready && break; sleep 0.5; done
    maria_ready || { log "MariaDB did not start"; exit 1; }
fi
mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -uroot -e 'CREATE DATABASE IF NOT EXISTS test'
# Spider, for the sharded-table test and bench (tests/mysql: spider.rs): loaded at run time, so
# the running server need not restart.
if ! mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -uroot -N -e 'SHOW ENGINES' | grep -q '^SPIDER'; then
    log "loading the Spider storage engine"
    mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -uroot -e "INSTALL SONAME 'ha_spider'"
fi

# --- Two MariaDB shards: 127.0.0.1:3307 and 127.0.0.1:3308 ------------------------------------
# The servers a Spider table's partitions live on, each with its own data directory, root
# without password and database test; no configuration file (--no-defaults), so they load no
# plugin and listen on loopback only.
as_root mkdir -p /run/mysqld /var/log/mysql
as_root chown mysql:mysql /run/mysqld /var/log/mysql
for n in 1 2; do
    port=$((3306 + n))
    dir="/var/lib/mysql-keyset-shard$n"
    shard_ready() { mariadb-admin --protocol=tcp -h 127.0.0.1 -P "$port" -uroot status >/dev/null 2>&1; }
    if [ ! -d "$dir/mysql" ]; then
        log "creating MariaDB shard $n in $dir"
        as_root mkdir -p "$dir"
        as_root chown mysql:mysql "$dir"
        as_root mariadb-install-db --no-defaults --user=mysql --datadir="$dir" \
            --auth-root-authentication-method=normal >/dev/null
    fi
    if ! shard_ready; then
        log "starting MariaDB shard $n on port $port"
        as_root start-stop-daemon --start --oknodo --background \
            --pidfile "/run/mysqld/keyset-shard$n.pid" --make-pidfile \
            --exec /usr/sbin/mariadbd -- --no-defaults --user=mysql --datadir="$dir" \
            --port="$port" --bind-address=127.0.0.1 --socket="/run/mysqld/keyset-shard$n.sock" \
            --log-error="/var/log/mysql/keyset-shard$n.err"
        for _ in $(seq 1 60); do shard_ready && break; sleep 0.5; done
        shard_ready || { log "MariaDB shard $n did not start"; exit 1; }
    fi
    mariadb --protocol=tcp -h 127.0.0.1 -P "$port" -uroot -e 'CREATE DATABASE IF NOT EXISTS test'
done

log "ready"
