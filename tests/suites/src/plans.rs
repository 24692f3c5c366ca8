//! Plan tests: a deep table, a cursor far into it, and the page query under the database's own
//! EXPLAIN. The work a page does must be bounded by page size plus ties, whatever the depth.
//! The data is the kit's (`plans`, re-exported here); the tests are [`plan_check_tests!`].

pub use keyset_test_models::plans::*;

/// The plan check (`keyset_diesel::plan`) on connection `$db` after `$analyze` (the backend's
/// statement that refreshes statistics), on the page after the row at `PLAN_DEPTH` of
/// `PlanDesc` (`at DESC, id DESC`, filtered by tenant): it seeks on the migrations' index
/// `(tenant, at, id)`; after `$drop_index` it is not a seek and the failure message names the
/// index to create, `$recipe` (the tenant, then `at DESC, id DESC`; on MySQL ascending, read
/// backward), and creating that index makes the page seek again.
#[macro_export]
macro_rules! plan_check_tests {
    ($db:ty, analyze = $analyze:expr, drop_index = $drop:expr, recipe = $recipe:expr) => {
        /// The page after the row at `PLAN_DEPTH` of `PlanDesc`, as a handler builds it.
        macro_rules! plan_check_page {
            ($conn:expr) => {{
                use diesel::prelude::*;
                use keyset_diesel::{Cursor, PaginateDsl};
                use $crate::models::PlanDesc;
                use $crate::schema::plan_rows;
                let conn: &mut $db = $conn;
                let id = $crate::plans::deep_id(conn, "at DESC, id DESC");
                let row: PlanDesc = plan_rows::table
                    .find(id)
                    .select(PlanDesc::as_select())
                    .first(conn)
                    .expect("deep row");
                let page = plan_rows::table
                    .filter(plan_rows::tenant.eq(1))
                    .select(PlanDesc::as_select())
                    .paginate_after(Some(Cursor::after_row(&row)))
                    .page_size($crate::plans::PLAN_PAGE_SIZE);
                keyset_diesel::plan::explain(conn, page).expect("plan")
            }};
        }

        const PLAN_CHECK_RECIPE: &str = $recipe;

        #[test]
        fn plan_check_reports_a_seek_on_the_keyset_index() {
            use $crate::TestDb;
            let mut db = <$db as $crate::TestDb>::open();
            $crate::plans::load_plan_rows(&mut *db);
            db.exec($analyze);
            let conn: &mut $db = &mut db;
            let report = plan_check_page!(conn);
            eprintln!("{report:#?}");
            report.assert_seeks();
            assert!(!report.reads.is_empty(), "{report:#?}");
            assert_eq!(report.table, "plan_rows");
            assert_eq!(report.index_recipe, PLAN_CHECK_RECIPE);
            assert!(
                report
                    .reads
                    .iter()
                    .any(|r| r.index.as_deref() == Some("plan_rows_tenant_at_id")),
                "{report:#?}"
            );
        }

        /// Text a collation calls equal, the plan: a text tie-breaker (`grp ASC, tag ASC`) is
        /// sought under the column's own collation, so the index `(grp, tag)` serves the page: the
        /// plan check reports a seek on it at a cursor 2,000 rows deep (the page check's collation
        /// rule adds nothing to the statement).
        #[test]
        fn plan_text_tie_breaker_seeks_on_the_columns_own_index() {
            use diesel::prelude::*;
            use keyset_diesel::{Cursor, PaginateDsl};
            use $crate::loud::TagAsc;
            use $crate::TestDb;
            let mut db = <$db as $crate::TestDb>::open();
            db.exec("CREATE TABLE loud_tags (tag VARCHAR(16) NOT NULL PRIMARY KEY, grp INTEGER NOT NULL)");
            db.exec("CREATE INDEX loud_tags_grp_tag ON loud_tags (grp, tag)");
            let rows: Vec<String> = (0..3_000)
                .map(|i| format!("('t{:05}', {})", (i * 7_919) % 3_000, i % 3))
                .collect();
            db.exec(&format!("INSERT INTO loud_tags VALUES {}", rows.join(", ")));
            db.exec(if <$db as $crate::TestDb>::NAME == "MySQL" {
                "ANALYZE TABLE loud_tags"
            } else {
                "ANALYZE"
            });
            let conn: &mut $db = &mut db;
            let deep: TagAsc = $crate::loud::loud_tags::table
                .select(TagAsc::as_select())
                .order(($crate::loud::loud_tags::grp, $crate::loud::loud_tags::tag))
                .offset(2_000)
                .first(conn)
                .expect("deep row");
            let page = $crate::loud::loud_tags::table
                .select(TagAsc::as_select())
                .paginate_after(Some(Cursor::after_row(&deep)))
                .page_size($crate::plans::PLAN_PAGE_SIZE);
            let loaded = page.clone().load_page(conn).expect("deep page");
            assert_eq!(loaded.items.len(), $crate::plans::PLAN_PAGE_SIZE as usize);
            let report = keyset_diesel::plan::explain(conn, page).expect("plan");
            report.assert_seeks();
            assert!(
                report.reads.iter().any(|r| r.index.as_deref() == Some("loud_tags_grp_tag")),
                "{report:#?}"
            );
            assert!(!report.sql.to_uppercase().contains("COLLATE"), "{}", report.sql);
        }

        #[test]
        fn plan_check_fails_without_the_index_and_names_it() {
            use $crate::TestDb;
            let mut db = <$db as $crate::TestDb>::open();
            $crate::plans::load_plan_rows(&mut *db);
            db.exec($drop);
            db.exec($analyze);
            let conn: &mut $db = &mut db;
            let report = plan_check_page!(conn);
            eprintln!("{}", report.failure());
            assert!(!report.seeks(), "{report:#?}");
            let failed = std::panic::catch_unwind(|| report.assert_seeks())
                .expect_err("assert_seeks panics on a page that does not seek");
            let message = failed
                .downcast_ref::<String>()
                .expect("a formatted panic message");
            assert_eq!(message, &report.failure());
            assert!(message.contains(PLAN_CHECK_RECIPE), "{message}");
            for reason in &report.not_a_seek {
                assert!(message.contains(&reason.to_string()), "{message}");
            }
            // The recipe makes the page a seek again.
            db.exec(&report.index_recipe);
            db.exec($analyze);
            let conn: &mut $db = &mut db;
            let again = plan_check_page!(conn);
            again.assert_seeks();
        }
    };
}
