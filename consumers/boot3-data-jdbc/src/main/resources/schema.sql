CREATE TABLE IF NOT EXISTS setup_requests (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id uuid NOT NULL,
    status  text NOT NULL
);

CREATE TABLE IF NOT EXISTS report_runs (
    id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ran_at timestamptz NOT NULL DEFAULT now()
);
