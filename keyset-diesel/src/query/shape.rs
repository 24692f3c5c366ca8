//! The one decision of a page: from its options, its backend and its cursor to the statement
//! it runs ([`PageQuery`]) and how its rows become a page ([`Assembly`]).
//!
//! [`decide`] checks a page's options once and works out what its backend writes
//! ([`Decided`]); on MySQL/MariaDB the learned index (`learn.rs`) may then name an index on it;
//! [`Decided::statement`] writes the statement. A byte budget measured in SQL decides its
//! probes from the same [`Decided`] ([`budget_plan`]), and the probes' answers narrow it into
//! its page ([`Unmeasured::measured`]): what they read travels in the [`Assembly`], so the
//! page is built once.

use std::sync::Arc;

use super::budget::{BudgetProbe, CountQuery};
use super::seek::{keyset_dialect, FarBound, KeysetOrder, SeekPredicate};
use super::source::{PageSource, RowLock};
use super::statement::PageStatement;
use super::union::UnionPage;
use super::PageQuery;
use crate::backend::{BackendKind, Dialect, KeysetBackend};
use crate::cursor::Direction;
use crate::error::KeysetError;
use crate::key::KeyTuple;
use crate::keyset::{column_name, Keyset};
use crate::paginate::budget::{fitting, ByteBudgeted};
use crate::paginate::{ByteBudget, IndexHint, Paginated, WindowEnd};

/// How the rows a page statement loads become a page (`load/assemble.rs`).
pub(crate) struct Assembly<K: Keyset> {
    pub walk: Direction,
    pub page_size: u32,
    /// The request's cursor: the page check compares the first row with it, and the flag of
    /// the other side is "there was a cursor" unless probed.
    pub cursor: Option<K::Key>,
    /// The union carries a probe of the other side (exact flags).
    pub probed: bool,
    /// The byte budget cut in Rust, if any ([`Paginated::max_bytes`]).
    pub budget: Option<ByteBudget<K>>,
    /// The rows carry the total count ([`Paginated::with_total_count`]).
    pub total: bool,
    /// What a byte budget measured in SQL read before the page, if any.
    pub measured: Option<Measured>,
    /// [`Paginated::flags_only`]: the page's rows tell the flags and are not delivered.
    pub flags_only: bool,
    /// [`Paginated::inclusive`]: the first row may be the cursor's own.
    pub inclusive: bool,
}

/// What the statements of a byte budget measured in SQL
/// ([`Paginated::max_bytes_in_sql`]) read before its page: the page as asked, and the facts the
/// narrowed page statement does not read itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measured {
    /// The page size asked for (the page statement reads only the rows that fit).
    pub page_size: u32,
    /// The budget cut the page: rows follow in the walk's direction.
    pub cut: bool,
    /// After a cursor with exact flags, whether a row lies on the other side (its probe).
    pub other_side: Option<bool>,
    /// After a cursor with the total count, the count (its own statement).
    pub total: Option<i64>,
}

/// A page whose options are checked and whose backend's facts are worked out, once: what
/// [`decide`] makes of a [`Paginated`], ready to name its statement ([`Decided::statement`]).
pub(crate) struct Decided<Q, K: Keyset> {
    pub(super) query: Q,
    pub(super) cursor: Option<K::Key>,
    until: Option<WindowEnd<K>>,
    pub(super) walk: Direction,
    page_size: u32,
    exact: bool,
    pub(super) deferred: Option<bool>,
    per_level: bool,
    budget: Option<ByteBudget<K>>,
    total: bool,
    pub(super) index: IndexHint,
    /// What the seek may write on this backend (row values, `NULLS FIRST`, ...), the
    /// [`expanded_seek`](Paginated::expanded_seek) option applied.
    dialect: Dialect,
    /// The backend, for the check of a bound found later (a budget's window end).
    kind: BackendKind,
    measured: Option<Measured>,
    flags_only: bool,
    /// [`Paginated::inclusive`], with a cursor.
    pub(super) inclusive: bool,
    /// The query's locking clause: the page reads `LIMIT page_size` rows under it, and what
    /// the look-ahead, the probe and the count read comes from statements without it
    /// ([`LockPlan`]).
    lock: Option<RowLock>,
}

/// Checks `paginated`'s options for backend `DB` and works out what the backend writes: the
/// one validation of a page.
///
/// # Errors
/// [`KeysetError::InvalidPageSize`] for a page size of 0, the query's own refusals
/// ([`PageSource::check_clauses`]), [`KeysetError::LockingPageCut`] for a byte budget or
/// `flags_only` on a query with a locking clause, [`KeysetError::InvalidCursorKey`] for a cursor or window end
/// that cannot be bound.
pub(crate) fn decide<DB, Q, K, M>(
    paginated: Paginated<Q, K, M>,
) -> Result<Decided<Q, K>, KeysetError>
where
    DB: KeysetBackend,
    Q: PageSource<K>,
    K: Keyset,
{
    let Paginated {
        mode: _,
        query,
        cursor,
        until,
        walk,
        page_size,
        exact,
        deferred,
        per_level,
        expanded,
        budget,
        total,
        index,
        flags_only,
        inclusive,
    } = paginated;
    // A page of flags only reads one row: whether one follows.
    let page_size = if flags_only { 1 } else { page_size };
    let inclusive = inclusive && cursor.is_some();
    if page_size == 0 {
        return Err(KeysetError::InvalidPageSize(0));
    }
    query.check_clauses()?;
    let lock = query.row_lock();
    if lock.is_some() && (budget.is_some() || flags_only) {
        return Err(KeysetError::LockingPageCut);
    }
    for key in until.as_ref().map(|u| &u.key).into_iter().chain(&cursor) {
        check_bound::<K>(key, DB::KIND)?;
    }
    let mut dialect = keyset_dialect::<DB, K>();
    dialect.row_values &= !expanded;
    dialect.negated_ties &= !expanded;
    Ok(Decided {
        query,
        cursor,
        until,
        walk,
        page_size,
        exact,
        deferred,
        per_level,
        budget,
        total,
        index,
        dialect,
        kind: DB::KIND,
        measured: None,
        flags_only,
        inclusive,
        lock,
    })
}

/// The page statement of `paginated` on backend `DB`, and how its rows become a page:
/// [`decide`], then [`Decided::statement`] (no learned index).
///
/// # Errors
/// As [`decide`].
#[cfg(test)]
pub(crate) fn shape<DB, Q, K, M>(
    paginated: Paginated<Q, K, M>,
) -> Result<(PageQuery<Q, K>, Assembly<K>), KeysetError>
where
    DB: KeysetBackend,
    Q: PageSource<K>,
    K: Keyset,
{
    Ok(decide::<DB, _, _, _>(paginated)?.statement::<DB>())
}

impl<Q: PageSource<K>, K: Keyset> Decided<Q, K> {
    /// The page statement on backend `DB` (the one [`decide`] was made for): the first page
    /// or one statement after the cursor (direct or deferred join), or a union of the seek's
    /// arms, the probe of the other side and the count row; and how its rows become a page.
    pub(crate) fn statement<DB: KeysetBackend>(self) -> (PageQuery<Q, K>, Assembly<K>) {
        let Decided {
            query,
            cursor,
            until,
            walk,
            page_size,
            exact,
            deferred,
            per_level,
            budget,
            total,
            index,
            dialect,
            kind: _,
            measured,
            flags_only,
            inclusive,
            lock,
        } = self;
        let index = resolve_index(&query, index);
        let deferred = deferred.unwrap_or(DB::DEFERRED_JOIN && index.is_none());
        // A locking page is one statement that reads (and locks) the rows it delivers: no
        // look-ahead row, no union (its probe and count are statements of their own that take
        // no lock, `LockPlan`). u32 + 1 always fits in i64.
        let locks = lock.is_some();
        let limit = i64::from(page_size) + i64::from(!locks);
        let order = KeysetOrder::new(walk);
        let until = until.map(|end| FarBound::new(end.key, walk, end.inclusive, dialect));
        let probed = exact && cursor.is_some() && !locks;
        let total = total && !locks;
        let assembly = Assembly {
            walk,
            page_size,
            cursor: cursor.clone(),
            probed,
            budget,
            total,
            measured,
            flags_only,
            inclusive,
        };
        let seek = cursor.map(|key| match lock {
            _ if inclusive => SeekPredicate::inclusive(key, walk, dialect),
            Some(_) => SeekPredicate::whole(key, walk, dialect),
            None => SeekPredicate::planned(key, walk, dialect, per_level),
        });
        // MySQL: a first page whose placement term would sort every row reads the values and
        // the NULL group as two arms, each in index order.
        let (query, seek) = match seek {
            None if locks => (query, None),
            None => match UnionPage::first_split::<DB>(query, order, deferred, limit, total) {
                Ok(union) => {
                    let union = union.until(until).index(index);
                    return (PageQuery::Union(union), assembly);
                }
                // A first page with the total count in a window: the count row carries the
                // count even when the window is empty. (A byte budget's window holds the rows
                // that fit, never none: its count rides on them.)
                Err(query) if total && until.is_some() && measured.is_none() => {
                    let union = UnionPage::first_counted(query, order, deferred, limit)
                        .until(until)
                        .index(index);
                    return (PageQuery::Union(union), assembly);
                }
                Err(query) => (query, None),
            },
            seek => (query, seek),
        };
        let query = match seek {
            // A later page with the total count is a union: its count row carries the count
            // even when the page after the cursor is empty.
            Some(seek) if seek.arms() > 1 || probed || total => PageQuery::Union(
                UnionPage::new(query, seek, order, probed, deferred, limit, total)
                    .until(until)
                    .index(index),
            ),
            seek => PageQuery::Statement(PageStatement {
                query,
                deferred: deferred && seek.is_some(),
                // Rows all on one side of the leading column's NULL group: MySQL orders them
                // without the placement term, in the index's order
                // (`KeysetOrder::of_split_arm`).
                order: match seek.as_ref().and_then(SeekPredicate::one_side) {
                    Some(null_group) => order.of_split_arm(null_group),
                    None => order,
                },
                seek,
                until,
                limit,
                total,
                index,
                classes: DB::STORAGE_CLASSES,
            }),
        };
        (query, assembly)
    }
}

/// The statements of a locking page that take no lock, each over a copy of its query: after
/// the page's rows, the look-ahead (is there a row after the last one delivered?), and when
/// asked for the other side's probe (exact flags) and the count (total count). The page reads
/// `LIMIT page_size` rows under its lock, so it locks exactly the rows it delivers; a row
/// another transaction holds is a row for these statements (a plain read takes no row lock and
/// waits for none), so `has_more` says whether rows follow, held or not
/// ([work queues](crate::guide::read_contracts#work-queues-locking-pages)).
pub(crate) struct LockPlan<Q, K: Keyset> {
    lock: RowLock,
    /// The page holds its cursor's row: an empty page's look-ahead starts at the cursor.
    inclusive: bool,
    page_size: u32,
    look_ahead: BudgetProbe<Q, K>,
    other_side: Option<BudgetProbe<Q, K>>,
    count: Option<CountQuery<Q>>,
    cursor: Option<K::Key>,
    dialect: Dialect,
}

impl<Q: PageSource<K>, K: Keyset> Decided<Q, K> {
    /// Refuses a page whose query has a locking clause, for `load_page`.
    ///
    /// # Errors
    /// [`KeysetError::LockingQuery`] when it has one.
    pub(crate) fn refuse_lock(&self) -> Result<(), KeysetError> {
        match self.lock {
            Some(_) => Err(KeysetError::LockingQuery),
            None => Ok(()),
        }
    }

    /// The statements without a lock of a page whose query has a locking clause (`None`
    /// otherwise), over copies of its query made with `copy` before the page statement takes
    /// it.
    pub(crate) fn lock_plan(&self, copy: impl Fn(&Q) -> Q) -> Option<LockPlan<Q, K>> {
        let lock = self.lock?;
        let (walk, dialect) = (self.walk, self.dialect);
        let index = resolve_index(&self.query, self.index);
        let probe = |until, order, limit| BudgetProbe {
            query: copy(&self.query),
            seek: None,
            until,
            order,
            limit,
            index,
            columns: Arc::from(Vec::new()),
        };
        let until = self
            .until
            .as_ref()
            .map(|end| FarBound::new(end.key.clone(), walk, end.inclusive, dialect));
        let look_ahead = probe(until, KeysetOrder::new(walk), 1);
        let other_side = match (&self.cursor, self.exact) {
            // The rows at or before the cursor; strictly before it when the page holds it.
            (Some(cursor), true) => Some(probe(
                Some(FarBound::new(
                    cursor.clone(),
                    walk,
                    !self.inclusive,
                    dialect,
                )),
                KeysetOrder::new(walk.reversed()),
                1,
            )),
            _ => None,
        };
        let count = self.total.then(|| CountQuery {
            query: copy(&self.query),
        });
        Some(LockPlan {
            lock,
            inclusive: self.inclusive,
            page_size: self.page_size,
            look_ahead,
            other_side,
            count,
            cursor: self.cursor.clone(),
            dialect,
        })
    }
}

impl<Q, K: Keyset> LockPlan<Q, K> {
    /// The statements to read after the page's `rows` (in walk order): the look-ahead from
    /// the last row delivered, or from the cursor when none was, unless the rows answer it (a
    /// short page that skipped no row, without `SKIP LOCKED`, is the last); then the other
    /// side's probe and the count, each when asked for.
    pub(crate) fn after(self, rows: &[K]) -> LockStatements<Q, K> {
        let LockPlan {
            lock,
            inclusive,
            page_size,
            mut look_ahead,
            other_side,
            count,
            cursor,
            dialect,
        } = self;
        let full = rows.len() >= usize::try_from(page_size).unwrap_or(usize::MAX);
        let look_ahead = (full || lock.skips_locked).then(|| {
            let walk = look_ahead.order.walk();
            look_ahead.seek = match rows.last() {
                // From the last row inclusive, two keys: the row itself and the next, or a row
                // whose key may be equal to its under a collation (`load::check::look_ahead`).
                Some(last) => {
                    look_ahead.limit = 2;
                    Some(SeekPredicate::inclusive(last.key(), walk, dialect))
                }
                None if inclusive => cursor.map(|key| SeekPredicate::inclusive(key, walk, dialect)),
                None => cursor.map(|key| SeekPredicate::whole(key, walk, dialect)),
            };
            look_ahead
        });
        LockStatements {
            look_ahead,
            other_side,
            count,
        }
    }
}

/// What a locking page reads after its rows, without a lock ([`LockPlan::after`]).
pub(crate) struct LockStatements<Q, K: Keyset> {
    pub look_ahead: Option<BudgetProbe<Q, K>>,
    pub other_side: Option<BudgetProbe<Q, K>>,
    pub count: Option<CountQuery<Q>>,
}

impl<K: Keyset> Assembly<K> {
    /// A locking page's assembly, with what its statements without a lock read: whether rows
    /// follow in the walk's direction, the other side's flag and the total count.
    pub(crate) fn locked(
        mut self,
        more: bool,
        other_side: Option<bool>,
        total: Option<i64>,
    ) -> Self {
        self.measured = Some(Measured {
            page_size: self.page_size,
            cut: more,
            other_side,
            total,
        });
        self
    }
}

/// The statements a byte budget measured in SQL reads before its page: the budget's probe,
/// and after a cursor the key-only probe of the other side (exact flags) and the count (total
/// count), each when asked for; then [`Unmeasured::measured`] with their answers.
pub(crate) struct BudgetPlan<Q, K: Keyset> {
    pub probe: BudgetProbe<Q, K>,
    pub other_side: Option<BudgetProbe<Q, K>>,
    pub count: Option<CountQuery<Q>>,
    pub page: Unmeasured<Q, K>,
}

/// A byte-budgeted page before its probes have answered.
pub(crate) struct Unmeasured<Q, K: Keyset> {
    page: Decided<Q, K>,
    max: usize,
}

/// The plan of `budgeted` on backend `DB`: its page [`decide`]d once, and the statements read
/// before it (`query/budget.rs`): the probe has the page's seek (one condition), window, order,
/// index and `LIMIT page_size + 1` over a copy of its query, selecting the key columns and the
/// sum of the budget's columns' sizes; the other side's probe reads at most one key at or
/// before the cursor, nearest first, instead of the union's probe branch, which reads one whole
/// row.
///
/// # Errors
/// As [`decide`]; [`KeysetError::LockingPageCut`] for a query with a locking clause.
pub(crate) fn budget_plan<DB, Q, K, M>(
    budgeted: ByteBudgeted<Q, K, M>,
) -> Result<BudgetPlan<Q, K>, KeysetError>
where
    DB: KeysetBackend,
    Q: PageSource<K> + Clone,
    K: Keyset,
{
    let ByteBudgeted {
        paginated,
        max,
        columns,
    } = budgeted;
    let page = decide::<DB, _, _, _>(paginated)?;
    if page.lock.is_some() {
        return Err(KeysetError::LockingPageCut);
    }
    let (walk, dialect) = (page.walk, page.dialect);
    let index = resolve_index(&page.query, page.index);
    let probe = BudgetProbe {
        query: page.query.clone(),
        seek: page.cursor.clone().map(|key| match page.inclusive {
            true => SeekPredicate::inclusive(key, walk, dialect),
            false => SeekPredicate::whole(key, walk, dialect),
        }),
        until: page
            .until
            .as_ref()
            .map(|end| FarBound::new(end.key.clone(), walk, end.inclusive, dialect)),
        order: KeysetOrder::new(walk),
        limit: i64::from(page.page_size) + 1,
        index,
        columns: columns.into(),
    };
    let other_side = match (&page.cursor, page.exact) {
        (Some(cursor), true) => Some(BudgetProbe {
            query: page.query.clone(),
            seek: None,
            until: Some(FarBound::new(
                cursor.clone(),
                walk,
                !page.inclusive,
                dialect,
            )),
            order: KeysetOrder::new(walk.reversed()),
            limit: 1,
            index,
            columns: Arc::from(Vec::new()),
        }),
        _ => None,
    };
    let count = (page.total && page.cursor.is_some()).then(|| CountQuery {
        query: page.query.clone(),
    });
    Ok(BudgetPlan {
        probe,
        other_side,
        count,
        page: Unmeasured { page, max },
    })
}

impl<Q, K: Keyset> Unmeasured<Q, K> {
    /// The page, from what the probes read: `sizes` (keys and sizes in walk order), whether a
    /// row lies on the other side and the total count (after a cursor, each when asked for).
    /// Its window ends at the last row that fits (inclusive) and its page size is cut to the
    /// rows that fit; after a cursor, exact flags and the total count come from their probes,
    /// not from union branches that would read whole rows. With no row, the page as asked (it
    /// is empty, or reads what was written since).
    ///
    /// # Errors
    /// [`KeysetError::InvalidCursorKey`] when the last key that fits cannot be bound (a NaN
    /// stored in a key column).
    pub(crate) fn measured(
        self,
        sizes: &[(K::Key, i64)],
        other_side: Option<bool>,
        total: Option<i64>,
    ) -> Result<Decided<Q, K>, KeysetError> {
        let mut page = self.page;
        let asked = page.page_size;
        if page.cursor.is_some() {
            page.exact = false;
            page.total = false;
        }
        let within = sizes
            .iter()
            .take(usize::try_from(asked).unwrap_or(usize::MAX))
            .map(|(_, size)| usize::try_from(*size).unwrap_or(0));
        let fit = fitting(self.max, within);
        let mut cut = false;
        if let Some((last, _)) = fit.checked_sub(1).and_then(|i| sizes.get(i)) {
            check_bound::<K>(last, page.kind)?;
            cut = sizes.len() > fit;
            page.until = Some(WindowEnd {
                key: last.clone(),
                inclusive: true,
            });
            // fit <= page_size, a u32.
            page.page_size = u32::try_from(fit).unwrap_or(asked);
        }
        page.measured = Some(Measured {
            page_size: asked,
            cut,
            other_side,
            total,
        });
        Ok(page)
    }
}

/// The index a page names: the query's default (the keyset's declared one), the forced one,
/// or none.
fn resolve_index<Q: PageSource<K>, K: Keyset>(query: &Q, hint: IndexHint) -> Option<&'static str> {
    match hint {
        IndexHint::Declared => query.default_index(),
        IndexHint::Named(name) => Some(name),
        IndexHint::Off => None,
    }
}

/// A cursor or window end that can be bound on backend `kind`: no value that is never a key (a
/// NaN), none Diesel would not bind exactly.
fn check_bound<K: Keyset>(key: &K::Key, kind: BackendKind) -> Result<(), KeysetError> {
    key.check_key()
        .and_then(|()| key.check_bind(kind))
        .map_err(|(index, e)| KeysetError::InvalidCursorKey {
            column: column_name::<K>(index),
            reason: e.0,
        })
}
