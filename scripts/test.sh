#!/usr/bin/env bash
# The test command (docs/TESTING.md): set-up, then every suite on every backend.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

# Unit, integration (SQLite, PostgreSQL, MySQL/MariaDB), property and UI tests.
cargo nextest run --workspace --all-features --no-fail-fast
# Doc tests (the README's example among them); nextest does not run these.
cargo test --doc --workspace --all-features
