//! What one run measured, before the criterion estimates are read back.

use std::path::{Path, PathBuf};

/// One criterion benchmark: `<output>/<group>/<function>/<parameter>/new/estimates.json`.
/// Names use only `[a-z0-9_]`, so criterion keeps them as they are.
#[derive(Debug, Clone)]
pub struct Measure {
    pub group: String,
    pub function: String,
    pub parameter: String,
    /// Timed by hand (too slow for criterion's 10 samples): the median, in nanoseconds.
    pub manual: Option<f64>,
}

impl Measure {
    pub fn new(group: &str, function: &str, parameter: impl ToString) -> Measure {
        Measure {
            group: group.to_string(),
            function: function.to_string(),
            parameter: parameter.to_string(),
            manual: None,
        }
    }

    pub fn id(&self) -> criterion::BenchmarkId {
        criterion::BenchmarkId::new(self.function.clone(), &self.parameter)
    }

    /// The median time of one iteration in nanoseconds, from this run's `estimates.json`.
    pub fn median_ns(&self, output: &Path) -> Option<f64> {
        if let Some(manual) = self.manual {
            return Some(manual);
        }
        let path: PathBuf = output
            .join(&self.group)
            .join(&self.function)
            .join(&self.parameter)
            .join("new")
            .join("estimates.json");
        let text = std::fs::read_to_string(path).ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        json["median"]["point_estimate"].as_f64()
    }
}

/// One page at one depth of one keyset shape.
#[derive(Debug, Clone)]
pub struct DepthRow {
    pub shape: &'static str,
    pub depth: u64,
    /// The library's page with the backend's default (the deferred join on MySQL/MariaDB).
    pub keyset: Measure,
    /// `.deferred_join(false)` (MySQL/MariaDB, later pages only).
    pub direct: Option<Measure>,
    /// `.force_index(<the keyset's index>)`: the direct form reading the named index
    /// (MySQL/MariaDB).
    pub forced: Option<Measure>,
    /// `ORDER BY <keyset> LIMIT 21 OFFSET depth` through Diesel.
    pub offset: Option<Measure>,
    /// Rows of the big tenant that share the cursor row's leading key value and come before
    /// it, the cursor included (what a seek bounded only on the leading column filters).
    pub ties_before: Option<i64>,
}

/// The physical floor of one shape's deep page: its rows read by one range scan on the
/// primary key.
#[derive(Debug, Clone)]
pub struct FloorRow {
    pub shape: &'static str,
    /// The lowest and highest id of the deep page's rows (the page and its look-ahead row).
    pub ids: (i64, i64),
    /// Read as `ORDER BY id DESC` (the page's rows come in descending id order).
    pub descending: bool,
    /// `None` where the page's rows are not one range of ids in key order.
    pub floor: Option<Measure>,
}

/// The library against the same SQL written by hand.
#[derive(Debug, Clone)]
pub struct OverheadRow {
    pub shape: &'static str,
    /// "default" or "direct" (MySQL/MariaDB's `.deferred_join(false)`).
    pub variant: &'static str,
    pub library: Measure,
    pub sql_query: Measure,
    pub prepared: Measure,
}

/// The SQL and plan of one query.
#[derive(Debug, Clone)]
pub struct PlanEntry {
    pub shape: &'static str,
    pub title: String,
    /// `diesel::debug_query` output: the SQL and its binds.
    pub sql: String,
    pub plan: String,
    /// MySQL/MariaDB: Handler counters of one run of the query.
    pub counters: Option<String>,
}

/// How a walk reads its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkForm {
    /// `load_page` with the backend's default form.
    Keyset,
    /// `load_page` with `.deferred_join(false)`.
    Direct,
    /// `load_page` with `.force_index(..)` (the direct form on the named index).
    Forced,
    /// `ORDER BY at, id LIMIT page size + 1 OFFSET rows read so far`.
    Offset,
}

/// A full walk of one tenant.
#[derive(Debug, Clone)]
pub struct WalkRow {
    pub form: WalkForm,
    /// MariaDB: InnoDB buffer pool pages read from storage and page requests during the walk.
    pub storage_reads: Option<(u64, u64)>,
    pub tenant: i32,
    pub tenant_rows: i64,
    pub page_size: u32,
    pub pages: u64,
    pub rows: u64,
    pub seconds: f64,
    /// Peak growth of the Rust heap during the walk, in bytes.
    pub heap_peak: u64,
    /// Peak growth of the resident set during the walk (includes the C client library).
    pub rss_peak: Option<u64>,
    /// Stopped at the time limit before the end of the tenant.
    pub stopped: bool,
    /// Page times (nanoseconds): median, 99th percentile, slowest, and the slowest page's
    /// depth (rows before it).
    pub page_median: f64,
    pub page_p99: f64,
    pub page_max: f64,
    pub page_max_depth: u64,
}

/// Everything measured on one backend.
#[derive(Debug, Clone, Default)]
pub struct BackendRun {
    pub name: &'static str,
    pub version: String,
    pub settings: Vec<(String, String)>,
    pub load: String,
    pub depth: Vec<DepthRow>,
    pub floors: Vec<FloorRow>,
    pub overhead: Vec<OverheadRow>,
    pub plans: Vec<PlanEntry>,
    pub walks: Vec<WalkRow>,
    pub notes: Vec<String>,
}

/// Token benchmarks.
#[derive(Debug, Clone)]
pub struct TokenRow {
    pub key: &'static str,
    pub token_len: usize,
    pub encode: Measure,
    pub decode: Measure,
    pub both: Measure,
}
