//! Your query's `WHERE` clause as text, and which of the keyset's table's columns it pins to
//! one value: what the plan check's index recipe (`plan/recipe.rs`) and the index a MySQL page
//! names by itself (`learn.rs`) read from your query.

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
#[cfg(feature = "plan-check")]
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

/// The columns of table `relation` that a `WHERE` clause (as [`filters_sql`] writes it) pins
/// to one value, without the key columns `key`, when the clause is nothing but such pins
/// joined by `AND` (`"t"."a" = $1 AND ("t"."b" = $2)`), or no clause at all; `None` for any
/// other clause (an `OR`, a `NOT`, an `IN`, a range, a subquery, SQL text): a filter this
/// cannot read may be the selective one, and an index chosen without it could read far more
/// rows than the server's own choice.
pub(crate) fn pinned_columns(sql: &str, relation: &str, key: &[KeyColumn]) -> Option<Vec<String>> {
    let clause = sql.trim();
    if clause.is_empty() {
        return Some(Vec::new());
    }
    let mut terms = Vec::new();
    conjuncts(clause.strip_prefix("WHERE ")?, &mut terms)?;
    let mut found: Vec<String> = Vec::new();
    for term in terms {
        let column = pinned_column(term, relation)?;
        if key.iter().all(|c| c.name != column) && !found.contains(&column) {
            found.push(column);
        }
    }
    Some(found)
}

/// `text` without the parentheses that wrap all of it (`((a))` → `a`).
fn unwrapped(mut text: &str) -> Option<&str> {
    loop {
        text = text.trim();
        let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
            return Some(text);
        };
        // `(a) AND (b)` starts and ends with parentheses that are not one pair.
        if top_level(text)?
            .iter()
            .any(|&(at, depth)| depth == 0 && at < text.len() - 1)
        {
            return Some(text);
        }
        text = inner;
    }
}

/// The byte offsets of `text` outside quotes, with the parenthesis depth after each; `None`
/// when the parentheses or quotes do not balance.
fn top_level(text: &str) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::with_capacity(text.len());
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (at, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => continue,
            None => match c {
                '"' | '`' | '\'' => quote = Some(c),
                '(' => depth += 1,
                ')' => depth = depth.checked_sub(1)?,
                _ => {}
            },
        }
        out.push((at, depth));
    }
    (depth == 0 && quote.is_none()).then_some(out)
}

/// Appends to `terms` the operands of the `AND`s `text` is made of (nested in parentheses or
/// not); `None` when the parentheses or quotes do not balance.
fn conjuncts<'a>(text: &'a str, terms: &mut Vec<&'a str>) -> Option<()> {
    let text = unwrapped(text)?;
    let splits: Vec<usize> = top_level(text)?
        .into_iter()
        .filter(|&(at, depth)| depth == 0 && text[at..].starts_with(" AND "))
        .map(|(at, _)| at)
        .collect();
    if splits.is_empty() {
        terms.push(text);
        return Some(());
    }
    let mut from = 0;
    for at in splits.into_iter().chain([text.len()]) {
        conjuncts(&text[from..at], terms)?;
        from = (at + 5).min(text.len());
    }
    Some(())
}

/// The column of `relation` that `term` compares with `=` to a bound value, when that is all
/// the term is (`"t"."c" = $1`, `` `s`.`t`.`c` = ? ``).
fn pinned_column(term: &str, relation: &str) -> Option<String> {
    let (left, right) = term.split_once(" = ")?;
    let right = right.trim();
    let bound = right == "?"
        || right
            .strip_prefix('$')
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    if !bound {
        return None;
    }
    let (column, rest) = quoted_before(left.trim())?;
    if rest.is_empty() {
        return Some(column);
    }
    let (table, rest) = quoted_before(rest.strip_suffix('.')?)?;
    let schema_only = rest.is_empty()
        || rest
            .strip_suffix('.')
            .and_then(quoted_before)
            .is_some_and(|(_, before)| before.is_empty());
    (table == relation && schema_only).then_some(column)
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

#[cfg(test)]
mod tests {
    use super::pinned_columns;
    use crate::keyset::{KeyColumn, SortDirection};

    const KEY: &[KeyColumn] = &[KeyColumn {
        name: "id",
        field: "id",
        direction: SortDirection::Asc,
        nulls: None,
        expression: false,
        exact_text: false,
    }];

    fn pinned(sql: &str) -> Option<Vec<String>> {
        pinned_columns(sql, "events", KEY)
    }

    #[test]
    fn only_a_clause_of_anded_pins_is_read() {
        assert_eq!(pinned(""), Some(vec![]));
        assert_eq!(
            pinned(" WHERE (`events`.`tenant` = ?)"),
            Some(vec!["tenant".into()])
        );
        assert_eq!(
            pinned(
                r#" WHERE (("events"."tenant" = $1) AND ("events"."kind" = $2)) AND ("events"."id" = $3)"#
            ),
            Some(vec!["tenant".into(), "kind".into()]),
            "a pinned key column is allowed but not listed"
        );
        assert_eq!(
            pinned(" WHERE `app`.`events`.`tenant` = ?"),
            Some(vec!["tenant".into()])
        );
        for other in [
            " WHERE ((`events`.`tenant` = ?) OR (`events`.`tenant` = ?))",
            " WHERE NOT ((`events`.`tenant` = ?))",
            " WHERE (`events`.`tenant` IN (?, ?))",
            " WHERE (`events`.`tenant` = ?) AND (`events`.`at` > ?)",
            " WHERE (`events`.`tenant` = ?) AND (`events`.`kind` = 'a')",
            " WHERE (`other`.`tenant` = ?)",
            " WHERE (`events`.`tenant` = (SELECT 1))",
            " WHERE (`events`.`tenant` = ?) AND (`events`.`kind` = ? OR `events`.`kind` = ?)",
            " WHERE (`events`.`tenant` = ?",
            " WHERE `events`.`name` = ' AND x' OR `events`.`kind` = ?",
        ] {
            assert_eq!(pinned(other), None, "{other}");
        }
    }
}
