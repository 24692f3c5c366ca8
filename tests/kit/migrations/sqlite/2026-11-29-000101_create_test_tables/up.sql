-- Rows for the oracle walks and the CASES tests: small value domains, so heavy ties.
CREATE TABLE keyset_rows (
    id BIGINT NOT NULL PRIMARY KEY,
    tenant INTEGER NOT NULL,
    a INTEGER NOT NULL,
    b VARCHAR(16) NOT NULL,
    c TIMESTAMP NOT NULL,
    d BOOLEAN NOT NULL,
    e SMALLINT NOT NULL,
    na INTEGER NULL,
    nb VARCHAR(16) NULL
);

-- Deep tables for plan tests, with one index per keyset shape.
CREATE TABLE plan_rows (
    id BIGINT NOT NULL PRIMARY KEY,
    tenant INTEGER NOT NULL,
    at TIMESTAMP NOT NULL,
    score INTEGER NOT NULL,
    maybe INTEGER NULL,
    payload TEXT NOT NULL
);
CREATE INDEX plan_rows_tenant_at_id ON plan_rows (tenant, at, id);
CREATE INDEX plan_rows_tenant_score_desc_id ON plan_rows (tenant, score DESC, id ASC);
CREATE INDEX plan_rows_tenant_maybe_id ON plan_rows (tenant, maybe, id);

-- One column per supported key type (SQLite keeps timestamps as Diesel's text form).
CREATE TABLE typed_rows (
    id BIGINT NOT NULL PRIMARY KEY,
    tenant INTEGER NOT NULL,
    k_i16 SMALLINT NOT NULL,
    k_i32 INTEGER NOT NULL,
    k_bool BOOLEAN NOT NULL,
    k_text TEXT NOT NULL,
    k_ts TIMESTAMP NOT NULL,
    k_tstz TIMESTAMPTZ NOT NULL,
    k_date DATE NOT NULL,
    k_dec NUMERIC NOT NULL
);
