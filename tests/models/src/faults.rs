//! Faults during a walk (reports/RELIABILITY.md), on PostgreSQL and
//! MySQL/MariaDB: the connection killed by the server, a statement timeout, the server going
//! away and coming back (a restart, simulated by cutting an in-process TCP proxy, so the
//! shared server other tests use keeps running), and a connection cut in the middle of a
//! page's result. In each, the page read returns Diesel's error (never a panic, never a
//! partial or wrong page), and a client that reconnects and resumes from its last token
//! finishes the walk with every row exactly once.
//!
//! Partner: `tests/suites/src/faults.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.

use crate::read_contracts::SharedDb;

/// The statements a fault test needs from a server backend.
pub trait FaultDb: SharedDb {
    /// The server's id of this connection.
    fn session_id(&mut self) -> u64;
    /// Kills connection `id` from another connection.
    fn kill_sql(id: u64) -> String;
    /// Sets this session's statement timeout.
    fn timeout_sql(millis: u64) -> String;
    /// Takes a lock that blocks readers of `events` (run on another connection), and its release.
    const LOCK: &'static str;
    const UNLOCK: &'static str;
    /// Whether an error message is the statement timeout's.
    fn is_timeout(message: &str) -> bool;
}

#[cfg(feature = "postgres")]
impl FaultDb for diesel::PgConnection {
    fn session_id(&mut self) -> u64 {
        use diesel::prelude::*;
        let pid: i32 = diesel::select(diesel::dsl::sql::<diesel::sql_types::Integer>(
            "pg_backend_pid()",
        ))
        .get_result(self)
        .expect("pg_backend_pid");
        u64::try_from(pid).expect("pid")
    }
    fn kill_sql(id: u64) -> String {
        format!("SELECT pg_terminate_backend({id})")
    }
    fn timeout_sql(millis: u64) -> String {
        format!("SET statement_timeout = {millis}")
    }
    const LOCK: &'static str = "BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE";
    const UNLOCK: &'static str = "COMMIT";
    fn is_timeout(message: &str) -> bool {
        message.contains("statement timeout")
    }
}

#[cfg(feature = "mysql")]
impl FaultDb for diesel::MysqlConnection {
    fn session_id(&mut self) -> u64 {
        use diesel::prelude::*;
        diesel::select(diesel::dsl::sql::<
            diesel::sql_types::Unsigned<diesel::sql_types::BigInt>,
        >("CONNECTION_ID()"))
        .get_result(self)
        .expect("CONNECTION_ID")
    }
    fn kill_sql(id: u64) -> String {
        format!("KILL CONNECTION {id}")
    }
    fn timeout_sql(millis: u64) -> String {
        format!(
            "SET SESSION max_statement_time = {}",
            millis as f64 / 1000.0
        )
    }
    const LOCK: &'static str = "LOCK TABLES events WRITE";
    const UNLOCK: &'static str = "UNLOCK TABLES";
    fn is_timeout(message: &str) -> bool {
        message.contains("max_statement_time")
    }
}
