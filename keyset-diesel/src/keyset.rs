//! The [`Keyset`] trait: which columns order a model, in which direction, and how a row's key
//! is read and bound. `#[derive(Keyset)]` implements it; you rarely write it by hand.

use diesel::backend::Backend;
use diesel::query_builder::AstPass;
use diesel::QueryResult;

use crate::key::KeyTuple;
use crate::signature;

/// The order of one key column as declared on the model (`#[keyset(asc)]` / `#[keyset(desc)]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SortDirection {
    /// Smallest value first (`ASC`).
    Asc,
    /// Largest value first (`DESC`).
    Desc,
}

impl SortDirection {
    /// The SQL keyword, `"ASC"` or `"DESC"`.
    pub const fn keyword(self) -> &'static str {
        match self {
            SortDirection::Asc => "ASC",
            SortDirection::Desc => "DESC",
        }
    }

    /// The other direction.
    pub const fn reversed(self) -> Self {
        match self {
            SortDirection::Asc => SortDirection::Desc,
            SortDirection::Desc => SortDirection::Asc,
        }
    }
}

/// Where the NULLs of a nullable key column sort, in the model's declared (forward) order
/// (`#[keyset(asc, nulls_last)]`). It is always written out in the SQL, so pages are the same on
/// every backend whatever the database's default NULL placement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NullsOrder {
    /// NULLs before every value.
    First,
    /// NULLs after every value.
    Last,
}

impl NullsOrder {
    /// The other placement.
    pub const fn reversed(self) -> Self {
        match self {
            NullsOrder::First => NullsOrder::Last,
            NullsOrder::Last => NullsOrder::First,
        }
    }
}

/// One column of a keyset, as declared on the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyColumn {
    /// The SQL column name (Diesel's `Column::NAME`); for a key field read through
    /// `#[diesel(select_expression = ..)]`, the expression's Rust text without spaces
    /// (`lower(users::name)`, `authors::name`), so the sort signature names it.
    pub name: &'static str,
    /// The Rust field it is read from.
    pub field: &'static str,
    /// Declared direction.
    pub direction: SortDirection,
    /// Declared NULL placement; `None` for a column that is not nullable.
    pub nulls: Option<NullsOrder>,
    /// The key is an SQL expression (`#[diesel(select_expression = lower(users::name))]`),
    /// not a column (of the model's table or a joined one). Set by the derive from the
    /// expression's syntax; it decides the row-value rule of SQLite
    /// ([`KeysetBackend::EXPRESSION_ROW_VALUES`](crate::KeysetBackend::EXPRESSION_ROW_VALUES)).
    pub expression: bool,
    /// `#[keyset(.., exact_text)]`: the column's collation calls two strings equal only when
    /// they are the same (PostgreSQL's deterministic collations, SQLite's `BINARY`, MySQL's
    /// `_nopad_bin`), so the page check neither refuses nor asks the database about adjacent
    /// rows whose text differs only by case, accents or trailing spaces
    /// ([`KeysetError::CollationEqualKeys`](crate::KeysetError::CollationEqualKeys)). Needed
    /// only on a key on an SQL expression or a joined table's column (a column of the model's
    /// table is asked about). No effect on
    /// other types.
    pub exact_text: bool,
}

/// Whether any of `columns` is a key on an SQL expression ([`KeyColumn::expression`]):
/// a `const fn`, so a keyset's answer is known at compile time.
pub(crate) const fn any_expression(columns: &[KeyColumn]) -> bool {
    let mut i = 0;
    while i < columns.len() {
        if columns[i].expression {
            return true;
        }
        i += 1;
    }
    false
}

/// A model that can be paginated by keyset: an ordered list of sort columns whose last column
/// (the tie-breaker) is unique, so that a key names exactly one row.
///
/// Implemented by `#[derive(Keyset)]`:
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_diesel::Keyset;
/// diesel::table! { events (event_id) { event_id -> Text, workspace_id -> Text,
///     occurred_at -> Timestamp, message -> Text } }
///
/// #[derive(Queryable, Selectable, Keyset)]
/// #[diesel(table_name = events)]
/// struct Event {
///     workspace_id: String,
///     #[keyset(asc)]
///     occurred_at: chrono::NaiveDateTime,
///     #[keyset(asc, unique)] // the tie-breaker
///     event_id: String,
///     message: String,
/// }
///
/// assert_eq!(Event::sort_signature(), r#"events@"events"(occurred_at:naive_datetime asc,event_id:text asc)"#);
/// ```
///
/// * `Key` is the tuple of the key fields' Rust types, in key order (declaration order):
///   `(chrono::NaiveDateTime, String)` above.
/// * `ORDER BY` and the seek predicate are both generated from [`Keyset::COLUMNS`], so they
///   cannot disagree.
pub trait Keyset: Sized {
    /// The model's table (`#[diesel(table_name = ..)]`): it must appear once in the query's
    /// `FROM` clause, and a tie-breaker that is its primary key needs no `unique`.
    type Table: diesel::Table;
    /// The key columns as a tuple of Diesel expression types, in key order: a column of
    /// [`Keyset::Table`] (`events::occurred_at`), or the `#[diesel(select_expression = ..)]`
    /// a key field is read through (`lower<users::name>`, a column of a joined table such as
    /// `authors::name`). Used for the compile-time checks that every key column can be read
    /// from the query's `FROM` clause.
    type Columns: Send + Sync + 'static;
    /// The row's key: a tuple of the key fields' Rust types, in key order.
    type Key: KeyTuple;
    /// The key columns in key order; the last one is the unique tie-breaker.
    const COLUMNS: &'static [KeyColumn];
    /// The path of [`Keyset::Table`], as written in `#[diesel(table_name = ..)]`
    /// (`events`, `archive::events`), part of the sort signature.
    const TABLE_NAME: &'static str;
    /// The ordering version, `#[keyset(version = N)]` on the struct: 1 (the default) for a
    /// model without the attribute. Raise it when the order changes in a way the columns,
    /// directions and types do not show (a column's collation migrated, say from a linguistic
    /// one to `"C"`; a column's meaning changed): a version other than 1 enters
    /// [`Keyset::sort_signature`] (as `;version=N` after the columns), so the tokens made
    /// before are refused with [`CursorError::SortMismatch`](crate::token::CursorError::SortMismatch)
    /// instead of resuming in the new order. Version 1 adds nothing, so a model without the
    /// attribute keeps the signature (and the tokens) it always had, and `version = 1` is the
    /// same ordering as no attribute.
    const VERSION: u32 = 1;
    /// The index this keyset's pages read, `#[keyset(index = "name")]` on the struct (the
    /// model's own keyset) or `index = "name"` in a named sort's columns; `None` (the default)
    /// for a keyset that declares none. A page of a query on [`Keyset::Table`] alone names it
    /// as [`Paginated::force_index`](crate::Paginated::force_index) would (and so, on
    /// MySQL/MariaDB, runs in the direct form); a joined query's page does not name it (the
    /// hint cannot follow a join). Not part of the sort signature: the index changes how a
    /// page is read, never which rows it holds.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_diesel::prelude::*;
    /// # use keyset_diesel::Keyset;
    /// diesel::table! { events (event_id) { event_id -> Text, workspace_id -> Text,
    ///     occurred_at -> Timestamp } }
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[diesel(table_name = events)]
    /// #[keyset(index = "events_feed")] // CREATE INDEX events_feed ON events (workspace_id, occurred_at, event_id)
    /// struct Event {
    ///     workspace_id: String,
    ///     #[keyset(asc)]
    ///     occurred_at: chrono::NaiveDateTime,
    ///     #[keyset(asc, unique)]
    ///     event_id: String,
    /// }
    ///
    /// assert_eq!(Event::INDEX, Some("events_feed"));
    /// let page = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(<Event as SelectableHelper<diesel::sqlite::Sqlite>>::as_select())
    ///     .paginate_after(None::<Cursor<Event>>)
    ///     .into_query::<diesel::sqlite::Sqlite>()?;
    /// let sql = diesel::debug_query(&page).to_string();
    /// assert!(sql.contains("FROM `events` INDEXED BY `events_feed` WHERE"), "{sql}");
    /// # Ok::<(), keyset_diesel::KeysetError>(())
    /// ```
    const INDEX: Option<&'static str> = None;

    /// How many of the key's last columns name one row together: 1 for a tie-breaker marked
    /// `unique` or a single-column primary key, the key's width for a composite primary key
    /// (`(order_id, line_no)`: 2). The deferred join fetches a page's rows by these columns.
    /// Written by `#[derive(Keyset)]`.
    #[doc(hidden)]
    const TIE_BREAKER_COLUMNS: usize = 1;

    /// The key of this row (cloned out of the model).
    fn key(&self) -> Self::Key;

    /// The table as Diesel writes it in SQL, schema-qualified when its `table!` names a schema,
    /// each part double-quoted: `"events"`, `"archive"."events"`. Written by
    /// `#[derive(Keyset)]`; empty for a hand-written impl that does not provide it.
    fn sql_table_name() -> String {
        String::new()
    }

    /// A stable text naming the table (by its Rust path and by its schema-qualified SQL name),
    /// the key columns with their key value type tags, their directions and NULL placements,
    /// e.g. `events@"events"(occurred_at:naive_datetime asc,event_id:text asc)`, followed by
    /// `;version=N` for an ordering [`Keyset::VERSION`] other than 1. Tokens carry its digest,
    /// so a token made for one keyset is refused by another, and one made for `live.events`
    /// by a keyset on `archive.events` even when both are imported as `events`.
    fn sort_signature() -> String {
        let mut s = String::with_capacity(64);
        s.push_str(Self::TABLE_NAME);
        let sql = Self::sql_table_name();
        if !sql.is_empty() {
            s.push('@');
            s.push_str(&sql);
        }
        s.push('(');
        for (i, c) in Self::COLUMNS.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(c.name);
            s.push(':');
            s.push_str(&Self::Key::type_tag(i));
            s.push(' ');
            s.push_str(match c.direction {
                SortDirection::Asc => "asc",
                SortDirection::Desc => "desc",
            });
            match c.nulls {
                Some(NullsOrder::First) => s.push_str(" nulls_first"),
                Some(NullsOrder::Last) => s.push_str(" nulls_last"),
                None => {}
            }
        }
        s.push(')');
        if Self::VERSION != 1 {
            s.push_str(";version=");
            s.push_str(&Self::VERSION.to_string());
        }
        s
    }

    /// The digest of [`Keyset::sort_signature`] that tokens carry (SHA-256, first 16 bytes).
    /// The derive caches it in a static; this default computes it on every call.
    fn sort_signature_digest() -> [u8; 16] {
        signature::digest(&Self::sort_signature())
    }
}

/// The backend-specific half of [`Keyset`]: writes key column `index` (qualified with its table)
/// and binds key value `index` with the column's own SQL type (never a cast, so precision, time
/// zone and collation are the database's own). Implemented by `#[derive(Keyset)]` for every backend the field types support.
///
/// A hand-written impl must write the same SQL for a column index every time, and bind exactly
/// one value of the column's SQL type (and no text) in `walk_value`: a page in the default form
/// is cached by Diesel under its types (the query, the keyset's model type and the page's
/// shape), not its SQL text
/// ([prepared statements](crate::guide::sql#prepared-statements-which-pages-diesel-finds-by-type)).
pub trait KeysetSql<DB: Backend>: Keyset {
    /// Writes column `index` of the keyset, e.g. `"events"."occurred_at"`.
    ///
    /// # Errors
    /// `QueryBuilderError` when `index >= COLUMNS.len()` (a bug in a hand-written impl).
    fn walk_column(index: usize, out: AstPass<'_, '_, DB>) -> QueryResult<()>;

    /// Binds value `index` of `key` as a parameter of the column's SQL type.
    ///
    /// # Errors
    /// `QueryBuilderError` when `index` is out of range, or what binding the value returns.
    fn walk_value<'b>(
        key: &'b Self::Key,
        index: usize,
        out: AstPass<'_, 'b, DB>,
    ) -> QueryResult<()>;
}

/// The SQL name of key column `index` of `K` (empty past the end), for errors.
pub(crate) fn column_name<K: Keyset>(index: usize) -> &'static str {
    K::COLUMNS.get(index).map_or("", |c| c.name)
}

/// The error for a key column index past the keyset's end (a [`KeysetSql`] method of a
/// hand-written impl, or a seek arm the page's plan does not have). The derive's generated
/// code reaches it as `__private::__index_error`.
pub fn column_index_error(index: usize) -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError(
        format!("keyset column index {index} out of range").into(),
    )
}
