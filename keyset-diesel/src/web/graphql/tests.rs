use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema};

use super::*;

struct Counted;

#[Object]
impl Counted {
    async fn events(&self) -> RelayConnection<String> {
        let mut c = RelayConnection::with_additional_fields(
            false,
            true,
            TotalCount {
                total_count: Some(7),
            },
        );
        c.edges.push(Edge::new("t1".to_string(), "e1".to_string()));
        c
    }
}

struct Uncounted;

#[Object]
impl Uncounted {
    async fn events(&self) -> UncountedConnection<String> {
        let mut c = UncountedConnection::new(false, true);
        c.edges.push(Edge::new("t1".to_string(), "e1".to_string()));
        c
    }
}

/// `totalCount` is in the schema only where the connection offers it; `nodes` in both.
#[tokio::test]
async fn total_count_only_where_the_connection_offers_it() {
    let counted = Schema::new(Counted, EmptyMutation, EmptySubscription);
    let uncounted = Schema::new(Uncounted, EmptyMutation, EmptySubscription);
    let squeeze = |sdl: String| sdl.split_whitespace().collect::<Vec<_>>().join(" ");
    let (with, without) = (squeeze(counted.sdl()), squeeze(uncounted.sdl()));
    assert!(with.contains("totalCount: Int"), "{with}");
    assert!(!without.contains("totalCount"), "{without}");
    for sdl in [&with, &without] {
        assert!(sdl.contains("nodes: [String!]!"), "{sdl}");
    }
    let asked = "{ events { totalCount nodes } }";
    let answer = counted.execute(asked).await;
    assert!(answer.errors.is_empty(), "{:?}", answer.errors);
    let data = answer.data.into_json().expect("JSON");
    assert_eq!(data["events"]["totalCount"], 7);
    assert_eq!(data["events"]["nodes"], serde_json::json!(["e1"]));
    let refused = uncounted.execute(asked).await;
    assert!(
        refused
            .errors
            .iter()
            .any(|e| e.message.contains("totalCount")),
        "{:?}",
        refused.errors
    );
}
