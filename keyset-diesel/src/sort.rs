//! Named sorts: several keysets of one model, one of which a request chooses.
//!
//! `#[keyset(sort(Name(field(options), ..)))]` on a model declares a named sort; the derive
//! generates its row type `<Model>By<Name>` (a keyset of its own; `<Model><Name>` for a name
//! that already starts with `By`, so `ByAction` gives `EventByAction`) and one enum
//! `<Model>Sort` of all the model's named sorts, which implements [`SortChoice`].

use std::fmt;

use diesel::backend::Backend;
use diesel::Selectable;

use crate::keyset::Keyset;

/// The enum `#[derive(Keyset)]` generates for a model's named sorts (`<Model>Sort`): a closed
/// set of orderings a request chooses from by name. Each variant pages through its own row type
/// (`<Model>By<Name>`), whose sort signature the tokens carry, so a token made in one sort is
/// refused in another with [`CursorError::SortMismatch`](crate::token::CursorError::SortMismatch).
///
/// The name of a variant is its identifier in snake case (`MostLiked` is `"most_liked"`); the
/// first variant is the `Default`. `FromStr` and serde's `Deserialize` read a name and refuse
/// any other with [`UnknownSort`]; `Display` and `Serialize` write it.
pub trait SortChoice: Copy + Eq + fmt::Debug + Send + Sync + 'static {
    /// Every variant, in declaration order.
    const ALL: &'static [Self];
    /// Every variant's name, in the order of [`SortChoice::ALL`].
    const NAMES: &'static [&'static str];

    /// This variant's name (`"newest"`).
    fn name(self) -> &'static str;

    /// The sort signature of this variant's keyset ([`Keyset::sort_signature`](crate::Keyset::sort_signature)
    /// of its row type).
    fn sort_signature(self) -> String;

    /// The variant named `name` (exactly: names are case-sensitive).
    ///
    /// # Errors
    /// [`UnknownSort`] for any other text, with the names it expected.
    fn from_name(name: &str) -> Result<Self, UnknownSort> {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .and_then(|i| Self::ALL.get(i).copied())
            .ok_or_else(|| UnknownSort::new(name, Self::NAMES))
    }
}

/// The row type of a named sort of model `M` (`<M>By<Name>`), selected on backend `DB` with
/// `M`'s own columns: the one bound a function generic over a model's sorts needs besides
/// [`LoadPage`](crate::LoadPage), so that `.select(K::as_select())` builds the same query for
/// every sort. Implemented for every keyset that converts into `M` and selects `M`'s columns,
/// which the row types `#[derive(Keyset)]` generates do.
///
/// ```
/// # include!("doctest_setup.rs");
/// use diesel::dsl::AsSelect;
/// use diesel::sqlite::Sqlite;
/// use keyset_diesel::{LoadPage, SortRow};
///
/// #[derive(Queryable, Selectable, Keyset)]
/// #[diesel(table_name = events)]
/// #[keyset(sort(Oldest(occurred_at(asc), event_id(asc))))]
/// #[keyset(sort(Newest(occurred_at(desc), event_id(desc))))]
/// struct Item {
///     event_id: String,
///     workspace_id: String,
///     occurred_at: chrono::NaiveDateTime,
/// }
///
/// /// One function for every sort of `Item`: the ids of the first page.
/// fn first_page<'q, K: SortRow<Item, Sqlite> + 'q>(conn: &mut SqliteConnection) -> QueryResult<Vec<String>>
/// where
///     events::BoxedQuery<'q, Sqlite, AsSelect<K, Sqlite>>: LoadPage<'q, SqliteConnection, K>,
/// {
///     let page = events::table
///         .filter(events::workspace_id.eq("W9"))
///         .select(K::as_select())
///         .into_boxed()
///         .paginate_after(None)
///         .page_size(2)
///         .load_page(conn)?;
///     Ok(page.map(Into::into).items.into_iter().map(|i: Item| i.event_id).collect())
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let conn = &mut setup();
/// let sort: ItemSort = "newest".parse()?; // from the request, e.g. `?sort=newest`
/// let ids = match sort {
///     ItemSort::Oldest => first_page::<ItemByOldest>(conn)?,
///     ItemSort::Newest => first_page::<ItemByNewest>(conn)?,
/// };
/// assert_eq!(ids, ["e106", "e105"]);
/// # Ok(())
/// # }
/// ```
pub trait SortRow<M, DB>:
    Keyset
    + Into<M>
    + Send
    + 'static
    + Selectable<DB, SelectExpression = <M as Selectable<DB>>::SelectExpression>
where
    M: Selectable<DB>,
    DB: Backend,
{
}

impl<M, DB, K> SortRow<M, DB> for K
where
    K: Keyset
        + Into<M>
        + Send
        + 'static
        + Selectable<DB, SelectExpression = <M as Selectable<DB>>::SelectExpression>,
    M: Selectable<DB>,
    DB: Backend,
{
}

/// A sort name that is not one of the model's named sorts (`?sort=oldest` where the model
/// declares `newest` and `top`). For a client: [`Problem`](crate::web::Problem) 400
/// `sort_invalid`, the choices in `detail`.
///
/// Its message (`unknown sort: expected one of "newest", "top"`) never repeats the name
/// given: an extractor that sends a serde error's text to the client (axum's `Query`) would
/// otherwise echo the client's text. The name is in [`UnknownSort::given`], for a log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sort: expected one of {}", quoted(expected))]
pub struct UnknownSort {
    /// The name given, cut to its first 64 characters.
    pub given: String,
    /// The names of the sorts there are.
    pub expected: &'static [&'static str],
}

impl UnknownSort {
    /// `given` (cut to 64 characters: a request should not fill the log) was not one of
    /// `expected`.
    pub fn new(given: &str, expected: &'static [&'static str]) -> Self {
        UnknownSort {
            given: given.chars().take(64).collect(),
            expected,
        }
    }
}

impl UnknownSort {
    /// The names of the sorts there are, quoted and separated by commas.
    pub(crate) fn choices(&self) -> String {
        quoted(self.expected)
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The generated `Deserialize` of a [`SortChoice`]: a string, then [`SortChoice::from_name`];
/// an unknown name's error is [`UnknownSort`]'s message, which does not repeat the name.
#[doc(hidden)]
pub fn deserialize_sort<'de, D, S>(deserializer: D) -> Result<S, D::Error>
where
    D: serde::Deserializer<'de>,
    S: SortChoice,
{
    let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
    S::from_name(&name).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Sort {
        Newest,
        MostLiked,
    }

    impl SortChoice for Sort {
        const ALL: &'static [Self] = &[Sort::Newest, Sort::MostLiked];
        const NAMES: &'static [&'static str] = &["newest", "most_liked"];
        fn name(self) -> &'static str {
            Self::NAMES[self as usize]
        }
        fn sort_signature(self) -> String {
            self.name().to_string()
        }
    }

    #[test]
    fn names_parse_and_anything_else_is_unknown_with_the_choices() {
        assert_eq!(Sort::from_name("most_liked"), Ok(Sort::MostLiked));
        assert_eq!(Sort::from_name("newest"), Ok(Sort::Newest));
        let e = Sort::from_name("Newest").unwrap_err();
        assert_eq!(e.given, "Newest");
        assert_eq!(
            e.to_string(),
            "unknown sort: expected one of \"newest\", \"most_liked\""
        );
        let long = "x".repeat(1000);
        assert_eq!(Sort::from_name(&long).unwrap_err().given.len(), 64);
        assert_eq!(e.choices(), "\"newest\", \"most_liked\"");
    }

    #[test]
    fn deserialize_reads_a_name_and_refuses_others() {
        let ok: Result<Sort, _> = deserialize_sort(serde_json::json!("most_liked"));
        assert_eq!(ok.unwrap(), Sort::MostLiked);
        let bad: Result<Sort, serde_json::Error> = deserialize_sort(serde_json::json!("top"));
        assert!(bad.unwrap_err().to_string().contains("expected one of"));
        // A client's text is not echoed back through serde's error (axum's `Query` sends it).
        let hostile = "<script>alert(1)</script>";
        let bad: Result<Sort, serde_json::Error> = deserialize_sort(serde_json::json!(hostile));
        let message = bad.unwrap_err().to_string();
        assert!(!message.contains("script"), "{message}");
        let not_a_string: Result<Sort, serde_json::Error> = deserialize_sort(serde_json::json!(3));
        assert!(not_a_string.is_err());
    }
}
