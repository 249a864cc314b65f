/**
 * The peer of issue 37 ("pipe-bullmq"): what a Node user would glue together in an afternoon
 * instead of Switchyard, taken from ../shared/peer-bench (server.mjs, worker.mjs, common.mjs).
 * An HTTP endpoint records the event with a per-workspace seq, adds a BullMQ job per matching
 * consumer; a worker inserts the run row `started` and completes it.
 */

/** Its tables, in a database of its own. */
export const PIPE_SCHEMA = `
CREATE TABLE ws_seq (ws int PRIMARY KEY, last_seq bigint NOT NULL DEFAULT 0);
CREATE TABLE consumers (id int PRIMARY KEY, ws int NOT NULL, kind_pattern text NOT NULL);
CREATE TABLE events (id bigserial PRIMARY KEY, ws int NOT NULL, seq bigint NOT NULL, kind text NOT NULL, payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (ws, seq));
CREATE TABLE runs (id bigserial PRIMARY KEY, event_id bigint NOT NULL, consumer_id int NOT NULL, status text NOT NULL,
  started_at timestamptz, ended_at timestamptz, UNIQUE (event_id, consumer_id));
INSERT INTO ws_seq (ws) VALUES (1);
INSERT INTO consumers (id, ws, kind_pattern) VALUES (1, 1, 'lat.*');
`;

/** Worker concurrency: Switchyard's bench agent has `flow.concurrency` 10. */
export const PIPE_CONCURRENCY = 10;

/** The BullMQ queue's name. */
export const PIPE_QUEUE = 'wake';

/** Wall clock in ms with sub-ms resolution, comparable across the processes of one machine. */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** A job of the peer: the event, its consumer, when its request was sent (`t`) and when its event committed (`tEv`). */
export interface PipeJob {
  eventId: string;
  seq: string;
  consumer: number;
  t: number;
  tEv: number;
  tag: string;
}

/** `lat.fact` matches `lat.*`: the consumers' patterns as the peer-bench matched them. */
export const matches = (pattern: string, kind: string): boolean => pattern === kind || (pattern.endsWith('.*') && kind.startsWith(pattern.slice(0, -1)));
