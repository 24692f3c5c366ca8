//! Where the benchmarks keep their files.

use std::path::PathBuf;

/// `<target>/keyset-bench`: the SQLite file and criterion's output (`KEYSET_BENCH_DIR`
/// overrides). The benchmark binary runs from `<target>/release/deps/`.
pub fn bench_dir() -> PathBuf {
    let dir = std::env::var_os("KEYSET_BENCH_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            Some(exe.ancestors().nth(3)?.join("keyset-bench"))
        })
        .unwrap_or_else(|| PathBuf::from("target/keyset-bench"));
    std::fs::create_dir_all(&dir).expect("benchmark directory");
    dir
}
