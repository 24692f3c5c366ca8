//! The feed_server example started in-process on every backend enabled and walked over HTTP:
//! token chains following `next_cursor` and `Link`, refusals as problem+json, the byte budget,
//! concurrent walks under inserts at the head. Needs the servers; fails when one is not
//! reachable.

#[cfg(feature = "sqlite")]
mod sqlite {
    keyset_tests_http::feed_server_suite!(diesel::SqliteConnection);
}

#[cfg(feature = "postgres")]
mod postgres {
    keyset_tests_http::feed_server_suite!(diesel::PgConnection);
}

#[cfg(feature = "mysql")]
mod mysql {
    keyset_tests_http::feed_server_suite!(diesel::MysqlConnection);
}
