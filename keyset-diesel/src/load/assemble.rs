//! Rows into a page: the probe and count rows split from the page rows, the page check, the
//! byte budget (cut here in Rust, or measured in SQL before the page), and the Relay flags and
//! cursors. A page is built here once.

use super::check::{check_rows, Unsure};
use crate::cursor::{Cursor, Direction};
use crate::error::KeysetError;
use crate::keyset::Keyset;
use crate::page::Page;
use crate::query::shape::Assembly;
use crate::query::{CollationQuestion, RowKind};

/// The rows a page statement loaded, by its shape (one statement or a union, with or without
/// the total count): what the blocking and the async loads hand to [`Loaded::into_page`].
pub(crate) enum Loaded<K: Keyset> {
    Rows(Vec<K>),
    CountedRows(Vec<(K, i64)>),
    Union(Vec<(K, K::Key, i32)>),
    CountedUnion(Vec<(K, K::Key, i32, i64)>),
}

impl<K: Keyset> Loaded<K> {
    /// The page rows split from the probe and count rows, and checked ([`check_rows`]): a
    /// [`Checked`] page, which may wait for the database's answers ([`finish_page!`]).
    ///
    /// # Errors
    /// The page check's ([`check_rows`]).
    ///
    /// [`finish_page!`]: crate::load::finish_page
    pub(crate) fn checked(self, assembly: Assembly<K>) -> Result<Checked<K>, KeysetError> {
        let (rows, probe, total) = match self {
            Loaded::Rows(rows) => (rows, None, None),
            // The first page (or a later one written as one statement): every row carries the
            // count; no row, no rows in the query (a first page reads from its start).
            Loaded::CountedRows(rows) => {
                let total = rows.first().map_or(0, |(_, n)| *n);
                (
                    rows.into_iter().map(|(row, _)| row).collect(),
                    None,
                    Some(total),
                )
            }
            Loaded::Union(rows) => {
                let (rows, probe, _) = split_union(rows.into_iter().map(|(r, _, k)| (r, k, 0)));
                (rows, assembly.probed.then_some(probe), None)
            }
            Loaded::CountedUnion(rows) => {
                let (rows, probe, total) =
                    split_union(rows.into_iter().map(|(r, _, k, n)| (r, k, n)));
                (rows, assembly.probed.then_some(probe), Some(total))
            }
        };
        Checked::new(rows, probe, total, assembly)
    }
}

/// A page read and checked: its rows, and the pairs of adjacent rows whose keys differ only
/// in text the database must say whether its collation calls equal ([`Unsure`]), each asked
/// with a [`CollationQuestion`]. A page without such pairs asks nothing.
pub(crate) struct Checked<K: Keyset> {
    rows: Vec<K>,
    probe: Option<bool>,
    total: Option<i64>,
    assembly: Assembly<K>,
    unsure: Vec<Unsure<K>>,
}

impl<K: Keyset> Checked<K> {
    /// The page check ([`check_rows`]) of `rows` (in walk order).
    fn new(
        rows: Vec<K>,
        probe: Option<bool>,
        total: Option<i64>,
        assembly: Assembly<K>,
    ) -> Result<Self, KeysetError> {
        let unsure = check_rows(
            &rows,
            assembly.cursor.as_ref(),
            assembly.walk,
            assembly.inclusive,
        )?;
        Ok(Checked {
            rows,
            probe,
            total,
            assembly,
            unsure,
        })
    }

    /// Adds pairs found outside the page's rows (a locking page's look-ahead).
    pub(crate) fn ask_also(&mut self, pairs: Vec<Unsure<K>>) {
        self.unsure.extend(pairs);
    }

    /// The questions, one per unsure pair, in walk order.
    pub(crate) fn questions(&self) -> Vec<CollationQuestion<K>>
    where
        K::Table: Default,
    {
        self.unsure
            .iter()
            .map(|pair| {
                CollationQuestion::new(pair.before.clone(), pair.after.clone(), pair.columns)
            })
            .collect()
    }

    /// The database's answer to question `n` ([`CollationQuestion`]'s rows).
    ///
    /// # Errors
    /// [`KeysetError::CollationEqualKeys`] unless the answer is "different" (`[0]`): equal
    /// keys (`[1]`), or no answer (`[2]` or no row: a row of the pair is gone).
    pub(crate) fn answer(&self, n: usize, answer: &[i32]) -> Result<(), KeysetError> {
        match (self.unsure.get(n), answer) {
            (Some(_), [0]) => Ok(()),
            (Some(pair), _) => Err(pair.error()),
            // Not a question of this page (`questions` makes one per pair).
            (None, _) => Err(KeysetError::CollationEqualKeys {
                column: "",
                tie_breaker: K::COLUMNS.last().map_or("", |c| c.name),
            }),
        }
    }

    /// The page, once every question is answered "different" ([`Checked::answer`]).
    ///
    /// # Errors
    /// A byte budget's ([`build`]).
    pub(crate) fn into_page(self) -> Result<Page<K>, KeysetError> {
        build(self.rows, self.probe, self.total, self.assembly)
    }
}

/// A union page's `(row, kind, total)` rows: the page rows, whether the probe found a row, and
/// the count row's total (0 without a count row: the query has no rows).
pub(crate) fn split_union<K>(loaded: impl Iterator<Item = (K, i32, i64)>) -> (Vec<K>, bool, i64) {
    let mut found = false;
    let mut total = 0;
    let mut rows = Vec::new();
    for (row, kind, n) in loaded {
        match RowKind::of(kind) {
            Some(RowKind::Probe) => found = true,
            Some(RowKind::Count) => total = n,
            Some(RowKind::Page) | None => rows.push(row),
        }
    }
    (rows, found, total)
}

/// The page check, then [`build`]: a pair the database would be asked about is refused here
/// ([`Unsure::error`]); the loads ask ([`Checked`]).
#[cfg(test)]
pub(crate) fn assemble<K: Keyset>(
    items: Vec<K>,
    probe: Option<bool>,
    total_count: Option<i64>,
    assembly: Assembly<K>,
) -> Result<Page<K>, KeysetError> {
    let checked = Checked::new(items, probe, total_count, assembly)?;
    if let Some(pair) = checked.unsure.first() {
        return Err(pair.error());
    }
    checked.into_page()
}

/// Cuts the `LIMIT n + 1` result (in walk order) into a page: the look-ahead row is dropped,
/// never returned; a backward page is reversed into display order; flags and cursors follow
/// the Relay connection spec's words (see [`Page`]). A byte budget cuts the page
/// further, in walk order (the rows nearest the cursor stay), and a cut page has more in the
/// walk's direction: at least the row it left out. A byte budget measured in SQL
/// ([`Measured`](crate::query::shape::Measured)) read the page as asked, whether it cut it,
/// the other side's flag and the total count before the page: they are the page's.
/// Runs after the page check ([`Checked::new`]).
fn build<K: Keyset>(
    mut items: Vec<K>,
    probe: Option<bool>,
    total_count: Option<i64>,
    assembly: Assembly<K>,
) -> Result<Page<K>, KeysetError> {
    let mut keep = usize::try_from(assembly.page_size).unwrap_or(usize::MAX);
    if let Some(budget) = &assembly.budget {
        let upto = keep.min(items.len());
        keep = budget.rows_within(&items[..upto]);
    }
    let measured = assembly.measured;
    let more_in_walk = if assembly.flags_only {
        // The one row read is the one that follows; none is delivered.
        let any = !items.is_empty() || measured.is_some_and(|m| m.cut);
        items.clear();
        any
    } else {
        items.len() > keep || measured.is_some_and(|m| m.cut)
    };
    items.truncate(keep);
    // The other side: exact with a probe; otherwise "there was a cursor" (its row was
    // delivered before). The first page (no cursor) has nothing on the other side.
    let other_side = measured
        .and_then(|m| m.other_side)
        .or(probe)
        .unwrap_or(assembly.cursor.is_some());
    let (has_previous_page, has_next_page) = match assembly.walk {
        Direction::Forward => (other_side, more_in_walk),
        Direction::Backward => {
            items.reverse();
            (more_in_walk, other_side)
        }
    };
    // Relay: a page with rows has both cursors, whatever the flags say; they are the resume
    // positions of a live list. No edges, no cursors. (A cursor made from the
    // request's key would be off by one: the page before an empty page ends *at* the
    // request's row, which `before` excludes.)
    let start_cursor = items.first().map(|row| Cursor::before(row.key()));
    let end_cursor = items.last().map(|row| Cursor::after(row.key()));
    Ok(Page {
        items,
        page_size: match assembly.flags_only {
            true => 0,
            false => measured.map_or(assembly.page_size, |m| m.page_size),
        },
        direction: assembly.walk,
        has_previous_page,
        has_next_page,
        start_cursor,
        end_cursor,
        total_count: measured.and_then(|m| m.total).or(total_count),
    })
}

#[cfg(test)]
mod tests;
