//! keyset-diesel's pages through diesel-async connections: the async suite on every backend
//! enabled (the oracle property, the seed feed, the SQL of every page shape against the
//! blocking path's, pages on a deadpool pool) and the Chinook walks. Needs the servers, as the
//! blocking suites do; fails when one is not reachable.

#[cfg(feature = "sqlite")]
mod sqlite {
    // The read contracts (walk, high-water mark, snapshot, stored export) through
    // `keyset_diesel::async_`, under the same writers and checks as the blocking suite.
    keyset_test_suites::read_contract_suite!(async diesel::SqliteConnection, keyset_test_suites::read_contracts::async_reader::AsyncReader<diesel::SqliteConnection, diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>>);

    keyset_test_suites::async_suite!(
        diesel::SqliteConnection,
        keyset_test_suites::async_db::AsyncSqlite,
        diesel::sqlite::Sqlite
    );

    /// The Chinook walks (page sizes 7 and 50, boxed and not, both ways) through diesel-async's `SyncConnectionWrapper<SqliteConnection>`.
    #[test]
    fn async_chinook_walks_equal_order_by() {
        use diesel::Connection;
        use keyset_test_suites::chinook::{camel, check_all_sizes};
        let Some(path) = keyset_test_suites::shared_data("chinook/Chinook_Sqlite.sqlite") else {
            return;
        };
        let url = format!("file:{}?mode=ro", path.display());
        let sync = diesel::SqliteConnection::establish(&url).expect("open Chinook read-only");
        let mut db = keyset_test_suites::async_db::AsyncSqlite::connect(
            keyset_test_suites::Fixture::without_cleanup(sync),
            url,
        );
        check_all_sizes::<camel::Models, _>(&mut db, "{}", false);
    }
}

#[cfg(feature = "postgres")]
mod postgres {
    // The read contracts (walk, high-water mark, snapshot, stored export) through
    // `keyset_diesel::async_`, under the same writers and checks as the blocking suite.
    keyset_test_suites::read_contract_suite!(async diesel::PgConnection, keyset_test_suites::read_contracts::async_reader::AsyncReader<diesel::PgConnection, diesel_async::AsyncPgConnection>);

    keyset_test_suites::async_suite!(
        diesel::PgConnection,
        keyset_test_suites::async_db::AsyncPg,
        diesel::pg::Pg
    );
    keyset_test_suites::async_locking_test!(keyset_test_suites::async_db::AsyncPg);

    /// The Chinook walks (page sizes 7 and 50, boxed and not, both ways) through diesel-async's `AsyncPgConnection`.
    #[test]
    fn async_chinook_walks_equal_order_by() {
        use keyset_test_suites::chinook::{check_all_sizes, postgres_script, snake};
        use keyset_test_suites::{OracleDb, TestDb};
        let Some(path) = keyset_test_suites::shared_data("chinook/Chinook_PostgreSql.sql") else {
            return;
        };
        let script = std::fs::read_to_string(path).expect("read Chinook script");
        let mut db = keyset_test_suites::async_db::AsyncPg::open();
        db.db().exec(&postgres_script(&script));
        check_all_sizes::<snake::Models, _>(&mut db, "CAST({} AS BIGINT)", false);
    }
}

#[cfg(feature = "mysql")]
mod mysql {
    // The read contracts (walk, high-water mark, snapshot, stored export) through
    // `keyset_diesel::async_`, under the same writers and checks as the blocking suite.
    keyset_test_suites::read_contract_suite!(async diesel::MysqlConnection, keyset_test_suites::read_contracts::async_reader::AsyncReader<diesel::MysqlConnection, diesel_async::AsyncMysqlConnection>);

    keyset_test_suites::async_suite!(
        diesel::MysqlConnection,
        keyset_test_suites::async_db::AsyncMysql,
        diesel::mysql::Mysql
    );
    keyset_test_suites::async_locking_test!(keyset_test_suites::async_db::AsyncMysql);

    /// The Chinook walks (page sizes 7 and 50, boxed and not, both ways) through diesel-async's `AsyncMysqlConnection`.
    #[test]
    fn async_chinook_walks_equal_order_by() {
        use keyset_test_suites::chinook::{camel, check_all_sizes};
        use keyset_test_suites::{OracleDb, TestDb};
        let Some(path) = keyset_test_suites::shared_data("chinook/Chinook_MySql.sql") else {
            return;
        };
        let script = std::fs::read_to_string(path).expect("read Chinook script");
        let body = match script.find("USE `Chinook`;") {
            Some(at) => &script[at + "USE `Chinook`;".len()..],
            None => &script[..],
        };
        let mut db = keyset_test_suites::async_db::AsyncMysql::open();
        db.db().exec(body);
        check_all_sizes::<camel::Models, _>(&mut db, "CAST({} AS SIGNED)", false);
    }
}
