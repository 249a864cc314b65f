-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "pinned_version" INTEGER,
ADD COLUMN     "template_origin" JSONB;

-- CreateTable
CREATE TABLE "agent_version_tags" (
    "agent_id" UUID NOT NULL,
    "tag" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "set_by" UUID NOT NULL,
    "set_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_version_tags_pkey" PRIMARY KEY ("agent_id","tag")
);

-- AddForeignKey
ALTER TABLE "agent_version_tags" ADD CONSTRAINT "agent_version_tags_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (decision 0046): a teammate's next turn runs the agent's pinned
-- version when it has one, else its latest — the same rule as the matcher's and
-- the gateway's run creation. Otherwise as in migration teammates.
CREATE OR REPLACE FUNCTION teammate_wake(p_workspace uuid, p_session uuid, p_run uuid, p_caused_by jsonb, p_depth int)
RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := 'session:' || p_session::text;
  v_mate teammates%ROWTYPE;
  v_version int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || v_lane, 0));
  SELECT * INTO v_mate FROM teammates WHERE workspace_id = p_workspace AND session_id = p_session AND stopped_at IS NULL;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF EXISTS (SELECT 1 FROM runs WHERE lane = v_lane AND status = 'queued') THEN RETURN NULL; END IF;
  SELECT COALESCE(pinned_version, latest_version) INTO v_version FROM agents WHERE id = v_mate.agent_id AND workspace_id = p_workspace AND deleted_at IS NULL;
  IF NOT FOUND THEN RETURN NULL; END IF;
  INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, caused_by, depth, session_id, lane, queued_at)
  VALUES (p_run, p_workspace, v_mate.agent_id, v_version, 'teammate',
          jsonb_build_object('type', 'teammate', 'teammateId', v_mate.id, 'name', v_mate.name),
          'queued', p_caused_by, p_depth, p_session, v_lane, clock_timestamp());
  RETURN p_run;
END;
$$;
