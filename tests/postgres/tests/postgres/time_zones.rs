//! `timestamptz` keys under a session time zone that changes between pages: the boundary
//! does not move.

use diesel::prelude::*;
use keyset_test_suites::TestDb;

/// The PostgreSQL variant of the session time zone case: `timestamptz` keys are bound as
/// `timestamptz`, so a session time zone changed between requests does not move the boundary.
#[test]
fn session_time_zone_change_between_pages_keeps_pages() {
    use diesel::connection::SimpleConnection;
    use keyset_diesel::Keyset;
    use keyset_test_suites::oracle::walk_pages;
    use keyset_test_suites::typed::postgres::*;
    let mut db = diesel::PgConnection::open();
    let times = [
        "2026-01-03 00:00",
        "2026-01-03 01:00",
        "2026-01-03 02:00",
        "2026-01-03 03:00",
    ];
    // Plus the DST fall-back pair in New York: 01:30 -04:00 and 01:30 -05:00.
    let mut instants: Vec<chrono::DateTime<chrono::Utc>> = times
        .iter()
        .map(|t| {
            chrono::NaiveDateTime::parse_from_str(t, "%F %H:%M")
                .unwrap()
                .and_utc()
        })
        .collect();
    instants.push(
        chrono::DateTime::parse_from_rfc3339("2026-11-01T01:30:00-04:00")
            .unwrap()
            .into(),
    );
    instants.push(
        chrono::DateTime::parse_from_rfc3339("2026-11-01T01:30:00-05:00")
            .unwrap()
            .into(),
    );
    let rows: Vec<NewTyped> = instants
        .iter()
        .enumerate()
        .map(|(i, &t)| NewTyped {
            id: i as i64 + 1,
            tenant: 0,
            k_i16: 0,
            k_i32: 0,
            k_bool: false,
            k_text: String::new(),
            k_ts: t.naive_utc(),
            k_tstz: t,
            k_date: t.date_naive(),
            k_uuid: uuid::Uuid::nil(),
            k_dec: 0.into(),
            k_f64: 0.0,
            k_f32: 0.0,
            k_bytes: Vec::new(),
            k_time: chrono::NaiveTime::MIN,
            k_user: keyset_test_suites::typed::UserId(0),
        })
        .collect();
    diesel::insert_into(typed_rows::table)
        .values(&rows)
        .execute(&mut *db)
        .unwrap();
    let conn: &mut diesel::PgConnection = &mut db;
    let expected: Vec<i64> = walk_pages::<TstzAsc, _>(conn, &0, 2, false)
        .iter()
        .flat_map(|p| p.items.iter().map(|r| r.id))
        .collect();
    assert_eq!(expected, vec![1, 2, 3, 4, 5, 6]);
    let mut cursor = None;
    let mut walked = Vec::new();
    for zone in [
        "UTC",
        "Australia/Sydney",
        "America/New_York",
        "Asia/Kathmandu",
        "UTC",
    ] {
        conn.batch_execute(&format!("SET TIME ZONE '{zone}'"))
            .unwrap();
        let page =
            <TstzAsc as keyset_test_suites::models::Walk<_>>::page(conn, &0, cursor, 2, false)
                .unwrap();
        walked.extend(page.items.iter().map(|r| r.id));
        cursor = page
            .items
            .last()
            .map(|r| keyset_diesel::Cursor::after(r.key()));
        if !page.has_more() {
            break;
        }
    }
    assert_eq!(walked, expected);
}
