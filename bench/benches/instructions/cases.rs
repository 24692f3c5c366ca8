//! What runs under callgrind: the counted loops (`measured_<side>`, the functions
//! `--toggle-collect` names), and the cases that check the library's page against the same
//! statement written by hand, then read it through those loops.

use diesel::prelude::*;

use crate::connect::{mysql, postgres, sqlite, sqlite_big};
use crate::{data, DEPTH, PAGE, PAGES, TENANT, WARM_UP};

/// The counted loops: one page read `pages` times by `page`, each page kept from the optimizer
/// (`black_box`); returns the rows read (`rows` of each page). Three functions, so that
/// callgrind counts each side on its own.
#[inline(never)]
fn measured_library<R, F: FnMut() -> R>(pages: u32, page: &mut F, rows: fn(&R) -> usize) -> usize {
    (0..pages)
        .map(|_| rows(&std::hint::black_box(page())))
        .sum()
}

#[inline(never)]
fn measured_prepared<R, F: FnMut() -> R>(pages: u32, page: &mut F, rows: fn(&R) -> usize) -> usize {
    (0..pages)
        .map(|_| rows(&std::hint::black_box(page())))
        .sum()
}

#[inline(never)]
fn measured_by_name<R, F: FnMut() -> R>(pages: u32, page: &mut F, rows: fn(&R) -> usize) -> usize {
    (0..pages)
        .map(|_| rows(&std::hint::black_box(page())))
        .sum()
}

/// A counted loop: [`measured_library`] or another.
type Measured<R, F> = fn(u32, &mut F, fn(&R) -> usize) -> usize;

/// `page` read [`WARM_UP`] times uncounted (its statement prepared and cached), then
/// [`PAGES`] times by the counted loop `measured`, every read a full page.
fn counted<R, F: FnMut() -> R>(mut page: F, rows: fn(&R) -> usize, measured: Measured<R, F>) {
    for _ in 0..WARM_UP {
        page();
    }
    assert_eq!(measured(PAGES, &mut page, rows), (PAGES * PAGE) as usize);
}

/// One case, run under callgrind: checks that the three sides run the same SQL text with the
/// same binds and read the same rows, warms them up, then runs the counted loops.
macro_rules! case {
    (
        $conn:expr, $db:ty, $model:ty, $order:expr, lead: $lead:ident as $lead_bind:ident,
        same_direction: $same:expr, deferred: $deferred:expr
    ) => {{
        use keyset_diesel::{Cursor, Keyset, KeysetBackend, PaginateDsl};
        use $crate::handwritten::{page_binds, same_statement, seek_binds, Bind};
        use $crate::schema::bench_rows;

        let conn = $conn;
        let deferred: Option<bool> = $deferred;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(TENANT))
                .select(<$model>::as_select())
        };
        let cursor_row: $model = base()
            .order($order)
            .offset(DEPTH - 1)
            .limit(1)
            .get_result(conn)
            .expect("cursor row");
        let want: Vec<$model> = base()
            .order($order)
            .offset(DEPTH)
            .limit(i64::from(PAGE) + 1)
            .load(conn)
            .expect("the page by OFFSET");
        let cursor = Cursor::after_row(&cursor_row);
        let paginated = || {
            let p = base().paginate_after(Some(cursor.clone())).page_size(PAGE);
            match deferred {
                Some(d) => p.deferred_join(d),
                None => p,
            }
        };
        // On MySQL/MariaDB the default later page names the index it learned (the first
        // load looks it up): the hand-written statement is that one, `.force_index(<it>)`.
        let learned: Option<&'static str> = if deferred.is_none()
            && <$db as KeysetBackend>::LEARNS_INDEX
            && <$model as Keyset>::INDEX.is_none()
        {
            paginated().load_page(conn).expect("learn the index");
            let sql = paginated().debug_sql(&*conn).expect("default sql");
            let name = sql
                .split_once("FORCE INDEX (`")
                .and_then(|(_, rest)| rest.split_once('`'))
                .map(|(name, _)| name.to_string())
                .expect("the default page names the index it learned");
            Some(Box::leak(name.into_boxed_str()))
        } else {
            None
        };
        // The library's SQL text and binds, written by hand.
        let query = match learned {
            Some(index) => paginated().force_index(index),
            None => paginated(),
        }
        .into_query::<$db>()
        .expect("page query");
        let seek_form = $crate::handwritten::SeekForm::of::<$db>($same);
        let binds = page_binds::<$db>(
            TENANT,
            seek_binds(Bind::$lead_bind(cursor_row.$lead), cursor_row.id, seek_form),
            i64::from(PAGE) + 1,
            deferred.unwrap_or(
                <$db as KeysetBackend>::DEFERRED_JOIN
                    && <$model as Keyset>::INDEX.is_none()
                    && learned.is_none(),
            ),
        );
        let (debug, by_name) = same_statement::<$db, _>(&query, &binds);
        if learned.is_some() {
            assert_eq!(
                paginated().debug_sql(&*conn).expect("default sql"),
                debug,
                "the default page is the statement written by hand"
            );
        }
        let prepared = by_name
            .clone()
            .typed::<diesel::dsl::AsSelect<$model, $db>>();
        assert_eq!(diesel::debug_query::<$db, _>(&prepared).to_string(), debug);
        // The same rows, and the same page.
        let hand_page = |mut rows: Vec<$model>| {
            let has_more = rows.len() > PAGE as usize;
            rows.truncate(PAGE as usize);
            let next = rows.last().filter(|_| has_more).map(|r| (r.$lead, r.id));
            (rows, has_more, next)
        };
        let library = paginated().load_page(conn).expect("library page");
        let (rows, has_more, next) = hand_page(prepared.clone().load(conn).expect("prepared"));
        assert_eq!(library.items, want[..PAGE as usize]);
        assert_eq!(rows, library.items);
        assert!(has_more && library.has_more());
        let library_next = library.next_cursor().expect("next cursor");
        assert_eq!(Some(library_next), next.map(Cursor::after));
        let (by_name_rows, _, _) = hand_page(by_name.clone().load(conn).expect("by name"));
        assert_eq!(by_name_rows, library.items);
        eprintln!("[instructions] checked: the same SQL, binds and rows: {debug}");

        counted(
            || paginated().load_page(&mut *conn).expect("page"),
            |page| page.items.len(),
            measured_library,
        );
        counted(
            || hand_page(prepared.clone().load(&mut *conn).expect("prepared")),
            |page| page.0.len(),
            measured_prepared,
        );
        counted(
            || hand_page(by_name.clone().load(&mut *conn).expect("by name")),
            |page| page.0.len(),
            measured_by_name,
        );
    }};
}

/// The shapes of one backend (`$form`: `default`; `direct` for the form without the
/// deferred join, chosen with `.deferred_join(false)`; `deferred` for the deferred join,
/// `.deferred_join(true)`; `declared` for the models that declare
/// their index, whose default form on MySQL/MariaDB is the direct one naming it).
macro_rules! shapes {
    ($conn:expr, $db:ty, $shape:expr, $form:expr) => {{
        match $form {
            "default" => shapes!(@models $conn, $db, $shape, None, schema),
            "direct" => shapes!(@models $conn, $db, $shape, Some(false), schema),
            "deferred" => shapes!(@models $conn, $db, $shape, Some(true), schema),
            "declared" => shapes!(@models $conn, $db, $shape, None, declared),
            other => panic!("unknown form {other}"),
        }
    }};
    (@models $conn:expr, $db:ty, $shape:expr, $deferred:expr, $models:ident) => {{
        use $crate::$models::{Asc, Desc, Mixed};
        let deferred: Option<bool> = $deferred;
        match $shape {
            "asc" => case!($conn, $db, Asc, (bench_rows::at.asc(), bench_rows::id.asc()),
                lead: at as Ts, same_direction: true, deferred: deferred),
            "desc" => case!($conn, $db, Desc, (bench_rows::at.desc(), bench_rows::id.desc()),
                lead: at as Ts, same_direction: true, deferred: deferred),
            "mixed" => case!($conn, $db, Mixed, (bench_rows::score.desc(), bench_rows::id.asc()),
                lead: score as Int, same_direction: false, deferred: deferred),
            other => panic!("unknown shape {other}"),
        }
    }};
}

/// SQLite's deep page against its first page, counted: the library's page at `$depth` (0: the
/// first page) of section 1's big tenant, checked against the same page by OFFSET, then read
/// by the counted loop [`measured_library`].
macro_rules! depth_case {
    ($conn:expr, $model:ty, $order:expr, $depth:expr, per_level: $per_level:expr) => {{
        use keyset_diesel::{Cursor, PaginateDsl};
        use $crate::schema::bench_rows;

        let conn = $conn;
        let depth: i64 = $depth;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                .select(<$model>::as_select())
        };
        let cursor = if depth == 0 {
            None
        } else {
            let row: $model = base()
                .order($order)
                .offset(depth - 1)
                .limit(1)
                .get_result(conn)
                .expect("cursor row");
            Some(Cursor::after_row(&row))
        };
        let want: Vec<$model> = base()
            .order($order)
            .offset(depth)
            .limit(i64::from(PAGE))
            .load(conn)
            .expect("the page by OFFSET");
        let per_level: bool = $per_level;
        let page = base()
            .paginate_after(cursor.clone())
            .page_size(PAGE)
            .seek_per_level(per_level)
            .load_page(conn)
            .expect("library page");
        assert_eq!(
            page.items, want,
            "the page at depth {depth} is the OFFSET page"
        );
        assert!(page.has_more());
        counted(
            || {
                base()
                    .paginate_after(cursor.clone())
                    .page_size(PAGE)
                    .seek_per_level(per_level)
                    .load_page(&mut *conn)
                    .expect("page")
            },
            |page| page.items.len(),
            measured_library,
        );
    }};
}

pub fn run_depth(shape: &str, depth: i64) {
    use crate::schema::{Asc, Desc, LongTies, Mixed};
    let conn = &mut sqlite_big();
    assert!(data::is_complete(conn), "section 1's SQLite data set");
    match shape {
        "asc" => depth_case!(
            conn,
            Asc,
            (bench_rows::at.asc(), bench_rows::id.asc()),
            depth,
            per_level: false
        ),
        "desc" => depth_case!(
            conn,
            Desc,
            (bench_rows::at.desc(), bench_rows::id.desc()),
            depth,
            per_level: false
        ),
        "mixed" => depth_case!(
            conn,
            Mixed,
            (bench_rows::score.desc(), bench_rows::id.asc()),
            depth,
            per_level: false
        ),
        "long_ties" | "long_ties_per_level" => depth_case!(
            conn,
            LongTies,
            (bench_rows::grade.desc(), bench_rows::id.asc()),
            depth,
            per_level: shape == "long_ties_per_level"
        ),
        other => panic!("unknown shape {other}"),
    }
}

pub fn run_case(backend: &str, shape: &str, form: &str) {
    match backend {
        "postgres" => shapes!(&mut postgres(), diesel::pg::Pg, shape, form),
        "sqlite" => shapes!(&mut sqlite(), diesel::sqlite::Sqlite, shape, form),
        "mysql" => shapes!(&mut mysql(), diesel::mysql::Mysql, shape, form),
        other => panic!("unknown backend {other}: use postgres, sqlite, mysql"),
    }
}
