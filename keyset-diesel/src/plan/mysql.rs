//! MySQL/MariaDB's plans (`EXPLAIN FORMAT=JSON`, `ANALYZE FORMAT=JSON`).

use serde_json::Value;

use super::report::{empty_report, NotASeek, PlanError, PlanReport, TableRead};
use super::{check_reads, IndexStyle, KeysetShape, PlanBackend};

impl PlanBackend for diesel::mysql::Mysql {
    type PlanSql = diesel::sql_types::Text;
    type PlanRow = String;
    const EXPLAIN: [&'static str; 2] = ["EXPLAIN FORMAT=JSON", "ANALYZE FORMAT=JSON"];
    const HANDLER_COUNTERS: bool = true;
    const INDEX_STYLE: IndexStyle = IndexStyle::DescendingOnlyWhenMixed;
    const IDENT_QUOTE: char = '`';

    fn read_plan(rows: Vec<String>, shape: &KeysetShape) -> Result<PlanReport, PlanError> {
        let plan = rows.concat();
        let parsed: Value = serde_json::from_str(&plan)?;
        if parsed.get("query_block").is_none() {
            return Err(PlanError::Shape(
                "no \"query_block\" in the EXPLAIN output".into(),
            ));
        }
        let mut reads = Vec::new();
        let mut sorts = Vec::new();
        let mut unbounded = Vec::new();
        my_walk(&parsed, shape, None, &mut reads, &mut sorts, &mut unbounded);
        let is_range = |r: &TableRead| {
            r.index.is_some() && matches!(r.access.as_str(), "range" | "ref" | "eq_ref" | "const")
        };
        let mut not_a_seek = check_reads(&reads, shape, is_range, |r| {
            r.access == "range"
                && r.condition
                    .as_deref()
                    .is_some_and(|c| c.split(", ").any(|p| p == shape.leading()))
        });
        not_a_seek.extend(unbounded.into_iter().map(|sort| NotASeek::Sort { sort }));
        let mut report = empty_report(plan, reads, sorts);
        report.not_a_seek = not_a_seek;
        Ok(report)
    }
}

/// MySQL/MariaDB's JSON plan: every `"table"` object naming the keyset's table is a read;
/// every `"filesort"` a sort, unbounded when it covers a read of the table that is not a fetch
/// by unique key (`inside`: the innermost filesort above, within the same query block).
fn my_walk(
    value: &Value,
    shape: &KeysetShape,
    inside: Option<&str>,
    reads: &mut Vec<TableRead>,
    sorts: &mut Vec<String>,
    unbounded: &mut Vec<String>,
) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(table)) = map.get("table") {
                let text = |key: &str| table.get(key).and_then(Value::as_str).map(str::to_string);
                if text("table_name").as_deref() == Some(shape.relation.as_str()) {
                    let access = text("access_type").unwrap_or_default();
                    if let Some(sort) = inside {
                        if !matches!(access.as_str(), "eq_ref" | "const" | "system")
                            && !unbounded.iter().any(|u| u == sort)
                        {
                            unbounded.push(sort.to_string());
                        }
                    }
                    let parts = table
                        .get("used_key_parts")
                        .and_then(Value::as_array)
                        .map(|p| {
                            p.iter()
                                .filter_map(Value::as_str)
                                .collect::<Vec<_>>()
                                .join(", ")
                        });
                    reads.push(TableRead {
                        relation: shape.relation.clone(),
                        access,
                        index: text("key"),
                        condition: parts,
                        filter: text("attached_condition"),
                        backward: false,
                        rows: table.get("r_rows").and_then(Value::as_f64),
                        rows_removed_by_filter: None,
                        loops: None,
                        remote_sql: None,
                    });
                }
            }
            for (key, child) in map {
                if key == "filesort" {
                    let sort_key = child.get("sort_key").and_then(Value::as_str).unwrap_or("");
                    let sort = format!("filesort on {sort_key}");
                    sorts.push(sort.clone());
                    my_walk(child, shape, Some(&sort), reads, sorts, unbounded);
                } else if key == "query_block" {
                    // A nested query block (a derived table, a subquery) has its own LIMIT.
                    my_walk(child, shape, None, reads, sorts, unbounded);
                } else {
                    my_walk(child, shape, inside, reads, sorts, unbounded);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                my_walk(item, shape, inside, reads, sorts, unbounded);
            }
        }
        _ => {}
    }
}
