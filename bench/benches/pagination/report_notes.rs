//! The explanations in the report: how to read the tables and which mechanism is behind each
//! kind of result. They name no figure (the tables above and below do), so they cannot
//! disagree with a run.

pub fn text() -> String {
    r#"## Reading the figures

* **Depth.** A keyset page seeks on the index to the cursor and reads page size + 1 index
  entries (plus, where the index condition bounds only the leading key column, the rows of
  the cursor's tie group that come before it), so its time does not grow with depth. OFFSET
  computes and discards every skipped row, so its time grows linearly with depth. At depth 0
  both are the same query; small differences there are noise and the cost of the seek
  predicate. The plans below show each shape's index range (`Index Cond`, `SEARCH ... USING
  INDEX`, `range`).
* **Ties.** The mixed keyset `score DESC, id ASC` is written as the expanded form with a
  redundant bound on the leading column (`score <= ? AND (score < ? OR (score = ? AND id >
  ?))`): the index range starts at the cursor's score and the rows of that score before the
  cursor are read and filtered ("ties up to the cursor"). With about 10 ties that is noise;
  the extra shape `grade DESC, id ASC`, with about 10,000 rows per grade, shows the cost
  growing with the cursor's position inside its run of ties (the case [the SQL guide](../keyset-diesel/src/guide/sql.md#long-runs-of-ties)
  describes). The same shape with `.seek_per_level(true)` is a union of one seek per
  key level (`grade < ?`, `grade = ? AND id > ?`), each starting at the cursor: its rows show
  what that costs and saves. Neither has a target; they are here so that nobody reads the
  short-tie figures as a promise for long ties.
* **MariaDB.** A later page names the index that serves its seek, which the library looks
  up in `information_schema.STATISTICS` (once a minute per table): MariaDB then reads the
  range from the cursor in one statement at every depth (`keyset`, the same statement as
  `forced`, `.force_index(..)`). Before, the default was the deferred join (`deferred`,
  still the form when no index serves the seek): a covering seek on the index that returns
  the page's ids, then the rows by id, a larger statement than the first page with a fixed
  cost (derived table, semi-join, second sort of 21 rows) at every depth. The direct form
  with no index named (`.deferred_join(false)`, plans only) selects a column no index
  covers, and MariaDB then chooses, from its row estimates, between the range that starts
  at the cursor and `ref` access on the tenant with the seek pushed into the index
  condition, which reads every index entry from the start of the tenant to the cursor. The
  Handler counters under the plans show the index entries each form read.
* **Hand-written SQL.** Diesel prepares and caches the library's page statements (by SQL
  text) and never caches a `sql_query`, which is prepared and planned again on every call:
  on MariaDB (server-side prepared statements) and SQLite that costs extra round trips or
  work, so the library is usually *faster* than `sql_query`. The `prepared` column removes
  that difference; what remains is the library's own work (building the page query, the
  cache key and the page), small against a database round trip. Ratios below 1 are real,
  ratios a few percent either side of 1 are within noise.
* **PostgreSQL generic plans.** After five executions of a prepared statement PostgreSQL
  may switch to a generic plan (one for all bind values); "Run notes" lists the statements
  for which it did. `EXPLAIN` below shows the plan for the actual binds.
* **Noise.** The machine was shared with other work during the run (see the load averages
  under Machine), and criterion's medians of pages that take tens to hundreds of
  microseconds move by tens of percent between runs. The "noise floor" line in section 1
  measures it within this run. Targets near their limit (1.5, 1.3, 1.05) are met or missed
  within that noise; the ratios of 100 and more are far outside it.
* **Walks on MariaDB.** The table and its indexes (about 280 MB) do not fit the 128 MiB
  InnoDB buffer pool of this server, which reads with `O_DIRECT` (no operating-system cache
  behind it; see the settings under Machine). "Storage reads / page" counts the pages a walk
  read from storage and "page requests / page" the pages it asked the buffer pool for: a
  walk with few storage reads and many page requests is doing work in memory (an index read
  from the start of the tenant), not waiting for storage. A walk that reaches the time limit
  is marked stopped. PostgreSQL and SQLite read through the operating system's cache.
* **Memory.** A walk holds one page at a time: the Rust heap's peak depends on the page
  size, not on the tenant's size (compare the 100,007-row and 1,000,079-row tenants at each
  page size). The resident set peak also counts the client library's buffers and the
  allocator's retained pages; a growth of 0 means the walk never went above the process's
  resident set at its start.

"#
    .to_string()
}
