DROP TABLE time_rows;
