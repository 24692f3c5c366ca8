//! The raw figures of the reliability report (reports/RELIABILITY.md): long runs of the oracle
//! and the soak tests append a line each, read by `scripts/reliability.sh`.

/// Appends `line` to `file` in `$KEYSET_RELIABILITY_DIR`, if set (the report's raw figures,
/// read by scripts/reliability.sh).
pub fn append_report(file: &str, line: &str) {
    let Some(dir) = std::env::var_os("KEYSET_RELIABILITY_DIR") else {
        return;
    };
    use std::io::Write as _;
    let path = std::path::Path::new(&dir).join(file);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{line}"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
