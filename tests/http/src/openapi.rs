//! The OpenAPI document the feed server serves (`GET /openapi.json`): routes, parameters,
//! the `Link` header and the problem responses.

use keyset_feed_server::Settings;

use crate::server::{get, FeedBackend, Server};

/// `GET /openapi.json` (no bearer needed) describes both routes: their
/// parameters (the path's workspace, `cursor`, `until`, `page_size`, and `sort` on `/feed`),
/// the `Link` header of a page, the problem responses (400, 401 with `WWW-Authenticate`, 404)
/// as `application/problem+json` of the `Problem` schema, and the schemas themselves
/// (`Problem` without the headers it carries outside its body).
pub fn openapi_document_names_parameters_link_and_problems<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let answer = get(&client, &server.base, "/openapi.json", None).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.content_type, "application/json");
        let doc = answer.json();
        assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
        for (path, sorted) in [
            ("/workspaces/{workspace}/events", false),
            ("/workspaces/{workspace}/feed", true),
        ] {
            let get = &doc["paths"][path]["get"];
            let names: Vec<&str> = get["parameters"]
                .as_array()
                .unwrap_or_else(|| panic!("{path}: parameters"))
                .iter()
                .filter_map(|p| p["name"].as_str())
                .collect();
            let mut expected = vec!["workspace", "cursor", "until", "page_size"];
            if sorted {
                expected.insert(1, "sort");
            }
            assert_eq!(names, expected, "{path}");
            let ok = &get["responses"]["200"];
            assert!(ok["headers"]["Link"].is_object(), "{path}: the Link header");
            assert_eq!(
                ok["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/PageResponse_EventItem"
            );
            for status in ["400", "401", "404"] {
                assert_eq!(
                    get["responses"][status]["content"]["application/problem+json"]["schema"]
                        ["$ref"],
                    "#/components/schemas/Problem",
                    "{path} {status}"
                );
            }
            assert!(get["responses"]["401"]["headers"]["WWW-Authenticate"].is_object());
        }
        let problem = &doc["components"]["schemas"]["Problem"]["properties"];
        for member in [
            "type",
            "title",
            "status",
            "detail",
            "code",
            "restart_from_first_page",
        ] {
            assert!(problem[member].is_object(), "Problem.{member}");
        }
        assert!(problem["headers"].is_null(), "not part of the body");
        let page = &doc["components"]["schemas"]["PageResponse_EventItem"]["properties"];
        for member in [
            "items",
            "next_cursor",
            "has_more",
            "start_cursor",
            "end_cursor",
            "links",
        ] {
            assert!(page[member].is_object(), "PageResponse.{member}");
        }
    });
}
