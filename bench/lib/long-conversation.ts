import type { Client } from 'pg';
import { longestSharedPrefix, type LocalOpenAiReply, type LocalOpenAiRequest } from '@switchyard/testing';
import { COMPACTION_PROMPT } from '../../services/runner/src/loop/compaction';
import { fmt, quantile } from './stats';

/**
 * The long-conversation scenario of `npm run bench:teams` (issue 31, decision
 * 0052): TEAMMATES teammates take TURNS turns each (one person's message, one
 * model answer), against the local OpenAI-compatible server counting tokens
 * (bytes / 4) and its prompt cache (the longest prefix shared with a recent
 * request). Run twice: without compaction (a budget no conversation reaches)
 * and with it. Reports the input tokens of each turn's request over the turn
 * number, the summary calls apart, and the share of each request that is an
 * unchanged prefix of the same teammate's previous one.
 */
export interface LongConversationOptions {
  teammates: number;
  turns: number;
  /** Memory of the compacting run. */
  memory: { maxContextTokens: number; keepRecentTurns: number };
  /** Characters of each person's message (padding after its marker). */
  messageChars: number;
  api: (method: string, route: string, body?: unknown) => Promise<Record<string, unknown>>;
  pg: Client;
  /** Every request the local model server received so far. */
  requests: () => readonly LocalOpenAiRequest[];
  progress: (line: string) => void;
}

/** What the scenario's agents answer: a fixed-length summary to the summarizer, `ok` to a turn. */
export function longConversationReply(request: LocalOpenAiRequest): LocalOpenAiReply | null {
  const body = request.body!;
  if (!body.model.startsWith('long-')) return null;
  if (body.messages[0]?.content === COMPACTION_PROMPT) return { type: 'message', content: `SUMMARY of ${body.messages.length} messages: ${'s'.repeat(560)}` };
  return { type: 'message', content: 'ok, noted.' };
}

interface TurnFigures {
  /** Mean input tokens of the turn's request, by turn number (1-based index 0 unused). */
  tokens: number[];
  /** Summary calls: how many, and their mean input tokens. */
  compactions: { count: number; tokensIn: number; atTurns: number[] };
  /** Unchanged-prefix share of the previous request, turns without a compaction / with one. */
  prefixPlain: number[];
  prefixCompacted: number[];
  /** The outcome's cached input tokens over its input tokens, all turns. */
  cachedShare: number;
  wallMs: number;
  /** Turns that did not complete, by status and reason ('none'). */
  failed: string;
}

async function runOne(options: LongConversationOptions, label: 'plain' | 'compact'): Promise<TurnFigures> {
  const { teammates, turns, api, pg } = options;
  const memory = label === 'plain' ? { maxContextTokens: 1_000_000, keepRecentTurns: 4 } : options.memory;
  const sessions: string[] = [];
  for (let i = 0; i < teammates; i++) {
    const agent = await api('POST', '/agents', {
      name: `long-${label}-${i}`,
      instructions: 'You are a teammate in a long conversation. Keep track of what you are told and answer briefly.',
      task: 'Answer what your mailbox holds.',
      model: { provider: 'openai', name: `long-${label}-${i}` },
      triggers: [{ kind: 'bench.never' }],
      budget: { maxTurns: 500 },
    });
    sessions.push((await api('POST', '/teammates', { name: `long-${label}-${i}`, agentId: agent.id, memory }))['sessionId'] as string);
  }
  const started = performance.now();
  const pad = 'p'.repeat(options.messageChars);
  for (let turn = 1; turn <= turns; turn++) {
    await Promise.all(sessions.map((_, i) => postOnce(options, `/teammates/long-${label}-${i}/messages`, { content: `long-${label}-${i} turn ${turn}: ${pad}` })));
    const deadline = Date.now() + 120_000;
    for (;;) {
      const done = Number(
        (await pg.query(`SELECT count(*)::int AS n FROM runs WHERE session_id = ANY($1::uuid[]) AND status IN ('completed', 'failed', 'cancelled')`, [sessions])).rows[0].n,
      );
      if (done >= teammates * turn) break;
      if (Date.now() > deadline) throw new Error(`long conversation (${label}): turn ${turn} did not end`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (turn % 10 === 0) options.progress(`long conversation (${label}): turn ${turn} of ${turns}`);
  }
  const wallMs = performance.now() - started;
  const notCompleted = (
    await pg.query(
      `SELECT status::text, reason, error->>'code' AS code, left(min(error->>'message'), 160) AS message, count(*)::int AS n FROM runs WHERE session_id = ANY($1::uuid[]) AND status <> 'completed' GROUP BY 1, 2, 3`,
      [sessions],
    )
  ).rows as Array<{ status: string; reason: string | null; code: string | null; message: string | null; n: number }>;
  const failed = notCompleted.map((row) => `${row.n} ${row.status} ${row.reason ?? row.code ?? ''}${row.message ? ` ("${row.message}")` : ''}`.trim()).join(', ') || 'none';
  if (notCompleted.length > 0) options.progress(`long conversation (${label}): turns that did not complete: ${failed}`);

  const sums = new Array<number>(turns + 1).fill(0);
  const compactions = { count: 0, tokensIn: 0, atTurns: [] as number[] };
  const prefixPlain: number[] = [];
  const prefixCompacted: number[] = [];
  for (let i = 0; i < teammates; i++) {
    const mine = options.requests().filter((request) => request.body?.model === `long-${label}-${i}`);
    let turn = 0;
    let previous: string | undefined;
    let compactedBefore = false;
    for (const request of mine) {
      if (request.body!.messages[0]?.content === COMPACTION_PROMPT) {
        compactions.count += 1;
        compactions.tokensIn += Math.ceil(request.raw.length / 4);
        if (i === 0) compactions.atTurns.push(turn + 1);
        compactedBefore = true;
        continue;
      }
      turn += 1;
      sums[turn]! += Math.ceil(request.raw.length / 4);
      if (previous !== undefined) (compactedBefore ? prefixCompacted : prefixPlain).push(longestSharedPrefix(request.raw, [{ raw: previous }]) / previous.length);
      previous = request.raw;
      compactedBefore = false;
    }
  }
  const outcomes = (await pg.query(`SELECT outcome FROM runs WHERE session_id = ANY($1::uuid[])`, [sessions])).rows as Array<{ outcome: { tokensIn: number; cachedTokensIn?: number } }>;
  const tokensIn = outcomes.reduce((sum, row) => sum + row.outcome.tokensIn, 0);
  const cached = outcomes.reduce((sum, row) => sum + (row.outcome.cachedTokensIn ?? 0), 0);
  return {
    tokens: sums.map((sum) => sum / teammates),
    compactions: { ...compactions, tokensIn: compactions.count ? compactions.tokensIn / compactions.count : 0 },
    prefixPlain,
    prefixCompacted,
    cachedShare: tokensIn ? cached / tokensIn : 0,
    wallMs,
    failed,
  };
}

/**
 * A person's message, posted again after a `503` (the gateway's "nothing was
 * delivered", decision 0035: a loaded machine's pool can time out), up to
 * three times; counted so the report can say so.
 */
async function postOnce(options: LongConversationOptions, route: string, body: unknown): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await options.api('POST', route, body);
      return;
    } catch (error) {
      if (attempt >= 3 || !/answered 503/.test(String((error as Error).message))) throw error;
      retried += 1;
    }
  }
}
let retried = 0;

/** Runs the scenario without, then with compaction; returns its section of BENCHMARKS.md. */
export async function longConversation(options: LongConversationOptions, loadLine: () => string): Promise<string> {
  const loads = [loadLine()];
  options.progress(`long conversation: ${options.teammates} teammates × ${options.turns} turns, without compaction`);
  const plain = await runOne(options, 'plain');
  loads.push(loadLine());
  options.progress('long conversation: with compaction');
  const compact = await runOne(options, 'compact');
  loads.push(loadLine());
  const { turns } = options;
  const marks = [...new Set([1, 2, 5, 10, 15, 20, 25, 30, 35, 40, turns].filter((turn) => turn <= turns))].sort((a, b) => a - b);
  const rows = marks.map((turn) => `| ${turn} | ${fmt(plain.tokens[turn]!)} | ${fmt(compact.tokens[turn]!)} |`).join('\n');
  const share = (values: number[]) => (values.length ? `mean ${fmt(mean(values) * 100, 1)} %, p1 ${fmt(quantile(values, 0.01) * 100, 1)} %, min ${fmt(Math.min(...values) * 100, 1)} % (n ${fmt(values.length)})` : 'none');
  const t10 = Math.min(10, turns);
  const ratio = compact.tokens[turns]! / compact.tokens[t10]!;
  const lateMean = mean(compact.tokens.slice(Math.max(1, turns - 9), turns + 1));
  const earlyMean = mean(compact.tokens.slice(t10, Math.min(turns, t10 + 9) + 1));
  // The saw-tooth: tokens climb to the budget, drop at a compaction, climb again; its top over the turn-10 figure.
  const peak = Math.max(...compact.tokens.slice(t10 + 1, turns + 1), 0);
  const prefixMin = compact.prefixPlain.length ? Math.min(...compact.prefixPlain, ...plain.prefixPlain) : 0;
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  return `
**Long conversation** (issue 31, decision 0052; \`BENCH_SCENARIO=long\` runs it alone): ${options.teammates} teammates × ${turns} turns each, one person's message of ${fmt(options.messageChars)} characters and one short answer per turn, all teammates' turn *n* at once; the local model server counts tokens as bytes / 4 and reports \`cached_tokens\` as the longest prefix shared with one of its last 128 requests. Without compaction (a budget of 1,000,000 tokens) and with \`memory: {maxContextTokens: ${options.memory.maxContextTokens}, keepRecentTurns: ${options.memory.keepRecentTurns}}\`, one after the other; load average ${loads.join(' → ')}; wall time ${fmt(plain.wallMs / 1000, 1)} s and ${fmt(compact.wallMs / 1000, 1)} s.

| turn | input tokens of the turn's request, no compaction (mean of ${options.teammates}) | with compaction |
|---:|---:|---:|
${rows}

- Summary calls with compaction: ${fmt(compact.compactions.count)} (${fmt(compact.compactions.count / options.teammates, 1)} a teammate; the first teammate's at turns ${compact.compactions.atTurns.join(', ') || 'none'}), ${fmt(compact.compactions.tokensIn)} input tokens each on average (counted in their turns' outcomes).
- Input tokens of all ${turns} turns, per teammate: ${fmt(sum(plain.tokens))} without compaction, ${fmt(sum(compact.tokens) + (compact.compactions.count * compact.compactions.tokensIn) / options.teammates)} with it (summary calls included).
- Unchanged prefix of the previous request, turns without a compaction: no compaction ${share(plain.prefixPlain)}; with compaction ${share(compact.prefixPlain)}. Turns right after a compaction: ${share(compact.prefixCompacted)}.
- Posts answered \`503\` (nothing delivered) and posted again: ${fmt(retried)}.
- Turns that did not complete: ${plain.failed} without compaction, ${compact.failed} with it${plain.failed === 'none' && compact.failed === 'none' ? '' : " (a teammate's requests after one are numbered one turn early)"}.
- Cached input tokens in the outcomes (\`cachedTokensIn\` / \`tokensIn\`): ${fmt(plain.cachedShare * 100, 1)} % without compaction, ${fmt(compact.cachedShare * 100, 1)} % with.

Targets: with compaction, turn ${turns} ≤ 1.2 × turn ${t10}: ${verdict(ratio <= 1.2)} (${fmt(ratio, 2)}; mean of turns ${Math.max(1, turns - 9)}–${turns} over turns ${t10}–${Math.min(turns, t10 + 9)}: ${fmt(lateMean / earlyMean, 2)}; the highest turn after turn ${t10} over turn ${t10}: ${fmt(peak / compact.tokens[t10]!, 2)} — the turn-${turns} figure depends on where turn ${turns} falls between two compactions); unchanged prefix ≥ 90 % on turns without a compaction: ${verdict(prefixMin >= 0.9)} (min ${fmt(prefixMin * 100, 1)} %).
`;
}

function mean(values: number[]): number {
  return values.length ? sum(values) / values.length : 0;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
