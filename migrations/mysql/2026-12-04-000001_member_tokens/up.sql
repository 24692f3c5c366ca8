-- The feed server example's callers: a random bearer token per member, stored as its SHA-256
-- (hex), never as given. Identifiers get a binary collation (PAD SPACE, until
-- `*_identifiers_no_pad`).
CREATE TABLE member_tokens (
    member VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    token_sha256 VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL UNIQUE
);
