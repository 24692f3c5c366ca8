-- The feed server example's callers: a random bearer token per member, stored as its SHA-256
-- (hex), never as given.
CREATE TABLE member_tokens (
    member VARCHAR(64) NOT NULL PRIMARY KEY,
    token_sha256 VARCHAR(64) NOT NULL UNIQUE
);
