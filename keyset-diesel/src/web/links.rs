//! The URLs of the pages around a page: `Link` headers (RFC 8288) and the same URLs for a
//! JSON body, built from the request's own URL so every other query parameter survives.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::{Deserialize, Serialize};

use super::response::PageResponse;

/// The query parameter a page's token travels in, as [`PageParams`](super::PageParams) reads
/// it.
pub const CURSOR_PARAM: &str = "cursor";

/// The query parameter of a window's far end ([`PageParams::until`](super::PageParams::until)):
/// kept on `next` and `first`, dropped from `prev`, which reads the other way.
pub const UNTIL_PARAM: &str = "until";

/// Bytes a token value is written with as they are (RFC 3986 unreserved); every other byte is
/// percent-encoded.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Bytes kept as they are in the parts of the request's URL that are copied (RFC 3986 `pchar`
/// and `/`, `?`, plus `%` of an existing escape): everything else, a space, a quote, `<`,
/// `>`, a control character or a non-ASCII byte, is percent-encoded, so a link never breaks
/// out of its `<...>` in a header.
const COPIED: &AsciiSet = &VALUE
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b':')
    .remove(b'@')
    .remove(b'/')
    .remove(b'?')
    .remove(b'%');

/// The links of a page: `first` always, `prev` when rows exist before the page's first item,
/// `next` when rows exist after its last item (as its flags say: exact with
/// [`exact_flags`](crate::Paginated::exact_flags), see [`Page`](crate::Page)).
///
/// Each is the request's URL (relative or absolute, as given: pass the path and query, or an
/// absolute URL built from your own configured origin, never one a client's request line or
/// `Host` header chose; a path starting with `//`, which a client would read as another host,
/// keeps one leading slash) with only the `cursor` parameter changed: the page's `end_cursor` token for `next`, its `start_cursor` token (a
/// backward one) for `prev` (which also drops `until`, the far end of a window read the other
/// way), and no cursor for `first`. Every other parameter keeps its place
/// and its text; the token is percent-encoded (RFC 3986), and any byte of the copied URL that
/// may not stand in a URL is encoded too. A token records its direction and page size, so the
/// server reads a `prev` link with [`PaginateDsl::paginate`](crate::PaginateDsl::paginate)
/// like a `next` one.
///
/// ```
/// use keyset_diesel::web::{PageLinks, PageResponse};
/// let page = PageResponse::<u32> {
///     items: vec![4, 5],
///     next_cursor: Some("t5".into()),
///     has_more: true,
///     page_size: 2,
///     start_cursor: Some("t4".into()),
///     end_cursor: Some("t5".into()),
///     has_previous_page: true,
///     has_next_page: true,
///     item_cursors: None,
///     total_count: None,
///     links: None,
/// };
/// let links = PageLinks::new(&page, "/w/W9/events?sort=top&cursor=t3&q=a%20b");
/// assert_eq!(links.next.as_deref(), Some("/w/W9/events?sort=top&cursor=t5&q=a%20b"));
/// assert_eq!(links.prev.as_deref(), Some("/w/W9/events?sort=top&cursor=t4&q=a%20b"));
/// assert_eq!(links.first, "/w/W9/events?sort=top&q=a%20b");
/// assert_eq!(
///     links.header_value(),
///     "</w/W9/events?sort=top&cursor=t5&q=a%20b>; rel=\"next\", \
///      </w/W9/events?sort=top&cursor=t4&q=a%20b>; rel=\"prev\", \
///      </w/W9/events?sort=top&q=a%20b>; rel=\"first\""
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct PageLinks {
    /// The first page: the request without its cursor.
    pub first: String,
    /// The page before this one, if rows exist before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
    /// The page after this one, if rows exist after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

impl PageLinks {
    /// The links of `page`, from `request_url`: the request's path and query
    /// (`/workspaces/W9/events?page_size=3&cursor=...`, e.g. axum's `OriginalUri`), or its
    /// absolute URL. A fragment is dropped.
    pub fn new<T>(page: &PageResponse<T>, request_url: &str) -> PageLinks {
        Self::with_param(page, request_url, CURSOR_PARAM)
    }

    /// As [`PageLinks::new`], the token in query parameter `param` instead of `cursor`.
    pub fn with_param<T>(page: &PageResponse<T>, request_url: &str, param: &str) -> PageLinks {
        let url = RequestUrl::parse(request_url, param);
        let at = |token: &Option<String>, exists: bool, drop: &[&str]| {
            token
                .as_deref()
                .filter(|_| exists)
                .map(|token| url.with_cursor(param, Some(token), drop))
        };
        PageLinks {
            first: url.with_cursor(param, None, &[]),
            prev: at(&page.start_cursor, page.has_previous_page, &[UNTIL_PARAM]),
            next: at(&page.end_cursor, page.has_next_page, &[]),
        }
    }

    /// The `Link` header value (RFC 8288): `<next>; rel="next", <prev>; rel="prev",
    /// <first>; rel="first"`, the absent ones left out.
    pub fn header_value(&self) -> String {
        [("next", &self.next), ("prev", &self.prev)]
            .into_iter()
            .filter_map(|(rel, url)| url.as_ref().map(|url| (rel, url.as_str())))
            .chain([("first", self.first.as_str())])
            .map(|(rel, url)| format!("<{url}>; rel=\"{rel}\""))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A request URL taken apart: the part before `?`, and the query's parameters with the
/// position of the cursor parameter.
struct RequestUrl {
    base: String,
    /// The other parameters, as they came (made safe), in order, each with its decoded name.
    params: Vec<(String, String)>,
    /// Where the (first) cursor parameter stood among `params`; the end when absent.
    cursor_at: usize,
}

impl RequestUrl {
    fn parse(url: &str, param: &str) -> RequestUrl {
        let url = url.split_once('#').map_or(url, |(before, _)| before);
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut params = Vec::new();
        let mut cursor_at = None;
        for piece in query.split('&').filter(|p| !p.is_empty()) {
            let name = piece.split_once('=').map_or(piece, |(name, _)| name);
            let name = percent_decode_str(&name.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned();
            if name == param {
                cursor_at.get_or_insert(params.len());
            } else {
                params.push((name, copied(piece)));
            }
        }
        RequestUrl {
            base: same_origin(copied(base)),
            cursor_at: cursor_at.unwrap_or(params.len()),
            params,
        }
    }

    /// The URL with `param=<token>` at the cursor's place, or with no cursor, and without the
    /// parameters named in `drop`.
    fn with_cursor(&self, param: &str, token: Option<&str>, drop: &[&str]) -> String {
        let cursor = token.map(|token| {
            format!(
                "{}={}",
                utf8_percent_encode(param, VALUE),
                utf8_percent_encode(token, VALUE)
            )
        });
        let kept = |params: &'_ [(String, String)]| {
            params
                .iter()
                .filter(|(name, _)| !drop.contains(&name.as_str()))
                .map(|(_, piece)| piece.clone())
                .collect::<Vec<_>>()
        };
        let (before, after) = self.params.split_at(self.cursor_at);
        let query: Vec<String> = kept(before)
            .into_iter()
            .chain(cursor)
            .chain(kept(after))
            .collect();
        if query.is_empty() {
            self.base.clone()
        } else {
            format!("{}?{}", self.base, query.join("&"))
        }
    }
}

/// `base` kept on the request's origin: a path that starts with `//` (a request for
/// `//evil.example/x`, which a router or proxy may pass on) would be read by a client as a
/// network-path reference, a link to host `evil.example`; its leading slashes become one. A
/// backslash, which browsers read as a slash, is already percent-encoded by [`copied`].
fn same_origin(base: String) -> String {
    match base.strip_prefix("//") {
        Some(rest) => format!("/{}", rest.trim_start_matches('/')),
        None => base,
    }
}

/// `text` made safe to copy into a link: a `%` that starts no escape (two hex digits) becomes
/// `%25`, then every byte outside [`COPIED`] is percent-encoded.
fn copied(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut escaped = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let escape = c == '%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if c == '%' && !escape {
            escaped.push_str("%25");
        } else {
            escaped.push(c);
        }
    }
    utf8_percent_encode(&escaped, COPIED).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(prev: bool, next: bool) -> PageResponse<u8> {
        PageResponse {
            items: vec![1],
            next_cursor: next.then(|| "n".to_string()),
            has_more: next,
            page_size: 1,
            start_cursor: Some("s/+=".to_string()),
            end_cursor: Some("e".to_string()),
            has_previous_page: prev,
            has_next_page: next,
            item_cursors: None,
            total_count: None,
            links: None,
        }
    }

    #[test]
    fn only_the_cursor_changes_in_place_and_the_token_is_encoded() {
        let l = PageLinks::new(
            &page(true, true),
            "https://api.example/e?a=1&cursor=old&b=x+y#top",
        );
        assert_eq!(
            l.next.as_deref(),
            Some("https://api.example/e?a=1&cursor=e&b=x+y")
        );
        assert_eq!(
            l.prev.as_deref(),
            Some("https://api.example/e?a=1&cursor=s%2F%2B%3D&b=x+y")
        );
        assert_eq!(l.first, "https://api.example/e?a=1&b=x+y");
    }

    #[test]
    fn a_missing_cursor_goes_last_and_repeated_ones_collapse() {
        let l = PageLinks::new(&page(false, true), "/e?page_size=3");
        assert_eq!(l.next.as_deref(), Some("/e?page_size=3&cursor=e"));
        assert_eq!((l.prev, l.first.as_str()), (None, "/e?page_size=3"));
        let l = PageLinks::new(&page(false, false), "/e?cursor=1&x=2&cursor=3");
        assert_eq!((l.next, l.first.as_str()), (None, "/e?x=2"));
        let l = PageLinks::new(&page(false, true), "/e");
        assert_eq!(
            (l.next.as_deref(), l.first.as_str()),
            (Some("/e?cursor=e"), "/e")
        );
        assert_eq!(
            l.header_value(),
            "</e?cursor=e>; rel=\"next\", </e>; rel=\"first\""
        );
    }

    #[test]
    fn copied_text_cannot_break_out_of_the_link() {
        let l = PageLinks::new(&page(false, true), "/e v?q=<a>\"\r\n,é&%41=1&c%75rsor=z");
        // The encoded name `c%75rsor` is the cursor parameter too.
        assert_eq!(l.first, "/e%20v?q=%3Ca%3E%22%0D%0A,%C3%A9&%41=1");
        let header = l.header_value();
        assert!(!header.contains(['\r', '\n']), "{header}");
        for link in header.split(", ") {
            let (url, _) = link.split_once('>').expect("<url>");
            let url = url.strip_prefix('<').expect("<url>");
            assert!(!url.contains([' ', '"', '<', '>']), "{url}");
        }
    }

    #[test]
    fn a_stray_percent_is_escaped_and_prev_drops_the_window_end() {
        let l = PageLinks::new(&page(true, true), "/e?q=100%&r=%zz&s=%41&until=u1&cursor=c");
        assert_eq!(l.first, "/e?q=100%25&r=%25zz&s=%41&until=u1");
        assert_eq!(
            l.next.as_deref(),
            Some("/e?q=100%25&r=%25zz&s=%41&until=u1&cursor=e")
        );
        assert_eq!(
            l.prev.as_deref(),
            Some("/e?q=100%25&r=%25zz&s=%41&cursor=s%2F%2B%3D"),
            "prev reads the other way: no until"
        );
    }

    #[test]
    fn a_path_of_leading_slashes_stays_on_the_origin() {
        for request in ["//evil.example/e?cursor=c", "///evil.example/e?cursor=c"] {
            let l = PageLinks::new(&page(true, true), request);
            assert_eq!(l.first, "/evil.example/e", "{request}");
            assert_eq!(l.next.as_deref(), Some("/evil.example/e?cursor=e"));
            assert!(l
                .prev
                .as_deref()
                .is_some_and(|p| p.starts_with("/evil.example/e?")));
        }
        let l = PageLinks::new(&page(false, true), "/\\evil.example/e");
        assert_eq!(l.first, "/%5Cevil.example/e");
        // An absolute URL (the application's own origin) and an inner `//` are kept.
        let l = PageLinks::new(&page(false, true), "https://api.example//e");
        assert_eq!(l.first, "https://api.example//e");
        let l = PageLinks::new(&page(false, true), "/w//e");
        assert_eq!(l.first, "/w//e");
    }

    #[test]
    fn another_param_name_carries_the_token() {
        let l = PageLinks::with_param(&page(false, true), "/e?after=1&n=2", "after");
        assert_eq!(l.next.as_deref(), Some("/e?after=e&n=2"));
    }
}
