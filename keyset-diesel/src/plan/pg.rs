//! PostgreSQL's plans (`EXPLAIN (FORMAT JSON)`, `VERBOSE` where a foreign table is read).

use diesel::pg::Pg;
use serde_json::Value;

use super::report::{empty_report, NotASeek, PlanError, PlanReport, TableRead};
use super::{check_reads, IndexStyle, KeysetShape, PlanBackend};

impl PlanBackend for Pg {
    type PlanSql = diesel::sql_types::Text;
    type PlanRow = String;
    const EXPLAIN: [&'static str; 2] = ["EXPLAIN (FORMAT JSON)", "EXPLAIN (ANALYZE, FORMAT JSON)"];
    /// `VERBOSE` for the `Remote SQL` of foreign scans (it also qualifies the column names in
    /// every condition, so only where a foreign table is read).
    const EXPLAIN_FOREIGN: [&'static str; 2] = [
        "EXPLAIN (VERBOSE, FORMAT JSON)",
        "EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON)",
    ];
    const INDEX_STYLE: IndexStyle = IndexStyle::DirectionsAndNulls;

    /// The table and every partition below it (`pg_partition_tree`, PostgreSQL 12+), each
    /// with its `relkind` (`f`: a foreign table); none for a table not found (`to_regclass`
    /// is NULL).
    fn partitions_sql(table: &str) -> Option<String> {
        let table = table.replace('\'', "''");
        Some(format!(
            "SELECT c.relname::text AS \"Variable_name\", c.relkind::text AS \"Value\" \
             FROM (SELECT relid FROM pg_partition_tree(to_regclass('{table}')) \
             UNION SELECT to_regclass('{table}')) t JOIN pg_class c ON c.oid = t.relid \
             ORDER BY c.relname"
        ))
    }

    fn read_plan(rows: Vec<String>, shape: &KeysetShape) -> Result<PlanReport, PlanError> {
        let plan = rows.concat();
        let parsed: Value = serde_json::from_str(&plan)?;
        let root = parsed
            .get(0)
            .ok_or_else(|| PlanError::Shape("no plan in the EXPLAIN output".into()))?;
        let top = root
            .get("Plan")
            .ok_or_else(|| PlanError::Shape("no \"Plan\" in the EXPLAIN output".into()))?;
        let mut reads = Vec::new();
        let mut sorts = Vec::new();
        let mut unbounded_sorts = Vec::new();
        pg_walk(top, shape, &mut reads, &mut sorts, &mut unbounded_sorts);
        // A foreign scan is a range when its remote server is sent the seek; on a later page
        // one whose local filter holds the row-value seek was not (`SeekNotShipped`, in place
        // of the generic reasons for that scan). Another local filter on a key column (one of
        // yours postgres_fdw cannot send, `at < now()`) is not the seek.
        let unshipped: Vec<NotASeek> = reads
            .iter()
            .filter(|r| shape.had_cursor && r.remote_sql.is_some())
            .filter_map(|r| {
                let filter = r.filter.as_deref()?;
                (filter.contains("ROW(") && shape.names_key_column(filter)).then(|| {
                    NotASeek::SeekNotShipped {
                        relation: r.relation.clone(),
                        filter: filter.to_string(),
                    }
                })
            })
            .collect();
        let shipped: Vec<TableRead> = reads
            .iter()
            .filter(|r| {
                !unshipped.iter().any(|u| {
                    matches!(u, NotASeek::SeekNotShipped { relation, .. } if *relation == r.relation)
                })
            })
            .cloned()
            .collect();
        let is_index = |r: &TableRead| {
            matches!(
                r.access.as_str(),
                "Index Scan" | "Index Only Scan" | "Foreign Scan"
            )
        };
        let mut not_a_seek = unshipped;
        if !shipped.is_empty() || not_a_seek.is_empty() {
            not_a_seek.extend(check_reads(&shipped, shape, is_index, |r| {
                r.condition
                    .as_deref()
                    .is_some_and(|c| shape.names_leading(c))
            }));
        }
        not_a_seek.extend(
            unbounded_sorts
                .into_iter()
                .map(|sort| NotASeek::Sort { sort }),
        );
        let mut report = empty_report(plan, reads, sorts);
        report.not_a_seek = not_a_seek;
        report.execution_ms = root.get("Execution Time").and_then(Value::as_f64);
        Ok(report)
    }
}

/// PostgreSQL's plan tree: the reads of the table, every sort, and the sorts with a read of
/// the table below them and no `Limit` in between.
fn pg_walk(
    node: &Value,
    shape: &KeysetShape,
    reads: &mut Vec<TableRead>,
    sorts: &mut Vec<String>,
    unbounded: &mut Vec<String>,
) {
    let text = |key: &str| node.get(key).and_then(Value::as_str).map(str::to_string);
    let node_type = text("Node Type").unwrap_or_default();
    let relation = node.get("Relation Name").and_then(Value::as_str);
    if let Some(relation) = relation.filter(|r| shape.is_table(r)) {
        let remote_sql = text("Remote SQL");
        let condition = match &remote_sql {
            Some(remote) => remote_where(remote),
            None => text("Index Cond"),
        };
        reads.push(TableRead {
            relation: relation.to_string(),
            access: node_type.clone(),
            index: text("Index Name"),
            condition,
            filter: text("Filter"),
            backward: node.get("Scan Direction").and_then(Value::as_str) == Some("Backward"),
            rows: node.get("Actual Rows").and_then(Value::as_f64),
            rows_removed_by_filter: node.get("Rows Removed by Filter").and_then(Value::as_f64),
            loops: node.get("Actual Loops").and_then(Value::as_f64),
            remote_sql,
        });
    }
    if node_type.ends_with("Sort") {
        let key = node
            .get("Sort Key")
            .map(Value::to_string)
            .unwrap_or_default();
        let sort = format!("{node_type} on {key}");
        sorts.push(sort.clone());
        if pg_reads_below_without_limit(node, shape) {
            unbounded.push(sort);
        }
    }
    for child in node
        .get("Plans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        pg_walk(child, shape, reads, sorts, unbounded);
    }
}

/// The `WHERE` of postgres_fdw's remote SQL (`SELECT .. FROM t WHERE .. ORDER BY ..`): the
/// conditions the remote server was sent, without the `ORDER BY`, `LIMIT` or `FOR` after.
fn remote_where(remote: &str) -> Option<String> {
    let (_, rest) = remote.split_once(" WHERE ")?;
    let end = [" ORDER BY ", " LIMIT ", " FOR UPDATE", " FOR SHARE"]
        .iter()
        .filter_map(|tail| rest.find(tail))
        .min()
        .unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

fn pg_reads_below_without_limit(node: &Value, shape: &KeysetShape) -> bool {
    node.get("Plans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|child| {
            if child.get("Node Type").and_then(Value::as_str) == Some("Limit") {
                return false;
            }
            child
                .get("Relation Name")
                .and_then(Value::as_str)
                .is_some_and(|r| shape.is_table(r))
                || pg_reads_below_without_limit(child, shape)
        })
}

#[cfg(test)]
mod tests {
    use super::super::tests::shape;
    use super::*;

    /// PostgreSQL names a partitioned table's reads by partition: they count as the table's
    /// (relation and `Actual Loops` kept), and an unknown relation does not.
    #[cfg(feature = "postgres")]
    #[test]
    fn partition_reads_are_reads_of_the_table() {
        let scan = |relation: &str, loops: u32| {
            format!(
                r#"{{"Node Type": "Index Scan", "Relation Name": "{relation}",
                   "Index Name": "{relation}_idx", "Scan Direction": "Forward",
                   "Index Cond": "(ROW(occurred_at, event_id) > ROW($1, $2))",
                   "Actual Rows": {rows}, "Actual Loops": {loops}}}"#,
                rows = loops * 3
            )
        };
        let plan = format!(
            r#"[{{"Plan": {{"Node Type": "Limit", "Plans": [{{"Node Type": "Append",
               "Plans": [{}, {}, {}]}}]}}}}]"#,
            scan("events_1", 1),
            scan("events_2", 0),
            scan("other", 1)
        );
        let parted = KeysetShape {
            partitions: vec!["events_1".into(), "events_2".into()],
            ..shape()
        };
        let report = <Pg as PlanBackend>::read_plan(vec![plan.clone()], &parted).unwrap();
        assert!(report.seeks(), "{:?}", report.not_a_seek);
        let reads: Vec<_> = report
            .reads
            .iter()
            .map(|r| (r.relation.as_str(), r.loops, r.rows))
            .collect();
        assert_eq!(
            reads,
            [
                ("events_1", Some(1.0), Some(3.0)),
                ("events_2", Some(0.0), Some(0.0))
            ]
        );
        // Without the partition list, the table is never read: not a seek.
        let report = <Pg as PlanBackend>::read_plan(vec![plan], &shape()).unwrap();
        assert!(report.reads.is_empty());
        assert!(!report.seeks());
        let sql = <Pg as PlanBackend>::partitions_sql("\"a'b\".\"events\"").unwrap();
        assert!(sql.contains("to_regclass('\"a''b\".\"events\"')"), "{sql}");
    }

    /// A foreign partition is a read of the table; it seeks when its remote SQL carries the
    /// seek, and a seek left in its local filter is `SeekNotShipped`, not a generic reason.
    #[cfg(feature = "postgres")]
    #[test]
    fn foreign_scans_seek_when_the_remote_is_sent_the_seek() {
        let plan = |filter: &str, remote_where: &str| {
            let filter = if filter.is_empty() {
                String::new()
            } else {
                format!(r#""Filter": "{filter}","#)
            };
            let scan = |relation: &str| {
                format!(
                    r#"{{"Node Type": "Foreign Scan", "Relation Name": "{relation}", {filter}
                       "Remote SQL": "SELECT occurred_at, event_id FROM public.rows WHERE {remote_where} ORDER BY occurred_at ASC NULLS LAST, event_id ASC NULLS LAST"}}"#
                )
            };
            format!(
                r#"[{{"Plan": {{"Node Type": "Limit", "Plans": [{{"Node Type": "Merge Append",
                   "Sort Key": ["occurred_at", "event_id"], "Plans": [{}, {}]}}]}}}}]"#,
                scan("events_0"),
                scan("events_1")
            )
        };
        let parted = KeysetShape {
            partitions: vec!["events_0".into(), "events_1".into()],
            ..shape()
        };
        let shipped = plan(
            "",
            "((occurred_at >= $1)) AND ((workspace_id = $3)) AND (((occurred_at > $1) OR ((occurred_at = $1) AND (event_id > $2))))",
        );
        let report = <Pg as PlanBackend>::read_plan(vec![shipped], &parted).unwrap();
        assert!(report.seeks(), "{:?}", report.not_a_seek);
        // A filter of the caller's that stays local (postgres_fdw does not send `now()`) is
        // not the seek: still a seek.
        let own_filter = plan(
            "(events_0.occurred_at < now())",
            "((occurred_at >= $1)) AND (((occurred_at > $1) OR ((occurred_at = $1) AND (event_id > $2))))",
        );
        let report = <Pg as PlanBackend>::read_plan(vec![own_filter], &parted).unwrap();
        assert!(report.seeks(), "{:?}", report.not_a_seek);
        assert_eq!(report.reads.len(), 2);
        assert!(report.reads[0]
            .condition
            .as_deref()
            .is_some_and(|c| c.starts_with("((occurred_at >= $1))") && !c.contains("ORDER BY")));
        assert!(report.reads[0].remote_sql.is_some());

        // The row value stays local: the remote WHERE has only the filter (the ORDER BY names
        // the key columns, and must not count).
        let local = plan(
            "(ROW(events_0.occurred_at, events_0.event_id) > ROW($1, $2))",
            "((workspace_id = $3))",
        );
        let report = <Pg as PlanBackend>::read_plan(vec![local], &parted).unwrap();
        assert!(!report.seeks());
        assert!(
            matches!(&report.not_a_seek[0], NotASeek::SeekNotShipped { relation, .. } if relation == "events_0"),
            "{:?}",
            report.not_a_seek
        );
        assert!(report
            .not_a_seek
            .iter()
            .all(|r| !matches!(r, NotASeek::SeekNotInIndex { .. })));
        assert_eq!(report.not_a_seek.len(), 2, "{:?}", report.not_a_seek);
        assert!(report.failure().contains(".expanded_seek(true)"));
        assert!(report.failure().contains("on each remote table"));
        assert_eq!(
            remote_where("SELECT a FROM t WHERE ((a > 1)) ORDER BY a ASC LIMIT 3").as_deref(),
            Some("((a > 1))")
        );
        assert_eq!(remote_where("SELECT a FROM t ORDER BY a"), None);
    }
}
