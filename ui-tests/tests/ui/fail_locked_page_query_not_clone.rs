// A locking page copies its query for the statements that take no lock (the look-ahead, the
// probe, the count): a query whose filter is a boxed expression is not `Clone`.
use diesel::connection::LoadConnection;
use diesel::pg::Pg;
use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    jobs (id) {
        id -> BigInt,
        priority -> Integer,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = jobs)]
struct Job {
    #[keyset(desc)]
    priority: i32,
    #[keyset(asc)]
    id: i64,
}

fn take<Conn: LoadConnection<Backend = Pg>>(conn: &mut Conn) -> QueryResult<Page<Job>> {
    let urgent: Box<dyn BoxableExpression<jobs::table, Pg, SqlType = diesel::sql_types::Bool>> =
        Box::new(jobs::priority.gt(2));
    jobs::table
        .filter(urgent)
        .select(Job::as_select())
        .for_update()
        .skip_locked()
        .paginate_after(None)
        .page_size(10)
        .load_locked_page(conn)
}

fn main() {}
