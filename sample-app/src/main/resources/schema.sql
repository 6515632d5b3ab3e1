CREATE TABLE IF NOT EXISTS setup_requests (
    id         uuid PRIMARY KEY,
    user_id    uuid        NOT NULL,
    status     text        NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled')),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- "One pending request per user" fits a constraint, so the constraint comes first, as the last line of defence.
-- The advisory lock in SetupRequestService turns concurrent requests into clean rejections rather than unique
-- violations, and keeps the rule correct when the limit grows beyond one (a plan allowing three).
CREATE UNIQUE INDEX IF NOT EXISTS setup_requests_one_pending_per_user
    ON setup_requests (user_id) WHERE status = 'pending';
