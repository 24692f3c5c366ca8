//! Every public name at the one path it has: the root holds what a handler writes, the themed
//! modules the rest, feature-gated ones included (this crate enables the features that add
//! names, but `async-graphql`: `web::graphql` is pinned by keyset-diesel's
//! `tests/it/graphql_paths.rs`). A move or a removal fails this case (and `fail_public_paths`
//! pins that the old paths are gone).

#[allow(unused_imports)]
use keyset_diesel::{
    async_, export, plan, prelude, query, token, web, with_read_snapshot, BudgetColumn,
    ByteBudgeted, Cursor, CursorCodec, Direction, Keyset, KeysetBackend, KeysetError,
    LoadBudgetedPage, LoadPage, Page, PaginateDsl, Paginated, SortChoice, SortRow, UnknownSort,
    Walk, DEFAULT_PAGE_SIZE,
};
#[allow(unused_imports)]
use keyset_diesel::prelude::{
    Cursor as _, Direction as _, Keyset as _, Page as _, PaginateDsl as _,
};
#[allow(unused_imports)]
use keyset_diesel::query::{
    collation_fold, BackendKind, Blocking, BudgetProbe, CountQuery, InvalidKeyValue, KeyColumn,
    KeyTuple, KeyValue, KeysetOrder, KeysetSql, NullsOrder, PageQuery, PageSource,
    PageStatement, SeekPredicate, SelectParts, SortDirection, UnionPage,
};
#[allow(unused_imports)]
use keyset_diesel::token::{
    scope_digest, Clock, CodecConfigError, CursorCodecBuilder, CursorError, DecodedToken,
    EncodeError, EnvKeyError, SecretKey, SystemClock, Unordered, DEFAULT_MAX_TOKEN_LEN,
    DEFAULT_TTL, MIN_SECRET_LEN,
};
#[allow(unused_imports)]
use keyset_diesel::web::{
    PageLinks, PageParams, PageRequest, PageRequestError, PageResponse, PageSizeError,
    PageSizePolicy, Problem, SortParam, CURSOR_PARAM, CURSOR_REFUSED, UNTIL_PARAM,
};
#[allow(unused_imports)]
use keyset_diesel::async_::{
    explain, explain_analyze, with_read_snapshot as _, Async, ExportStore, LoadBudgetedPage as _,
    LoadPage as _, PaginateDsl as _, SendAsyncFn, TransactionConnection, Walk as _,
};
#[allow(unused_imports)]
use keyset_diesel::export::{
    AsyncStoreBackend, Export, ExportError, ExportPage, ExportStore as _, Purged, StoreBackend,
    EXPORT_PAGE_BYTES, EXPORT_PAGE_SIZES, MAX_EXPORT_LIFETIME, MAX_EXPORT_ROWS,
};
#[allow(unused_imports)]
use keyset_diesel::plan::{
    explain as _, explain_analyze as _, AsyncExplainConnection, Explain, ExplainConnection,
    HandlerReads, IndexStyle, NotASeek, PlanBackend, PlanError, PlanReport, StatusRow, TableRead,
};

fn main() {
    // The codec at the root and in `token` is one type.
    fn same(codec: keyset_diesel::token::CursorCodec) -> CursorCodec {
        codec
    }
    let _ = same;
}
