//! Loud instead of wrong: the page check turns a tie-breaker that is not unique in the query's
//! rows (a join repeating it, `unique` on a column with ties) and a key value that does not
//! survive the round trip to Rust and back into a typed error on the page where the walk meets
//! them, never a repeated, lost or endless page.
//!
//! Partner: `tests/models/src/loud.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.
//!
//! One file per subject in `loud/`: [`ties`] (tie-breakers that repeat), [`lossy_values`]
//! (stored values the key type cannot represent), [`collation`] (text a collation calls
//! equal) and [`long_text`] (long and escape-heavy text keys in tokens). The walk helpers
//! below are theirs.

use crate::models::{Read, Walk};
use diesel::QueryResult;
use keyset_diesel::{Cursor, Keyset, KeysetError, Page};
pub use keyset_test_models::loud::*;

pub mod collation;
pub mod long_text;
pub mod lossy_values;
pub mod ties;

/// Reads pages with `read` until the end or the first error: the ids of each page in display
/// order, and the error (as a [`KeysetError`], which it must be) if the walk stopped on one.
/// The ids delivered before the error never repeat.
fn walk<K: Keyset>(
    mut read: impl FnMut(Option<Cursor<K>>) -> QueryResult<Page<K>>,
    id: impl Fn(&K) -> i64,
) -> (Vec<Vec<i64>>, Option<KeysetError>) {
    let mut pages = Vec::new();
    let mut cursor = None;
    for _ in 0..20 {
        match read(cursor.take()) {
            Ok(page) => {
                pages.push(page.items.iter().map(&id).collect::<Vec<_>>());
                match page.next_cursor() {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            Err(e) => {
                assert!(
                    matches!(e, diesel::result::Error::DeserializationError(_)),
                    "the page check's errors come as DeserializationError: {e:?}"
                );
                let keyset = KeysetError::from_diesel(&e)
                    .unwrap_or_else(|| panic!("a KeysetError, not {e:?}"))
                    .clone();
                check_no_repeats(&pages);
                return (pages, Some(keyset));
            }
        }
    }
    check_no_repeats(&pages);
    (pages, None)
}

/// Panics if a row id appears on two pages.
fn check_no_repeats(pages: &[Vec<i64>]) {
    let mut seen: Vec<i64> = pages.iter().flatten().copied().collect();
    let all = seen.len();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), all, "no row twice before the error: {pages:?}");
}

/// The reads every loud walk makes: page sizes 1 to 3, forward then backward, with the page
/// size and whether the read is backward.
fn every_read() -> impl Iterator<Item = (u32, bool, Read)> {
    (1..=3).flat_map(|page_size| {
        [false, true].map(|backward| {
            let how = if backward {
                Read::backward(page_size)
            } else {
                Read::forward(page_size)
            };
            (page_size, backward, how)
        })
    })
}

/// [`walk`] over model `M`'s pages, each read as `how` says.
fn walk_model<M, C>(
    conn: &mut C,
    how: Read,
    id: impl Fn(&M) -> i64,
) -> (Vec<Vec<i64>>, Option<KeysetError>)
where
    M: Walk<C, Filter = ()>,
{
    walk(|cursor| M::read(conn, &(), cursor, how), id)
}
