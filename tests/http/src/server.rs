//! The test harness of the HTTP suite: a fresh database per server on each backend
//! ([`FeedBackend`]), the feed server started in-process ([`Server`]), the members' bearer
//! tokens, and one GET with the headers the tests read ([`get`], [`Answer`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use keyset_diesel::token::SecretKey;
use keyset_diesel::web::PageResponse;
use keyset_diesel::CursorCodec;
use keyset_feed_server::{AppState, Db, EventItem, Settings};
use serde_json::Value;

/// A database for one server, dropped (schema or database) when the test ends.
pub struct FeedDatabase {
    /// `None`: in-memory SQLite.
    pub url: Option<String>,
    cleanup: Option<Box<dyn FnOnce() + Send>>,
}

impl Drop for FeedDatabase {
    fn drop(&mut self) {
        if let Some(cleanup) = self.cleanup.take() {
            cleanup();
        }
    }
}

/// A backend the feed server runs on: an isolated, empty database for it.
pub trait FeedBackend {
    /// A fresh database (the server migrates and seeds it).
    fn feed_database() -> FeedDatabase;
}

#[cfg(feature = "sqlite")]
impl FeedBackend for diesel::SqliteConnection {
    fn feed_database() -> FeedDatabase {
        FeedDatabase {
            url: None,
            cleanup: None,
        }
    }
}

#[cfg(feature = "postgres")]
impl FeedBackend for diesel::PgConnection {
    fn feed_database() -> FeedDatabase {
        use diesel::connection::SimpleConnection;
        use diesel::Connection;
        let admin_url = keyset_testkit::db::pg_url();
        let connect = {
            let admin_url = admin_url.clone();
            move || {
                diesel::PgConnection::establish(&admin_url).unwrap_or_else(|e| {
                    keyset_testkit::db::server_missing("PostgreSQL", &admin_url, &e)
                })
            }
        };
        let schema = keyset_testkit::db::unique_name();
        connect()
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .expect("create schema");
        let sep = if admin_url.contains('?') { '&' } else { '?' };
        let url = format!("{admin_url}{sep}options=-csearch_path%3D{schema}");
        FeedDatabase {
            url: Some(url),
            cleanup: Some(Box::new(move || {
                let _ = connect().batch_execute(&format!("DROP SCHEMA {schema} CASCADE"));
            })),
        }
    }
}

#[cfg(feature = "mysql")]
impl FeedBackend for diesel::MysqlConnection {
    fn feed_database() -> FeedDatabase {
        use diesel::connection::SimpleConnection;
        use diesel::Connection;
        let base = keyset_testkit::db::mysql_url()
            .trim_end_matches('/')
            .to_string();
        let admin_url = format!("{base}/test");
        let connect = move || {
            diesel::MysqlConnection::establish(&admin_url).unwrap_or_else(|e| {
                keyset_testkit::db::server_missing("MySQL/MariaDB", &admin_url, &e)
            })
        };
        let name = keyset_testkit::db::unique_name();
        connect()
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        FeedDatabase {
            url: Some(format!("{base}/{name}")),
            cleanup: Some(Box::new(move || {
                let _ = connect().batch_execute(&format!("DROP DATABASE {name}"));
            })),
        }
    }
}

/// The token secret of the tests' servers.
const SECRET: &[u8] = b"feed server test secret, 32 bytes or more";
/// Their token time to live.
pub(crate) const TTL: Duration = Duration::from_secs(600);

/// A feed server listening on `127.0.0.1:<any>` in this process, and its clock.
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// Seconds added to the codec's clock (expire tokens without waiting).
    pub clock_offset: Arc<AtomicU64>,
    /// The server's database (for loading rows).
    pub db: Db,
    /// The runtime the server and the test's client run on.
    pub rt: tokio::runtime::Runtime,
    /// The server's export creation slots (a test holds them to see the server busy).
    pub export_slots: Arc<tokio::sync::Semaphore>,
    _database: FeedDatabase,
}

impl Server {
    /// Starts a server on a fresh database of backend `B`.
    pub fn start<B: FeedBackend>(settings: Settings) -> Server {
        let database = B::feed_database();
        let clock_offset = Arc::new(AtomicU64::new(0));
        let offset = clock_offset.clone();
        let codec = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET).expect("secret"))
            .ttl(TTL)
            .clock(move || SystemTime::now() + Duration::from_secs(offset.load(Ordering::SeqCst)))
            .build()
            .expect("codec");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .expect("runtime");
        let (db, tokens) = rt
            .block_on(Db::connect(database.url.as_deref(), 16))
            .expect("feed server database");
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind 127.0.0.1:0");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let state = AppState::new(db.clone(), codec, settings);
        let export_slots = state.export_slots.clone();
        rt.spawn(async move { keyset_feed_server::serve(listener, state).await });
        for (member, token) in tokens {
            remember_token(&base, &member, token);
        }
        Server {
            base,
            clock_offset,
            db,
            rt,
            export_slots,
            _database: database,
        }
    }
}

/// The bearer tokens of the servers this process started: `(base URL, member, token)`.
static TOKENS: std::sync::Mutex<Vec<(String, String, String)>> = std::sync::Mutex::new(Vec::new());

fn remember_token(base: &str, member: &str, token: String) {
    TOKENS
        .lock()
        .expect("tokens")
        .push((base.to_string(), member.to_string(), token));
}

/// The token of `member` on the server at `base`; a name no member of it has is sent as it
/// is (an unknown bearer).
pub(crate) fn token_for(base: &str, member: &str) -> String {
    TOKENS
        .lock()
        .expect("tokens")
        .iter()
        .rev()
        .find(|(b, m, _)| b == base && m == member)
        .map_or_else(|| member.to_string(), |(_, _, t)| t.clone())
}

impl Server {
    /// Gives `member` a new bearer token; [`get`] sends it for `Some(member)`.
    pub fn issue_token(&self, member: &str) -> String {
        let token = self
            .rt
            .block_on(self.db.issue_token(member))
            .expect("token");
        remember_token(&self.base, member, token.clone());
        token
    }
}

/// Runs `$body` (which may `.await`) with `$conn` bound to a diesel-async connection of the
/// server's own database `$db` (the embedded SQLite connection, or one from the pool).
macro_rules! on_server_conn {
    ($db:expr, |$conn:ident| $body:expr) => {
        match $db {
            #[cfg(feature = "sqlite")]
            Db::Sqlite(conn) => {
                let mut guard = conn.lock().await;
                let $conn = &mut *guard;
                $body
            }
            #[cfg(feature = "postgres")]
            Db::Postgres(pool) => {
                let mut pooled = pool.get().await.expect("a pooled connection");
                let $conn: &mut diesel_async::AsyncPgConnection = &mut pooled;
                $body
            }
            #[cfg(feature = "mysql")]
            Db::Mysql(pool) => {
                let mut pooled = pool.get().await.expect("a pooled connection");
                let $conn: &mut diesel_async::AsyncMysqlConnection = &mut pooled;
                $body
            }
        }
    };
}

/// A count read by [`Server::count`].
#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

impl Server {
    /// Runs SQL statements on the server's own database, past the server's checks (rows an
    /// older server or another writer left).
    pub fn exec(&self, sql: &str) {
        use diesel_async::SimpleAsyncConnection;
        self.rt.block_on(async {
            on_server_conn!(&self.db, |conn| conn
                .batch_execute(sql)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}")))
        });
    }

    /// Runs `sql`, which selects one BIGINT column named `n`, on the server's own database.
    pub fn count(&self, sql: &str) -> i64 {
        use diesel_async::RunQueryDsl;
        self.rt.block_on(async {
            on_server_conn!(&self.db, |conn| diesel::sql_query(sql)
                .get_result::<Count>(conn)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
                .n)
        })
    }
}

/// `value` as a SQL string literal (quotes doubled); for the tests' own constants, which hold
/// no backslash (MariaDB reads one as an escape).
pub(crate) fn sql_text(value: &str) -> String {
    assert!(!value.contains('\\'), "no backslash in {value:?}");
    format!("'{}'", value.replace('\'', "''"))
}

/// `value` as one path segment: every byte but ASCII letters, digits, `-` and `_`
/// percent-encoded (`W9 ` is `W9%20`).
pub(crate) fn path_segment(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One answer: status, content type, `Link`, `Cache-Control`, `Vary`, body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub link: Option<String>,
    pub cache_control: Option<String>,
    pub vary: Option<String>,
    pub www_authenticate: Option<String>,
    pub body: String,
}

impl Answer {
    pub(crate) fn page(&self) -> PageResponse<EventItem> {
        assert_eq!(self.status, 200, "{}", self.body);
        assert_eq!(self.content_type, "application/json");
        // Tokens and one member's rows are never cached.
        assert_eq!(self.cache_control.as_deref(), Some("no-store"));
        assert_eq!(self.vary.as_deref(), Some("Authorization"));
        serde_json::from_str(&self.body).expect("a PageResponse")
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("JSON")
    }
}

/// GET `path_and_query` as member `bearer` (its token; none: no `Authorization`).
pub async fn get(
    client: &reqwest::Client,
    base: &str,
    path_and_query: &str,
    bearer: Option<&str>,
) -> Answer {
    let mut request = client.get(format!("{base}{path_and_query}"));
    if let Some(name) = bearer {
        let token = token_for(base, name);
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let response = request.send().await.expect("the server answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII header").to_string())
    };
    let status = response.status().as_u16();
    let content_type = header("content-type").unwrap_or_default();
    let link = header("link");
    let cache_control = header("cache-control");
    let vary = header("vary");
    let www_authenticate = header("www-authenticate");
    let body = response.text().await.expect("a body");
    Answer {
        status,
        content_type,
        link,
        cache_control,
        vary,
        www_authenticate,
        body,
    }
}

pub(crate) fn item_ids(page: &PageResponse<EventItem>) -> Vec<String> {
    page.items.iter().map(|e| e.id.clone()).collect()
}

/// The target of `<...>; rel="<rel>"` in a `Link` value, if it has that relation.
pub(crate) fn link_target(link: &str, rel: &str) -> Option<String> {
    link.split(", ").find_map(|part| {
        let (target, relation) = part.split_once(';').expect("<target>; rel=..");
        (relation.trim() == format!("rel=\"{rel}\"")).then(|| {
            target
                .trim()
                .strip_prefix('<')
                .and_then(|t| t.strip_suffix('>'))
                .expect("<target>")
                .to_string()
        })
    })
}
