DROP TABLE stage_rows;
DROP TYPE stage;
DROP TABLE time_rows;
