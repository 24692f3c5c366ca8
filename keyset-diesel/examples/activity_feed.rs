//! The activity feed of the seed article, paginated by keyset.
//!
//! ```text
//! cargo run -p keyset-diesel --example activity_feed --features sqlite,postgres
//! cargo run -p keyset-diesel --example activity_feed --features sqlite,postgres -- --json
//! cargo run -p keyset-diesel --example activity_feed --features sqlite,postgres -- \
//!     --database-url postgres://postgres@127.0.0.1/test --page-size 2
//! ```
//!
//! With no `--database-url` (and no `DATABASE_URL`) it runs on an in-memory SQLite database
//! (bundled, no server). It applies the migrations in `migrations/<backend>`, writes the feed of
//! workspace W9 (e101 at 12:00:01; e102, e103, e104 at 12:00:02; e105 at 12:00:03; e106 at
//! 12:00:04, all on 2026-10-10 UTC) and of another workspace, W7, then walks one workspace page
//! by page, printing each page, its next cursor and the end-of-results signal. On a server
//! database it replaces the rows of W9 and W7 in the table `events` on every run.

use std::error::Error;

use chrono::NaiveDateTime;
use clap::Parser;
use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use keyset_diesel::prelude::*;
use keyset_diesel::KeyTuple;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        workspace_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
    }
}

/// One feed event. The keyset: `occurred_at ASC, event_id ASC` (event_id is the primary key,
/// so it is the unique tie-breaker).
#[derive(Debug, Clone, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    workspace_id: String,
    #[keyset(asc)]
    occurred_at: NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
    message: String,
}

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/postgres");

/// Paginate the seed article's activity feed with keyset pagination.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// `postgres://user@host/db` for PostgreSQL; anything else is a SQLite file path.
    /// Default: an in-memory SQLite database.
    #[arg(long, env = "DATABASE_URL")]
    database_url: Option<String>,
    /// Rows per page (at least 1).
    #[arg(long, default_value_t = 3)]
    page_size: u32,
    /// The workspace to walk.
    #[arg(long, default_value = "W9")]
    workspace: String,
    /// Print one JSON object per page instead of text.
    #[arg(long)]
    json: bool,
}

/// (event id, workspace, time on 2026-10-10 UTC, message)
const FEED: &[(&str, &str, &str, &str)] = &[
    ("e101", "W9", "12:00:01", "Ada created the workspace"),
    ("e102", "W9", "12:00:02", "Ada invited Grace"),
    ("e103", "W9", "12:00:02", "Ada invited Linus"),
    ("e104", "W9", "12:00:02", "Ada invited Barbara"),
    ("e105", "W9", "12:00:03", "Grace joined"),
    ("e106", "W9", "12:00:04", "Grace uploaded report.pdf"),
    ("e201", "W7", "12:00:01", "Ken created the workspace"),
    ("e202", "W7", "12:00:02", "Ken invited Dennis"),
    ("e203", "W7", "12:00:03", "Dennis joined"),
];

fn feed_rows() -> Vec<(String, String, NaiveDateTime, String)> {
    FEED.iter()
        .map(|(id, ws, time, message)| {
            let at = NaiveDateTime::parse_from_str(&format!("2026-10-10 {time}"), "%F %T")
                .expect("the feed's times are valid");
            (id.to_string(), ws.to_string(), at, message.to_string())
        })
        .collect()
}

/// Writes the feed and walks one workspace. A macro, not a generic function, so that each
/// backend's Diesel query types stay concrete.
macro_rules! run_feed {
    ($conn:expr, $backend:ty, $migrations:expr, $args:expr, $label:expr) => {{
        let conn = $conn;
        let args: &Args = $args;
        conn.run_pending_migrations($migrations)?;
        let workspaces: Vec<&str> = FEED.iter().map(|row| row.1).collect();
        conn.transaction(|conn| {
            diesel::delete(events::table.filter(events::workspace_id.eq_any(&workspaces)))
                .execute(conn)?;
            for (id, ws, at, message) in feed_rows() {
                diesel::insert_into(events::table)
                    .values((
                        events::event_id.eq(id),
                        events::workspace_id.eq(ws),
                        events::occurred_at.eq(at),
                        events::message.eq(message),
                    ))
                    .execute(conn)?;
            }
            diesel::QueryResult::Ok(())
        })?;
        if !args.json {
            println!(
                "keyset activity feed on {}: workspace {}, page size {}",
                $label, args.workspace, args.page_size
            );
        }
        let mut cursor: Option<Cursor<Event>> = None;
        let mut number = 1;
        loop {
            let paginated = events::table
                .filter(events::workspace_id.eq(&args.workspace))
                .select(Event::as_select())
                .paginate_after(cursor.take())
                .page_size(args.page_size);
            let sql =
                diesel::debug_query::<$backend, _>(&paginated.clone().into_query()?).to_string();
            let page = paginated.load_page(conn)?;
            print_page(number, &page, &sql, args.json)?;
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
            number += 1;
        }
        Ok::<(), Box<dyn Error + Send + Sync>>(())
    }};
}

/// One line of `--json` output (fields in this order).
#[derive(serde::Serialize)]
struct JsonPage<'a> {
    page: usize,
    items: Vec<&'a str>,
    has_more: bool,
    next_cursor: Option<serde_json::Value>,
}

fn print_page(
    number: usize,
    page: &Page<Event>,
    sql: &str,
    json: bool,
) -> Result<(), Box<dyn Error + Send + Sync>> {
    let cursor_json = page
        .next_cursor
        .as_ref()
        .map(|c| serde_json::to_value(c.key.to_repr()))
        .transpose()?;
    if json {
        let line = JsonPage {
            page: number,
            items: page.items.iter().map(|e| e.event_id.as_str()).collect(),
            has_more: page.has_more,
            next_cursor: cursor_json,
        };
        println!("{}", serde_json::to_string(&line)?);
        return Ok(());
    }
    println!("\npage {number}");
    println!("  sql: {sql}");
    for e in &page.items {
        println!(
            "  {}  {}  {}  {}",
            e.occurred_at.format("%F %T"),
            e.event_id,
            e.workspace_id,
            e.message
        );
    }
    match &page.next_cursor {
        Some(c) => println!(
            "  has_more: true; next cursor: after ({}, {})",
            c.key.0.format("%F %T%.f"),
            c.key.1
        ),
        None => println!("  has_more: false; no next cursor: end of results"),
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    let args = Args::parse();
    if args.page_size == 0 {
        return Err("--page-size must be at least 1".into());
    }
    match args.database_url.as_deref() {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            let conn = &mut PgConnection::establish(url)?;
            run_feed!(
                conn,
                diesel::pg::Pg,
                POSTGRES_MIGRATIONS,
                &args,
                "PostgreSQL"
            )
        }
        Some(url) if url.starts_with("mysql://") => {
            Err("this example is built for SQLite and PostgreSQL; the tests cover MySQL".into())
        }
        url => {
            let path = url.unwrap_or(":memory:");
            let conn = &mut SqliteConnection::establish(path)?;
            let label = if path == ":memory:" {
                "SQLite (in memory)".to_string()
            } else {
                format!("SQLite ({path})")
            };
            run_feed!(
                conn,
                diesel::sqlite::Sqlite,
                SQLITE_MIGRATIONS,
                &args,
                label
            )
        }
    }
}
