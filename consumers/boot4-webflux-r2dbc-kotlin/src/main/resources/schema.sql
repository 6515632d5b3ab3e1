CREATE TABLE IF NOT EXISTS setup_requests (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id uuid NOT NULL,
    status  text NOT NULL
);
