/**
 * `npm run pilot:awareness -- --tasks pilot/tasks.json --model <scripted | base URL> [--seed N] [--out DIR] [--duplicate-storm]`
 *
 * ADR 0002's shadow pilot (issue 34 §7, docs/awareness.md): the preregistered
 * tasks run on a platform of their own, awareness randomized on (digest) or
 * off (shadow) within each class by the recorded seed, with models, prompts,
 * budgets and permission rules held fixed. A producer posts each task's peer
 * note while the runs work. Every gate is computed from the platform's own
 * records (gates.ts); the report is written as Markdown and JSON.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { PilotTasksFileSchema, type PilotTask } from '@switchyard/contracts';
import { credentialShapeIn } from '@switchyard/core';
import { apiClient, waitFor } from '@switchyard/testing';
import { decide, type PilotRunRecord, type PlaneRecord } from './gates';
import { startPilotPlatform } from './pilot-platform';
import { pilotMarkdown } from './pilot-report';

interface Options {
  tasks: string;
  model: string;
  seed: number;
  out: string;
  duplicateStorm: boolean;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const model = value('--model');
  const tasks = value('--tasks');
  if (!model || !tasks) throw new Error('usage: npm run pilot:awareness -- --tasks pilot/tasks.json --model <scripted | base URL> [--seed N] [--out DIR] [--duplicate-storm]');
  return { tasks, model, seed: Number(value('--seed') ?? 34), out: value('--out') ?? 'pilot/out', duplicateStorm: argv.includes('--duplicate-storm') };
}

/** A seeded generator (mulberry32): the same seed assigns the same tasks on. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Half of each class on, by a seeded shuffle. */
function assign(tasks: PilotTask[], seed: number): Map<string, boolean> {
  const random = seeded(seed);
  const aware = new Map<string, boolean>();
  for (const c of ['qa', 'debug', 'impl']) {
    const ids = tasks.filter((t) => t.class === c).map((t) => t.id);
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    ids.forEach((id, i) => aware.set(id, i < ids.length / 2));
  }
  return aware;
}

const envelope = (task: PilotTask, seq: number, content = task.note.content) => {
  const now = Date.now();
  return { schema: 'agent-message/v1', messageId: `pilot-${task.id}`, senderSeq: seq, thread: task.note.thread, topic: task.note.topic, content, createdAt: new Date(now).toISOString(), expiresAt: new Date(now + 3_600_000).toISOString(), deliveryMode: 'shadow', canAuthorizeActions: false };
};

/** The notes a digest run received, from its transcript's digest entries. */
function surfacedOf(entries: { type: string; content: { text?: string; awareness?: unknown } }[]): { seq: number; content: string }[] {
  return entries
    .filter((e) => e.type === 'user' && e.content.awareness)
    .flatMap((e) => [...String(e.content.text).matchAll(/^- note (\d+) · .*? from [^:]+: (.*)$/gm)].map((m) => ({ seq: Number(m[1]), content: m[2]! })));
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const file = PilotTasksFileSchema.parse(JSON.parse(readFileSync(options.tasks, 'utf8')));
  const aware = assign(file.tasks, options.seed);
  const scripted = options.model === 'scripted';
  const platform = await startPilotPlatform({ modelUrl: scripted ? undefined : options.model, log: (line) => process.stdout.write(`${line}\n`) });
  const pg = new Client({ connectionString: platform.databaseUrl });
  await pg.connect();
  try {
    const api = apiClient(platform.baseUrl, platform.token);
    const ws = '/v1/workspaces/pilot';
    if (!scripted) await api('PUT', `${ws}/secrets/pilot-model-key`, { value: process.env.PILOT_MODEL_API_KEY ?? 'none' });
    const agentOf = new Map<string, string>();
    for (const task of file.tasks) {
      const model = scripted ? { provider: 'scripted', name: 'pilot' } : { provider: 'openai', name: process.env.PILOT_MODEL_NAME ?? 'pilot-model', apiKeySecret: 'pilot-model-key' };
      const created = await api('POST', `${ws}/agents`, {
        name: `pilot-${task.id}`,
        instructions: 'You answer questions about the Switchyard repository. Answer in one sentence that starts with "Answer:".',
        model,
        ...(scripted ? { script: task.script } : {}),
        triggers: [{ kind: 'pilot.never' }],
        permissionMode: 'bypass',
        budget: { maxTurns: 6 },
        awareness: aware.get(task.id) ? 'digest' : 'shadow',
      });
      if (created.status !== 201) throw new Error(`agent for ${task.id}: ${created.status} ${JSON.stringify(created.body)}`);
      agentOf.set(task.id, created.body.id);
    }
    const started = await Promise.all(file.tasks.map(async (task) => (await api('POST', `${ws}/agents/${agentOf.get(task.id)}/runs`, { input: task.prompt })).body.id as string));
    // The producer: each task's note once (a storm: three times each, and once more with other content).
    const accepted: string[] = [];
    for (const [i, task] of file.tasks.entries()) {
      const posts = options.duplicateStorm ? [envelope(task, i + 1), envelope(task, i + 1), envelope(task, i + 1), envelope(task, i + 1, `${task.note.content} (again)`)] : [envelope(task, i + 1)];
      for (const body of posts) {
        const answer = await api('POST', `${ws}/agent-messages`, body);
        if (['observed', 'replayed'].includes(answer.body.disposition) && !accepted.includes(body.messageId)) accepted.push(body.messageId);
      }
    }
    const ended = await Promise.all(
      started.map((id) => waitFor(async () => {
        const run = (await api('GET', `${ws}/runs/${id}`)).body;
        return ['completed', 'failed', 'cancelled'].includes(run.status) && run;
      }, { timeoutMs: 600_000, intervalMs: 200, what: `run ${id} ended` })),
    );
    const runs: PilotRunRecord[] = [];
    for (const [i, task] of file.tasks.entries()) {
      const run = ended[i];
      const entries = (await api('GET', `${ws}/runs/${run.id}/transcript?limit=500`)).body.entries ?? [];
      const summary = String(run.outcome?.summary ?? '');
      const elevations = Number((await pg.query('SELECT count(*) FROM approvals WHERE run_id = $1', [run.id])).rows[0].count);
      runs.push({
        taskId: task.id,
        taskClass: task.class,
        aware: aware.get(task.id)!,
        status: run.status,
        durationMs: Date.parse(run.endedAt) - Date.parse(run.startedAt ?? run.queuedAt),
        tokensIn: run.outcome?.tokensIn ?? 0,
        addedTokens: run.outcome?.awareness?.addedTokens ?? 0,
        verified: summary.toLowerCase().includes(task.oracle.contains.toLowerCase()),
        elevations,
        interrupted: run.status === 'cancelled',
        surfaced: surfacedOf(entries),
        summary,
      });
    }
    const observations = await pg.query(`SELECT message_id, deliveries, extract(epoch FROM observed_at - received_at) * 1000 AS latency FROM agent_message_observations`);
    const quarantined = await pg.query(`SELECT reason, sum(deliveries)::int AS n FROM agent_message_quarantine GROUP BY reason`);
    const kept = await pg.query(`SELECT content AS text FROM agent_message_contents UNION ALL SELECT content::text FROM transcript_entries`);
    const plane: PlaneRecord = {
      accepted,
      observations: observations.rows.map((row) => ({ messageId: row.message_id, deliveries: row.deliveries, latencyMs: Number(row.latency) })),
      quarantined: Object.fromEntries(quarantined.rows.map((row) => [row.reason, row.n])),
      secretsPersisted: kept.rows.filter((row) => credentialShapeIn(String(row.text))).length,
    };
    const decision = decide(runs, plane);
    mkdirSync(options.out, { recursive: true });
    const report = { seed: options.seed, model: scripted ? 'scripted' : options.model, duplicateStorm: options.duplicateStorm, assignment: Object.fromEntries(aware), runs, plane: { ...plane, observations: plane.observations.length }, decision };
    writeFileSync(path.join(options.out, 'awareness-pilot.json'), `${JSON.stringify(report, null, 2)}\n`);
    const markdown = pilotMarkdown({ seed: options.seed, model: report.model, duplicateStorm: options.duplicateStorm, runs, decision });
    writeFileSync(path.join(options.out, 'awareness-pilot.md'), markdown);
    process.stdout.write(`${markdown}\nreport written to ${options.out}/awareness-pilot.{md,json}\n`);
  } finally {
    await pg.end();
    await platform.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
