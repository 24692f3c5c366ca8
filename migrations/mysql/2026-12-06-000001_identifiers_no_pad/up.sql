-- Identifiers compare exactly: NO PAD binary collations.
--
-- The earlier migrations gave identifiers `utf8mb4_bin` and `ascii_bin`, which tell case and
-- accents apart but are PAD SPACE: before comparing, MariaDB pads the shorter value with
-- spaces, so `'W9 ' = 'W9'` is true there. `workspace_id = 'W9 '` read workspace W9's events,
-- a membership of `W9 ` granted W9, and a token issued for `member-w9 ` replaced
-- member-w9's (the primary key called the two names one). `utf8mb4_nopad_bin` and
-- `ascii_nopad_bin` compare the bytes as they are, trailing spaces included, as PostgreSQL's
-- deterministic collations and SQLite's `BINARY` do. (These are MariaDB's names, 10.2 and
-- later; MySQL 8's NO PAD binary collation is `utf8mb4_0900_bin`, and it has no NO PAD one for
-- `ascii`.)
--
-- MODIFY keeps each column's primary key, unique and secondary indexes (rebuilt under the new
-- collation). No value changes; no two stored values can collide, since every pair equal under
-- NO PAD was already equal under PAD SPACE.
ALTER TABLE events
    MODIFY event_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    MODIFY workspace_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL;
ALTER TABLE memberships
    MODIFY member VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    MODIFY workspace_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL;
ALTER TABLE member_tokens
    MODIFY member VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    MODIFY token_sha256 VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL;
