//! A stored export of a workspace's activity feed, driven from the command line the way an
//! HTTP API would drive it (`POST /workspaces/{w}/exports`, then
//! `GET /exports/{id}?cursor=...`, one request per page on any connection).
//!
//! ```text
//! EX="cargo run --release -p keyset-stored-export --"   # a SQLite file: no feature needed
//! # PostgreSQL: EX="cargo run --release -p keyset-stored-export --features postgres -- \
//! #     --database-url postgres://postgres@127.0.0.1/test"
//! $EX seed --workspace W9 --rows 100000        # replace W9's events with 100,000 rows
//! $EX create --workspace W9                     # -> export id, row count, expiry, time taken
//! $EX page --workspace W9 --export <id>         # first page, as JSON, with next_token
//! $EX page --workspace W9 --export <id> --token <next_token>
//! $EX compare --workspace W9 --export <id> --depth 50000   # stored vs live page at a depth
//! $EX expire --export <id>                      # (an operator's, any scope) now 410 Gone
//! $EX purge                                     # delete expired exports
//! ```
//!
//! `--database-url` (or `DATABASE_URL`): `postgres://...` for PostgreSQL, anything else a
//! SQLite file (default `keyset_export_demo.sqlite` in the current directory). Each run applies
//! the migrations in `migrations/<backend>` (the feed table and the export store). Errors print
//! the HTTP status an API would answer (404 unknown export, 410 expired, 400 refused token).
//! The token secret comes from `KEYSET_TOKEN_SECRET` (at least 32 bytes); without it a fixed
//! demo secret is used, which is fine for this demo and nothing else.

use std::error::Error;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use clap::{Parser, Subcommand};
use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use keyset_diesel::export::{ExportError, ExportStore};
use keyset_diesel::prelude::*;
use keyset_diesel::token::SecretKey;
use keyset_diesel::web::Problem;
use keyset_diesel::CursorCodec;
use serde::{Deserialize, Serialize};

diesel::table! {
    events (event_id) {
        event_id -> Text,
        workspace_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
    }
}

/// One feed event, keyed `occurred_at ASC, event_id ASC`; stored in exports as JSON.
#[derive(Debug, Clone, Queryable, Selectable, Keyset, Serialize, Deserialize)]
#[diesel(table_name = events)]
struct Event {
    workspace_id: String,
    #[keyset(asc)]
    #[serde(with = "text_time")]
    occurred_at: NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
    message: String,
}

/// Timestamps as `2026-10-10 12:00:01.000250` text in the export's JSON.
mod text_time {
    use chrono::NaiveDateTime;
    use serde::{Deserialize, Deserializer, Serializer};

    const FORMAT: &str = "%F %T%.6f";

    pub fn serialize<S: Serializer>(t: &NaiveDateTime, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&t.format(FORMAT))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDateTime, D::Error> {
        let text = String::deserialize(d)?;
        NaiveDateTime::parse_from_str(&text, FORMAT).map_err(serde::de::Error::custom)
    }
}

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
#[cfg(feature = "postgres")]
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Stored exports of a workspace activity feed.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// `postgres://user@host/db` for PostgreSQL; anything else is a SQLite file path.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "keyset_export_demo.sqlite"
    )]
    database_url: String,
    /// How long an export lives, in seconds.
    #[arg(long, default_value_t = 3600)]
    ttl_secs: u64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Replace the workspace's events with `rows` generated events.
    Seed {
        #[arg(long)]
        workspace: String,
        #[arg(long, default_value_t = 1000)]
        rows: u32,
    },
    /// Create an export of the workspace's events (`POST /workspaces/{w}/exports`).
    Create {
        #[arg(long)]
        workspace: String,
    },
    /// One page of an export (`GET /exports/{id}?cursor=...`), as JSON.
    Page {
        #[arg(long)]
        workspace: String,
        #[arg(long)]
        export: String,
        #[arg(long)]
        token: Option<String>,
        #[arg(long, default_value_t = 50)]
        page_size: u32,
    },
    /// Time a page read from the export against a live keyset page at the same depth.
    Compare {
        #[arg(long)]
        workspace: String,
        #[arg(long)]
        export: String,
        #[arg(long)]
        depth: u32,
        #[arg(long, default_value_t = 50)]
        page_size: u32,
    },
    /// End an export now.
    Expire {
        #[arg(long)]
        export: String,
    },
    /// Delete expired exports and their rows.
    Purge,
}

/// What a reader must present: the workspace (an API would take it from the session).
fn scope(workspace: &str) -> (&str, &str) {
    ("workspace", workspace)
}

fn store(ttl: Duration) -> Result<ExportStore, Box<dyn Error + Send + Sync>> {
    let secret = std::env::var("KEYSET_TOKEN_SECRET")
        .unwrap_or_else(|_| "demo secret: set KEYSET_TOKEN_SECRET".to_string());
    let codec = CursorCodec::builder()
        .signing_key(SecretKey::new(1, secret.as_bytes())?)
        .build()?;
    Ok(ExportStore::new(codec, ttl))
}

/// The median of `runs` timings of `f`, in milliseconds.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Prints the error an API would answer, with its status.
fn report(error: ExportError) -> Box<dyn Error + Send + Sync> {
    format!("HTTP {}: {error}", Problem::from(&error).status).into()
}

/// Runs one command on a connection. A macro, not a generic function, so that the query
/// types stay concrete for each backend.
macro_rules! run {
    ($conn:expr, $migrations:expr, $args:expr) => {{
        let conn = $conn;
        let args: &Args = $args;
        conn.run_pending_migrations($migrations)?;
        let store = store(Duration::from_secs(args.ttl_secs))?;
        match &args.command {
            Command::Seed { workspace, rows } => {
                let base = NaiveDateTime::parse_from_str("2026-10-10 12:00:00", "%F %T")?;
                let start = Instant::now();
                conn.transaction(|conn| {
                    diesel::delete(events::table.filter(events::workspace_id.eq(workspace)))
                        .execute(conn)?;
                    let all: Vec<_> = (0..*rows)
                        .map(|n| {
                            (
                                events::event_id.eq(format!("{workspace}-{n:08}")),
                                events::workspace_id.eq(workspace.clone()),
                                // Three events per second, so times tie.
                                events::occurred_at.eq(base
                                    + chrono::Duration::seconds(i64::from(n / 3))),
                                events::message.eq(format!("event {n} of {workspace}")),
                            )
                        })
                        .collect();
                    for chunk in all.chunks(1000) {
                        diesel::insert_into(events::table)
                            .values(chunk.to_vec())
                            .execute(conn)?;
                    }
                    diesel::QueryResult::Ok(())
                })?;
                println!("seeded {rows} events of {workspace} in {:?}", start.elapsed());
            }
            Command::Create { workspace } => {
                let start = Instant::now();
                let export = store
                    .create::<Event, _, _, _, _>(conn, &scope(workspace), || {
                        events::table
                            .filter(events::workspace_id.eq(workspace.clone()))
                            .select(Event::as_select())
                    })
                    .map_err(report)?;
                println!(
                    "export {} of {workspace}: {} rows, expires at {} (Unix seconds); created in {:?}",
                    export.id,
                    export.rows,
                    export.expires_at,
                    start.elapsed()
                );
            }
            Command::Page {
                workspace,
                export,
                token,
                page_size,
            } => {
                let page = store
                    .page::<Event, _, _>(
                        conn,
                        export,
                        &scope(workspace),
                        token.as_deref(),
                        *page_size,
                    )
                    .map_err(report)?;
                println!(
                    "{}",
                    serde_json::json!({
                        "items": page.items,
                        "first_position": page.first_position,
                        "total": page.total,
                        "expires_at": page.expires_at,
                        "next_token": page.next_token,
                    })
                );
            }
            Command::Compare {
                workspace,
                export,
                depth,
                page_size,
            } => {
                // The stored page at `depth`: walk tokens there first (not timed).
                let scope = scope(workspace);
                let mut token: Option<String> = None;
                let mut position = 0;
                while position + 1000 <= *depth {
                    let page = store
                        .page::<Event, _, _>(conn, export, &scope, token.as_deref(), 1000)
                        .map_err(report)?;
                    position += 1000;
                    token = page.next_token;
                }
                let rest = *depth - position;
                if rest > 0 {
                    let page = store
                        .page::<Event, _, _>(conn, export, &scope, token.as_deref(), rest)
                        .map_err(report)?;
                    token = page.next_token;
                }
                let stored = median_ms(51, || {
                    let page = store
                        .page::<Event, _, _>(conn, export, &scope, token.as_deref(), *page_size)
                        .expect("stored page");
                    assert_eq!(page.items.len(), *page_size as usize);
                });
                // The live page after the row at `depth`.
                let row: Event = events::table
                    .filter(events::workspace_id.eq(workspace.clone()))
                    .select(Event::as_select())
                    .order((events::occurred_at.asc(), events::event_id.asc()))
                    .offset(i64::from(*depth) - 1)
                    .first(conn)?;
                let cursor = Cursor::after_row(&row);
                let live = median_ms(51, || {
                    let page = events::table
                        .filter(events::workspace_id.eq(workspace.clone()))
                        .select(Event::as_select())
                        .paginate_after(Some(cursor.clone()))
                        .page_size(*page_size)
                        .load_page(conn)
                        .expect("live page");
                    assert_eq!(page.items.len(), *page_size as usize);
                });
                println!(
                    "page of {page_size} at depth {depth}: stored export {stored:.3} ms, live keyset page {live:.3} ms (median of 51)"
                );
            }
            Command::Expire { export } => {
                // An operator's command: any scope (a request would use `expire` with its own).
                let found = store.expire_unscoped(conn, export).map_err(report)?;
                println!("export {export}: {}", if found { "expired" } else { "not found" });
            }
            Command::Purge => {
                let purged = store.purge_expired(conn).map_err(report)?;
                println!(
                    "purged {} exports, {} stored rows",
                    purged.exports, purged.rows
                );
            }
        }
    }};
}

fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    let args = Args::parse();
    if args.database_url.starts_with("postgres://")
        || args.database_url.starts_with("postgresql://")
    {
        #[cfg(feature = "postgres")]
        {
            let conn = &mut PgConnection::establish(&args.database_url)?;
            run!(conn, POSTGRES_MIGRATIONS, &args);
        }
        #[cfg(not(feature = "postgres"))]
        return Err("PostgreSQL needs the feature `postgres` (it links libpq)".into());
    } else {
        let conn = &mut SqliteConnection::establish(&args.database_url)?;
        // WAL: readers of the live feed keep going while an export is created.
        diesel::connection::SimpleConnection::batch_execute(
            conn,
            "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000;",
        )?;
        run!(conn, SQLITE_MIGRATIONS, &args);
    }
    Ok(())
}
