//! A table partitioned across two more PostgreSQL servers: the parent
//! `shard_rows` lives on the test server, hash-partitioned on `id` into two `postgres_fdw`
//! foreign tables, one on each shard cluster (`scripts/setup.sh` creates `shard1` on port
//! 5433 and `shard2` on port 5434; `KEYSET_SHARD_PORTS` names others). Every page reads both
//! shards and merges them.
//!
//! Each test gets its own parent (in its own schema on the test server), its own foreign
//! servers and its own tables on the shards, all dropped when [`Shards`] is dropped.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;

use crate::db::{server_missing, unique_name};
use crate::{Fixture, TestDb};

diesel::table! {
    /// `id` is unique (each row its own); a partitioned table with foreign partitions has no
    /// primary key index, so the models say `unique`.
    shard_rows (id) {
        id -> BigInt,
        tenant -> Integer,
        at -> Timestamp,
        score -> Integer,
        payload -> Text,
    }
}

/// `at ASC, id ASC`: one direction, a row value unless `expanded_seek(true)`.
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = shard_rows)]
pub struct ShardAsc {
    #[keyset(asc)]
    pub at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    pub id: i64,
    pub payload: String,
}

/// `at DESC, id DESC`.
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = shard_rows)]
pub struct ShardDesc {
    #[keyset(desc)]
    pub at: chrono::NaiveDateTime,
    #[keyset(desc, unique)]
    pub id: i64,
    pub payload: String,
}

/// `score DESC, id ASC`: mixed directions, the expanded form on every backend.
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = shard_rows)]
pub struct ShardMixed {
    #[keyset(desc)]
    pub score: i32,
    #[keyset(asc, unique)]
    pub id: i64,
    pub payload: String,
}

/// Rows in all; tenant 1 holds every third (`ROWS / 3`).
pub const ROWS: i64 = 3_000;
/// Tenant 1's rows.
pub const TENANT_ROWS: i64 = ROWS / 3;
/// Tenant 1's rows per `at` value (ties across both shards).
pub const AT_TIES: i64 = 4;

/// The shard clusters' ports: `KEYSET_SHARD_PORTS` (comma-separated) or 5433 and 5434.
pub fn shard_ports() -> Vec<u16> {
    std::env::var("KEYSET_SHARD_PORTS")
        .unwrap_or_else(|_| "5433,5434".to_string())
        .split(',')
        .map(|p| p.trim().parse().expect("KEYSET_SHARD_PORTS: ports"))
        .collect()
}

/// The sharded table of one test: the test server's connection (search path on the test's
/// schema) and one connection to each shard.
pub struct Shards {
    pub db: Fixture<PgConnection>,
    pub remotes: Vec<PgConnection>,
    /// The table name on every shard.
    remote_table: String,
    /// The foreign servers on the test server.
    servers: Vec<String>,
    /// The role the servers read the shards as.
    remote_user: String,
}

#[derive(QueryableByName)]
struct Sum {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

impl Shards {
    /// Creates the tables on the shards (each with the keysets' indexes), the foreign
    /// servers (postgres_fdw `fetch_size` = `fetch_size`) and the parent, and loads [`ROWS`]
    /// rows through the parent (PostgreSQL routes each row to its shard), then `ANALYZE`s
    /// both sides.
    pub fn create(fetch_size: u32) -> Shards {
        Shards::create_as(fetch_size, "postgres")
    }

    /// [`Shards::create`] with the foreign servers reading the shards as role `remote_user`
    /// (created on the shards when missing, given the shard tables): a test that counts what
    /// the shards send ([`Shards::rows_sent`]) counts that role's statements only, not those
    /// of the tests running beside it.
    pub fn create_as(fetch_size: u32, remote_user: &str) -> Shards {
        let name = unique_name();
        let mut shards = Shards {
            db: PgConnection::open(),
            remotes: Vec::new(),
            remote_table: format!("{name}_rows"),
            servers: Vec::new(),
            remote_user: String::new(),
        };
        // postgres_fdw is in the database's `public` schema (scripts/setup.sh); a test
        // schema dropped at the end must not take it along.
        shards
            .db
            .exec("CREATE EXTENSION IF NOT EXISTS postgres_fdw SCHEMA public");
        shards.db.exec(
            "CREATE TABLE shard_rows (id BIGINT NOT NULL, tenant INTEGER NOT NULL, \
             at TIMESTAMP NOT NULL, score INTEGER NOT NULL, payload TEXT NOT NULL) \
             PARTITION BY HASH (id)",
        );
        let ports = shard_ports();
        let modulus = ports.len();
        for (n, port) in ports.into_iter().enumerate() {
            let url = format!("postgres://postgres@127.0.0.1:{port}/test");
            let mut remote = PgConnection::establish(&url)
                .unwrap_or_else(|e| server_missing("A PostgreSQL shard", &url, &e));
            let table = &shards.remote_table;
            remote.exec(&format!(
                "CREATE TABLE {table} (id BIGINT NOT NULL, tenant INTEGER NOT NULL, \
                 at TIMESTAMP NOT NULL, score INTEGER NOT NULL, payload TEXT NOT NULL); \
                 CREATE INDEX {table}_at ON {table} (tenant, at, id); \
                 CREATE INDEX {table}_score ON {table} (tenant, score DESC, id); \
                 DO $$ BEGIN CREATE ROLE {remote_user} LOGIN; \
                 EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$; \
                 GRANT SELECT, INSERT ON {table} TO {remote_user}"
            ));
            shards.remotes.push(remote);
            let server = format!("{name}_shard{n}");
            shards.db.exec(&format!(
                "CREATE SERVER {server} FOREIGN DATA WRAPPER postgres_fdw OPTIONS \
                 (host '127.0.0.1', port '{port}', dbname 'test', fetch_size '{fetch_size}', \
                 batch_size '500'); \
                 CREATE USER MAPPING FOR CURRENT_USER SERVER {server} OPTIONS (user '{remote_user}'); \
                 CREATE FOREIGN TABLE shard_rows_{n} PARTITION OF shard_rows \
                 FOR VALUES WITH (MODULUS {modulus}, REMAINDER {n}) SERVER {server} \
                 OPTIONS (schema_name 'public', table_name '{table}')"
            ));
            shards.servers.push(server);
        }
        shards.db.exec(&format!(
            "INSERT INTO shard_rows SELECT i, 1 + i % 3, \
             TIMESTAMP '2026-01-01' + (i / {per_at}) * INTERVAL '1 second', i % 7, 'payload ' || i \
             FROM generate_series(0, {ROWS} - 1) i",
            per_at = AT_TIES * 3
        ));
        for remote in &mut shards.remotes {
            remote.exec(&format!("ANALYZE {}", shards.remote_table));
        }
        shards.db.exec("ANALYZE shard_rows");
        shards.remote_user = remote_user.to_string();
        shards
    }

    /// The foreign server of shard `n` on the test server.
    pub fn server(&self, n: usize) -> &str {
        &self.servers[n]
    }

    /// Rows shard `n` has sent in `FETCH {fetch_size}` statements (postgres_fdw reads a
    /// remote query through a cursor, `fetch_size` rows a batch) to the servers' role, from
    /// `pg_stat_statements`. Cumulative: take the difference around a page.
    pub fn rows_sent(&mut self, n: usize, fetch_size: u32) -> i64 {
        diesel::sql_query(format!(
            "SELECT COALESCE(SUM(rows), 0)::bigint AS n FROM pg_stat_statements \
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
             AND userid = '{}'::regrole AND query LIKE 'FETCH {fetch_size} FROM %'",
            self.remote_user
        ))
        .get_result::<Sum>(&mut self.remotes[n])
        .expect("pg_stat_statements on the shard (scripts/setup.sh preloads it)")
        .n
    }
}

impl Drop for Shards {
    fn drop(&mut self) {
        for server in &self.servers {
            let _ = self
                .db
                .batch_execute(&format!("DROP SERVER IF EXISTS {server} CASCADE"));
        }
        for remote in &mut self.remotes {
            let _ = remote.batch_execute(&format!("DROP TABLE IF EXISTS {}", self.remote_table));
        }
    }
}
