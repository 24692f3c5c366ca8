//! `feed_server`: a workspace activity feed over HTTP, paginated by keyset with signed tokens.
//!
//! ```text
//! cargo run -p keyset-feed-server                      # embedded SQLite, 127.0.0.1:3000
//! # it prints `member member-w9 token <token>`, one line per demo member
//! curl -H "Authorization: Bearer <member-w9's token>" 'http://127.0.0.1:3000/workspaces/W9/events?page_size=3'
//! DATABASE_URL=postgres://postgres@127.0.0.1/test cargo run -p keyset-feed-server --features postgres
//! DATABASE_URL=mysql://root@127.0.0.1/test cargo run -p keyset-feed-server --features mysql
//! ```
//!
//! It applies the repository's migrations, replaces the rows of workspaces W9, W7 and W5 (W5's
//! events carry attachments of very different sizes) and the memberships of its three callers
//! (`member-w9` reads W9 and W7, `member-w7` W7, `member-w5` W5), gives each a new random
//! bearer token (printed on standard output as `member <name> token <token>`; a demo's
//! authentication), then listens. Cursor token keys come from `KEYSET_TOKEN_SECRET` (raw
//! bytes, or `base64:...`), or `KEYSET_TOKEN_KEY_IDS` and `KEYSET_TOKEN_SECRET_<id>` for
//! rotation; unset, a public demo secret, with a warning. With the demo secret (unset, or set
//! to the demo secret itself) it listens only on a loopback address.

use clap::Parser;
use keyset_feed_server::{feed, AppState, Db, Settings};

/// Serve a workspace activity feed paginated by keyset.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:3000")]
    bind: std::net::SocketAddr,
    /// `postgres://...` or `mysql://...` (with the feature of that name), or a SQLite file;
    /// default: an in-memory SQLite database.
    #[arg(long, env = "DATABASE_URL")]
    database_url: Option<String>,
    /// Largest page, in bytes of item JSON (a page always holds at least one row).
    #[arg(long, default_value_t = 16 * 1024)]
    max_bytes: usize,
    /// Answer GraphQL introspection (`__schema`, `__type`: every type and field) to every
    /// member; off by default.
    #[arg(long)]
    graphql_introspection: bool,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), keyset_feed_server::BoxError> {
    let env = |name: &str| std::env::var_os(name);
    let codec = feed::codec_keys(env)?.build()?;
    // The public demo secret signs tokens anyone can forge, whether the variables are unset or
    // hold it: only for a server on this machine.
    keyset_feed_server::check_bind(args.bind, &codec, env)?;
    let url = args.database_url.clone();
    let (db, tokens) = Db::connect(url.as_deref(), 16).await?;
    // The demo members' bearer tokens, one line each (scripts read them from here).
    for (member, token) in &tokens {
        println!("member {member} token {token}");
    }
    let settings = Settings {
        max_bytes: args.max_bytes,
        graphql_introspection: args.graphql_introspection,
        ..Settings::default()
    };
    let state = AppState::new(db, codec, settings);
    // Expired stored exports are deleted every five minutes.
    let (db, exports) = (state.db.clone(), state.exports.clone());
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(300));
        loop {
            every.tick().await;
            match db.purge_exports(&exports).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => eprintln!("feed_server: purging expired exports failed: {e}"),
                Err(e) => eprintln!("feed_server: purging expired exports failed: {e}"),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind(args.bind).await?;
    eprintln!(
        "feed_server listening on http://{}/workspaces/{{workspace}}/events",
        listener.local_addr()?
    );
    keyset_feed_server::serve(listener, state).await?;
    Ok(())
}
