-- The feed server example: attachments of very different sizes (its byte budget), and who may
-- read which workspace.
ALTER TABLE events ADD COLUMN attachment TEXT NULL;
-- Identifiers get a binary collation, as in `events` (see its migration; PAD SPACE, until
-- `*_identifiers_no_pad`).
CREATE TABLE memberships (
    member VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    workspace_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    PRIMARY KEY (member, workspace_id)
);
