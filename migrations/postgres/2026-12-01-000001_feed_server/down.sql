DROP TABLE memberships;
ALTER TABLE events DROP COLUMN attachment;
