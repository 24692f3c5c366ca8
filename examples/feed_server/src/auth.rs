//! Who may read what: the demo's bearer tokens (random, stored only as their SHA-256), the
//! memberships decided in SQL, and [`Access`], the answer every handler checks first.

use axum::http::header::AUTHORIZATION;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use keyset_diesel::web::Problem;

use crate::db::with_conn;
use crate::feed::memberships;
use crate::{check_identifier, AppState, BoxError, Db};

diesel::table! {
    /// The demo's bearer tokens (migration `*_member_tokens`): one per member, as SHA-256 hex.
    member_tokens (member) {
        member -> Text,
        token_sha256 -> Text,
    }
}

/// The SHA-256 of a bearer token, in hex: what `member_tokens` keeps.
fn token_sha256(token: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Lets `$member` read `$workspace`.
macro_rules! grant {
    ($conn:expr, $member:expr, $workspace:expr) => {
        diesel::insert_into($crate::feed::memberships::table)
            .values((
                $crate::feed::memberships::member.eq($member),
                $crate::feed::memberships::workspace_id.eq($workspace),
            ))
            .execute($conn)
            .await
            .map(drop)
    };
}
pub(crate) use grant;

/// Whether a caller may read a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// A member of the workspace: its id as the membership row holds it, which the events
    /// filter and the token scope use (never the request's spelling).
    Granted(String),
    /// A known caller who is not a member: 404.
    NotAMember,
    /// A caller the memberships do not know (a member with no workspace): 404, as for
    /// [`Access::NotAMember`].
    UnknownCaller,
    /// The workspace id or the member name is not canonical ([`check_identifier`]): no such
    /// id is ever stored, so it names no workspace; 404, as for [`Access::NotAMember`],
    /// decided without a query.
    NotCanonical,
}

/// `name` when it is a canonical identifier, else the error naming what it is (`what`: "member
/// name", "workspace id", ...) and the rule it breaks, never the value.
pub(crate) fn canonical<'a>(what: &str, name: &'a str) -> Result<&'a str, BoxError> {
    check_identifier(name).map_err(|e| format!("refused {what}: {e}"))?;
    Ok(name)
}

impl Db {
    /// A new random bearer token for `member` (32 random bytes, hex), replacing any it had;
    /// the database keeps only its SHA-256.
    ///
    /// # Errors
    /// A member name that is not canonical ([`check_identifier`]: `member-w9 ` is refused,
    /// never taken for `member-w9`), database errors, or no randomness.
    pub async fn issue_token(&self, member: &str) -> Result<String, BoxError> {
        let member = canonical("member name", member)?;
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes).map_err(|e| format!("no randomness for a token: {e}"))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let hash = token_sha256(&token);
        with_conn!(self, |conn| conn
            .transaction::<_, diesel::result::Error, _>(async |conn| {
                diesel::delete(member_tokens::table.find(member))
                    .execute(conn)
                    .await?;
                diesel::insert_into(member_tokens::table)
                    .values((
                        member_tokens::member.eq(member),
                        member_tokens::token_sha256.eq(&hash),
                    ))
                    .execute(conn)
                    .await
            })
            .await)?;
        Ok(token)
    }

    /// The member holding bearer `token`, if any (looked up by its SHA-256).
    ///
    /// # Errors
    /// Database errors.
    pub async fn member_of_token(&self, token: &str) -> Result<Option<String>, BoxError> {
        let hash = token_sha256(token);
        Ok(with_conn!(self, |conn| member_tokens::table
            .filter(member_tokens::token_sha256.eq(&hash))
            .select(member_tokens::member)
            .first(conn)
            .await
            .optional())?)
    }

    /// Lets `member` read `workspace`.
    ///
    /// # Errors
    /// A member name or workspace id that is not canonical ([`check_identifier`]), database
    /// errors.
    pub async fn grant(&self, member: &str, workspace: &str) -> Result<(), BoxError> {
        let member = canonical("member name", member)?;
        let workspace = canonical("workspace id", workspace)?;
        with_conn!(self, |conn| grant!(conn, member, workspace))?;
        Ok(())
    }

    /// Whether `member` may read `workspace`, decided in SQL by the same comparison the events
    /// filter makes (a Rust comparison next to a SQL filter under a case-insensitive collation
    /// let a member of `w9` read `W9`: keyset-diesel/src/guide/security.md). Either name not
    /// canonical ([`check_identifier`]): [`Access::NotCanonical`], without a query.
    ///
    /// # Errors
    /// Database errors.
    pub async fn access(&self, member: &str, workspace: &str) -> Result<Access, BoxError> {
        if check_identifier(member).is_err() || check_identifier(workspace).is_err() {
            return Ok(Access::NotCanonical);
        }
        let granted: Option<String> = with_conn!(self, |conn| memberships::table
            .filter(memberships::member.eq(member))
            .filter(memberships::workspace_id.eq(workspace))
            .select(memberships::workspace_id)
            .first(conn)
            .await
            .optional())?;
        if let Some(workspace) = granted {
            return Ok(Access::Granted(workspace));
        }
        let known: i64 = with_conn!(self, |conn| memberships::table
            .filter(memberships::member.eq(member))
            .count()
            .get_result(conn)
            .await)?;
        Ok(if known == 0 {
            Access::UnknownCaller
        } else {
            Access::NotAMember
        })
    }
}

/// The token of `Authorization: Bearer <token>`.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, name) = value.split_once(' ')?;
    let name = name.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !name.is_empty()).then(|| name.to_string())
}

/// The workspace a request may read: the bearer's member, then the membership (the
/// workspace as the membership names it), or the answer to send instead (401, 404).
pub(crate) async fn authorized(
    app: &AppState,
    headers: &HeaderMap,
    workspace: &str,
) -> Result<Result<String, Response>, BoxError> {
    let Some(token) = bearer(headers) else {
        return Ok(Err(Problem::unauthorized().into_response()));
    };
    let Some(member) = app.db.member_of_token(&token).await? else {
        return Ok(Err(Problem::unauthorized().into_response()));
    };
    Ok(match app.db.access(&member, workspace).await? {
        Access::UnknownCaller | Access::NotAMember | Access::NotCanonical => {
            Err(Problem::not_found().into_response())
        }
        Access::Granted(workspace) => Ok(workspace),
    })
}
