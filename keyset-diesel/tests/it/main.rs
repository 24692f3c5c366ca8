//! `keyset-diesel`'s own integration tests, self-contained (no server: SQLite in memory, the
//! other backends' SQL as text), in one binary: the SQL of every page shape, index hints,
//! named sorts, tokens under hostile input, and the public paths of the GraphQL glue.

mod force_index;
mod graphql_paths;
mod named_sorts;
mod page_sql;
mod replan;
mod tokens;
