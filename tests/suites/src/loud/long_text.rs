//! Long and escape-heavy text keys walk through signed tokens within the default maximum
//! token length.

use super::DocByTitle;
use crate::models::Walk;
use crate::NextToken as _;
use crate::TestDb;

/// Long and escape-heavy text keys walk through signed tokens with the
/// default maximum token length. `title VARCHAR(500)`: (1,'a'), (2,'a' + 499 ×
/// '語'), (3,'b'), then row 2 as 'a' + 254 × U+0001 (a 6-byte JSON escape each). Page size 1,
/// every page's cursor passed as a token: the walk equals the database's `ORDER BY title, id`
/// (the collation decides where the U+0001 title sorts) and every token fits.
pub fn long_and_escape_heavy_text_keys_walk_through_tokens<C: TestDb>()
where
    DocByTitle: Walk<C, Filter = ()>,
{
    use keyset_diesel::token::{SecretKey, DEFAULT_MAX_TOKEN_LEN};
    use keyset_diesel::CursorCodec;
    let mut db = C::open();
    db.exec("CREATE TABLE loud_docs (id BIGINT NOT NULL PRIMARY KEY, title VARCHAR(500) NOT NULL)");
    let long = format!("a{}", "語".repeat(499));
    let escapes = format!("a{}", "\u{1}".repeat(254));
    let key = || SecretKey::new(1, b"keyset tests: not a real secret!").expect("key");
    // Signed tokens (the encrypted form, feature `encrypted-tokens`, is not enabled in this
    // test crate).
    let codecs = [(
        "signed",
        CursorCodec::builder()
            .signing_key(key())
            .build()
            .expect("codec"),
    )];
    for title in [long, escapes] {
        db.exec("DELETE FROM loud_docs");
        // Neither title holds a quote; U+0001 is a plain character in every backend's literal.
        db.exec(&format!(
            "INSERT INTO loud_docs VALUES (1, 'a'), (2, '{title}'), (3, 'b')"
        ));
        let oracle = db.ids("SELECT id FROM loud_docs ORDER BY title, id");
        assert_eq!(oracle.len(), 3);
        for (name, codec) in &codecs {
            let mut walked = Vec::new();
            let mut longest = 0;
            let mut token: Option<String> = None;
            for _ in 0..10 {
                let cursor = token.as_deref().map(|t| {
                    codec
                        .decode::<DocByTitle>(t, &"docs")
                        .expect("token decodes")
                });
                let page = DocByTitle::page(&mut *db, &(), cursor, 1, false).expect("page");
                walked.extend(page.items.iter().map(|d| d.id));
                token = codec.next_token(&page, &"docs").expect("token fits");
                match &token {
                    Some(t) => longest = longest.max(t.chars().count()),
                    None => break,
                }
            }
            assert_eq!(
                walked,
                oracle,
                "{name}, title of {} chars",
                title.chars().count()
            );
            assert!(
                longest > 0 && longest <= DEFAULT_MAX_TOKEN_LEN,
                "{name}: {longest}"
            );
        }
    }
}
