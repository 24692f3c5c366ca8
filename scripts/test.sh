#!/usr/bin/env bash
# The test command (docs/TESTING.md): set-up, then every suite on every backend.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
source scripts/features.sh

# Unit, integration (SQLite, PostgreSQL, MySQL/MariaDB, HTTP, async), property and UI tests.
# The bench crate is built by `cargo clippy --all-targets` in CI and run by scripts/bench.sh.
cargo nextest run --workspace --exclude keyset-bench --features "$KEYSET_FEATURES" --no-fail-fast
# Doc tests (the README's example among them); nextest does not run these. Same packages and
# features as above, so the libraries built there are reused.
cargo test --doc --workspace --exclude keyset-bench --features "$KEYSET_FEATURES"
