//! The targets of sections 2a (CPU instructions per page) and 2b (nullable keys), read from
//! those sections as the file has them: the full run writes both before this part, so the
//! one table of targets at the top holds every goal of the report.

/// One row of the report's table of targets.
pub struct Target {
    pub what: String,
    pub backend: &'static str,
    pub shape: String,
    pub measured: String,
    pub met: Option<bool>,
    /// Where a missed target's time went, from this run's figures (`report_why.rs`).
    pub why: Option<String>,
}

/// Section 2a's goal: the library within 3% of the same statement prepared by hand.
const INSTRUCTIONS_LIMIT: f64 = 1.03;
/// Section 2b's goal: a nullable key's deep page within 1.2 times its first page.
const NULLABLE_LIMIT: f64 = 1.2;

/// A table row of a section, split into trimmed cells (the first and last are the empty
/// text outside the outer bars); `None` for a header, a separator or another line.
fn rows(section: Option<&str>, columns: usize) -> impl Iterator<Item = Vec<&str>> {
    section
        .unwrap_or_default()
        .lines()
        .map(|line| line.split('|').map(str::trim).collect::<Vec<_>>())
        .filter(move |cells| {
            cells.len() == columns + 2
                && cells[1] != "backend"
                && !cells[1].starts_with("---")
                && cells[1].len() > 1
        })
}

/// The backend a row's first cell names.
fn backend(cell: &str) -> &'static str {
    if cell.starts_with("PostgreSQL") {
        "PostgreSQL"
    } else if cell.starts_with("SQLite") {
        "SQLite"
    } else {
        "MariaDB"
    }
}

fn number(cell: &str) -> Option<f64> {
    cell.replace(',', "").parse().ok()
}

/// The targets of sections 2a and 2b, with where each miss went.
pub fn from_sections(instructions: Option<&str>, nullable: Option<&str>) -> Vec<Target> {
    let mut targets = Vec::new();
    // | backend | shape | form | library | prepared | library / prepared | target | by name |
    // library / by name | SQL text: library | SQL text: prepared | .. without SQL text |
    for c in rows(instructions, 12) {
        let Some(x) = number(c[6]) else { continue };
        let met = x <= INSTRUCTIONS_LIMIT;
        targets.push(Target {
            what: format!(
                "library / prepared ≤ {INSTRUCTIONS_LIMIT}, CPU instructions per page (section 2a)"
            ),
            backend: backend(c[1]),
            shape: format!("{} ({})", c[2], c[3]),
            measured: format!("{x:.3}"),
            met: Some(met),
            why: (!met).then(|| {
                format!(
                    "the library's page took {} instructions against {} for the same \
                     statement prepared by hand; writing its SQL text took {} of them (the \
                     hand-written statement {}), and without the text the ratio is {}. \
                     Section 2a says which pages Diesel finds by their text.",
                    c[4], c[5], c[10], c[11], c[12]
                )
            }),
        });
    }
    // | backend | first page | deep page, default | deep / first | | deep page, column by
    // column | deep / first | the deep page's rows as one range | deep / one range |
    for c in rows(nullable, 9) {
        let Some(x) = number(c[4]) else { continue };
        let met = x <= NULLABLE_LIMIT;
        let variant = c[1].split_once(", ").map(|(_, v)| format!(", {v}"));
        targets.push(Target {
            what: format!("nullable key: deep page / first page ≤ {NULLABLE_LIMIT} (section 2b)"),
            backend: backend(c[1]),
            shape: format!(
                "`score ASC NULLS LAST, id ASC`{}",
                variant.unwrap_or_default()
            ),
            measured: format!("{x:.2}"),
            met: Some(met),
            why: (!met).then(|| {
                format!(
                    "the deep page took {} against {} for the first page. It is a union of \
                     arms (the values after the cursor in its group, the values after its \
                     score, the NULL group) merged in index order; the same rows read by one \
                     range and no union took {} (deep / one range {}), so the union costs \
                     about what reading those rows does. No single statement reads a value \
                     cursor's rest and the NULL group in order; section 2b says why the \
                     first page costs less.",
                    c[3], c[2], c[8], c[9]
                )
            }),
        });
    }
    targets
}
