/**
 * Why this exists: `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` (flags of every process spawnService starts; NODE_OPTIONS refuses `--cpu-prof`)
 * leaves one V8 profile per service process; this says where each spent its
 * CPU, by source file (a package's files summed as the package), self time.
 *
 *   node --import tsx bench/lib/cpu-profile.ts DIR/*.cpuprofile
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A call frame's place: a dependency by package name, our code by its path from the repo root. */
function placeOf(url: string): string {
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith('node:')) return url;
  const ours = /\/((?:services|libs|bench)\/.*)$/.exec(url);
  return ours ? ours[1]! : url;
}

function summarize(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  /** A native frame (no url: a write, the GC) is named after the nearest caller that has one. */
  const placeOfNode = (node: ProfileNode): string => {
    if (node.callFrame.url) return placeOf(node.callFrame.url);
    const name = node.callFrame.functionName || 'native';
    for (let up = parent.get(node.id); up; up = parent.get(up.id)) if (up.callFrame.url) return `${placeOf(up.callFrame.url)} > ${name}`;
    return name;
  };
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const us = profile.timeDeltas[i] ?? 0;
    if (node.callFrame.functionName === '(idle)') return;
    const place = placeOfNode(node);
    self.set(place, (self.get(place) ?? 0) + us);
    total += us;
  });
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [`${file}: ${(total / 1000).toFixed(0)} ms of CPU sampled`, ...rows.map(([place, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${place}`)].join('\n');
}

for (const file of process.argv.slice(2)) process.stdout.write(`${summarize(file)}\n\n`);
