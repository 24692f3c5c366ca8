use std::sync::atomic::{AtomicUsize, Ordering};

use async_graphql::{EmptyMutation, EmptySubscription, Object, Request, Schema, Variables};

use super::*;
use crate::web::graphql::{RelayConnection, TotalCount};

/// Default 20, at most 100.
fn policy() -> PageSizePolicy {
    PageSizePolicy::new(20, 100).expect("0 < 20 <= 100")
}

fn limit() -> CostLimit {
    CostLimit::new(policy(), &["events"])
}

/// The cost of `document` with `variables` (JSON), connections named `events`.
fn cost_with(document: &str, variables: serde_json::Value) -> DocumentCost {
    let mut request = Request::new(document).variables(Variables::from_json(variables));
    limit().cost(&mut request).expect("parses")
}

fn cost(document: &str) -> DocumentCost {
    cost_with(document, serde_json::Value::Null)
}

/// `(pages, rows, counts)`.
fn work(document: &str) -> (u64, u64, u64) {
    let c = cost(document);
    (c.pages, c.rows, c.counts)
}

const FULL: &str = "edges { cursor node { id } } pageInfo { hasNextPage endCursor }";

#[test]
fn a_connection_costs_one_page_read_of_its_page_size() {
    let one = |args: &str| work(&format!("{{ events{args} {{ {FULL} }} }}"));
    assert_eq!(one(""), (1, 20, 0), "the policy's default");
    assert_eq!(one("(first: 5)"), (1, 5, 0));
    assert_eq!(one("(last: 7, before: \"x\")"), (1, 7, 0));
    assert_eq!(one("(first: null)"), (1, 20, 0));
    // Over the maximum: clamped or refused, never more than the maximum.
    assert_eq!(one("(first: 1000000)"), (1, 100, 0));
    // No edges (flags and the count only): one row read.
    assert_eq!(one("(first: 0)"), (1, 1, 0));
    assert_eq!(one("(last: 0)"), (1, 1, 0));
    // Refused before any read: counted high.
    for refused in ["(first: -3)", "(first: \"ten\")", "(first: 2.5)"] {
        assert_eq!(one(refused), (1, 100, 0), "{refused}");
    }
    assert_eq!(one("(first: 5, last: 9)"), (1, 9, 0), "the larger of both");
    // Aliases are page reads of their own.
    let aliased: String = (0..20)
        .map(|i| format!("e{i}: events(first: 1) {{ edges {{ cursor }} }} "))
        .collect();
    assert_eq!(work(&format!("{{ {aliased} }}")), (20, 20, 0));
    // Selections: every field once, the connection's included.
    assert_eq!(cost(&format!("{{ events {{ {FULL} }} }}")).selections, 8);
    // Other fields read no page.
    assert_eq!(work("{ __typename other { events } }"), (1, 20, 0));
    assert_eq!(work("{ __typename }"), (0, 0, 0));
}

#[test]
fn page_sizes_come_from_variables_then_their_defaults() {
    let document = "query($n: Int, $m: Int = 30) { a: events(first: $n) { edges { cursor } } \
                    b: events(last: $m) { edges { cursor } } }";
    let c = cost_with(document, serde_json::json!({ "n": 50, "m": 4 }));
    assert_eq!((c.pages, c.rows), (2, 54));
    let c = cost_with(document, serde_json::json!({}));
    assert_eq!(
        (c.pages, c.rows),
        (2, 20 + 30),
        "absent: the policy's, the variable's default"
    );
    let c = cost_with(document, serde_json::json!({ "n": 5000, "m": null }));
    assert_eq!((c.pages, c.rows), (2, 100 + 20));
}

#[test]
fn a_total_count_counts_once_per_connection_that_selects_it() {
    assert_eq!(work("{ events { totalCount } }"), (1, 20, 1));
    assert_eq!(
        work("{ events { a: totalCount b: totalCount edges { cursor } } }"),
        (1, 20, 1),
        "one count read, however many aliases"
    );
    let three: String = (0..3)
        .map(|i| format!("c{i}: events(first: 1) {{ totalCount }} "))
        .collect();
    assert_eq!(work(&format!("{{ {three} }}")), (3, 3, 3));
    // Through fragments, named and inline.
    assert_eq!(
        work("{ events { ...C } } fragment C on EventConnection { totalCount }"),
        (1, 20, 1)
    );
    assert_eq!(
        work("{ events { ... on EventConnection { totalCount } } }"),
        (1, 20, 1)
    );
    // Not a connection's: no count.
    assert_eq!(
        work("{ events { pageInfo { totalCount } } totalCount }"),
        (1, 20, 0)
    );
}

#[test]
fn a_nested_connection_is_read_once_per_row() {
    let nested = "{ events(first: 10) { totalCount edges { node { events(first: 3) { totalCount edges { cursor } } } } } }";
    // One outer page, ten inner ones (one per row); 10 + 10 * 3 rows; 1 + 10 counts.
    assert_eq!(work(nested), (11, 40, 11));
}

#[test]
fn fragments_cost_their_expanded_size_without_being_expanded() {
    let one = "{ events(first: 1) { totalCount } }";
    assert_eq!(cost(one).selections, 2);
    // Each fragment spreads the one before it twice: 2^40 connections.
    let mut document = String::from(
        "query { ...F40 }\nfragment F0 on Query { events(first: 1) { totalCount } }\n",
    );
    for i in 1..=40 {
        let p = i - 1;
        document.push_str(&format!("fragment F{i} on Query {{ ...F{p} ...F{p} }}\n"));
    }
    let c = cost(&document);
    assert_eq!((c.pages, c.rows, c.counts), (1 << 40, 1 << 40, 1 << 40));
    assert!(c.selections > 1 << 41, "{c:?}");
    // Past u64: saturated, not wrapped.
    for i in 41..=70 {
        let p = i - 1;
        document.push_str(&format!("fragment F{i} on Query {{ ...F{p} ...F{p} }}\n"));
    }
    let c = cost(&document.replacen("...F40", "...F70", 1));
    assert_eq!(c.pages, u64::MAX);
    assert_eq!(c.selections, u64::MAX);
}

#[test]
fn cycles_and_deep_nesting_count_as_unbounded() {
    let cycle = "{ ...A } fragment A on Query { events { edges { cursor } } ...B } fragment B on Query { ...A }";
    assert_eq!(cost(cycle), DocumentCost::UNBOUNDED);
    let self_spread = "{ ...A } fragment A on Query { ...A }";
    assert_eq!(cost(self_spread), DocumentCost::UNBOUNDED);
    // Fragments each spreading the next, 100 deep: past the nesting the count walks.
    let mut chain = String::from("{ ...F0 }\n");
    for i in 0..100 {
        chain.push_str(&format!("fragment F{i} on Query {{ ...F{} }}\n", i + 1));
    }
    chain.push_str("fragment F100 on Query { __typename }\n");
    assert_eq!(cost(&chain).selections, u64::MAX);
    let two: String = "{ ...F0 }\nfragment F0 on Query { ...F1 }\nfragment F1 on Query { events { edges { cursor } } }".into();
    assert_eq!(work(&two), (1, 20, 0));
}

#[test]
fn the_named_operation_is_counted_else_the_costliest() {
    let document = "query Small { events(first: 1) { edges { cursor } } } \
                    query Big { a: events(first: 100) { totalCount } b: events { totalCount } }";
    let named = |name: Option<&str>| {
        let mut request = Request::new(document);
        if let Some(name) = name {
            request = request.operation_name(name);
        }
        let c = limit().cost(&mut request).expect("parses");
        (c.pages, c.rows, c.counts)
    };
    assert_eq!(named(Some("Small")), (1, 1, 0));
    assert_eq!(named(Some("Big")), (2, 120, 2));
    assert_eq!(named(None), (2, 120, 2));
    assert_eq!(named(Some("Unknown")), (2, 120, 2));
}

#[test]
fn check_refuses_over_each_limit_with_a_detail() {
    let refused = |limit: CostLimit, document: &str| {
        let e = limit
            .check(&mut Request::new(document))
            .expect_err("over a limit");
        let extensions = e.extensions.expect("extensions");
        assert_eq!(e.message, "the document asks for too much work");
        assert_eq!(extensions.get("code"), Some(&"query_too_complex".into()));
        assert_eq!(extensions.get("status"), Some(&400.into()));
        assert!(e.locations.is_empty());
        match extensions.get("detail") {
            Some(ConstValue::String(detail)) => detail.clone(),
            other => panic!("a detail: {other:?}"),
        }
    };
    let pages = |n: usize| -> String {
        let fields: String = (0..n)
            .map(|i| format!("e{i}: events(first: 100) {{ {FULL} }} "))
            .collect();
        format!("{{ {fields} }}")
    };
    assert_eq!(
        limit()
            .check(&mut Request::new(pages(8)))
            .expect("8 pages")
            .pages,
        8
    );
    assert_eq!(refused(limit(), &pages(9)), "9 page reads; at most 8");
    assert_eq!(
        refused(limit().pages(2), &pages(3)),
        "3 page reads; at most 2"
    );
    let counts = "{ a: events(first: 1) { totalCount } b: events(first: 1) { totalCount } }";
    assert_eq!(refused(limit(), counts), "2 total counts; at most 1");
    assert_eq!(
        limit()
            .counts(2)
            .check(&mut Request::new(counts))
            .expect("2 counts")
            .counts,
        2
    );
    assert_eq!(
        refused(limit().counts(0), "{ events { totalCount } }"),
        "1 total counts; at most 0"
    );
    assert_eq!(
        refused(limit().selections(7), &format!("{{ events {{ {FULL} }} }}")),
        "8 selections; at most 7"
    );
}

#[test]
fn a_document_that_does_not_parse_is_refused_without_its_text() {
    let token = "c2VjcmV0LWN1cnNvci10b2tlbg";
    let document = format!("{{ events(first: 2, after: \"{token}\" {{ edges {{ cursor }} }} }}");
    let e = limit()
        .cost(&mut Request::new(&*document))
        .expect_err("a syntax error");
    assert_eq!(e.message, "the GraphQL document does not parse");
    let extensions = e.extensions.as_ref().expect("extensions");
    assert_eq!(extensions.get("code"), Some(&"query_invalid".into()));
    assert_eq!(e.locations.len(), 1, "{e:?}");
    assert_eq!(e.locations[0].line, 1);
    assert!(!format!("{e:?}").contains(token), "{e:?}");
    // async-graphql's own message quotes the line, token included.
    let theirs = Request::new(&*document)
        .parsed_query()
        .map(|_| ())
        .expect_err("syntax");
    assert!(theirs.message.contains(token), "{}", theirs.message);
}

/// The query root of the extension's test: `events` counts the times it runs.
struct Query;

static RESOLVED: AtomicUsize = AtomicUsize::new(0);

#[Object]
impl Query {
    async fn events(&self, first: Option<i32>, last: Option<i32>) -> RelayConnection<i32> {
        let _ = (first, last);
        RESOLVED.fetch_add(1, Ordering::SeqCst);
        RelayConnection::with_additional_fields(
            false,
            false,
            TotalCount {
                total_count: Some(0),
            },
        )
    }
}

#[test]
fn the_extension_refuses_before_any_resolver_runs() {
    let schema = Schema::build(Query, EmptyMutation, EmptySubscription)
        .extension(limit().pages(2))
        .finish();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let run = |document: &str| {
        let before = RESOLVED.load(Ordering::SeqCst);
        let response = rt.block_on(schema.execute(document));
        (response, RESOLVED.load(Ordering::SeqCst) - before)
    };
    let (ok, ran) = run("{ a: events(first: 2) { totalCount } b: events { edges { cursor } } }");
    assert!(ok.errors.is_empty(), "{:?}", ok.errors);
    assert_eq!(ran, 2);
    let (refused, ran) = run("{ a: events { totalCount } b: events { totalCount } }");
    assert_eq!(ran, 0, "no resolver ran");
    assert_eq!(refused.data, ConstValue::Null);
    let codes: Vec<_> = refused
        .errors
        .iter()
        .map(|e| e.extensions.as_ref().and_then(|x| x.get("code")).cloned())
        .collect();
    assert_eq!(codes, [Some("query_too_complex".into())]);
    let (refused, ran) = run("{ a: events { edges { cursor } } b: events { edges { cursor } } c: events { edges { cursor } } }");
    assert_eq!((ran, refused.errors.len()), (0, 1));
    let (refused, ran) = run("{ events(first: 1 { edges { cursor } } }");
    assert_eq!((ran, refused.errors.len()), (0, 1));
    assert_eq!(
        refused.errors[0].message,
        "the GraphQL document does not parse"
    );
    // 2^30 connections in 1.2 KB of fragments: refused from the fragments' costs, before
    // async-graphql's own passes expand them (its complexity and depth checks walk every
    // expanded field, minutes of CPU here).
    let mut bomb =
        String::from("query { ...F30 }\nfragment F0 on Query { events { totalCount } }\n");
    for i in 1..=30 {
        let p = i - 1;
        bomb.push_str(&format!("fragment F{i} on Query {{ ...F{p} ...F{p} }}\n"));
    }
    let (refused, ran) = run(&bomb);
    assert_eq!((ran, refused.errors.len()), (0, 1));
    assert_eq!(
        refused.errors[0]
            .extensions
            .as_ref()
            .and_then(|x| x.get("detail")),
        Some(&format!("{} page reads; at most 2", 1u64 << 30).into())
    );
}
