//! The index a keyset rides on: the recipe [`PlanReport::index_recipe`](super::PlanReport)
//! gives (your equality filters' columns, then the key columns in keyset order and direction),
//! and how a plan's conditions name key columns.

use super::KeysetShape;
use crate::keyset::{KeyColumn, Keyset, NullsOrder, SortDirection};
use crate::query::filters::table_parts;
pub(super) use crate::query::filters::{equality_columns, quoted_table};

/// Whether a plan's `condition` names key column `name`: the column itself, or for a key on an
/// expression (`lower(users::name)`, named by its Rust text) a column the expression reads
/// (`name`), or SQLite's `<expr>` for an index expression.
pub(super) fn names_column(condition: &str, column: &KeyColumn) -> bool {
    let name = column.name;
    if !name.contains("::") && !column.expression {
        return mentions(condition, name);
    }
    condition.contains("<expr>")
        || name
            .split("::")
            .skip(1)
            .filter_map(|part| {
                let end = part
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(part.len());
                (end > 0).then(|| &part[..end])
            })
            .any(|column| mentions(condition, column))
}

/// The keyset's table as plans name it (its last part) and in full, unquoted.
pub(super) fn table_names<K: Keyset>() -> (String, String) {
    let parts = table_parts::<K>();
    let last = parts.last().cloned().unwrap_or_default();
    (last, parts.join("."))
}

/// Whether `text` names `column` as a whole word (not inside a longer identifier).
fn mentions(text: &str, column: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(column).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + column.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// How a recipe writes the key columns' order.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexStyle {
    /// `ASC` / `DESC` on every key column (SQLite).
    Directions,
    /// And the NULL placement where it differs from the default (PostgreSQL).
    DirectionsAndNulls,
    /// Ascending columns, read backward for a keyset in one direction; `ASC` / `DESC` only for
    /// a keyset of mixed directions (MySQL/MariaDB: MariaDB 10.11's `EXPLAIN` leaves the parts
    /// after a descending one out of `used_key_parts`, so a descending index in one direction
    /// would hide the seek it serves).
    DescendingOnlyWhenMixed,
}

/// Whether `name` is a plain SQL identifier (ASCII letters, digits and `_`, not starting with
/// a digit, at most 63 bytes: PostgreSQL's limit): the only names a recipe takes from the
/// query's filters.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 63
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `CREATE INDEX` for the keyset, every identifier quoted with `quote` (`"` or `` ` ``, the
/// quote doubled inside a name); an expression key is written as [`recipe_column`] gives it
/// (from the model's code). Empty (no recipe) when a filter column's name, which comes from
/// the query's SQL, is not a plain identifier ([`is_identifier`]): a recipe is meant to be
/// run, so it never carries text a query (or a raw SQL filter) chose.
pub(super) fn index_recipe(
    table: &str,
    shape: &KeysetShape,
    equality: &[String],
    style: IndexStyle,
    quote: char,
) -> String {
    if !equality.iter().all(|name| is_identifier(name)) {
        return String::new();
    }
    let ident = |name: &str| {
        let doubled: String = [quote, quote].iter().collect();
        format!("{quote}{}{quote}", name.replace(quote, &doubled))
    };
    let mut names: Vec<String> = equality.to_vec();
    names.extend(shape.columns.iter().map(|c| recipe_name(c.name)));
    let mut parts: Vec<String> = equality.iter().map(|n| ident(n)).collect();
    let mixed = shape
        .columns
        .iter()
        .any(|c| Some(c.direction) != shape.columns.first().map(|f| f.direction));
    for c in shape.columns {
        let direction = match style {
            IndexStyle::DescendingOnlyWhenMixed if !mixed => String::new(),
            _ => format!(" {}", c.direction.keyword()),
        };
        let column = if c.expression || c.name.contains("::") {
            recipe_column(c.name)
        } else {
            ident(c.name)
        };
        let mut part = format!("{column}{direction}");
        if style == IndexStyle::DirectionsAndNulls {
            // PostgreSQL's default placement (ASC: NULLS LAST, DESC: NULLS FIRST) is written
            // only when the keyset's differs.
            let default = match c.direction {
                SortDirection::Asc => NullsOrder::Last,
                SortDirection::Desc => NullsOrder::First,
            };
            match c.nulls {
                Some(n) if n != default => part.push_str(match n {
                    NullsOrder::First => " NULLS FIRST",
                    NullsOrder::Last => " NULLS LAST",
                }),
                _ => {}
            }
        }
        parts.push(part);
    }
    let table: Vec<String> = table.split('.').map(ident).collect();
    format!(
        "CREATE INDEX {} ON {} ({})",
        ident(&format!("{}_{}", shape.relation, names.join("_"))),
        table.join("."),
        parts.join(", ")
    )
}

/// A key column as a recipe writes it: the column, or for a key on an expression (named by
/// its Rust text) that text without table paths, `lower(users::name)` -> `lower(name)` (the
/// SQL of a function call; a sketch for other Rust expressions).
fn recipe_column(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("::") {
        let head = &rest[..at];
        // Drop the identifier just before `::` (the table, or a schema module).
        let keep = head.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(keep);
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

/// A key column's part of a recipe's index name: [`recipe_column`] with every run of other
/// characters than letters, digits and `_` made one `_` (`lower(name)` -> `lower_name`).
fn recipe_name(name: &str) -> String {
    let column = recipe_column(name);
    let mut out = String::with_capacity(column.len());
    for c in column.chars() {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::super::tests::shape;
    use super::*;

    /// A key on an expression is named by its Rust text: plans name the column it reads
    /// (PostgreSQL) or `<expr>` (SQLite), and a recipe writes it without table paths.
    #[test]
    fn expression_keys_in_plans_and_recipes() {
        let pg = "(ROW(lower((name)::text), id) > ROW('bob'::text, '10371'::bigint))";
        let expr = |name: &'static str| KeyColumn {
            name,
            field: "f",
            direction: SortDirection::Asc,
            nulls: None,
            expression: true,
            exact_text: false,
        };
        let column = |name: &'static str| KeyColumn {
            expression: false,
            exact_text: false,
            ..expr(name)
        };
        assert!(names_column(pg, &expr("lower(users::name)")));
        assert!(!names_column(pg, &expr("lower(users::nick)")));
        assert!(names_column("(<expr>>?)", &expr("lower(users::name)")));
        assert!(!names_column("(<expr>>?)", &column("name")));
        assert!(names_column("(name > $1)", &column("authors::name")));
        assert!(!names_column("(surname > $1)", &column("authors::name")));
        assert_eq!(recipe_column("lower(users::name)"), "lower(name)");
        assert_eq!(
            recipe_column("coalesce(app::users::nick,users::name)"),
            "coalesce(nick,name)"
        );
        assert_eq!(recipe_column("occurred_at"), "occurred_at");
        assert_eq!(recipe_name("lower(users::name)"), "lower_name");
        assert_eq!(
            recipe_name("coalesce(users::nick,users::name)"),
            "coalesce_nick_name"
        );
        const EXPR: &[KeyColumn] = &[
            KeyColumn {
                name: "lower(people::name)",
                field: "folded",
                direction: SortDirection::Asc,
                nulls: None,
                expression: true,
                exact_text: false,
            },
            KeyColumn {
                name: "id",
                field: "id",
                direction: SortDirection::Asc,
                nulls: None,
                expression: false,
                exact_text: false,
            },
        ];
        let shape = KeysetShape {
            relation: "people".into(),
            columns: EXPR,
            had_cursor: true,
            partitions: Vec::new(),
        };
        assert_eq!(
            index_recipe("people", &shape, &[], IndexStyle::Directions, '"'),
            r#"CREATE INDEX "people_lower_name_id" ON "people" (lower(name) ASC, "id" ASC)"#
        );
    }

    #[test]
    fn equality_columns_are_the_tables_columns_compared_to_a_bind() {
        let pg = r#" WHERE (("events"."workspace_id" = $1) AND ("events"."kind" = $2)) AND ("other"."x" = $3) AND ("events"."n" > $4) AND ("events"."occurred_at" = $5)"#;
        assert_eq!(
            equality_columns(pg, "events", shape().columns),
            ["workspace_id", "kind"]
        );
        let my = " WHERE (`events`.`workspace_id` = ?) AND `workspace_id` = ?";
        assert_eq!(
            equality_columns(my, "events", shape().columns),
            ["workspace_id"]
        );
    }

    #[test]
    fn the_recipe_lists_equality_columns_then_the_key_in_order_and_direction() {
        let recipe =
            |style, quote| index_recipe("events", &shape(), &["workspace_id".into()], style, quote);
        assert_eq!(
            recipe(IndexStyle::Directions, '"'),
            r#"CREATE INDEX "events_workspace_id_occurred_at_event_id" ON "events" ("workspace_id", "occurred_at" DESC, "event_id" DESC)"#
        );
        // One direction on MySQL: ascending, read backward.
        assert_eq!(
            recipe(IndexStyle::DescendingOnlyWhenMixed, '`'),
            "CREATE INDEX `events_workspace_id_occurred_at_event_id` ON `events` \
             (`workspace_id`, `occurred_at`, `event_id`)"
        );
        // A schema-qualified table: each part quoted.
        assert!(
            index_recipe("archive.events", &shape(), &[], IndexStyle::Directions, '"')
                .contains(r#" ON "archive"."events" ("#)
        );
    }

    /// A filter column's name comes from the query's SQL, which a raw SQL filter
    /// writes: a name that is no plain identifier gives no recipe at all.
    #[test]
    fn a_filter_name_that_is_no_identifier_gives_no_recipe() {
        for name in [
            "a); DROP TABLE events; --",
            "x\" = 1 OR \"y",
            "",
            "1st",
            "na\u{ef}ve",
            &"n".repeat(64),
        ] {
            assert_eq!(
                index_recipe(
                    "events",
                    &shape(),
                    &[name.to_string()],
                    IndexStyle::Directions,
                    '"'
                ),
                "",
                "{name:?}"
            );
        }
        assert!(is_identifier("workspace_id") && is_identifier("_x9"));
    }

    #[test]
    fn columns_are_matched_as_whole_words() {
        assert!(mentions("ROW(at, id) > ROW($1)", "at"));
        assert!(!mentions("'2020'::timestamp", "at"));
        assert!(!mentions("created_at > 1", "at"));
    }
}
