-- Every rule that a constraint can say is a constraint, the last line of defence on every write path. The rules
-- no constraint can say ("at most the plan's number of pending requests", "today's withdrawals at most the daily
-- limit") are kept by the services under @AdvisoryLocked.

-- Setup requests: a user's plan decides how many may be pending at once (free 1, pro 3). A request left pending too
-- long expires (the expire-stale-requests job).
CREATE TABLE IF NOT EXISTS users (
    id         uuid PRIMARY KEY,
    plan       text        NOT NULL CHECK (plan IN ('free', 'pro')),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS setup_requests (
    id         uuid PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES users (id),
    status     text        NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled', 'expired')),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Serves the count that every creation runs under the lock.
CREATE INDEX IF NOT EXISTS setup_requests_pending_by_user ON setup_requests (user_id) WHERE status = 'pending';

-- Ledger: amounts in minor units (cents). Money only moves between accounts or leaves through a withdrawal, so the
-- sum of all balances and all withdrawals never changes.
CREATE TABLE IF NOT EXISTS accounts (
    id                     uuid PRIMARY KEY,
    balance                bigint NOT NULL CHECK (balance >= 0),
    daily_withdrawal_limit bigint NOT NULL CHECK (daily_withdrawal_limit > 0)
);

CREATE TABLE IF NOT EXISTS withdrawals (
    id         uuid PRIMARY KEY,
    account_id uuid        NOT NULL REFERENCES accounts (id),
    amount     bigint      NOT NULL CHECK (amount > 0),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Serves the sum of today's withdrawals that every withdrawal runs under the lock.
CREATE INDEX IF NOT EXISTS withdrawals_by_account_and_time ON withdrawals (account_id, created_at);

CREATE TABLE IF NOT EXISTS transfers (
    id              uuid PRIMARY KEY,
    from_account_id uuid        NOT NULL REFERENCES accounts (id),
    to_account_id   uuid        NOT NULL REFERENCES accounts (id),
    amount          bigint      NOT NULL CHECK (amount > 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK (from_account_id <> to_account_id)
);

-- Scheduled jobs: every instance schedules each job, and its advisory lock lets one instance at a time run it. The
-- lock alone would let the next instance to take it run the job again at once, so a run first claims its period:
-- the claim moves claimed_at to now() only if the last claim is at least a period old, atomically and by the
-- database's clock, and commits before the run works. A run that dies keeps its claim: no period has two runs.
CREATE TABLE IF NOT EXISTS job_claims (
    job        text        PRIMARY KEY,
    claimed_at timestamptz NOT NULL
);

-- One row per run, claimed_at being its claim. started_at, finished_at and lost_at are clock_timestamp(), the time of
-- the statement rather than of its transaction's start, so that runs can be compared precisely; finished_at stays NULL
-- for a run that did not finish (its instance died or stopped, or it found its lock lost). lost_at is when the run's
-- instance learned that its lock was lost before the run ended (the partner-sync job records it; its run id, chosen
-- by the caller of the locked method, finds the row).
CREATE TABLE IF NOT EXISTS job_runs (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job         text        NOT NULL,
    instance    text        NOT NULL,
    run         uuid        UNIQUE,
    claimed_at  timestamptz NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz CHECK (finished_at >= started_at),
    lost_at     timestamptz CHECK (lost_at >= started_at)
);

CREATE INDEX IF NOT EXISTS job_runs_by_job_and_start ON job_runs (job, started_at);

-- The write-fenced-batches job (off unless sample.jobs.fenced-batches.enabled): one row per run, inserted by the run's
-- first fenced transaction. Fenced transactions of one key run one at a time, so ids increase in the order the job's
-- lock passed from instance to instance, and so do the runs' fencing tokens. finished_at stays NULL for a run that did
-- not finish.
CREATE TABLE IF NOT EXISTS fenced_runs (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    instance    text        NOT NULL,
    token       bigint,
    started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz CHECK (finished_at >= started_at)
);
-- For a database made before runs had a token.
ALTER TABLE fenced_runs ADD COLUMN IF NOT EXISTS token bigint;

-- The rows of its batches, each batch written by one fenced transaction, each row naming its run and the instance that
-- wrote it. xid is the writing transaction's id, whose commit the chaos run's checker orders batches by.
CREATE TABLE IF NOT EXISTS fenced_batch_rows (
    run        bigint      NOT NULL REFERENCES fenced_runs (id),
    batch      int         NOT NULL,
    item       int         NOT NULL,
    instance   text        NOT NULL,
    xid        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (run, batch, item)
);
