//! "Why each miss": for every target the run missed, the measurement of the same run (or of
//! section 2a, counted in instructions) that says where the time went. Each reason is built
//! from figures the report prints elsewhere; none is typed here.

use std::fmt::Write as _;

/// What the reasons draw on beyond the missed figure itself.
pub struct Evidence<'a> {
    /// The run's noise floor (section 1): the worst ratio between two reads of the same rows.
    pub noise: Option<f64>,
    /// Section 2a as the file has it (the full run writes it before this part).
    pub instructions: Option<&'a str>,
}

impl Evidence<'_> {
    /// "within the noise floor" where `ratio` is.
    fn noise(&self, ratio: f64) -> String {
        match self.noise {
            Some(noise) if ratio <= noise => format!(
                " {} is within this run's noise floor ({}), so it is not a measured difference.",
                crate::numbers::ratio(ratio),
                crate::numbers::ratio(noise)
            ),
            Some(noise) => format!(
                " This run's noise floor is {}.",
                crate::numbers::ratio(noise)
            ),
            None => String::new(),
        }
    }

    /// Section 2a's row for `backend`, `shape` in the first form whose name holds `form`:
    /// (library / prepared, library / by name), both in instructions.
    fn counted(&self, backend: &str, shape: &str, form: &str) -> Option<(String, String)> {
        self.instructions?.lines().find_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // | backend | shape | form | library | prepared | lib/prep | target | by name | lib/by name | ..
            (cells.len() > 9 && cells[1] == backend && cells[2] == shape && cells[3].contains(form))
                .then(|| (cells[6].to_string(), cells[9].to_string()))
        })
    }
}

/// A deep page slower than `limit` times its first page.
#[allow(clippy::too_many_arguments)] // the figures of one table row, each named
pub fn deep_page(
    e: &Evidence<'_>,
    deep_ratio: f64,
    deep: &str,
    first: &str,
    ties: Option<i64>,
    expanded: bool,
    counters: Option<&str>,
) -> String {
    let mut s = format!("the deep page took {deep} against {first} for the first page.");
    if let Some(ties) = ties.filter(|&t| expanded && t > 1) {
        let _ = write!(
            s,
            " Its seek (no row value) bounds only the leading column, so the index range \
             starts at the cursor's value and reads the {} rows of its tie group up to the \
             cursor (\"ties up to the cursor\"); `.seek_per_level(true)` starts at the cursor \
             instead, a union of one seek per key level{}.",
            crate::numbers::group(ties.unsigned_abs()),
            if ties <= 100 {
                ", which costs more where ties are this short"
            } else {
                " (its own row)"
            }
        );
    }
    if let Some(c) = counters {
        let _ = write!(
            s,
            " What the deep page read on the server: `{c}` (\"SQL and plans\")."
        );
    }
    s.push_str(&e.noise(deep_ratio));
    s
}

/// A deep page slower than 1.3 times the physical floor.
pub fn floor(
    e: &Evidence<'_>,
    mysql: bool,
    times: (&str, &str, f64),
    ids: u64,
    counters: Option<&str>,
) -> String {
    let (keyset, floor, ratio) = times;
    let mut s = format!(
        "the keyset page took {keyset} against {floor} for the floor, one range of {ids} \
         primary-key entries."
    );
    if mysql {
        s.push_str(
            " InnoDB keeps each row in its primary key: the floor reads the rows in place, \
             while the keyset page reads the secondary index from the cursor and then looks \
             each row up by its primary key.",
        );
    } else {
        s.push_str(
            " The keyset page reads the secondary index from the cursor and then each row \
             from the table.",
        );
    }
    if let Some(c) = counters {
        let _ = write!(s, " Its server counters: `{c}` (\"SQL and plans\").");
    }
    s.push_str(&e.noise(ratio));
    s
}

/// A library page slower than 1.05 times the same SQL written by hand.
pub fn hand_written(
    e: &Evidence<'_>,
    timed: f64,
    backend: &str,
    shape: &str,
    deferred_join: bool,
    against_prepared: Option<String>,
) -> String {
    let mut s = String::new();
    if let Some(p) = against_prepared {
        let _ = write!(s, "against the same statement prepared: {p}.");
    }
    let form = if deferred_join {
        "`.deferred_join(true)`"
    } else {
        "default"
    };
    match e.counted(backend, shape, form) {
        Some((prepared, by_name)) => {
            let _ = write!(
                s,
                " Section 2a counts the same page in CPU instructions, where timing noise does \
                 not reach: library / prepared {prepared}, library / by name {by_name} (by \
                 name: the statement decoded by column name, as this table's `prepared` is)."
            );
        }
        None => {
            let _ = write!(s, " Section 2a does not count this form.");
        }
    }
    s.push_str(&e.noise(timed));
    s.trim_start().to_string()
}

/// A SQLite page slower than its limit: section 2a's count of the same page in CPU
/// instructions (SQLite's own work included), on section 1's file and on a copy without
/// `sqlite_stat4` rows. `None` when section 2a has no row for `shape`.
pub fn sqlite_counted(e: &Evidence<'_>, shape: &str) -> Option<String> {
    let cells = e.instructions?.lines().find_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | shape | first | deep | deep/first | first, no stat4 | deep, no stat4 | deep/first, no stat4 |
        (cells.len() == 9
            && cells[1] == shape
            && cells[2].starts_with(|c: char| c.is_ascii_digit()))
        .then_some(cells)
    })?;
    Some(format!(
        "Section 2a counts this page in CPU instructions, SQLite's own work included (\"SQLite's \
         deep page, counted\"): {} against {} for the first page ({}); on a copy of the file \
         without `sqlite_stat4` rows, {} against {} ({}). With those rows SQLite plans the \
         statement again at every page, since your filter's `tenant = ?` is a bare parameter \
         compared with an indexed column, and a later page's statement costs more to plan than \
         the first page's; without them it is planned once, and what remains is the page's own \
         reading.",
        cells[3], cells[2], cells[4], cells[6], cells[5], cells[7]
    ))
}

/// A PostgreSQL union page (`.seek_per_level(true)`) slower than its limit: how often
/// PostgreSQL planned it (this run's notes, from `pg_prepared_statements`) and what planning
/// and running it took in `EXPLAIN ANALYZE` (`plan`).
pub fn pg_union(plan: Option<&str>, notes: &[String]) -> Option<String> {
    let figure = |label: &str| {
        plan?.lines().find_map(|l| {
            l.trim()
                .strip_prefix(label)
                .map(|rest| rest.trim().to_string())
        })
    };
    let mut s = String::new();
    if let Some(note) = notes
        .iter()
        .find(|n| n.starts_with("Custom plan at every execution") && n.contains("UNION ALL"))
    {
        let times = note
            .split_once('(')
            .and_then(|(_, rest)| rest.split_once(' '))
            .map(|(n, _)| n);
        if let Some(times) = times {
            let _ = write!(
                s,
                "PostgreSQL planned this union anew at each of its {times} executions (Run \
                 notes: never a generic plan, which it estimates dearer for this statement), \
                 while the first page runs a generic plan, planned once."
            );
        }
    }
    if let (Some(planning), Some(execution)) = (figure("Planning Time:"), figure("Execution Time:"))
    {
        let _ = write!(
            s,
            " `EXPLAIN ANALYZE` of the deep page (\"SQL and plans\"): planning {planning}, \
             execution {execution}."
        );
    }
    (!s.is_empty()).then(|| s.trim_start().to_string())
}

/// A MariaDB union page (`.seek_per_level(true)`) slower than its limit: what its plan
/// (`EXPLAIN`) shows it doing beyond reading its ranges.
pub fn mysql_union(plan: Option<&str>) -> Option<String> {
    plan?
        .lines()
        .any(|l| l.contains("UNION RESULT") && l.contains("Using filesort"))
        .then(|| {
            "MariaDB writes the union's rows into a temporary table and sorts them before the \
             `LIMIT` (`UNION RESULT ... Using filesort` in its plan under \"SQL and plans\"), \
             work that the first page, one index range read in order, does not do."
                .to_string()
        })
}
