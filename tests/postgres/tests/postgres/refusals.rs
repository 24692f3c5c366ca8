//! Pages PostgreSQL would let go wrong, refused with a typed error instead: a boxed
//! `DISTINCT ON` query (before any SQL runs) and a NaN in a floating-point key column.

use diesel::prelude::*;
use keyset_test_suites::TestDb;

/// A boxed `distinct_on(device)` query is refused with
/// `KeysetError::DistinctOn` before any SQL runs (it used to give six pages for three devices);
/// plain `DISTINCT` and no `DISTINCT` are not refused. (The unboxed query does not compile:
/// the `NoDistinctOn` bound of `PageSource`.)
#[test]
fn distinct_on_is_refused_before_any_sql() {
    use keyset_diesel::{KeysetError, PaginateDsl};
    use keyset_test_suites::loud::{create_loud_events, loud_events, DeviceEvent};
    let mut db = diesel::PgConnection::open();
    create_loud_events(&mut *db);
    let conn: &mut diesel::PgConnection = &mut db;
    for page_size in [1, 2] {
        let refused = loud_events::table
            .distinct_on(loud_events::device)
            .select(DeviceEvent::as_select())
            .into_boxed()
            .paginate_after(None)
            .page_size(page_size)
            .load_page(conn)
            .expect_err("DISTINCT ON is refused");
        assert!(
            matches!(refused, diesel::result::Error::QueryBuilderError(_)),
            "before any SQL: {refused:?}"
        );
        assert_eq!(
            KeysetError::from_diesel(&refused),
            Some(&KeysetError::DistinctOn)
        );
    }
    let into_query = loud_events::table
        .distinct_on(loud_events::device)
        .select(DeviceEvent::as_select())
        .into_boxed()
        .paginate_after::<DeviceEvent>(None)
        .into_query::<diesel::pg::Pg>()
        .map(|_| ());
    assert_eq!(into_query, Err(KeysetError::DistinctOn));
    // Plain DISTINCT and none page every event.
    for distinct in [false, true] {
        let base = loud_events::table
            .select(DeviceEvent::as_select())
            .into_boxed();
        let query = if distinct { base.distinct() } else { base };
        let page = query
            .paginate_after(None)
            .page_size(10)
            .load_page(conn)
            .expect("no DISTINCT ON");
        let ids: Vec<i32> = page.items.iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![2, 6, 1, 3, 7, 5, 4], "distinct {distinct}");
    }
}

/// PostgreSQL stores NaN (and sorts it after every number): a page holding a row whose
/// floating-point key is NaN is refused with `KeysetError::InvalidRowKey`, never delivered with
/// a cursor that SQLite or MySQL could not bind and PostgreSQL would seek past. The pages
/// before it are delivered.
#[test]
fn nan_in_a_float_key_column_is_a_typed_error() {
    use keyset_diesel::KeysetError;
    use keyset_test_suites::models::Walk;
    use keyset_test_suites::typed::postgres::*;
    let mut db = diesel::PgConnection::open();
    let rows: Vec<NewTyped> = [1.0, f64::NAN, 3.0, 2.0]
        .into_iter()
        .zip(0..)
        .map(|(k_f64, id)| NewTyped {
            id,
            tenant: 0,
            k_i16: 0,
            k_i32: 0,
            k_bool: false,
            k_text: String::new(),
            k_ts: chrono::NaiveDateTime::default(),
            k_tstz: chrono::DateTime::default(),
            k_date: chrono::NaiveDate::default(),
            k_uuid: uuid::Uuid::nil(),
            k_dec: 0.into(),
            k_f64,
            k_f32: 0.0,
            k_bytes: Vec::new(),
            k_time: chrono::NaiveTime::MIN,
            k_user: keyset_test_suites::typed::UserId(0),
        })
        .collect();
    let conn: &mut diesel::PgConnection = &mut db;
    diesel::insert_into(typed_rows::table)
        .values(&rows)
        .execute(conn)
        .unwrap();
    for boxed in [false, true] {
        let first = F64Asc::page(conn, &0, None, 2, boxed).expect("the rows before the NaN");
        assert_eq!(first.items.len(), 2);
        let error = F64Asc::page(conn, &0, first.next_cursor(), 2, boxed)
            .expect_err("the page holding the NaN row");
        assert!(
            matches!(error, diesel::result::Error::DeserializationError(_)),
            "{error:?}"
        );
        assert!(
            matches!(
                KeysetError::from_diesel(&error),
                Some(KeysetError::InvalidRowKey {
                    column: "k_f64",
                    ..
                })
            ),
            "{error:?}"
        );
    }
}
