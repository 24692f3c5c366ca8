//! SQLite's plans (`EXPLAIN QUERY PLAN`).

use super::report::{empty_report, NotASeek, PlanError, PlanReport, TableRead};
use super::{check_reads, KeysetShape, PlanBackend};

impl PlanBackend for diesel::sqlite::Sqlite {
    type PlanSql = (
        diesel::sql_types::Integer,
        diesel::sql_types::Integer,
        diesel::sql_types::Integer,
        diesel::sql_types::Text,
    );
    type PlanRow = (i32, i32, i32, String);
    const EXPLAIN: [&'static str; 2] = ["EXPLAIN QUERY PLAN", "EXPLAIN QUERY PLAN"];

    fn read_plan(
        rows: Vec<(i32, i32, i32, String)>,
        shape: &KeysetShape,
    ) -> Result<PlanReport, PlanError> {
        let plan = rows
            .iter()
            .map(|(id, parent, _, detail)| format!("{id} {parent} {detail}"))
            .collect::<Vec<_>>()
            .join("\n");
        // `SEARCH t USING [COVERING] INDEX i (constraint)`, `SCAN t [USING [COVERING] INDEX i]`.
        let read_of = |detail: &str| -> Option<TableRead> {
            let (access, rest) = detail.split_once(' ')?;
            if !matches!(access, "SEARCH" | "SCAN") {
                return None;
            }
            let rest = rest.strip_prefix(shape.relation.as_str())?;
            if !(rest.is_empty() || rest.starts_with(' ')) {
                return None;
            }
            let using = rest.trim_start();
            let index = ["USING COVERING INDEX ", "USING INDEX "]
                .iter()
                .find_map(|p| using.strip_prefix(p))
                .map(|i| i.split(' ').next().unwrap_or_default().to_string())
                .or_else(|| {
                    using
                        .contains("PRIMARY KEY")
                        .then(|| "PRIMARY KEY".to_string())
                });
            let condition = using
                .find('(')
                .map(|at| using[at + 1..using.len().saturating_sub(1)].to_string());
            Some(TableRead {
                relation: shape.relation.clone(),
                access: access.to_string(),
                index,
                // SQLite names an INTEGER PRIMARY KEY `rowid` in the constraint.
                condition: condition.map(|c| match shape.columns {
                    [only] => c.replace("rowid", only.name),
                    _ => c,
                }),
                filter: None,
                backward: false,
                rows: None,
                loops: None,
                remote_sql: None,
                rows_removed_by_filter: None,
            })
        };
        let mut reads = Vec::new();
        let mut sorts = Vec::new();
        let mut not_a_seek = Vec::new();
        for (_, parent, _, detail) in &rows {
            if let Some(read) = read_of(detail) {
                reads.push(read);
            }
            if detail.contains("TEMP B-TREE") && detail.contains("ORDER BY") {
                sorts.push(detail.clone());
                // The sort's siblings are what it sorts: the table itself, or a limited arm.
                let sorts_table = rows
                    .iter()
                    .any(|(_, p, _, d)| p == parent && read_of(d).is_some());
                if sorts_table {
                    not_a_seek.push(NotASeek::Sort {
                        sort: detail.clone(),
                    });
                }
            }
        }
        let first_page = !shape.had_cursor;
        let mut reasons = check_reads(
            &reads,
            shape,
            |r| r.access == "SEARCH" || (first_page && r.index.is_some()),
            |r| {
                r.condition
                    .as_deref()
                    .is_some_and(|c| shape.names_leading(c))
            },
        );
        reasons.append(&mut not_a_seek);
        let mut report = empty_report(plan, reads, sorts);
        report.not_a_seek = reasons;
        Ok(report)
    }
}
