-- The race demo's own tables, so that the demo never writes to the application's. Both have the shape of
-- setup_requests; only the second has the partial unique index that "one pending per user" fits.
CREATE TABLE IF NOT EXISTS race_setup_requests (
    id      uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    status  text NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled'))
);

CREATE INDEX IF NOT EXISTS race_setup_requests_by_user ON race_setup_requests (user_id);

CREATE TABLE IF NOT EXISTS race_setup_requests_unique (LIKE race_setup_requests INCLUDING ALL);

CREATE UNIQUE INDEX IF NOT EXISTS race_setup_requests_one_pending_per_user
    ON race_setup_requests_unique (user_id) WHERE status = 'pending';
