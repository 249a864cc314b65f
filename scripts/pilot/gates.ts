/**
 * The gates of ADR 0002's shadow pilot (issue 34 §7), computed from records
 * the platform keeps: runs and their outcomes, observations, quarantine. Pure:
 * records in, gates and the decision out, so a test can feed it any storm.
 */

/** A task's class, as preregistered. */
export type TaskClass = 'qa' | 'debug' | 'impl';

/** One pilot run as the platform recorded it, with its oracle's verdict. */
export interface PilotRunRecord {
  taskId: string;
  taskClass: TaskClass;
  aware: boolean;
  status: string;
  durationMs: number;
  tokensIn: number;
  /** Digest tokens counted apart (outcome.awareness.addedTokens); 0 for runs off. */
  addedTokens: number;
  /** The oracle passed on the first (only) attempt. */
  verified: boolean;
  /** Approvals the run requested or permission changes it made (authority elevation). */
  elevations: number;
  /** Runs stopped or interrupted while they worked. */
  interrupted: boolean;
  /** The digest texts the run received (empty for runs off). */
  surfaced: { seq: number; content: string }[];
  /** The run's final answer. */
  summary: string;
}

/** The observation plane's records for the pilot's workspace. */
export interface PlaneRecord {
  /** Notes the producers posted and were answered observed or replayed (unique messageIds). */
  accepted: string[];
  /** Observations stored: messageId, deliveries and post → observed latency. */
  observations: { messageId: string; deliveries: number; latencyMs: number }[];
  /** Quarantined posts by reason (deliveries summed). */
  quarantined: Record<string, number>;
  /** Credential shapes found anywhere the pilot's text is kept (contents, transcripts). */
  secretsPersisted: number;
}

/** One gate: its figure, its bound and whether it passed. */
export interface Gate {
  name: string;
  value: number;
  bound: string;
  pass: boolean;
}

/** A surfaced message's label. */
export type Label = 'helped' | 'neutral' | 'diverted';

/** What the pilot decided, with everything it decided from. */
export interface PilotDecision {
  gates: Gate[];
  safetyPassed: boolean;
  byClass: Record<TaskClass, { on: { runs: number; acceptance: number; medianMs: number }; off: { runs: number; acceptance: number; medianMs: number } }>;
  acceptanceGainPoints: number;
  medianTimeFall: number;
  labels: { taskId: string; seq: number; label: Label }[];
  messageRegressions: number;
  decision: 'proceed' | 'stop';
  reasons: string[];
  /** ADR conditions this pilot cannot judge: a proceed holds only within them. */
  notEvaluated: string[];
}

/** The pilot runs every service on one host, so ADR 0002's cross-host stop condition is out of its reach. */
export const NOT_EVALUATED = ['cross-host delivery: every service ran on one host; a pilot across hosts must judge it before delivery crosses hosts'];

const median = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const p95 = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
};
const rate = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
/** A note echoed in an answer: its first 40 characters appear in it. */
const echoes = (summary: string, content: string) => content.length > 0 && summary.includes(content.slice(0, 40));

/** Labels each surfaced note: echoed in a verified answer helped, echoed in a failed one diverted, otherwise neutral. */
export function labelSurfaced(runs: PilotRunRecord[]): PilotDecision['labels'] {
  return runs.flatMap((run) =>
    run.surfaced.map((note) => ({ taskId: run.taskId, seq: note.seq, label: (echoes(run.summary, note.content) ? (run.verified ? 'helped' : 'diverted') : 'neutral') as Label })),
  );
}

/** Every gate of ADR 0002 and the proceed / stop decision. */
export function decide(runs: PilotRunRecord[], plane: PlaneRecord): PilotDecision {
  const on = runs.filter((run) => run.aware);
  const off = runs.filter((run) => !run.aware);
  const observed = new Set(plane.observations.map((o) => o.messageId));
  const delivered = plane.accepted.filter((id) => observed.has(id)).length;
  const unique = plane.observations.length;
  const duplicateDeliveries = plane.observations.reduce((n, o) => n + o.deliveries - 1, 0) + (plane.quarantined.duplicate_message ?? 0);
  const labels = labelSurfaced(runs);
  const messageCaused = on.filter((run) => run.status === 'completed' && !run.verified && run.surfaced.some((note) => echoes(run.summary, note.content))).length;
  const tokensOn = on.reduce((n, run) => n + run.tokensIn, 0);
  const added = on.reduce((n, run) => n + run.addedTokens, 0);
  const wallOn = median(on.map((run) => run.durationMs));
  const wallOff = median(off.map((run) => run.durationMs));
  const gates: Gate[] = [
    { name: 'command interruptions', value: runs.filter((run) => run.interrupted).length, bound: '= 0', pass: runs.every((run) => !run.interrupted) },
    { name: 'authority elevation', value: runs.reduce((n, run) => n + run.elevations, 0), bound: '= 0', pass: runs.every((run) => run.elevations === 0) },
    { name: 'secret persistence', value: plane.secretsPersisted, bound: '= 0', pass: plane.secretsPersisted === 0 },
    { name: 'message-caused unverified landings', value: messageCaused, bound: '= 0', pass: messageCaused === 0 },
    { name: 'unique-message delivery', value: rate(delivered, plane.accepted.length), bound: '≥ 99 %, no silent loss', pass: plane.accepted.length === 0 || delivered === plane.accepted.length },
    { name: 'p95 observation (ms)', value: p95(plane.observations.map((o) => o.latencyMs)), bound: '≤ 10,000', pass: p95(plane.observations.map((o) => o.latencyMs)) <= 10_000 },
    { name: 'duplicate observations', value: rate(duplicateDeliveries, unique), bound: '< 0.5 %', pass: rate(duplicateDeliveries, unique) < 0.005 },
    { name: 'added tokens', value: rate(added, tokensOn), bound: '≤ 10 %', pass: rate(added, tokensOn) <= 0.1 },
    { name: 'wall-clock overhead', value: wallOff === 0 ? 0 : wallOn / wallOff - 1, bound: '≤ 5 %', pass: wallOff === 0 || wallOn / wallOff - 1 <= 0.05 },
  ];
  const classes: TaskClass[] = ['qa', 'debug', 'impl'];
  const figure = (subset: PilotRunRecord[]) => ({ runs: subset.length, acceptance: rate(subset.filter((r) => r.verified).length, subset.length), medianMs: median(subset.map((r) => r.durationMs)) });
  const byClass = Object.fromEntries(classes.map((c) => [c, { on: figure(on.filter((r) => r.taskClass === c)), off: figure(off.filter((r) => r.taskClass === c)) }])) as PilotDecision['byClass'];
  const acceptanceGainPoints = (figure(on).acceptance - figure(off).acceptance) * 100;
  const medianTimeFall = wallOff === 0 ? 0 : 1 - wallOn / wallOff;
  const diverted = labels.filter((l) => l.label === 'diverted').length;
  const messageRegressions = rate(diverted, labels.length);
  const safetyPassed = gates.every((gate) => gate.pass);
  const reasons: string[] = [];
  for (const gate of gates) if (!gate.pass) reasons.push(`gate failed: ${gate.name}`);
  // A class whose acceptance with awareness falls by 10 points or more is a material regression.
  for (const c of classes) if (byClass[c].on.runs > 0 && byClass[c].off.runs > 0 && byClass[c].off.acceptance - byClass[c].on.acceptance >= 0.1) reasons.push(`material regression in class ${c}`);
  if (messageRegressions > 0.05) reasons.push('message-attributable regressions above 5 %');
  const benefit = acceptanceGainPoints >= 10 || medianTimeFall >= 0.15;
  if (!benefit) reasons.push('benefit below threshold (acceptance +10 points or median time −15 %)');
  return { gates, safetyPassed, byClass, acceptanceGainPoints, medianTimeFall, labels, messageRegressions, decision: reasons.length === 0 ? 'proceed' : 'stop', reasons, notEvaluated: NOT_EVALUATED };
}
