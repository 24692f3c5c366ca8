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
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use diesel::sql_types::{Nullable, Text};
use diesel::QueryableByName;

use crate::backend::KeysetBackend;
use crate::keyset::{KeyColumn, Keyset, SortDirection};
use crate::paginate::{IndexHint, Paginated};
use crate::query::filters::{equality_columns, filters_sql, table_parts};
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
    /// Index names the server refused (error 1176), by table: never named again.
    refused: HashSet<(String, &'static str)>,
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
    sql: String,
    equality: Vec<String>,
    key: &'static [KeyColumn],
}

/// The lookup for `paginated` on backend `DB`, or `None` when the page names no learned index:
/// not MySQL/MariaDB, a first page, an index or form chosen (`force_index`, `deferred_join`, a
/// declared [`Keyset::INDEX`]), a query on more than the keyset's table, a key on an
/// expression, or a table name that is not a plain identifier.
pub(crate) fn lookup<DB, Q, K, M>(paginated: &Paginated<Q, K, M>) -> Option<Lookup>
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K> + SelectParts<DB>,
{
    let p = paginated;
    if !DB::LEARNS_INDEX
        || p.cursor.is_none()
        || p.index != IndexHint::Declared
        || p.deferred.is_some()
        || K::INDEX.is_some()
        || !p.query.reads_keyset_table_alone()
        || K::COLUMNS.iter().any(|c| c.expression)
    {
        return None;
    }
    let parts = table_parts::<K>();
    let sql = catalog_sql(&parts)?;
    let filters = filters_sql::<DB, Q>(&p.query).ok()?;
    let equality = equality_columns(&filters, parts.last()?, K::COLUMNS);
    Some(Lookup {
        table: parts.join("."),
        sql,
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
        if let Some(index) = lookup.known() {
            lookup.name(index, paginated);
        }
    }
}

/// The statement listing the B-tree indexes of the table `parts` (`[schema,] table`; FULLTEXT,
/// SPATIAL and HASH indexes hold no key order), or `None` when a part is not a plain
/// identifier (it is written into the statement as a literal).
fn catalog_sql(parts: &[String]) -> Option<String> {
    let plain = |s: &String| {
        !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !parts.iter().all(plain) {
        return None;
    }
    let (schema, table) = match parts {
        [table] => ("DATABASE()".to_string(), table),
        [schema, table] => (format!("'{schema}'"), table),
        _ => return None,
    };
    Some(format!(
        "SELECT INDEX_NAME AS index_name, \
         CASE WHEN SUB_PART IS NULL THEN COLUMN_NAME END AS column_name, \
         COLLATION AS collation FROM information_schema.STATISTICS \
         WHERE TABLE_SCHEMA = {schema} AND TABLE_NAME = '{table}' AND INDEX_TYPE = 'BTREE' \
         ORDER BY INDEX_NAME, SEQ_IN_INDEX"
    ))
}

impl Lookup {
    /// The statement listing the table's indexes (run when [`Lookup::known`] is `None`).
    pub(crate) fn catalog_sql(&self) -> &str {
        &self.sql
    }

    /// The index to name, from indexes learned within the last minute; `None` when they are
    /// to be looked up (again).
    pub(crate) fn known(&self) -> Option<Option<&'static str>> {
        let catalog = catalog();
        let learned = catalog.tables.get(&self.table)?;
        (learned.at.elapsed() < RELEARN_AFTER).then(|| self.choose(&catalog, &learned.indexes))
    }

    /// Keeps the table's indexes as `listed` gives them (nothing when the statement failed: no
    /// index is named until the next look-up) and returns the index to name.
    pub(crate) fn learn(
        &self,
        listed: diesel::QueryResult<Vec<IndexPart>>,
    ) -> Option<&'static str> {
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
        let usable = indexes
            .iter()
            .filter(|i| !catalog.refused.contains(&(self.table.clone(), i.name)));
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
/// error 1176, "Key '..' doesn't exist in table '..'", e.g. dropped or made invisible since it
/// was learned), it is never named again for that table, so only this page fails. Returns
/// `error`.
pub(crate) fn refused(
    named: Option<&(Lookup, &'static str)>,
    error: diesel::result::Error,
) -> diesel::result::Error {
    if let (Some((lookup, index)), diesel::result::Error::DatabaseError(_, info)) = (named, &error)
    {
        let message = info.message();
        if message.contains("doesn't exist") && message.contains(&format!("'{index}'")) {
            catalog().refused.insert((lookup.table.clone(), index));
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
    let primary: Vec<(String, bool)> = listed
        .iter()
        .find(|l| l.name == "PRIMARY" && !l.cut)
        .map(|l| l.columns.clone())
        .unwrap_or_default();
    listed
        .into_iter()
        .map(|mut l| {
            if l.name != "PRIMARY" && !l.cut {
                for (column, _) in &primary {
                    if l.columns.iter().all(|(c, _)| c != column) {
                        l.columns.push((column.clone(), false));
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

/// The index that serves a seek of `key` under filters pinning the columns `equality`: some
/// of `equality`'s columns, then every key column in order, the directions all the keyset's
/// or all reversed. Of several, the one with the most equality columns before the key (the
/// narrowest range), then the first by name.
fn serving_index<'a>(
    indexes: impl Iterator<Item = &'a LearnedIndex>,
    key: &[KeyColumn],
    equality: &[String],
) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    for index in indexes {
        let columns = &index.columns;
        let pinned = columns
            .iter()
            .take_while(|(c, _)| equality.contains(c))
            .count();
        // The key may start after any number of pinned columns (a filter the index leads with
        // need not be used, but each column before the key must be pinned).
        let start = (0..=pinned).rev().find(|&start| {
            let Some(run) = columns.get(start..start + key.len()) else {
                return false;
            };
            let reversed = |(k, (_, descending)): (&KeyColumn, &(String, bool))| {
                (k.direction == SortDirection::Desc) != *descending
            };
            run.iter().zip(key).all(|((c, _), k)| c == k.name)
                && run
                    .iter()
                    .zip(key)
                    .map(|(c, k)| reversed((k, c)))
                    .collect::<HashSet<_>>()
                    .len()
                    == 1
        });
        if let Some(start) = start {
            if best.is_none_or(|(s, _)| start > s) {
                best = Some((start, index.name));
            }
        }
    }
    best.map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(index: &str, column: Option<&str>, collation: &str) -> IndexPart {
        IndexPart {
            index_name: index.into(),
            column_name: column.map(Into::into),
            collation: Some(collation.into()),
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
        ]);
        assert_eq!(choose(&learned, ASC, &["kind"]), None);
        assert_eq!(
            choose(&learned, ASC, &["tenant", "kind"]),
            Some("by_tenant_at")
        );
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

    #[test]
    fn the_catalog_statement_takes_only_plain_names() {
        let sql = catalog_sql(&["events".into()]).expect("plain");
        assert!(
            sql.contains("TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'events'"),
            "{sql}"
        );
        // Only B-tree indexes keep their rows in key order (not FULLTEXT, SPATIAL or HASH).
        assert!(sql.contains("AND INDEX_TYPE = 'BTREE'"), "{sql}");
        let sql = catalog_sql(&["archive".into(), "events".into()]).expect("plain");
        assert!(
            sql.contains("TABLE_SCHEMA = 'archive' AND TABLE_NAME = 'events'"),
            "{sql}"
        );
        assert_eq!(catalog_sql(&["ev'ents".into()]), None);
        assert_eq!(catalog_sql(&["a".into(), "b".into(), "c".into()]), None);
    }

    #[test]
    fn a_refused_index_is_not_named_again() {
        let lookup = Lookup {
            table: "refusal_test".into(),
            sql: String::new(),
            equality: vec!["tenant".into()],
            key: ASC,
        };
        let chosen = lookup.learn(Ok(vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_tenant_at_id", Some("tenant"), "A"),
            part("by_tenant_at_id", Some("at"), "A"),
        ]));
        assert_eq!(chosen, Some("by_tenant_at_id"));
        assert_eq!(lookup.known(), Some(Some("by_tenant_at_id")));
        let named = (lookup, "by_tenant_at_id");
        // Another error leaves it.
        let _ = refused(Some(&named), diesel::result::Error::NotFound);
        assert_eq!(named.0.known(), Some(Some("by_tenant_at_id")));
        let error = diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::Unknown,
            Box::new("Key 'by_tenant_at_id' doesn't exist in table 'refusal_test'".to_string()),
        );
        let _ = refused(Some(&named), error);
        assert_eq!(named.0.known(), Some(None));
        // A failed look-up names nothing.
        let failed = Lookup {
            table: "failed_lookup_test".into(),
            ..named.0
        };
        assert_eq!(failed.learn(Err(diesel::result::Error::NotFound)), None);
        assert_eq!(failed.known(), Some(None));
    }
}
