//! The MySQL/MariaDB suite. Needs the server (see README); fails when it is not reachable.

keyset_tests::backend_suite!(diesel::MysqlConnection);
