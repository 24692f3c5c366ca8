//! What a run reads back from callgrind: the counts of each case and side, and SQLite's first
//! and deep pages (kept by `drive.rs`, written out by `render.rs`).

use crate::PAGES;

/// SQLite's first and deep page of one shape, counted: instructions per page at each of
/// [`SQLITE_DEPTHS`](crate::SQLITE_DEPTHS).
pub struct DepthCount {
    pub shape: &'static str,
    /// On section 1's file, which `ANALYZE` gave `sqlite_stat4` rows.
    pub per_page: [f64; 2],
    /// On a copy of it without `sqlite_stat4` rows.
    pub without_stat4: [f64; 2],
}

/// One side of one case, counted once: the loop's instructions, and those of them that built
/// the statement's SQL text (Diesel's statement cache key).
#[derive(Clone, Copy)]
pub struct Count {
    pub total: u64,
    pub sql_text: u64,
}

/// One measured case: each side ([`SIDES`](crate::SIDES)) counted in each run.
pub struct Counted {
    pub backend: &'static str,
    pub shape: &'static str,
    pub form: &'static str,
    pub runs: Vec<[Count; 3]>,
}

impl Counted {
    /// Instructions per page of `side` (first run), in all and for the SQL text.
    pub fn per_page(&self, side: usize) -> (f64, f64) {
        let c = self.runs[0][side];
        let pages = f64::from(PAGES);
        (c.total as f64 / pages, c.sql_text as f64 / pages)
    }
}
