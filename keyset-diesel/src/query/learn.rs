//! MySQL/MariaDB: the index a later page names when you name none.
//!
//! MariaDB costs a seek after the cursor from its row estimates, and at most depths it prefers
//! `ref` access on your equality filter, which reads every index entry from the start of the
//! filtered range to the cursor; the deferred join (the default when no index is named) reads
//! the range but pays a derived table, a semi-join and a second sort at every depth. Named
//! with `FORCE INDEX`, the direct form reads the range from the cursor in one statement.
//!
//! So a later page whose keyset declares no index, whose query reads the keyset's table alone
//! and that asks for no form or index of its own looks the table's indexes up in
//! `information_schema.STATISTICS` (one statement, at most once a minute per table and
//! process) and names the one that serves it: your equality filters' columns, then the key
//! columns in keyset order, every direction the same as the keyset's or every one reversed
//! (InnoDB appends the primary key to every secondary index, and that counts). No such index:
//! the page runs as before (deferred join). An index hint never changes which rows a
//! statement returns, only how it reads them.

use std::any::TypeId;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use diesel::deserialize::{self, QueryableByName};
use diesel::query_builder::QueryId;
use diesel::row::NamedRow;

use super::filters::{filters_sql, pinned_columns, table_parts};
use super::shape::Decided;
use super::union::splits_first_page;
use super::{PageSource, SelectParts};
use crate::backend::KeysetBackend;
use crate::keyset::{KeyColumn, Keyset, SortDirection};
use crate::paginate::IndexHint;

/// How long a table's learned indexes are used before they are looked up again (a new index
/// is picked up within this time).
const RELEARN_AFTER: Duration = Duration::from_secs(60);

/// One column of one index of the keyset's table, as `information_schema.STATISTICS` lists
/// them (in index name and column order). Read by name on any backend
/// ([`KeysetBackend::text_by_name`]), so the catalog statement puts no bound on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexPart {
    index_name: String,
    /// NULL for a part that holds only a prefix of its column (it cannot order the column).
    column_name: Option<String>,
    /// `A` (ascending), `D` (descending) or NULL.
    collation: Option<String>,
    /// The table's storage engine (`InnoDB` appends the primary key to secondary indexes).
    engine: Option<String>,
}

impl<DB: KeysetBackend> QueryableByName<DB> for IndexPart {
    fn build<'a>(row: &impl NamedRow<'a, DB>) -> deserialize::Result<Self> {
        Ok(IndexPart {
            index_name: DB::text_by_name(row, "index_name")?.ok_or("an index without a name")?,
            column_name: DB::text_by_name(row, "column_name")?,
            collation: DB::text_by_name(row, "collation")?,
            engine: DB::text_by_name(row, "engine")?,
        })
    }
}

/// An index's usable columns (up to its first prefix part), with their directions
/// (descending: `true`); secondary indexes end with the primary key's columns.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LearnedIndex {
    name: &'static str,
    columns: Vec<(String, bool)>,
}

/// One table's indexes, as learned at `at`.
struct TableIndexes {
    at: Instant,
    indexes: Vec<LearnedIndex>,
}

#[derive(Default)]
struct Catalog {
    /// By table (`schema.table` or `table`).
    tables: HashMap<String, TableIndexes>,
    /// Index names the server refused (error 1176), by table, and when: not named again
    /// within [`RELEARN_AFTER`].
    refused: HashMap<(String, &'static str), Instant>,
    /// Every name learned, kept once (a page names its index as `&'static str`).
    names: HashSet<&'static str>,
}

/// All the learned index keeps, in one place: what this process has learned of the tables'
/// indexes and of its server, and which query types may name one.
#[derive(Default)]
struct State {
    /// The tables' indexes, the refusals and the names.
    catalog: Mutex<Catalog>,
    /// Counts the changes to `catalog` (a table learned or dropped, an index refused), each
    /// made under its lock: a choice made at the same count was made from the same catalog.
    generation: AtomicU64,
    /// The lookup parts of the query types with a static query id ([`Memo`]).
    memo: Mutex<Memo>,
    /// The first of [`USABLE`] this process's server accepted.
    usable_form: AtomicUsize,
}

static STATE: LazyLock<State> = LazyLock::new(State::default);

impl State {
    fn catalog(&self) -> std::sync::MutexGuard<'_, Catalog> {
        // The catalog holds no invariant a panic could break halfway.
        self.catalog.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, Memo> {
        // A map of immutable values: a panic leaves nothing half-written.
        self.memo.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on this thread's copy of the last [`Memo`] entry it read (the memo's values
    /// never change): a thread that loads pages of one type finds it without the lock and the
    /// hash.
    fn last_read<R>(f: impl FnOnce(&RefCell<Option<(MemoKey, Option<Lookup>)>>) -> R) -> R {
        thread_local! {
            static LAST: RefCell<Option<(MemoKey, Option<Lookup>)>> = const { RefCell::new(None) };
        }
        LAST.with(f)
    }
}

/// A later page that may name a learned index: its table, the statement listing the table's
/// indexes, and the columns its filters pin to one value.
#[derive(Clone)]
pub(crate) struct Lookup(Arc<LookupParts>);

pub(crate) struct LookupParts {
    table: String,
    /// `(schema, table)` as SQL literals (`DATABASE()` for the connection's database).
    schema: (String, String),
    equality: Vec<String>,
    key: &'static [KeyColumn],
    /// The index chosen from the catalog at a generation (while no index was refused): a
    /// page type read again and again neither locks the catalog nor chooses again at every
    /// page.
    chosen: Mutex<Option<Chosen>>,
}

/// [`LookupParts::chosen`]: the choice, the catalog's generation it was made at and when the
/// table's indexes it was made from were learned.
#[derive(Clone, Copy)]
struct Chosen {
    generation: u64,
    learned_at: Instant,
    index: Option<&'static str>,
}

impl std::ops::Deref for Lookup {
    type Target = LookupParts;
    fn deref(&self) -> &LookupParts {
        &self.0
    }
}

/// The lookup parts of a query type with a static query id, by `(query id, keyset)`: its SQL
/// text, and so its table and pinned columns, is the same for every value of the type
/// (Diesel's own rule for caching a statement by type), so a page reads them here instead of
/// writing and parsing its `WHERE` again. `None`: the type's page names no learned index.
/// Only one backend learns indexes ([`KeysetBackend::LEARNS_INDEX`]), so the backend is not
/// part of the key.
type Memo = HashMap<MemoKey, Option<Lookup>>;

/// A [`Memo`] key: the query's static id and the keyset's type.
type MemoKey = (TypeId, TypeId);

/// The lookup for `page` on backend `DB`, or `None` when the page names no learned index:
/// not MySQL/MariaDB, a first page (but one split around the leading column's NULL group,
/// `UnionPage::first_split`, whose values arm MariaDB otherwise reads from the start of
/// the NULL group), an index or form chosen (`force_index`, `deferred_join`, a
/// declared [`Keyset::INDEX`]), a query on more than the keyset's table, a key on an
/// expression, a table name that is not a plain identifier, or a `WHERE` clause that is more
/// than `column = value` pins joined by `AND` (an `OR`, `NOT`, `IN`, range or SQL text: the
/// server's own choice may use a selective filter this cannot read).
pub(crate) fn lookup<DB, Q, K>(page: &Decided<Q, K>) -> Option<Lookup>
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K> + SelectParts<DB>,
{
    may_name::<DB, Q, K>(page)
        .then(|| lookup_parts::<DB, Q, K>(&page.query))
        .flatten()
}

/// [`lookup`] as a page load runs it: for a query type with a static query id, its table and
/// pinned columns are read once per process and type ([`Memo`]), not written out and parsed
/// again at every page.
pub(crate) fn lookup_cached<DB, Q, K>(page: &Decided<Q, K>) -> Option<Lookup>
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset + 'static,
    Q: PageSource<K> + SelectParts<DB> + QueryId,
{
    if !may_name::<DB, Q, K>(page) {
        return None;
    }
    let Some(id) = Q::query_id() else {
        return lookup_parts::<DB, Q, K>(&page.query);
    };
    let key = (id, TypeId::of::<K>());
    let last = State::last_read(|last| {
        last.borrow()
            .as_ref()
            .filter(|(last, _)| *last == key)
            .map(|(_, lookup)| lookup.clone())
    });
    if let Some(lookup) = last {
        return lookup;
    }
    let known = STATE.memo().get(&key).cloned();
    let lookup = known.unwrap_or_else(|| {
        let parts = lookup_parts::<DB, Q, K>(&page.query);
        STATE.memo().insert(key, parts.clone());
        parts
    });
    State::last_read(|last| *last.borrow_mut() = Some((key, lookup.clone())));
    lookup
}

/// Whether `page` may name a learned index, from its options alone.
fn may_name<DB: KeysetBackend, Q, K: Keyset>(p: &Decided<Q, K>) -> bool {
    DB::LEARNS_INDEX
        && (p.cursor.is_some() || splits_first_page::<DB, K>(p.walk))
        && p.index == IndexHint::Declared
        && p.deferred.is_none()
        && K::INDEX.is_none()
        && !K::COLUMNS.iter().any(|c| c.expression)
}

/// [`lookup`]'s table and pinned columns, from `query`'s SQL text.
fn lookup_parts<DB, Q, K>(query: &Q) -> Option<Lookup>
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K> + SelectParts<DB>,
{
    if !query.reads_keyset_table_alone() {
        return None;
    }
    let parts = table_parts::<K>();
    let schema = catalog_schema(&parts)?;
    let filters = filters_sql::<DB, Q>(query).ok()?;
    let equality = pinned_columns(&filters, parts.last()?, K::COLUMNS)?;
    Some(Lookup(Arc::new(LookupParts {
        table: parts.join("."),
        schema,
        equality,
        key: K::COLUMNS,
        chosen: Mutex::default(),
    })))
}

/// Names on `page` the index it would name from what this process has learned, without
/// running a statement: what [`Paginated::debug_sql`](crate::Paginated::debug_sql) and the plan
/// check show, so they show the statement `load_page` runs.
pub(crate) fn name_known<DB, Q, K>(page: &mut Decided<Q, K>)
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K> + SelectParts<DB>,
{
    if let Some(lookup) = lookup::<DB, _, _>(page) {
        if let Some(index) = lookup.known(false) {
            lookup.name(index, page);
        }
    }
}

/// `(schema, table)` of the table `parts` (`[schema,] table`) as SQL literals, or `None` when a
/// part is not a plain identifier (it is written into the catalog statement as a literal).
fn catalog_schema(parts: &[String]) -> Option<(String, String)> {
    let plain = |s: &String| {
        !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !parts.iter().all(plain) {
        return None;
    }
    match parts {
        [table] => Some(("DATABASE()".to_string(), format!("'{table}'"))),
        [schema, table] => Some((format!("'{schema}'"), format!("'{table}'"))),
        _ => None,
    }
}

/// The conditions that leave out indexes the server will not use, by server: MariaDB 10.6+
/// (`IGNORED`), MySQL 8 (`IS_VISIBLE`), then older servers (which have neither kind). Naming
/// an ignored or invisible index fails the page (error 1176).
const USABLE: [&str; 3] = [" AND s.IGNORED = 'NO'", " AND s.IS_VISIBLE = 'YES'", ""];

/// The statement listing the usable B-tree indexes (FULLTEXT, SPATIAL and HASH indexes hold no
/// key order) of the table `(schema, table)`, with condition `usable`.
fn catalog_sql((schema, table): &(String, String), usable: &str) -> String {
    format!(
        "SELECT s.INDEX_NAME AS index_name, \
         CASE WHEN s.SUB_PART IS NULL THEN s.COLUMN_NAME END AS column_name, \
         s.COLLATION AS collation, \
         (SELECT t.ENGINE FROM information_schema.TABLES t \
         WHERE t.TABLE_SCHEMA = s.TABLE_SCHEMA AND t.TABLE_NAME = s.TABLE_NAME) AS engine \
         FROM information_schema.STATISTICS s \
         WHERE s.TABLE_SCHEMA = {schema} AND s.TABLE_NAME = {table} \
         AND s.INDEX_TYPE = 'BTREE'{usable} ORDER BY s.INDEX_NAME, s.SEQ_IN_INDEX"
    )
}

impl Lookup {
    /// The statements listing the table's indexes (run when [`Lookup::known`] is `None`), by
    /// server kind, the one this process's server accepted first: run them in turn until one
    /// succeeds, and pass its result and position to [`Lookup::learn`].
    pub(crate) fn catalog_statements(&self) -> impl Iterator<Item = (usize, String)> + '_ {
        let from = STATE
            .usable_form
            .load(Ordering::Relaxed)
            .min(USABLE.len() - 1);
        (from..USABLE.len()).map(|form| (form, catalog_sql(&self.schema, USABLE[form])))
    }

    /// The index to name, from indexes learned within the last minute (or earlier, when
    /// `stale` is allowed); `None` when they are to be looked up (again).
    pub(crate) fn known(&self, fresh: bool) -> Option<Option<&'static str>> {
        let generation = STATE.generation.load(Ordering::Acquire);
        let chosen = *self.chosen.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = chosen.filter(|c| c.generation == generation) {
            // The catalog this choice was made from, unchanged since.
            if !fresh || c.learned_at.elapsed() < RELEARN_AFTER {
                return Some(c.index);
            }
            return None;
        }
        let catalog = STATE.catalog();
        let learned = catalog.tables.get(&self.table)?;
        if fresh && learned.at.elapsed() >= RELEARN_AFTER {
            return None;
        }
        let index = self.choose(&catalog, &learned.indexes);
        // A refusal lapses with time, not with a change to the catalog: while one is kept,
        // choose again at every page.
        if catalog.refused.is_empty() {
            *self.chosen.lock().unwrap_or_else(PoisonError::into_inner) = Some(Chosen {
                generation: STATE.generation.load(Ordering::Acquire),
                learned_at: learned.at,
                index,
            });
        }
        Some(index)
    }

    /// Keeps the table's indexes as `listed` (by the statement at `form` of
    /// [`Lookup::catalog_statements`]) gives them (nothing when every statement failed: no index
    /// is named until the next look-up) and returns the index to name.
    pub(crate) fn learn(
        &self,
        form: usize,
        listed: diesel::QueryResult<Vec<IndexPart>>,
    ) -> Option<&'static str> {
        if listed.is_ok() {
            STATE.usable_form.store(form, Ordering::Relaxed);
        }
        let mut catalog = STATE.catalog();
        let indexes = learned_indexes(&mut catalog.names, listed.unwrap_or_default());
        let choice = self.choose(&catalog, &indexes);
        catalog.tables.insert(
            self.table.clone(),
            TableIndexes {
                at: Instant::now(),
                indexes,
            },
        );
        STATE.generation.fetch_add(1, Ordering::AcqRel);
        choice
    }

    fn choose(&self, catalog: &Catalog, indexes: &[LearnedIndex]) -> Option<&'static str> {
        // Nothing refused (the usual case): no key to build per index at every page.
        let usable = indexes.iter().filter(|i| {
            catalog.refused.is_empty()
                || catalog
                    .refused
                    .get(&(self.table.clone(), i.name))
                    .is_none_or(|at| at.elapsed() >= RELEARN_AFTER)
        });
        serving_index(usable, self.key, &self.equality)
    }

    /// Names `index` on `page` (the direct form follows); returns what [`refused`] needs,
    /// `None` when there is no index to name.
    pub(crate) fn name<Q, K: Keyset>(
        self,
        index: Option<&'static str>,
        page: &mut Decided<Q, K>,
    ) -> Option<(Lookup, &'static str)> {
        let index = index?;
        page.index = IndexHint::Named(index);
        Some((self, index))
    }
}

/// After a page that named a learned index failed: when the server refused the index (MySQL
/// error 1176, "Key 'index' doesn't exist in table 'table'" in English, naming both in quotes
/// in every language the server speaks; e.g. dropped, ignored or made invisible since it was
/// learned), it is not named again for that table within [`RELEARN_AFTER`], and the table's
/// indexes are looked up again by the next page, so only this page fails. Returns `error`.
pub(crate) fn refused(
    named: Option<&(Lookup, &'static str)>,
    error: diesel::result::Error,
) -> diesel::result::Error {
    if let (Some((lookup, index)), diesel::result::Error::DatabaseError(_, info)) = (named, &error)
    {
        let message = info.message();
        let table = lookup.table.rsplit('.').next().unwrap_or_default();
        if message.contains(&format!("'{index}'")) && message.contains(&format!("'{table}'")) {
            let mut catalog = STATE.catalog();
            catalog
                .refused
                .insert((lookup.table.clone(), index), Instant::now());
            catalog.tables.remove(&lookup.table);
            STATE.generation.fetch_add(1, Ordering::AcqRel);
        }
    }
    error
}

/// The indexes of `parts` (in index name and column order), each up to its first prefix part,
/// secondary ones with the primary key's columns appended (InnoDB's secondary index entries
/// end with the primary key, and MariaDB reads them in that order).
fn learned_indexes(names: &mut HashSet<&'static str>, parts: Vec<IndexPart>) -> Vec<LearnedIndex> {
    /// One index as listed: its name, its columns up to a prefix part, and whether it had one.
    struct Listed {
        name: String,
        columns: Vec<(String, bool)>,
        cut: bool,
    }
    let innodb = parts
        .first()
        .and_then(|p| p.engine.as_deref())
        .is_some_and(|e| e.eq_ignore_ascii_case("InnoDB"));
    let mut listed: Vec<Listed> = Vec::new();
    for part in parts {
        if listed.last().is_none_or(|l| l.name != part.index_name) {
            listed.push(Listed {
                name: part.index_name.clone(),
                columns: Vec::new(),
                cut: false,
            });
        }
        let Some(index) = listed.last_mut() else {
            continue;
        };
        match part.column_name {
            Some(column) if !index.cut => {
                index
                    .columns
                    .push((column, part.collation.as_deref() == Some("D")));
            }
            _ => index.cut = true,
        }
    }
    // Only InnoDB ends a secondary index's entries with the primary key, in its order and
    // directions.
    let primary: Vec<(String, bool)> = listed
        .iter()
        .find(|l| innodb && l.name == "PRIMARY" && !l.cut)
        .map(|l| l.columns.clone())
        .unwrap_or_default();
    listed
        .into_iter()
        .map(|mut l| {
            if l.name != "PRIMARY" && !l.cut {
                for (column, descending) in &primary {
                    if l.columns.iter().all(|(c, _)| c != column) {
                        l.columns.push((column.clone(), *descending));
                    }
                }
            }
            let name = match names.get(l.name.as_str()) {
                Some(kept) => *kept,
                None => {
                    let kept: &'static str = Box::leak(l.name.into_boxed_str());
                    names.insert(kept);
                    kept
                }
            };
            LearnedIndex {
                name,
                columns: l.columns,
            }
        })
        .collect()
}

/// The index that serves a seek of `key` under filters pinning the columns `equality` (and
/// nothing else): every one of `equality`'s columns (in any order), then every key column in
/// order, the directions all the keyset's or all reversed. An index that leaves a pinned column
/// out or after the key is not named: the server's own plan may read that filter's rows
/// through another index, far fewer than this one would. Of several, the first by name.
fn serving_index<'a>(
    mut indexes: impl Iterator<Item = &'a LearnedIndex>,
    key: &[KeyColumn],
    equality: &[String],
) -> Option<&'static str> {
    let pinned = equality.len();
    indexes
        .find(|index| {
            let columns = &index.columns;
            let Some(run) = columns.get(pinned..pinned + key.len()) else {
                return false;
            };
            let reversed = |(k, (_, descending)): (&KeyColumn, &(String, bool))| {
                (k.direction == SortDirection::Desc) != *descending
            };
            columns[..pinned].iter().all(|(c, _)| equality.contains(c))
                && run.iter().zip(key).all(|((c, _), k)| c == k.name)
                && key
                    .iter()
                    .zip(run)
                    .map(reversed)
                    .collect::<HashSet<_>>()
                    .len()
                    == 1
        })
        .map(|index| index.name)
}

#[cfg(test)]
mod tests;
