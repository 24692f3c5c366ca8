//! Compile-time checks of `#[derive(Keyset)]` and `paginate_after`: every `ui-tests/tests/ui/*.rs`
//! case must fail to compile with exactly the message in its `.stderr` file, except the `pass_*`
//! cases, which must compile. Refresh the snapshots after a deliberate change of a message
//! with `TRYBUILD=overwrite cargo nextest run -p keyset-ui-tests --test ui`. The cases are
//! compiled against this crate's dev-dependencies only (SQLite, PostgreSQL's query builder, chrono and the features that add public names), not the whole
//! workspace's feature set.

#[test]
fn ui() {
    // The expected output is the compiler's alone. CI builds the workspace with clippy's driver
    // as the workspace's rustc wrapper (`.ci/run`); trybuild's cargo would inherit it and add
    // clippy's lints to every case's output. This test is the binary's only one, so nothing
    // else reads the environment meanwhile.
    std::env::remove_var("RUSTC_WORKSPACE_WRAPPER");
    std::env::remove_var("CLIPPY_ARGS");
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass_*.rs");
    t.compile_fail("tests/ui/fail_*.rs");
}
