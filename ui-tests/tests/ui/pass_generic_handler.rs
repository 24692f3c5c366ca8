//! A handler generic over the query, the keyset and the connection needs one bound:
//! `LoadPage`. It pages an unboxed and a boxed query the same way.

use diesel::prelude::*;
use keyset_diesel::prelude::*;
use keyset_diesel::LoadPage;

diesel::table! {
    events (event_id) {
        event_id -> Integer,
        workspace_id -> Text,
    }
}

#[derive(Debug, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc, unique)]
    event_id: i32,
    workspace_id: String,
}

/// Every row of `query`, two per page, following each page's cursor.
fn all_pages<'q, Q, K, Conn>(query: impl Fn() -> Q, conn: &mut Conn) -> QueryResult<Vec<K>>
where
    K: Keyset,
    Q: LoadPage<'q, Conn, K>,
{
    let mut rows = Vec::new();
    let mut cursor = None;
    loop {
        let page = query().paginate_after(cursor).page_size(2).load_page(conn)?;
        let next = page.next_cursor();
        rows.extend(page.items);
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(rows),
        }
    }
}

fn main() {
    let conn = &mut SqliteConnection::establish(":memory:").unwrap();
    diesel::sql_query("CREATE TABLE events (event_id INTEGER PRIMARY KEY, workspace_id TEXT NOT NULL)")
        .execute(conn)
        .unwrap();
    for id in 1..=5 {
        diesel::insert_into(events::table)
            .values((events::event_id.eq(id), events::workspace_id.eq("W9")))
            .execute(conn)
            .unwrap();
    }
    let unboxed: Vec<Event> = all_pages(
        || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select()),
        conn,
    )
    .unwrap();
    let boxed: Vec<Event> = all_pages(
        || {
            events::table
                .filter(events::workspace_id.eq("W9"))
                .select(Event::as_select())
                .into_boxed()
        },
        conn,
    )
    .unwrap();
    let ids = |rows: &[Event]| rows.iter().map(|e| e.event_id).collect::<Vec<_>>();
    assert_eq!(ids(&unboxed), [1, 2, 3, 4, 5]);
    assert_eq!(ids(&boxed), [1, 2, 3, 4, 5]);
}
