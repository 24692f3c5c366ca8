//! SQLite suite.
