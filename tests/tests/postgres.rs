//! PostgreSQL suite.
