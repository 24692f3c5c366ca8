//! Your query's `WHERE` clause as text, and which of the keyset's table's columns it pins to
//! one value: what the plan check's index recipe (`plan/recipe.rs`) and the index a MySQL page
//! names by itself (`load/learn.rs`) read from your query.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryBuilder, QueryFragment};
use diesel::QueryResult;

use super::source::SelectParts;
use crate::keyset::{KeyColumn, Keyset};

/// The caller's `WHERE` clause alone, as Diesel writes it.
struct Filters<'a, Q>(&'a Q);

impl<Q: SelectParts<DB>, DB: Backend> QueryFragment<DB> for Filters<'_, Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_where(out)
    }
}

/// The SQL text of `query`'s `WHERE` clause on `DB` (` WHERE ..`, or empty).
pub(crate) fn filters_sql<DB, Q>(query: &Q) -> QueryResult<String>
where
    DB: Backend + Default,
    DB::QueryBuilder: Default,
    Q: SelectParts<DB>,
{
    let mut out = DB::QueryBuilder::default();
    Filters(query).to_sql(&mut out, &DB::default())?;
    Ok(out.finish())
}

/// The columns of table `relation` (its last name part) that a `WHERE` clause (as
/// [`filters_sql`] writes it) compares with `=` to a bound value (`"t"."c" = $1`,
/// `` `t`.`c` = ? ``), in order, without the key columns `key`.
pub(crate) fn equality_columns(sql: &str, relation: &str, key: &[KeyColumn]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (at, _) in sql.match_indices(" = ") {
        let right = sql[at + 3..].trim_start();
        if !(right.starts_with('?') || right.starts_with('$')) {
            continue;
        }
        let Some((column, rest)) = quoted_before(&sql[..at]) else {
            continue;
        };
        // A qualified column must belong to the keyset's table.
        if let Some(qualifier) = rest.strip_suffix('.') {
            match quoted_before(qualifier) {
                Some((table, _)) if table == relation => {}
                _ => continue,
            }
        }
        if key.iter().all(|c| c.name != column) && !found.contains(&column) {
            found.push(column);
        }
    }
    found
}

/// The quoted identifier that ends `text` (`"name"` or `` `name` ``), unquoted, and the text
/// before it.
fn quoted_before(text: &str) -> Option<(String, &str)> {
    let quote = text
        .chars()
        .next_back()
        .filter(|q| *q == '"' || *q == '`')?;
    let inner = &text[..text.len() - 1];
    let start = inner.rfind(quote)?;
    Some((inner[start + 1..].to_string(), &inner[..start]))
}

/// The keyset's table quoted as Diesel writes it (`"archive"."events"`).
pub(crate) fn quoted_table<K: Keyset>() -> String {
    let quoted = K::sql_table_name();
    if quoted.is_empty() {
        K::TABLE_NAME
            .split("::")
            .map(|p| format!("\"{}\"", p.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(".")
    } else {
        quoted
    }
}

/// The keyset's table's name parts, unquoted: `["archive", "events"]`, `["events"]`.
pub(crate) fn table_parts<K: Keyset>() -> Vec<String> {
    quoted_table::<K>()
        .split("\".\"")
        .map(|p| p.trim_matches('"').replace("\"\"", "\""))
        .collect()
}
