//! The depth figures the `scale` and `shards` targets share: the first page against the page
//! at a depth, timed alternately.

use std::time::Duration;

/// One shape's depth figures.
pub struct Depth {
    pub backend: &'static str,
    pub shape: &'static str,
    pub first: Duration,
    pub deep: Duration,
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The first page and the page after the row at `DEPTH` of `$model` ordered by `$order`
/// (checked against `OFFSET`), timed alternately: `SAMPLES` reads of each after `WARM_UP`
/// uncounted ones, pages of `PAGE` rows (constants of the target that uses it), each page
/// built by `$configure` from the plain `paginate_after(..).page_size(PAGE)` (default: as it
/// is). Gives a [`Depth`].
macro_rules! depth {
    ($conn:expr, $backend:expr, $shape:expr, $model:ty, $order:expr) => {
        depth!($conn, $backend, $shape, $model, $order, |page| page)
    };
    ($conn:expr, $backend:expr, $shape:expr, $model:ty, $order:expr, $configure:expr) => {{
        let configure = $configure;
        let conn = $conn;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                .select(<$model>::as_select())
        };
        let row: $model = base()
            .order($order)
            .offset(DEPTH - 1)
            .limit(1)
            .get_result(conn)
            .expect("the row before the deep page");
        let want: Vec<$model> = base()
            .order($order)
            .offset(DEPTH)
            .limit(i64::from(PAGE))
            .load(conn)
            .expect("the deep page by OFFSET");
        let cursor = Cursor::after(row.key());
        let first = |conn: &mut _| {
            let page = configure(base().paginate_after(None).page_size(PAGE))
                .load_page(conn)
                .expect("first page");
            assert_eq!(page.items.len(), PAGE as usize);
        };
        let deep = |conn: &mut _| {
            configure(base().paginate_after(Some(cursor.clone())).page_size(PAGE))
                .load_page(conn)
                .expect("deep page")
        };
        assert_eq!(
            deep(conn).items,
            want,
            "{} {}: the deep page",
            $backend,
            $shape
        );
        for _ in 0..WARM_UP {
            first(conn);
            deep(conn);
        }
        let (mut firsts, mut deeps) = (Vec::new(), Vec::new());
        for _ in 0..SAMPLES {
            let t = Instant::now();
            first(conn);
            firsts.push(t.elapsed());
            let t = Instant::now();
            let page = deep(conn);
            deeps.push(t.elapsed());
            assert_eq!(page.items.len(), PAGE as usize);
        }
        let d = Depth {
            backend: $backend,
            shape: $shape,
            first: median(firsts),
            deep: median(deeps),
        };
        eprintln!(
            "[depth] {} {}: first {:?}, deep {:?}, ratio {:.2}",
            d.backend,
            d.shape,
            d.first,
            d.deep,
            d.deep.as_secs_f64() / d.first.as_secs_f64()
        );
        d
    }};
}
