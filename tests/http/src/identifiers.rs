//! Identifiers compare exactly on every backend: no spelling of one tenant's workspace id,
//! member name or export id that differs by case, accents, or spaces at either end reaches
//! another tenant's rows, over REST, GraphQL and stored exports, at the server's edge or in
//! SQL. MariaDB's `utf8mb4_bin` and `ascii_bin` are PAD SPACE (`'W9 ' = 'W9'`); the
//! migrations move identifier columns to NO PAD binary collations, and the server refuses ids
//! that are not canonical (`keyset_feed_server::check_identifier`).

use std::collections::BTreeSet;

use keyset_diesel::web::PageRequest;
use keyset_feed_server::{feed, Event, NewEvent, Settings};
use serde_json::Value;

use crate::graphql::graphql;
use crate::server::{path_segment, sql_text, token_for, FeedBackend, Server};

/// W9's seeded events.
const W9_EVENTS: [&str; 6] = ["e101", "e102", "e103", "e104", "e105", "e106"];

/// A tenant of [`workspace_aliases_reach_no_other_tenant`]: a member of one workspace.
struct Tenant {
    member: &'static str,
    workspace: &'static str,
    /// Its workspace's events: W9's for `member-w9`, one of its own for the others.
    events: Vec<String>,
    /// Stored through the server (a canonical id), or as a row an older server or another
    /// writer left (raw SQL, past the server's checks).
    canonical: bool,
}

/// The tenants: W9's member, and tenants whose workspace ids are aliases of `W9` or of `Café`
/// by case (`w9`, `CAFÉ`), accent (`Cafe`, and `Cafe` + U+0301, the decomposed `Café`), a
/// trailing or leading space or a no-break space (`W9 `, ` W9`, `W9` + U+00A0).
fn tenants() -> Vec<Tenant> {
    let tenant = |member, workspace, event: &str, canonical| Tenant {
        member,
        workspace,
        events: vec![event.to_string()],
        canonical,
    };
    vec![
        Tenant {
            member: "member-w9",
            workspace: "W9",
            events: W9_EVENTS.iter().map(|e| e.to_string()).collect(),
            canonical: true,
        },
        tenant("member-lower", "w9", "lower-1", true),
        tenant("member-pad", "W9 ", "pad-1", false),
        tenant("member-lead", " W9", "lead-1", false),
        tenant("member-nbsp", "W9\u{a0}", "nbsp-1", false),
        tenant("member-cafe", "Caf\u{e9}", "cafe-1", true),
        tenant("member-plain", "Cafe", "plain-1", true),
        tenant("member-upper", "CAF\u{c9}", "upper-1", true),
        tenant("member-nfd", "Cafe\u{301}", "nfd-1", false),
    ]
}

/// Stores `tenants` (W9 is seeded): canonical ones through the server (`Db::grant`,
/// `Db::insert_events`), the others by raw SQL; each member gets a bearer token.
fn store_tenants(server: &Server, tenants: &[Tenant]) {
    for (n, t) in tenants
        .iter()
        .enumerate()
        .filter(|(_, t)| t.member != "member-w9")
    {
        if t.canonical {
            server
                .rt
                .block_on(server.db.grant(t.member, t.workspace))
                .expect("grant");
            let row = NewEvent {
                event_id: t.events[0].clone(),
                workspace_id: t.workspace.to_string(),
                occurred_at: feed::feed_time("14:00:00") + chrono::Duration::seconds(n as i64),
                message: format!("event of {}", t.member),
                attachment: None,
            };
            server
                .rt
                .block_on(server.db.insert_events(&[row]))
                .expect("insert");
        } else {
            server.exec(&format!(
                "INSERT INTO memberships (member, workspace_id) VALUES ({}, {})",
                sql_text(t.member),
                sql_text(t.workspace)
            ));
            server.exec(&format!(
                "INSERT INTO events (event_id, workspace_id, occurred_at, message) \
                 VALUES ({}, {}, '2026-10-10 14:00:{n:02}', 'a legacy row')",
                sql_text(&t.events[0]),
                sql_text(t.workspace)
            ));
        }
        server.issue_token(t.member);
    }
}

/// What one request answered: its status (GraphQL: 404 for a `not_found` error) and the event
/// ids it returned.
type Answered = (u16, BTreeSet<String>);

/// The ids of a JSON array of items (`[{"id": ..}, ..]`).
fn ids_of(items: &Value) -> BTreeSet<String> {
    items
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Every tenant asks for every tenant's workspace spelling, over `GET .../events`,
/// `GET .../feed`, GraphQL `events` and a stored export (`POST .../exports`, then its page).
/// Only a tenant with a canonical workspace id reads it, and exactly its own events; every
/// other request is 404 (GraphQL: `not_found`). On MariaDB before the NO PAD migration
/// `member-pad` (a member of `W9 `) read W9's six events at `W9` and at `W9 `, over all
/// four; before the server refused non-canonical ids, `member-w9` read W9 at `W9 ` as well.
pub fn workspace_aliases_reach_no_other_tenant<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let tenants = tenants();
    store_tenants(&server, &tenants);
    let client = reqwest::Client::new();
    let base = server.base.clone();
    let answers: Vec<(&Tenant, &Tenant, &str, Answered)> = server.rt.block_on(async {
        let mut answers = Vec::new();
        for asker in &tenants {
            for named in &tenants {
                let segment = path_segment(named.workspace);
                let token = token_for(&base, asker.member);
                let get = |path: String| {
                    let request = client
                        .get(format!("{base}{path}"))
                        .header("Authorization", format!("Bearer {token}"));
                    async move {
                        let response = request.send().await.expect("the server answers");
                        let status = response.status().as_u16();
                        let body: Value = response.json().await.unwrap_or(Value::Null);
                        (status, body)
                    }
                };
                for list in ["events", "feed"] {
                    let (status, body) =
                        get(format!("/workspaces/{segment}/{list}?page_size=50")).await;
                    answers.push((asker, named, list, (status, ids_of(&body["items"]))));
                }
                let (status, body) = graphql(
                    &client,
                    &base,
                    Some(asker.member),
                    "query($w: String!) { events(workspace: $w, first: 50) { edges { node { id } } } }",
                    serde_json::json!({ "w": named.workspace }),
                )
                .await;
                assert_eq!(status, 200, "{body}");
                let answered = if body["errors"].is_null() {
                    let edges = body["data"]["events"]["edges"].as_array().cloned();
                    let nodes: Vec<Value> =
                        edges.unwrap_or_default().into_iter().map(|e| e["node"].clone()).collect();
                    (200, ids_of(&Value::Array(nodes)))
                } else if body["errors"][0]["extensions"]["code"] == "not_found" {
                    (404, BTreeSet::new())
                } else {
                    panic!("{} asking for {:?}: {body}", asker.member, named.workspace)
                };
                answers.push((asker, named, "graphql", answered));
                let created = client
                    .post(format!("{base}/workspaces/{segment}/exports"))
                    .header("Authorization", format!("Bearer {token}"))
                    .send()
                    .await
                    .expect("the server answers");
                let answered = if created.status().as_u16() == 201 {
                    let export: Value = created.json().await.expect("JSON");
                    let id = export["id"].as_str().expect("an id");
                    let (status, body) =
                        get(format!("/workspaces/{segment}/exports/{id}?page_size=50")).await;
                    assert_eq!(status, 200, "{body}");
                    (201, ids_of(&body["items"]))
                } else {
                    (created.status().as_u16(), BTreeSet::new())
                };
                answers.push((asker, named, "export", answered));
            }
        }
        answers
    });
    // No answer holds another tenant's rows...
    let leaks: Vec<String> = answers
        .iter()
        .filter_map(|(asker, named, how, (_, ids))| {
            let foreign: Vec<&String> =
                ids.iter().filter(|id| !asker.events.contains(id)).collect();
            (!foreign.is_empty()).then(|| {
                format!(
                    "{} asking for {:?} over {how} read {foreign:?}",
                    asker.member, named.workspace
                )
            })
        })
        .collect();
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
    // ... and only a canonical workspace id, its member's own, is read.
    let wrong: Vec<String> = answers
        .iter()
        .filter_map(|(asker, named, how, (status, ids))| {
            let reads = asker.member == named.member && asker.canonical;
            let expected = match (reads, *how) {
                (true, "export") => (201, asker.events.iter().cloned().collect()),
                (true, _) => (200, asker.events.iter().cloned().collect()),
                (false, _) => (404, BTreeSet::new()),
            };
            ((*status, ids.clone()) != expected).then(|| {
                format!(
                    "{} asking for {:?} over {how}: {status} {ids:?}, expected {expected:?}",
                    asker.member, named.workspace
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} wrong answers:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A bearer token issued for `member-w9 ` (or ` member-w9`, or another spelling that is not
/// canonical) is refused, and member-w9 keeps its token and its workspaces. On MariaDB before
/// the fix the token for `member-w9 ` replaced member-w9's (the primary key on `member` called
/// the two names one) and read W9 through member-w9's memberships. A name that is canonical
/// but differs in case (`Member-W9`) is another member, with no membership. A token row for
/// `member-w9 ` that an older server left reads nothing (404) and leaves member-w9's alone.
pub fn member_name_aliases_take_no_token<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    let member_w9 = token_for(&server.base, "member-w9");
    let read_w9 = |token: &str| {
        let request = client
            .get(format!("{}/workspaces/W9/events?page_size=50", server.base))
            .header("Authorization", format!("Bearer {token}"));
        server.rt.block_on(async move {
            let response = request.send().await.expect("the server answers");
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            (status, ids_of(&body["items"]))
        })
    };
    let w9: BTreeSet<String> = W9_EVENTS.iter().map(|e| e.to_string()).collect();
    for alias in [
        "member-w9 ",
        " member-w9",
        "member-w9\u{a0}",
        "member-w9\t",
        "member-w9\u{200b}",
    ] {
        let issued = server.rt.block_on(server.db.issue_token(alias));
        // member-w9's own token still reads W9...
        assert_eq!(read_w9(&member_w9), (200, w9.clone()), "after {alias:?}");
        // ... and a token issued for the alias, if any, reads nothing of it.
        if let Ok(token) = &issued {
            let (status, ids) = read_w9(token);
            assert!(
                ids.is_empty(),
                "{alias:?}'s token read {ids:?} of W9 ({status})"
            );
        }
        assert!(issued.is_err(), "a token was issued for {alias:?}");
    }
    // Another member, whatever its name looks like: no membership, 404.
    let other = server.issue_token("Member-W9");
    assert_eq!(read_w9(&other), (404, BTreeSet::new()));
    assert_eq!(read_w9(&member_w9), (200, w9.clone()));
    // A token row an older server stored for `member-w9 `: a member of its own (the key tells
    // the names apart), whose name is not canonical, so it reads nothing.
    let legacy = "a legacy bearer token of `member-w9 `, 32 bytes or more";
    let hash: String = {
        use sha2::{Digest, Sha256};
        Sha256::digest(legacy.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    server.exec(&format!(
        "INSERT INTO member_tokens (member, token_sha256) VALUES ('member-w9 ', {})",
        sql_text(&hash)
    ));
    assert_eq!(read_w9(legacy), (404, BTreeSet::new()));
    assert_eq!(read_w9(&member_w9), (200, w9));
}

/// Export id aliases (upper case, a space at either end) name no export: 404 for a read and
/// for `DELETE`, and the export is still there for its own id.
pub fn export_id_aliases_name_no_export<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    let token = token_for(&server.base, "member-w9");
    server.rt.block_on(async {
        let send = |method: reqwest::Method, path: String| {
            let request = client
                .request(method, format!("{}{path}", server.base))
                .header("Authorization", format!("Bearer {token}"));
            async move {
                let response = request.send().await.expect("the server answers");
                let status = response.status().as_u16();
                (status, response.text().await.expect("a body"))
            }
        };
        let (status, body) = send(reqwest::Method::POST, "/workspaces/W9/exports".into()).await;
        assert_eq!(status, 201, "{body}");
        let export: Value = serde_json::from_str(&body).expect("JSON");
        let id = export["id"].as_str().expect("an id").to_string();
        for alias in [
            id.to_uppercase(),
            format!("{id} "),
            format!(" {id}"),
            format!("{id}\u{a0}"),
        ] {
            let path = format!("/workspaces/W9/exports/{}", path_segment(&alias));
            let (status, body) = send(reqwest::Method::GET, path.clone()).await;
            assert_eq!(status, 404, "GET {path}: {body}");
            let (status, body) = send(reqwest::Method::DELETE, path.clone()).await;
            assert_eq!(status, 404, "DELETE {path}: {body}");
        }
        let (status, body) = send(
            reqwest::Method::GET,
            format!("/workspaces/W9/exports/{id}?page_size=50"),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let page: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(ids_of(&page["items"]).len(), 6, "{page}");
    });
}

/// In SQL, past the server's checks: every identifier column the example stores compares
/// exactly (an alias by case, by a space at either end or a no-break space matches no row),
/// and its keys tell such values apart (`W9` and `W9 ` are two rows). The page query and the
/// export query bind the workspace as a parameter: an alias reads nothing. On MariaDB before
/// the NO PAD migration `workspace_id = 'W9 '` matched W9's six events, and inserting
/// `e101 ` next to `e101` was a duplicate key.
pub fn identifier_columns_compare_exactly<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let export_id = "0123456789abcdef0123456789abcdef";
    let token_hash: String = {
        use sha2::{Digest, Sha256};
        Sha256::digest(token_for(&server.base, "member-w9").as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    server.exec(&format!(
        "INSERT INTO keyset_exports (export_id, scope, row_count, created_at, expires_at) \
         VALUES ('{export_id}', 'k1:00ff', 1, 0, 4102444800); \
         INSERT INTO keyset_export_rows (export_id, seq, payload) VALUES ('{export_id}', 1, '{{}}')"
    ));
    let aliases = |value: &str| {
        let flipped: String = value
            .chars()
            .map(|c| {
                if c.is_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        vec![
            flipped,
            format!("{value} "),
            format!("{value}  "),
            format!(" {value}"),
            format!("{value}\u{a0}"),
        ]
    };
    // (table, column, a stored value, whether the column is `ascii` on MariaDB, which refuses
    // to compare such a column with text that is not ASCII; the server binds only hex there)
    let columns: [(&str, &str, &str, bool); 8] = [
        ("events", "event_id", "e101", false),
        ("events", "workspace_id", "W9", false),
        ("memberships", "member", "member-w9", false),
        ("memberships", "workspace_id", "W9", false),
        ("member_tokens", "member", "member-w9", false),
        ("member_tokens", "token_sha256", &token_hash, true),
        ("keyset_exports", "export_id", export_id, true),
        ("keyset_export_rows", "export_id", export_id, true),
    ];
    let mut matched = Vec::new();
    for (table, column, value, ascii) in columns {
        let count = |v: &str| {
            server.count(&format!(
                "SELECT COUNT(*) AS n FROM {table} WHERE {column} = {}",
                sql_text(v)
            ))
        };
        assert!(count(value) >= 1, "{table}.{column} holds {value:?}");
        for alias in aliases(value)
            .into_iter()
            .filter(|a| !ascii || a.is_ascii())
        {
            let n = count(&alias);
            if n != 0 {
                matched.push(format!(
                    "{table}.{column} = {alias:?} matched {n} rows of {value:?}"
                ));
            }
        }
    }
    // Through the server's own queries, whose workspace is a bound parameter.
    let store = keyset_diesel::async_::ExportStore::new(
        keyset_feed_server::feed::codec_keys(|_| None)
            .expect("keys")
            .build()
            .expect("codec"),
        std::time::Duration::from_secs(60),
    );
    for alias in aliases("W9") {
        let request = PageRequest::<Event> {
            cursor: None,
            until: None,
            page_size: 50,
        };
        let page = server
            .rt
            .block_on(server.db.page(&alias, request, 1 << 20))
            .expect("page");
        if !page.items.is_empty() {
            matched.push(format!(
                "the page of {alias:?} read {} rows",
                page.items.len()
            ));
        }
        let export = server
            .rt
            .block_on(
                server
                    .db
                    .create_export(&store, &alias, &("exports", alias.as_str())),
            )
            .expect("pool")
            .expect("export");
        if export.rows != 0 {
            matched.push(format!(
                "the export of {alias:?} stored {} rows",
                export.rows
            ));
        }
    }
    assert!(
        matched.is_empty(),
        "aliases matched:\n{}",
        matched.join("\n")
    );
    // The keys tell the spellings apart: each insert is a row of its own.
    server.exec(
        "INSERT INTO events (event_id, workspace_id, occurred_at, message) \
             VALUES ('e101 ', 'W9 ', '2026-10-10 15:00:00', 'padded'); \
         INSERT INTO memberships (member, workspace_id) VALUES ('member-w9 ', 'W9'); \
         INSERT INTO memberships (member, workspace_id) VALUES ('member-w9', 'W9 '); \
         INSERT INTO member_tokens (member, token_sha256) VALUES ('member-w9 ', 'ab'); \
         INSERT INTO keyset_exports (export_id, scope, row_count, created_at, expires_at) \
             VALUES ('0123456789abcdef0123456789abcdef ', 'k1:00ff', 0, 0, 0); \
         INSERT INTO keyset_export_rows (export_id, seq, payload) \
             VALUES ('0123456789abcdef0123456789abcdef ', 1, '{}')",
    );
    assert_eq!(
        server.count("SELECT COUNT(*) AS n FROM events WHERE workspace_id = 'W9'"),
        6
    );
    assert_eq!(
        server.count("SELECT COUNT(*) AS n FROM events WHERE workspace_id = 'W9 '"),
        1
    );
}
