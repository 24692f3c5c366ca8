//! The async mode of the DSL: [`PaginateDsl`] for pages loaded on diesel-async connections,
//! the twin of the blocking [`crate::PaginateDsl`], and [`Async`], the mode its [`Paginated`]
//! carries. Public as [`keyset_diesel::async_`](crate::async_); the loading is in `load/`.

use diesel::query_builder::{BoxedSelectStatement, SelectStatement};

use super::Paginated;
use crate::cursor::{Cursor, Direction};
use crate::keyset::Keyset;

/// The mode of a [`Paginated`] made by this module's [`PaginateDsl`]: `load_page` runs on a
/// diesel-async connection and returns a future.
#[derive(Debug, Clone, Copy)]
pub enum Async {}

/// Adds keyset pagination to Diesel select queries (`SelectStatement`, boxed or not), loaded
/// on diesel-async connections: the async twin of [`crate::PaginateDsl`], with the same
/// methods and meaning. Import one of the two.
pub trait PaginateDsl: Sized {
    /// The page after `cursor` (`None`: the first page); see
    /// [`crate::PaginateDsl::paginate_after`].
    fn paginate_after<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K, Async> {
        Paginated::new(self, cursor, Direction::Forward)
    }

    /// The page immediately before `cursor` (`None`: the last page), in display order; see
    /// [`crate::PaginateDsl::paginate_before`].
    fn paginate_before<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K, Async> {
        Paginated::new(self, cursor, Direction::Backward)
    }

    /// The page that starts at the row with `key`, that row included; see
    /// [`crate::PaginateDsl::paginate_from`].
    fn paginate_from<K: Keyset>(self, key: K::Key) -> Paginated<Self, K, Async> {
        Paginated::new(self, Some(Cursor::after(key)), Direction::Forward).inclusive(true)
    }

    /// The page the cursor points to, in the cursor's direction (`None`: the first page); see
    /// [`crate::PaginateDsl::paginate`].
    fn paginate<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K, Async> {
        let walk = cursor.as_ref().map_or(Direction::Forward, |c| c.direction);
        Paginated::new(self, cursor, walk)
    }
}

impl<F, S, D, W, O, LOf, G, H, LC> PaginateDsl for SelectStatement<F, S, D, W, O, LOf, G, H, LC> {}

impl<ST, QS, DB, GB> PaginateDsl for BoxedSelectStatement<'_, ST, QS, DB, GB> {}
