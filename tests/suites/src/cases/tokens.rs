//! Tokens and page sizes: a token is refused by another ordering version and by another query
//! (filters, order, endpoint, format version, expiry), records its direction, and page sizes
//! follow the policy.

use keyset_diesel::Keyset;

use super::{page_ids, read};
use crate::models::{A_asc__ID_asc, A_desc__ID_desc, FeedEvent, ID_asc, Walk};
use crate::oracle::test_codec;
use crate::NextToken as _;
use crate::{Row, TestDb};

/// `#[keyset(version = 2)]`: a token made by the model at ordering version 1 (no attribute,
/// [`ID_asc`]) is refused by the same columns at version 2 (`ID_asc_v2`) with
/// `SortMismatch`, and the other way round; each version resumes its own tokens.
pub fn ordering_version_refuses_tokens_of_another_version<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
    crate::models::ID_asc_v2: Walk<C, Filter = i32>,
{
    use crate::models::ID_asc_v2;
    use keyset_diesel::token::CursorError;
    let mut db = C::open();
    db.insert_rows(&(1..=5).map(Row::new).collect::<Vec<_>>());
    assert_eq!(
        ID_asc_v2::sort_signature(),
        format!("{};version=2", ID_asc::sort_signature()),
        "the version enters the signature, after the columns"
    );
    let codec = test_codec(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(
        1_800_000_000,
    )));
    let v1_page = ID_asc::page(&mut *db, &0, None, 2, false).unwrap();
    let v1 = codec
        .next_token(&v1_page, &"rows")
        .unwrap()
        .expect("a next page");
    let v2_page = ID_asc_v2::page(&mut *db, &0, None, 2, false).unwrap();
    let v2 = codec
        .next_token(&v2_page, &"rows")
        .unwrap()
        .expect("a next page");
    assert_eq!(
        codec.decode::<ID_asc_v2>(&v1, &"rows"),
        Err(CursorError::SortMismatch)
    );
    assert_eq!(
        codec.decode::<ID_asc>(&v2, &"rows"),
        Err(CursorError::SortMismatch)
    );
    let v1_next = ID_asc::page(
        &mut *db,
        &0,
        Some(codec.decode(&v1, &"rows").unwrap()),
        2,
        false,
    )
    .unwrap();
    assert_eq!(
        v1_next.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        [3, 4]
    );
    let v2_next = ID_asc_v2::page(
        &mut *db,
        &0,
        Some(codec.decode(&v2, &"rows").unwrap()),
        2,
        false,
    )
    .unwrap();
    assert_eq!(
        v2_next.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        [3, 4]
    );
}

/// A cursor reused elsewhere: a cursor made for one query is refused by another (other filter
/// value, other order, other endpoint, other format version, expired) and still accepted for the
/// same filters written in another order. The page size is not bound: c1 with page size 1 gives
/// `[3]`.
pub fn cursor_is_refused_by_another_query<C: TestDb>()
where
    A_desc__ID_desc: Walk<C, Filter = i32>,
    A_asc__ID_asc: Walk<C, Filter = i32>,
    FeedEvent: Walk<C, Filter = str>,
{
    use base64::Engine as _;
    use keyset_diesel::token::CursorError;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let mut db = C::open();
    // tasks(id, status, created_at): status 'a' is tenant 1, 'd' tenant 2; created_at is `a`.
    let rows: Vec<Row> = [
        (1, 1, 1),
        (2, 2, 2),
        (3, 1, 3),
        (4, 1, 4),
        (5, 2, 5),
        (6, 1, 6),
    ]
    .iter()
    .map(|&(id, tenant, a)| Row {
        tenant,
        a,
        ..Row::new(id)
    })
    .collect();
    db.insert_rows(&rows);
    let now = Arc::new(AtomicU64::new(1_800_000_000));
    let codec = test_codec(now.clone());
    let scope = |status: &'static str| {
        (
            "tasks",
            keyset_diesel::token::Unordered(vec![status]),
            keyset_diesel::token::Unordered(vec!["x", "y"]),
        )
    };
    let q1 = A_desc__ID_desc::page(&mut *db, &1, None, 2, false).unwrap();
    assert_eq!(q1.items.iter().map(|r| r.id).collect::<Vec<_>>(), [6, 4]);
    let c1 = codec.next_token(&q1, &scope("a")).unwrap().expect("c1");
    // The one valid use.
    let cursor = codec.decode::<A_desc__ID_desc>(&c1, &scope("a")).unwrap();
    let next = A_desc__ID_desc::page(&mut *db, &1, Some(cursor.clone()), 2, false).unwrap();
    assert_eq!(next.items.iter().map(|r| r.id).collect::<Vec<_>>(), [3, 1]);
    // Refused: filter status = 'd'.
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &scope("d")),
        Err(CursorError::ScopeMismatch)
    );
    // Refused: order created_at ASC.
    assert_eq!(
        codec.decode::<A_asc__ID_asc>(&c1, &scope("a")),
        Err(CursorError::SortMismatch)
    );
    // Refused: another endpoint (scope) or another table (keyset).
    let other_endpoint = (
        "projects",
        keyset_diesel::token::Unordered(vec!["a"]),
        keyset_diesel::token::Unordered(vec!["x", "y"]),
    );
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &other_endpoint),
        Err(CursorError::ScopeMismatch)
    );
    assert_eq!(
        codec.decode::<FeedEvent>(&c1, &scope("a")),
        Err(CursorError::SortMismatch)
    );
    // Refused: a v0 token where the server reads v1 (and v2).
    let mut bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&c1)
        .unwrap();
    bytes[0] = 0;
    let v0 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&bytes);
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&v0, &scope("a")),
        Err(CursorError::UnsupportedVersion)
    );
    // Accepted: the same filters with set members in another order (sets are `Unordered`).
    let reordered = (
        "tasks",
        keyset_diesel::token::Unordered(vec!["a", "a"]),
        keyset_diesel::token::Unordered(vec!["y", "x"]),
    );
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &reordered),
        Ok(cursor.clone())
    );
    // The page size is not bound: size 1 from c1 gives `[3]`.
    let smaller = A_desc__ID_desc::page(&mut *db, &1, Some(cursor), 1, false).unwrap();
    assert_eq!(smaller.items.iter().map(|r| r.id).collect::<Vec<_>>(), [3]);
    let recorded = codec
        .decode_token::<A_desc__ID_desc>(&c1, &scope("a"))
        .unwrap();
    assert_eq!(recorded.page_size, Some(2));
    // Refused: expired.
    now.store(1_800_000_600, Ordering::SeqCst);
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &scope("a")),
        Err(CursorError::Expired {
            expired_at: 1_800_000_600
        })
    );
}

/// Page sizes through a policy with default 2 and maximum 3, rows 1..5.
pub fn page_sizes_follow_the_policy<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use keyset_diesel::web::{PageSizeError, PageSizePolicy};
    let mut db = C::open();
    db.insert_rows(&(1..=5).map(Row::new).collect::<Vec<_>>());
    let policy = PageSizePolicy::new(2, 3).unwrap();
    let ids =
        |page: &keyset_diesel::Page<ID_asc>| page.items.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(policy.resolve(Some("-1")), Err(PageSizeError::TooSmall));
    assert_eq!(policy.resolve(Some("0")), Err(PageSizeError::TooSmall));
    assert_eq!(policy.resolve(Some("abc")), Err(PageSizeError::NotANumber));
    assert_eq!(policy.resolve(Some("2.5")), Err(PageSizeError::NotANumber));
    let two = ID_asc::page(
        &mut *db,
        &0,
        None,
        policy.resolve(Some("2")).unwrap(),
        false,
    )
    .unwrap();
    assert_eq!((ids(&two), two.has_more()), (vec![1, 2], true));
    let three = ID_asc::page(
        &mut *db,
        &0,
        None,
        policy.resolve(Some("3")).unwrap(),
        false,
    )
    .unwrap();
    assert_eq!((ids(&three), three.has_more()), (vec![1, 2, 3], true));
    // Clamped: 1000 becomes 3, reported by the page; the next cursor continues at 4.
    let clamped = policy.clamping().resolve(Some("1000")).unwrap();
    let page = ID_asc::page(&mut *db, &0, None, clamped, false).unwrap();
    assert_eq!((ids(&page), page.page_size), (vec![1, 2, 3], 3));
    let rest = ID_asc::page(&mut *db, &0, page.next_cursor(), clamped, true).unwrap();
    assert_eq!((ids(&rest), rest.has_more()), (vec![4, 5], false));
    assert_eq!(
        policy.resolve(Some("1000")),
        Err(PageSizeError::TooLarge { max: 3 })
    );
    for huge in [i64::MAX, i64::from(u32::MAX)] {
        assert_eq!(
            policy.resolve_number(Some(huge)),
            Err(PageSizeError::TooLarge { max: 3 })
        );
        assert_eq!(policy.clamping().resolve_number(Some(huge)), Ok(3));
    }
    // No size: the default. And u32::MAX straight into the query: no overflow in LIMIT n + 1.
    let default = ID_asc::page(&mut *db, &0, None, policy.resolve(None).unwrap(), false).unwrap();
    assert_eq!(ids(&default), [1, 2]);
    let all = ID_asc::page(&mut *db, &0, None, u32::MAX, false).unwrap();
    assert_eq!((ids(&all), all.has_more()), (vec![1, 2, 3, 4, 5], false));
}

/// Tokens record the direction: `paginate` follows it; `paginate_after` / `paginate_before`
/// use only the key (a backward token used forward reads the rows after its key).
pub fn tokens_record_the_direction<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::Read;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;
    let mut db = C::open();
    db.insert_rows(&(1..=6).map(Row::new).collect::<Vec<_>>());
    let codec = test_codec(Arc::new(AtomicU64::new(1_800_000_000)));
    let last = read::<ID_asc, C>(&mut db, None, Read::backward(2));
    assert_eq!(page_ids(&last), [5, 6]);
    let start = last.start_cursor.clone().expect("previous page");
    assert_eq!(start.direction, keyset_diesel::Direction::Backward);
    let token = codec.encode(&start, &"t").unwrap();
    let decoded = codec.decode::<ID_asc>(&token, &"t").unwrap();
    assert_eq!(decoded, start);
    let backward = if decoded.direction == keyset_diesel::Direction::Backward {
        Read::backward(2)
    } else {
        Read::forward(2)
    };
    assert_eq!(
        page_ids(&read::<ID_asc, C>(&mut db, Some(decoded.clone()), backward)),
        [3, 4]
    );
    // The same backward cursor read forward: the rows after its key (5).
    assert_eq!(
        page_ids(&read::<ID_asc, C>(&mut db, Some(decoded), Read::forward(2))),
        [6]
    );
}
