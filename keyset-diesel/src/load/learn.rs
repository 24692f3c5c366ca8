//! MySQL/MariaDB: the index a later page names when you name none (issue 35, item 1).
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

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use diesel::sql_types::{Nullable, Text};
use diesel::QueryableByName;

use crate::backend::KeysetBackend;
use crate::keyset::{KeyColumn, Keyset, SortDirection};
use crate::paginate::{IndexHint, Paginated};
use crate::query::filters::{filters_sql, pinned_columns, table_parts};
use crate::query::union::splits_first_page;
use crate::query::{PageSource, SelectParts};

/// How long a table's learned indexes are used before they are looked up again (a new index
/// is picked up within this time).
const RELEARN_AFTER: Duration = Duration::from_secs(60);

/// One column of one index of the keyset's table, as `information_schema.STATISTICS` lists
/// them (in index name and column order).
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct IndexPart {
    #[diesel(sql_type = Text)]
    index_name: String,
    /// NULL for a part that holds only a prefix of its column (it cannot order the column).
    #[diesel(sql_type = Nullable<Text>)]
    column_name: Option<String>,
    /// `A` (ascending), `D` (descending) or NULL.
    #[diesel(sql_type = Nullable<Text>)]
    collation: Option<String>,
    /// The table's storage engine (`InnoDB` appends the primary key to secondary indexes).
    #[diesel(sql_type = Nullable<Text>)]
    engine: Option<String>,
}

/// An index's usable columns (up to its first prefix part), with their directions
/// (descending: `true`); secondary indexes end with the primary key's columns.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LearnedIndex {
    name: &'static str,
    columns: Vec<(String, bool)>,
}

struct Learned {
    at: Instant,
    indexes: Vec<LearnedIndex>,
}

#[derive(Default)]
struct Catalog {
    /// By table (`schema.table` or `table`).
    tables: HashMap<String, Learned>,
    /// Index names the server refused (error 1176), by table, and when: not named again
    /// within [`RELEARN_AFTER`].
    refused: HashMap<(String, &'static str), Instant>,
    /// Every name learned, kept once (a page names its index as `&'static str`).
    names: HashSet<&'static str>,
}

static CATALOG: LazyLock<Mutex<Catalog>> = LazyLock::new(Mutex::default);

fn catalog() -> std::sync::MutexGuard<'static, Catalog> {
    // The catalog holds no invariant a panic could break halfway.
    CATALOG.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A later page that may name a learned index: its table, the statement listing the table's
/// indexes, and the columns its filters pin to one value.
pub(crate) struct Lookup {
    table: String,
    /// `(schema, table)` as SQL literals (`DATABASE()` for the connection's database).
    schema: (String, String),
    equality: Vec<String>,
    key: &'static [KeyColumn],
}

/// The lookup for `paginated` on backend `DB`, or `None` when the page names no learned index:
/// not MySQL/MariaDB, a first page (but one split around the leading column's NULL group,
/// `UnionPage::first_split`, whose values arm MariaDB otherwise reads from the start of
/// the NULL group), an index or form chosen (`force_index`, `deferred_join`, a
/// declared [`Keyset::INDEX`]), a query on more than the keyset's table, a key on an
/// expression, a table name that is not a plain identifier, or a `WHERE` clause that is more
/// than `column = value` pins joined by `AND` (an `OR`, `NOT`, `IN`, range or SQL text: the
/// server's own choice may use a selective filter this cannot read).
pub(crate) fn lookup<DB, Q, K, M>(paginated: &Paginated<Q, K, M>) -> Option<Lookup>
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K> + SelectParts<DB>,
{
    let p = paginated;
    if !DB::LEARNS_INDEX
        || (p.cursor.is_none() && !splits_first_page::<DB, K>(p.walk))
        || p.index != IndexHint::Declared
        || p.deferred.is_some()
        || K::INDEX.is_some()
        || !p.query.reads_keyset_table_alone()
        || K::COLUMNS.iter().any(|c| c.expression)
    {
        return None;
    }
    let parts = table_parts::<K>();
    let schema = catalog_schema(&parts)?;
    let filters = filters_sql::<DB, Q>(&p.query).ok()?;
    let equality = pinned_columns(&filters, parts.last()?, K::COLUMNS)?;
    Some(Lookup {
        table: parts.join("."),
        schema,
        equality,
        key: K::COLUMNS,
    })
}

/// Names on `paginated` the index its page would name from what this process has learned,
/// without running a statement: what [`Paginated::debug_sql`] and the plan check show, so they
/// show the statement `load_page` runs.
pub(crate) fn name_known<DB, Q, K, M>(paginated: &mut Paginated<Q, K, M>)
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K> + SelectParts<DB>,
{
    if let Some(lookup) = lookup::<DB, _, _, _>(paginated) {
        if let Some(index) = lookup.known(false) {
            lookup.name(index, paginated);
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

/// The first of [`USABLE`] this process's server accepted.
static USABLE_FORM: AtomicUsize = AtomicUsize::new(0);

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
        let from = USABLE_FORM.load(Ordering::Relaxed).min(USABLE.len() - 1);
        (from..USABLE.len()).map(|form| (form, catalog_sql(&self.schema, USABLE[form])))
    }

    /// The index to name, from indexes learned within the last minute (or earlier, when
    /// `stale` is allowed); `None` when they are to be looked up (again).
    pub(crate) fn known(&self, fresh: bool) -> Option<Option<&'static str>> {
        let catalog = catalog();
        let learned = catalog.tables.get(&self.table)?;
        (!fresh || learned.at.elapsed() < RELEARN_AFTER)
            .then(|| self.choose(&catalog, &learned.indexes))
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
            USABLE_FORM.store(form, Ordering::Relaxed);
        }
        let mut catalog = catalog();
        let indexes = learned_indexes(&mut catalog.names, listed.unwrap_or_default());
        let choice = self.choose(&catalog, &indexes);
        catalog.tables.insert(
            self.table.clone(),
            Learned {
                at: Instant::now(),
                indexes,
            },
        );
        choice
    }

    fn choose(&self, catalog: &Catalog, indexes: &[LearnedIndex]) -> Option<&'static str> {
        let usable = indexes.iter().filter(|i| {
            catalog
                .refused
                .get(&(self.table.clone(), i.name))
                .is_none_or(|at| at.elapsed() >= RELEARN_AFTER)
        });
        serving_index(usable, self.key, &self.equality)
    }

    /// Names `index` on `paginated` (the direct form follows); returns what
    /// [`refused`] needs, `None` when there is no index to name.
    pub(crate) fn name<Q, K: Keyset, M>(
        self,
        index: Option<&'static str>,
        paginated: &mut Paginated<Q, K, M>,
    ) -> Option<(Lookup, &'static str)> {
        let index = index?;
        paginated.index = IndexHint::Named(index);
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
            let mut catalog = catalog();
            catalog
                .refused
                .insert((lookup.table.clone(), index), Instant::now());
            catalog.tables.remove(&lookup.table);
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
mod tests {
    use super::*;

    fn part(index: &str, column: Option<&str>, collation: &str) -> IndexPart {
        IndexPart {
            index_name: index.into(),
            column_name: column.map(Into::into),
            collation: Some(collation.into()),
            engine: Some("InnoDB".into()),
        }
    }

    const fn col(name: &'static str, direction: SortDirection) -> KeyColumn {
        KeyColumn {
            name,
            field: name,
            direction,
            nulls: None,
            expression: false,
            exact_text: false,
        }
    }

    const ASC: &[KeyColumn] = &[col("at", SortDirection::Asc), col("id", SortDirection::Asc)];
    const DESC: &[KeyColumn] = &[
        col("at", SortDirection::Desc),
        col("id", SortDirection::Desc),
    ];
    const MIXED: &[KeyColumn] = &[
        col("score", SortDirection::Desc),
        col("id", SortDirection::Asc),
    ];

    fn indexes(parts: Vec<IndexPart>) -> Vec<LearnedIndex> {
        learned_indexes(&mut HashSet::new(), parts)
    }

    fn choose(
        indexes: &[LearnedIndex],
        key: &[KeyColumn],
        equality: &[&str],
    ) -> Option<&'static str> {
        let equality: Vec<String> = equality.iter().map(|s| s.to_string()).collect();
        serving_index(indexes.iter(), key, &equality)
    }

    fn bench_table() -> Vec<LearnedIndex> {
        indexes(vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_at", Some("at"), "A"),
            part("by_tenant_at_id", Some("tenant"), "A"),
            part("by_tenant_at_id", Some("at"), "A"),
            part("by_tenant_at_id", Some("id"), "A"),
            part("by_tenant_score", Some("tenant"), "A"),
            part("by_tenant_score", Some("score"), "D"),
        ])
    }

    #[test]
    fn secondary_indexes_end_with_the_primary_key_and_stop_at_a_prefix_part() {
        let learned = indexes(vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_name", None, "A"),
            part("by_name", Some("id"), "A"),
            part("by_tenant", Some("tenant"), "A"),
        ]);
        let columns = |i: usize| {
            learned[i]
                .columns
                .iter()
                .map(|(c, _)| c.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(learned.len(), 3);
        assert_eq!(columns(0), ["id"]);
        assert!(
            columns(1).is_empty(),
            "a prefix part ends what the index can order"
        );
        assert_eq!(columns(2), ["tenant", "id"]);
        // A descending primary key is appended descending (MySQL 8).
        let learned = indexes(vec![
            part("PRIMARY", Some("id"), "D"),
            part("by_at", Some("at"), "D"),
        ]);
        assert_eq!(
            learned[1].columns,
            [("at".to_string(), true), ("id".to_string(), true)]
        );
        // Only InnoDB appends the primary key.
        let myisam = |index: &str, column: &str| IndexPart {
            engine: Some("MyISAM".into()),
            ..part(index, Some(column), "A")
        };
        let learned = indexes(vec![myisam("PRIMARY", "id"), myisam("by_at", "at")]);
        assert_eq!(learned[1].columns, [("at".to_string(), false)]);
        assert_eq!(choose(&learned, ASC, &[]), None);
    }

    #[test]
    fn the_index_with_the_pinned_columns_then_the_key_is_named() {
        let learned = bench_table();
        assert_eq!(choose(&learned, ASC, &["tenant"]), Some("by_tenant_at_id"));
        // Read backward for a keyset in the other direction.
        assert_eq!(choose(&learned, DESC, &["tenant"]), Some("by_tenant_at_id"));
        // Without the tenant filter, `(at)` + the primary key serves the keyset.
        assert_eq!(choose(&learned, ASC, &[]), Some("by_at"));
        // Mixed directions need an index whose directions match (score DESC + id ASC).
        assert_eq!(
            choose(&learned, MIXED, &["tenant"]),
            Some("by_tenant_score")
        );
        // A column before the key that no filter pins: not served.
        let learned = indexes(vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_tenant_at", Some("tenant"), "A"),
            part("by_tenant_at", Some("at"), "A"),
            part("by_kind_tenant_at", Some("kind"), "A"),
            part("by_kind_tenant_at", Some("tenant"), "A"),
            part("by_kind_tenant_at", Some("at"), "A"),
        ]);
        assert_eq!(choose(&learned, ASC, &["kind"]), None);
        // Every pinned column before the key, in any order.
        assert_eq!(
            choose(&learned, ASC, &["tenant", "kind"]),
            Some("by_kind_tenant_at")
        );
        // A pinned column the index leaves out: the server may read that filter's rows
        // through another index, so none is named (hostile review: 199,000 reads against 22).
        let id: &[KeyColumn] = &[col("id", SortDirection::Asc)];
        let learned = indexes(vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_kind", Some("kind"), "A"),
        ]);
        assert_eq!(choose(&learned, id, &["tenant"]), None);
        assert_eq!(choose(&learned, id, &[]), Some("PRIMARY"));
        // `(tenant)` + the primary key is `(tenant, id)`: it serves.
        let learned = indexes(vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_tenant", Some("tenant"), "A"),
        ]);
        assert_eq!(choose(&learned, id, &["tenant"]), Some("by_tenant"));
    }

    #[test]
    fn an_index_whose_directions_disagree_with_the_keyset_is_not_named() {
        let learned = indexes(vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_score", Some("tenant"), "A"),
            part("by_score", Some("score"), "A"),
        ]);
        // score ASC + id ASC (the primary key appended) cannot give score DESC, id ASC.
        assert_eq!(choose(&learned, MIXED, &["tenant"]), None);
        // A key column missing from the index.
        assert_eq!(
            choose(
                &learned,
                &[
                    col("grade", SortDirection::Asc),
                    col("id", SortDirection::Asc)
                ],
                &["tenant"]
            ),
            None
        );
    }

    fn lookup_of(table: &str) -> Lookup {
        Lookup {
            table: table.into(),
            schema: catalog_schema(&[table.into()]).expect("plain"),
            equality: vec!["tenant".into()],
            key: ASC,
        }
    }

    #[test]
    fn the_catalog_statement_takes_only_plain_names() {
        let sql = catalog_sql(&catalog_schema(&["events".into()]).expect("plain"), "");
        assert!(
            sql.contains("s.TABLE_SCHEMA = DATABASE() AND s.TABLE_NAME = 'events'"),
            "{sql}"
        );
        // Only B-tree indexes keep their rows in key order (not FULLTEXT, SPATIAL or HASH).
        assert!(sql.contains("AND s.INDEX_TYPE = 'BTREE'"), "{sql}");
        let schema = catalog_schema(&["archive".into(), "events".into()]).expect("plain");
        assert!(catalog_sql(&schema, "")
            .contains("s.TABLE_SCHEMA = 'archive' AND s.TABLE_NAME = 'events'"),);
        assert_eq!(catalog_schema(&["ev'ents".into()]), None);
        assert_eq!(catalog_schema(&["a".into(), "b".into(), "c".into()]), None);
        // Ignored (MariaDB) and invisible (MySQL 8) indexes are left out, by the first form
        // the server accepts.
        let forms: Vec<String> = lookup_of("events")
            .catalog_statements()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(
            forms.len(),
            USABLE.len() - USABLE_FORM.load(Ordering::Relaxed)
        );
        assert!(forms
            .last()
            .is_some_and(|s| !s.contains("IGNORED") && !s.contains("IS_VISIBLE")));
        assert!(
            USABLE[0].contains("s.IGNORED = 'NO'") && USABLE[1].contains("s.IS_VISIBLE = 'YES'")
        );
    }

    #[test]
    fn a_refused_index_is_not_named_again() {
        let lookup = lookup_of("refusal_test");
        let index_parts = || {
            vec![
                part("PRIMARY", Some("id"), "A"),
                part("by_tenant_at_id", Some("tenant"), "A"),
                part("by_tenant_at_id", Some("at"), "A"),
            ]
        };
        let chosen = lookup.learn(0, Ok(index_parts()));
        assert_eq!(chosen, Some("by_tenant_at_id"));
        assert_eq!(lookup.known(true), Some(Some("by_tenant_at_id")));
        let named = (lookup, "by_tenant_at_id");
        // Another error leaves it.
        let _ = refused(Some(&named), diesel::result::Error::NotFound);
        assert_eq!(named.0.known(true), Some(Some("by_tenant_at_id")));
        // The server's refusal, in German (`lc_messages = de_DE`): both names in quotes.
        let error = diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::Unknown,
            Box::new(
                "Schl\u{fc}ssel 'by_tenant_at_id' existiert in der Tabelle 'refusal_test' nicht"
                    .to_string(),
            ),
        );
        let _ = refused(Some(&named), error);
        // The table is looked up again, and the refused index is not named even if listed.
        assert_eq!(named.0.known(true), None);
        assert_eq!(named.0.learn(0, Ok(index_parts())), None);
        // A failed look-up names nothing.
        let failed = lookup_of("failed_lookup_test");
        assert_eq!(failed.learn(2, Err(diesel::result::Error::NotFound)), None);
        assert_eq!(failed.known(true), Some(None));
    }
}
