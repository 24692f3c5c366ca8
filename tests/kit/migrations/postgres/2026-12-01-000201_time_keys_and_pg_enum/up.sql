-- The `time` crate's key types (tests/src/typed.rs, `time_rows`).
CREATE TABLE time_rows (
    id BIGINT NOT NULL PRIMARY KEY,
    tenant INTEGER NOT NULL,
    t_ts TIMESTAMP NOT NULL,
    t_tstz TIMESTAMPTZ NOT NULL,
    t_date DATE NOT NULL,
    t_time TIME NOT NULL
);
-- A native enum key (tests/tests/postgres.rs, `stage_rows`): declaration order differs from
-- text order ('doing' < 'done' < 'todo' as text; todo < doing < done as the enum sorts).
CREATE TYPE stage AS ENUM ('todo', 'doing', 'done');
CREATE TABLE stage_rows (
    id BIGINT NOT NULL PRIMARY KEY,
    tenant INTEGER NOT NULL,
    stage stage NOT NULL
);
CREATE INDEX stage_rows_tenant_stage_id ON stage_rows (tenant, stage, id);
