//! Every public name at the one path it has: the root holds what a handler writes, the themed
//! modules the rest. A move or a removal fails this case (and `fail_public_paths` pins that the
//! old paths are gone).

#[allow(unused_imports)]
use keyset_diesel::{
    prelude, query, token, web, with_read_snapshot, Cursor, CursorCodec, Direction, Keyset,
    KeysetBackend, KeysetError, LoadPage, Page, PaginateDsl, Paginated, SortChoice, SortRow,
    UnknownSort, Walk, DEFAULT_PAGE_SIZE,
};
#[allow(unused_imports)]
use keyset_diesel::query::{
    BackendKind, Blocking, InvalidKeyValue, KeyColumn, KeyTuple, KeyValue, KeysetOrder,
    KeysetSql, NullsOrder, PageQuery, PageSource, PageStatement, SeekPredicate, SelectParts,
    SortDirection, UnionPage,
};
#[allow(unused_imports)]
use keyset_diesel::token::{
    scope_digest, Clock, CodecConfigError, CursorCodecBuilder, CursorError, DecodedToken,
    EncodeError, EnvKeyError, SecretKey, SystemClock, Unordered, MIN_SECRET_LEN,
};
#[allow(unused_imports)]
use keyset_diesel::web::{
    PageParams, PageRequest, PageRequestError, PageResponse, PageSizeError, PageSizePolicy,
    Problem, CURSOR_REFUSED,
};

fn main() {
    // The codec at the root and in `token` is one type.
    fn same(codec: keyset_diesel::token::CursorCodec) -> CursorCodec {
        codec
    }
    let _ = same;
}
