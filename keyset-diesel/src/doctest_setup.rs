// Shared set-up for the doc examples: the examples' activity feed (W9's events e101..e106) in an in-memory SQLite
// database. Included by the doctests with `include!("doctest_setup.rs")`.
use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        workspace_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    workspace_id: String,
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
    message: String,
}

fn setup() -> SqliteConnection {
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    diesel::sql_query(
        "CREATE TABLE events (event_id TEXT PRIMARY KEY NOT NULL, workspace_id TEXT NOT NULL, \
         occurred_at TIMESTAMP NOT NULL, message TEXT NOT NULL)",
    )
    .execute(&mut conn)
    .unwrap();
    let at = |s: &str| chrono::NaiveDateTime::parse_from_str(&format!("2026-10-10 {s}"), "%F %T").unwrap();
    let rows = [
        ("e101", "W9", "12:00:01"),
        ("e102", "W9", "12:00:02"),
        ("e103", "W9", "12:00:02"),
        ("e104", "W9", "12:00:02"),
        ("e105", "W9", "12:00:03"),
        ("e106", "W9", "12:00:04"),
        ("x201", "W7", "12:00:02"),
    ];
    for (id, ws, t) in rows {
        diesel::insert_into(events::table)
            .values((
                events::event_id.eq(id),
                events::workspace_id.eq(ws),
                events::occurred_at.eq(at(t)),
                events::message.eq(format!("event {id}")),
            ))
            .execute(&mut conn)
            .unwrap();
    }
    conn
}
