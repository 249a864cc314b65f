-- CreateTable
CREATE TABLE "fact_outbox" (
    "id" UUID NOT NULL,
    "position" BIGSERIAL NOT NULL,
    "workspace_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "actor" JSONB,
    "payload" JSONB NOT NULL,
    "caused_by" JSONB,
    "idempotency_key" TEXT,
    "ts" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "correlation_id" TEXT NOT NULL,

    CONSTRAINT "fact_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "fact_outbox_position_idx" ON "fact_outbox"("position");

-- AddForeignKey
ALTER TABLE "fact_outbox" ADD CONSTRAINT "fact_outbox_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (Prisma does not model functions and triggers).

-- A UUIDv7 (time-ordered, like the ids the services make): the first 48 bits are the Unix
-- time in milliseconds, the version nibble 7, the rest random.
CREATE FUNCTION "switchyard_uuid_v7"() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(
    set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
      PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
      FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;

-- The one builder of `agent.run.<status>` facts (RunFactPayloadSchema in libs/contracts): every
-- status a run enters — its INSERT (queued, dropped) and every UPDATE of its status, whoever
-- makes it — writes its fact to the outbox in the same transaction. Caused by the run itself,
-- one step deeper (an agent never wakes on its own runs), keyed `run:<id>:<status>`.
CREATE FUNCTION "runs_status_fact"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  payload jsonb := jsonb_build_object('agentId', NEW.agent_id, 'agentVersion', NEW.agent_version, 'status', NEW.status, 'reason', NEW.reason);
BEGIN
  IF NEW.event_id IS NOT NULL THEN
    payload := payload || jsonb_build_object('eventId', NEW.event_id);
  END IF;
  INSERT INTO fact_outbox (id, workspace_id, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, correlation_id)
  VALUES (
    switchyard_uuid_v7(), NEW.workspace_id,
    CASE NEW.status WHEN 'running' THEN 'agent.run.started' ELSE 'agent.run.' || NEW.status::text END,
    'run', NEW.id::text, '{"type": "system", "id": "switchyard"}'::jsonb, payload,
    jsonb_build_object('runId', NEW.id, 'agentId', NEW.agent_id, 'depth', NEW.depth + 1),
    'run:' || NEW.id || ':' || NEW.status, NEW.id::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER "runs_inserted_fact" AFTER INSERT ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "runs_status_fact"();

CREATE TRIGGER "runs_status_changed_fact" AFTER UPDATE OF "status" ON "runs"
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION "runs_status_fact"();

-- Wakes the relay (LISTEN fact_outbox) when the inserting transaction commits; one notification
-- per statement, and PostgreSQL folds repeats within a transaction.
CREATE FUNCTION "fact_outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('fact_outbox', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "fact_outbox_inserted" AFTER INSERT ON "fact_outbox"
  FOR EACH STATEMENT EXECUTE FUNCTION "fact_outbox_notify"();
