//! Compile-time checks of `#[derive(Keyset)]` and `paginate_after`: every `tests/ui/*.rs` case
//! must fail to compile with exactly the message in its `.stderr` file, except the `pass_*`
//! cases, which must compile. Refresh the snapshots after a deliberate change of a message
//! with `TRYBUILD=overwrite cargo nextest run -p keyset-tests --all-features --test ui` (all
//! features, as the test command runs it: with several backends enabled, some messages print
//! an uninferred backend as `_`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass_*.rs");
    t.compile_fail("ui/fail_*.rs");
}
