//! The SQL text of a page that Diesel finds by its text, kept once per thread where the page's
//! types and a few values fix it. Diesel writes the whole SQL of a query without a static id
//! at every call, just to look its prepared statement up. Two kinds of default pages have
//! none: on PostgreSQL a page of up to 100 rows, whose `LIMIT` is a number in its text
//! (`statement::limit_is_text`), and on MySQL/MariaDB a later page naming the index it
//! learned, whose name is read at run time. A page in one of the text shapes (`StaticShape`)
//! has its text fixed by `(your query's static id, the keyset, the backend, the shape, the
//! limit where it is a number, the index it names, the deferred join)`: the rule behind
//! static ids (`query/tests/static_ids.rs` checks every option's kept text against the text
//! walked out) with those values added. Such a page's `to_sql` pushes the kept text instead of
//! walking your query again.
//!
//! Only the root statement is written from the memo: Diesel calls `to_sql` on the query it
//! runs or prints, and walks every fragment inside it with `walk_ast`, which always writes the
//! statement out. The binds are always collected from the statement itself.
//!
//! With the text the memo keeps the two facts Diesel otherwise walks the whole statement for
//! at every load, besides collecting its binds: how many binds it has (`count_binds`) and
//! whether it may be cached (`is_safe_to_cache_prepared`). Both follow from the same walk as
//! the text, so the key that fixes the text fixes them (the static-id test compares all three
//! with the statement walked out).
//!

use std::any::TypeId;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryBuilder, QueryFragment};
use diesel::QueryResult;

use crate::backend::KeysetBackend;

/// What fixes a page's SQL text: the type id of `(your query's static id, the keyset,
/// the backend)`, the shape, the limit where it is written in the text (else 0), the index it
/// names (the one it learned, on MySQL/MariaDB) and whether a later page is a deferred join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct TextKey {
    pub types: TypeId,
    /// The shape, `StaticShape as u8` (as `TypeKeyed`'s parameter).
    pub shape: u8,
    pub limit: i64,
    pub index: Option<&'static str>,
    pub deferred: bool,
}

/// What a walk of a page statement gives, kept for its key.
#[derive(Clone)]
struct Kept {
    text: Rc<str>,
    binds: usize,
    cacheable: bool,
}

/// The texts written on this thread, by key (at most one per query type, keyset, shape and
/// page size up to 100), and the last one looked up: Diesel asks for a page's text, bind
/// count and cache flag one after another, and comparing a key costs less than hashing it.
#[derive(Default)]
struct Memo {
    texts: HashMap<TextKey, Kept>,
    last: Option<(TextKey, Kept)>,
}

thread_local! {
    static TEXTS: RefCell<Memo> = RefCell::new(Memo::default());
}

fn kept(key: &TextKey) -> Option<Kept> {
    TEXTS.with(|memo| {
        let mut memo = memo.borrow_mut();
        if let Some((last, kept)) = &memo.last {
            if last == key {
                return Some(kept.clone());
            }
        }
        let kept = memo.texts.get(key).cloned()?;
        memo.last = Some((*key, kept.clone()));
        Some(kept)
    })
}

/// Writes `statement`'s SQL into `out`: the text kept for `key`, or when there is none yet (or
/// no key) the statement walked out, kept for `key`.
pub(crate) fn write_sql<DB, S>(
    key: Option<TextKey>,
    statement: &S,
    out: &mut DB::QueryBuilder,
    backend: &DB,
) -> QueryResult<()>
where
    DB: KeysetBackend,
    DB::QueryBuilder: Default,
    S: QueryFragment<DB>,
{
    let Some(key) = key else {
        return Walked(statement).to_sql(out, backend);
    };
    if let Some(kept) = kept(&key) {
        out.push_sql(&kept.text);
        return Ok(());
    }
    let mut builder = DB::QueryBuilder::default();
    Walked(statement).to_sql(&mut builder, backend)?;
    let kept = Kept {
        text: builder.finish().into(),
        binds: Walked(statement).count_binds(backend)?,
        cacheable: Walked(statement).is_safe_to_cache_prepared(backend)?,
    };
    out.push_sql(&kept.text);
    TEXTS.with(|memo| memo.borrow_mut().texts.insert(key, kept));
    Ok(())
}

/// How many binds `statement` has: kept for `key` once its text is, else counted by a walk.
pub(crate) fn count_binds<DB, S>(
    key: Option<TextKey>,
    statement: &S,
    backend: &DB,
) -> QueryResult<usize>
where
    DB: Backend,
    S: QueryFragment<DB>,
{
    match key.as_ref().and_then(kept) {
        Some(kept) => Ok(kept.binds),
        None => Walked(statement).count_binds(backend),
    }
}

/// Whether Diesel may cache `statement`: kept for `key` once its text is, else a walk.
pub(crate) fn is_safe_to_cache_prepared<DB, S>(
    key: Option<TextKey>,
    statement: &S,
    backend: &DB,
) -> QueryResult<bool>
where
    DB: Backend,
    S: QueryFragment<DB>,
{
    match key.as_ref().and_then(kept) {
        Some(kept) => Ok(kept.cacheable),
        None => Walked(statement).is_safe_to_cache_prepared(backend),
    }
}

/// A statement written by Diesel's own `to_sql`, a walk of its fragments.
struct Walked<'s, S>(&'s S);

impl<S: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for Walked<'_, S> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}

/// The key of a page of query type `Q` and keyset `K` on `DB`, if its text is fixed by it: `Q`
/// has a static id and the page has a text `shape` (`StaticShape as u8`). The `limit` is part
/// of the key only where it is a number in the text, `limit_in_text` (where it is a bind, one
/// text serves every page size, and the memo stays bounded whatever page sizes are asked for).
pub(crate) fn text_key<DB, Q, K>(
    shape: Option<u8>,
    limit: i64,
    limit_in_text: bool,
    index: Option<&'static str>,
    deferred: bool,
) -> Option<TextKey>
where
    DB: KeysetBackend + 'static,
    Q: diesel::query_builder::QueryId,
    K: 'static,
{
    let shape = shape?;
    Q::HAS_STATIC_QUERY_ID.then(|| TextKey {
        types: TypeId::of::<(Q::QueryId, K, DB)>(),
        shape,
        limit: if limit_in_text { limit } else { 0 },
        index,
        deferred,
    })
}

#[cfg(test)]
pub(crate) fn kept_texts() -> usize {
    TEXTS.with(|memo| memo.borrow().texts.len())
}
