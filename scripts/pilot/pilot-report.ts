import type { PilotDecision, PilotRunRecord } from './gates';

const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
const gateValue = (name: string, value: number) => (/(ms)/.test(name) ? `${Math.round(value)} ms` : /delivery|duplicate|tokens|overhead/.test(name) ? pct(value) : String(value));

/** The pilot's report as Markdown: the assignment, every gate, the figures per class, the labels and the decision. */
export function pilotMarkdown(input: { seed: number; model: string; duplicateStorm: boolean; runs: PilotRunRecord[]; decision: PilotDecision }): string {
  const { decision, runs } = input;
  const lines = [
    '# Awareness pilot report (ADR 0002)',
    '',
    `- Seed: ${input.seed} · model: ${input.model} · runs: ${runs.length} (${runs.filter((r) => r.aware).length} with digest, ${runs.filter((r) => !r.aware).length} shadow)${input.duplicateStorm ? ' · **duplicate storm injected**' : ''}`,
    `- Decision: **${decision.decision}**${decision.reasons.length ? ` — ${decision.reasons.join('; ')}` : ''}`,
    ...decision.notEvaluated.map((what) => `- Not evaluated: ${what}`),
    '',
    '## Gates',
    '',
    '| gate | value | bound | pass |',
    '|---|---:|---|---|',
    ...decision.gates.map((g) => `| ${g.name} | ${gateValue(g.name, g.value)} | ${g.bound} | ${g.pass ? 'yes' : '**no**'} |`),
    '',
    '## By class',
    '',
    '| class | runs on / off | first-pass verified on / off | median time on / off |',
    '|---|---|---|---|',
    ...Object.entries(decision.byClass).map(([c, f]) => `| ${c} | ${f.on.runs} / ${f.off.runs} | ${pct(f.on.acceptance)} / ${pct(f.off.acceptance)} | ${Math.round(f.on.medianMs)} ms / ${Math.round(f.off.medianMs)} ms |`),
    '',
    `Acceptance gain: ${decision.acceptanceGainPoints.toFixed(1)} points; median time fall: ${pct(decision.medianTimeFall)}; message-attributable regressions: ${pct(decision.messageRegressions)}.`,
    '',
    '## Assignment and surfaced messages',
    '',
    '| task | class | awareness | status | verified | notes surfaced |',
    '|---|---|---|---|---|---|',
    ...runs.map((r) => `| ${r.taskId} | ${r.taskClass} | ${r.aware ? 'digest' : 'shadow'} | ${r.status} | ${r.verified ? 'yes' : 'no'} | ${r.surfaced.length} |`),
    '',
    '| task | note seq | label |',
    '|---|---:|---|',
    ...(decision.labels.length ? decision.labels.map((l) => `| ${l.taskId} | ${l.seq} | ${l.label} |`) : ['| — | — | no message was surfaced |']),
    '',
  ];
  return lines.join('\n');
}
