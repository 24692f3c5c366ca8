-- The feed server example: attachments of very different sizes (its byte budget), and who may
-- read which workspace.
ALTER TABLE events ADD COLUMN attachment TEXT NULL;
CREATE TABLE memberships (
    member VARCHAR(64) NOT NULL,
    workspace_id VARCHAR(64) NOT NULL,
    PRIMARY KEY (member, workspace_id)
);
