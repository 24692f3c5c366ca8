//! [`Cursor`]: a position in a keyset ordering, and the [`Direction`] to walk from it.

use std::fmt;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::key::KeyTuple;
use crate::keyset::Keyset;

/// Which way a page is read from its cursor. Serializes as `"forward"` / `"backward"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// In the keyset's declared order: the rows strictly after the cursor.
    #[default]
    Forward,
    /// Against it: the rows strictly before the cursor.
    Backward,
}

impl Direction {
    /// The other direction.
    pub const fn reversed(self) -> Self {
        match self {
            Direction::Forward => Direction::Backward,
            Direction::Backward => Direction::Forward,
        }
    }
}

/// A position in a keyset ordering: the key of the last row delivered, and the direction the
/// walk goes from there.
///
/// A cursor is exact: it names one row of the ordering by its full key (every column, the
/// unique tie-breaker included), so the next page starts strictly after that row even when
/// other rows share its leading values. The row need not still exist: a deleted boundary row
/// still marks the same place.
///
/// To hand a cursor to a client, turn it into a signed token (see the crate docs); never
/// trust a cursor rebuilt from client input without that check.
pub struct Cursor<K: Keyset> {
    /// The key of the boundary row: a tuple of the key columns' values, in key order.
    pub key: K::Key,
    /// Which way to read from the boundary.
    pub direction: Direction,
}

impl<K: Keyset> Cursor<K> {
    /// A cursor to read forward, after the row with this key.
    pub fn after(key: K::Key) -> Self {
        Cursor {
            key,
            direction: Direction::Forward,
        }
    }

    /// A cursor to read backward, before the row with this key.
    pub fn before(key: K::Key) -> Self {
        Cursor {
            key,
            direction: Direction::Backward,
        }
    }

    /// A forward cursor after `row`.
    pub fn after_row(row: &K) -> Self {
        Self::after(row.key())
    }
}

impl<K: Keyset> Clone for Cursor<K> {
    fn clone(&self) -> Self {
        Cursor {
            key: self.key.clone(),
            direction: self.direction,
        }
    }
}

impl<K: Keyset> PartialEq for Cursor<K> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.direction == other.direction
    }
}

impl<K: Keyset> fmt::Debug for Cursor<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cursor")
            .field("key", &self.key)
            .field("direction", &self.direction)
            .finish()
    }
}

/// `{"key": [...], "direction": "forward"|"backward"}`, each key value in its lossless token
/// form ([`KeyValue::Repr`](crate::query::KeyValue::Repr)). For server-side use: clients get
/// signed tokens ([`CursorCodec`](crate::CursorCodec)), never raw cursors.
impl<K: Keyset> Serialize for Cursor<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Cursor", 2)?;
        s.serialize_field("key", &self.key.to_repr())?;
        s.serialize_field("direction", &self.direction)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::ById;

    #[test]
    fn cursors_are_equal_only_with_the_same_key_and_direction() {
        let after = Cursor::<ById>::after((7,));
        assert_eq!(after, Cursor::after((7,)));
        assert_ne!(after, Cursor::after((8,)), "another key");
        assert_ne!(after, Cursor::before((7,)), "another direction");
        assert_ne!(after, Cursor::before((8,)), "both");
        assert_eq!(Cursor::after_row(&ById(7)), after);
    }

    #[test]
    fn debug_and_json_show_the_key_and_the_direction() {
        let before = Cursor::<ById>::before((7,));
        assert_eq!(
            format!("{before:?}"),
            "Cursor { key: (7,), direction: Backward }"
        );
        assert_eq!(
            serde_json::to_string(&before).unwrap(),
            r#"{"key":[7],"direction":"backward"}"#
        );
        assert_eq!(Direction::Forward.reversed(), Direction::Backward);
        assert_eq!(Direction::Backward.reversed(), Direction::Forward);
    }
}
