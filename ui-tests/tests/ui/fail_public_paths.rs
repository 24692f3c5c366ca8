//! Names that moved off the root into a themed module, and names that are gone: each `use`
//! must fail; the comment beside it names the path that remains, where there is one.

use keyset_diesel::PageQuery; // keyset_diesel::query::PageQuery
use keyset_diesel::SeekPredicate; // keyset_diesel::query::SeekPredicate
use keyset_diesel::KeyValue; // keyset_diesel::query::KeyValue
use keyset_diesel::KeysetSql; // keyset_diesel::query::KeysetSql
use keyset_diesel::CursorError; // keyset_diesel::token::CursorError
use keyset_diesel::PageResponse; // keyset_diesel::web::PageResponse
use keyset_diesel::Problem; // keyset_diesel::web::Problem
use keyset_diesel::encode_page_cursor; // removed: CursorCodec::encode_with_page_size
use keyset_diesel::key::KeyValue as OldValue; // a private module
use keyset_diesel::BytesBudgeted; // renamed: keyset_diesel::ByteBudgeted
use keyset_diesel::MeasuredColumn; // renamed: keyset_diesel::BudgetColumn
use keyset_diesel::query::SizeProbe; // renamed: keyset_diesel::query::BudgetProbe
use keyset_diesel::async_::AsyncPageConnection; // hidden: the bound behind async_::LoadPage

fn main() {}
