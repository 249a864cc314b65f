import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * Why this exists: the README's tutorial must not rot (issue 36, decision 0045). Its runnable
 * blocks are the ```sh blocks under `## Tutorial`; other blocks (```bash, ```json) are shown,
 * not run. A reader runs the blocks in one shell, so variables and functions carry from one
 * block to the next: here each block runs in its own bash, which first loads what the blocks
 * before it defined and saves what it defines, so each block has its own exit code and output.
 */

/** One runnable block: the `### ` step it is under, its place in that step, its text. */
export interface TutorialBlock {
  step: string;
  index: number;
  script: string;
}

const TUTORIAL_HEADING = /^## Tutorial\b.*$/m;

/** The ```sh blocks of the README's `## Tutorial` section, in order. */
export function tutorialBlocks(readme: string): TutorialBlock[] {
  const start = readme.search(TUTORIAL_HEADING);
  if (start < 0) throw new Error('the README has no "## Tutorial" section');
  const rest = readme.slice(start).split('\n').slice(1);
  const end = rest.findIndex((line) => /^## /.test(line));
  const lines = end < 0 ? rest : rest.slice(0, end);
  const blocks: TutorialBlock[] = [];
  let step = '';
  let fence: string | null = null;
  let body: string[] = [];
  for (const line of lines) {
    if (fence === null) {
      if (line.startsWith('### ')) step = line.slice(4).trim();
      const open = /^```(\S*)\s*$/.exec(line);
      if (open) {
        fence = open[1]!;
        body = [];
      }
    } else if (/^```\s*$/.test(line)) {
      if (fence === 'sh') blocks.push({ step, index: blocks.filter((block) => block.step === step).length, script: body.join('\n') });
      fence = null;
    } else {
      body.push(line);
    }
  }
  if (fence !== null) throw new Error('the tutorial has an unclosed code block');
  return blocks;
}

/** The shell variables the blocks assign (`NAME=…`, `for NAME in`): what carries to the next block. */
export function assignedNames(blocks: readonly TutorialBlock[]): string[] {
  const names = new Set<string>();
  for (const { script } of blocks) {
    for (const match of script.matchAll(/(?:^|[\s;(])([A-Z_][A-Z0-9_]*)=/gm)) names.add(match[1]!);
    for (const match of script.matchAll(/\bfor ([A-Z_][A-Z0-9_]*) in\b/g)) names.add(match[1]!);
  }
  return [...names].sort();
}

/** What one block did. */
export interface BlockResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A shell session: blocks run one after another, sharing variables and functions as a reader's shell would. */
export interface TutorialShell {
  run(block: TutorialBlock, timeoutMs: number): Promise<BlockResult>;
  /** A variable as the blocks so far left it. */
  variable(name: string): Promise<string>;
  close(): void;
}

/**
 * Opens a session whose blocks run with `bash` in `cwd`, `env` over this process's environment.
 * Each block runs under `set -eo pipefail` (a failing command fails the block, as a reader would
 * see it fail), after loading the state file and before saving it.
 */
export function tutorialShell(cwd: string, env: Record<string, string>, names: readonly string[]): TutorialShell {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sy-tutorial-'));
  const state = path.join(dir, 'state.sh');
  const save = `set +e; { for name in ${names.join(' ')}; do [ -n "\${!name+x}" ] && declare -p "$name"; done; declare -f; } > '${state}'`;
  const bash = (script: string, timeoutMs: number) =>
    new Promise<BlockResult>((resolve) => {
      const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // The whole process group: a block's curl or npm must not outlive it.
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr: code === null ? `${stderr}\n(killed after ${timeoutMs} ms)` : stderr });
      });
    });
  return {
    run: (block, timeoutMs) => bash(`set -eo pipefail\n[ -f '${state}' ] && . '${state}'\n${block.script}\n${save}`, timeoutMs),
    variable: async (name) => (await bash(`. '${state}'; printf %s "\${${name}:-}"`, 10_000)).stdout,
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
