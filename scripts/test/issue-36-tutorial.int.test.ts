import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  apiClient,
  createTestDatabase,
  createTestRedis,
  freePort,
  spawnScript,
  startLocalMattermostServer,
  startLocalOpenAiServer,
  waitFor,
  type LocalMattermostServer,
  type LocalOpenAiServer,
  type ServiceProcess,
  type TestDatabase,
  type TestRedis,
} from '@switchyard/testing';
import { assignedNames, tutorialBlocks, tutorialShell, type BlockResult, type TutorialBlock, type TutorialShell } from './lib/tutorial-blocks';

/*
 * Issue 36: the README's tutorial runs end to end (decision 0045). Every ```sh block of its
 * `## Tutorial` section runs, in order, with bash against the whole platform in one process
 * (scripts/start-all.ts, what `npm start` runs), with a local OpenAI-compatible server and a local
 * Mattermost stand-in where a reader's would be, named by the variables the tutorial itself reads
 * (MODEL_URL, MODEL_NAME, MODEL_KEY, MM_URL, MM_BOT_TOKEN, MM_CHANNEL). Each block must exit 0,
 * and what it shows a reader — and what it did — is asserted step by step.
 */
jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const BLOCKS = tutorialBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
const ANSWER = 'A switchyard sorts railway cars onto the tracks that make up trains.';
const MODEL_KEY = 'sk-tutorial-key';
const WS = 'acme';

/** The blocks of the step whose heading starts with `number.` */
const blocksOf = (number: number): TutorialBlock[] => BLOCKS.filter((block) => block.step.startsWith(`${number}. `));

describe('the README tutorial', () => {
  it('has the steps the issue asks for, each with a runnable block', () => {
    expect(BLOCKS.map((block) => block.step).filter((step, i, all) => all.indexOf(step) === i)).toEqual([
      '1. A workspace, a token and a scripted agent',
      '2. A model-driven agent',
      '3. An approval',
      '4. Two teammates talking',
      '5. A task',
      '6. MCP from a desktop client',
      '7. The Mattermost bot',
      '8. Time: a schedule, a wait for a fact, a backfill',
    ]);
  });

  describe('runs every shell block against a started platform', () => {
    let db: TestDatabase;
    let redis: TestRedis;
    let model: LocalOpenAiServer;
    let mattermost: LocalMattermostServer;
    let platform: ServiceProcess;
    let shell: TutorialShell;
    let gatewayUrl: string;
    let channel: string;
    const api = async () => apiClient(gatewayUrl, await shell.variable('TOKEN'));
    /** Runs the step's blocks in order; each must exit 0. */
    const runStep = async (number: number): Promise<BlockResult[]> => {
      const results: BlockResult[] = [];
      for (const block of blocksOf(number)) {
        const result = await shell.run(block, 90_000);
        if (result.code !== 0) throw new Error(`block ${block.index} of "${block.step}" exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
        results.push(result);
      }
      return results;
    };

    beforeAll(async () => {
      // The tutorial's blocks need bash, curl and jq, as a reader's machine does.
      for (const tool of ['bash', 'curl', 'jq']) execFileSync(tool, ['--version'], { stdio: 'ignore' });
      [db, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
      model = await startLocalOpenAiServer({ respond: () => ({ type: 'message', content: ANSWER, usage: { prompt_tokens: 40, completion_tokens: 14 } }) });
      mattermost = await startLocalMattermostServer();
      channel = mattermost.newChannelId();
      const port = await freePort();
      gatewayUrl = `http://127.0.0.1:${port}`;
      const stores = { DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix };
      const healthPorts = Object.fromEntries(['GATEWAY', 'EVENT_LOG', 'MATCHER', 'RUNNER', 'APPROVALS', 'NOTIFIER'].map((name) => [`${name}_HEALTH_PORT`, '0']));
      // What `npm start` gives the services (its SECRETS_KEY, the gateway's port), and the two
      // private-address settings the tutorial tells a reader with local servers to set.
      platform = await spawnScript(
        'scripts/start-all.ts',
        { ...stores, ...healthPorts, PORT: String(port), SECRETS_KEY: randomBytes(32).toString('base64'), RUNNER_MODEL_ALLOW_PRIVATE: 'true', NOTIFICATIONS_ALLOW_PRIVATE: 'true' },
        { readyPattern: /"msg":"all services started"/, timeoutMs: 90_000 },
      );
      // The reader's shell: the admin CLI finds the stores through DATABASE_URL / REDIS_URL.
      shell = tutorialShell(ROOT, {
        ...stores,
        SY: gatewayUrl,
        WS,
        MODEL_URL: model.baseUrl,
        MODEL_NAME: 'tutorial-model',
        MODEL_KEY,
        MM_URL: mattermost.url,
        MM_BOT_TOKEN: mattermost.botToken,
        MM_CHANNEL: channel,
      }, assignedNames(BLOCKS));
    }, 180_000);

    afterAll(async () => {
      shell?.close();
      await platform?.stop();
      await Promise.all([model?.close(), mattermost?.close()]);
      await redis?.cleanup();
      await db?.drop();
    });

    it('1: a workspace and its admin token, then a scripted agent noting a failing scorecard', async () => {
      const [whoami, agent] = await runStep(1);
      expect(JSON.parse(whoami!.stdout)).toEqual({ workspace: WS, role: 'admin' });
      expect(agent!.stdout).toContain('"summary": "Noted sc_9."');
      const notes = (await (await api())('GET', `/v1/workspaces/${WS}/events?kind=note.*`)).body.events;
      expect(notes).toEqual([expect.objectContaining({ kind: 'note.added', subject: { type: 'scorecard', id: 'sc_9' }, causedBy: expect.objectContaining({ runId: expect.any(String) }) })]);
    });

    it('2: a model-driven agent on an OpenAI-compatible URL on 127.0.0.1 answers, its key sent to that server', async () => {
      const [result] = await runStep(2);
      expect(JSON.parse(result!.stdout)).toMatchObject({ status: 'completed', answer: ANSWER });
      const asked = model.requests.filter((request) => request.path === '/v1/chat/completions');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ authorization: `Bearer ${MODEL_KEY}`, body: expect.objectContaining({ model: 'tutorial-model' }) });
    });

    it('3: a run parks on an approval; the block approves it and the run completes', async () => {
      const [parked, decided] = await runStep(3);
      const approvalId = await shell.variable('APPROVAL');
      expect(parked!.stdout).toContain(`approval ${approvalId} is waiting: ${gatewayUrl}/approvals`);
      expect(decided!.stdout).toContain('"status": "approved"');
      expect(decided!.stdout).toContain('"summary": "Published v1.2."');
      const approval = (await (await api())('GET', `/v1/workspaces/${WS}/approvals/${approvalId}`)).body;
      expect(approval).toMatchObject({ status: 'approved', note: 'ship it', decidedBy: { type: 'member' } });
      const published = (await (await api())('GET', `/v1/workspaces/${WS}/events?kind=release.published`)).body.events;
      expect(published).toEqual([expect.objectContaining({ subject: { type: 'release', id: 'v1.2' } })]);
    });

    it('4: a message wakes ada, ada messages bob, bob files a task', async () => {
      const [result] = await runStep(4);
      expect(result!.stdout).toContain('"lastTurn": "completed"');
      const client = await api();
      const mates = (await client('GET', `/v1/workspaces/${WS}/teammates`)).body.teammates;
      expect(mates.map((mate: { name: string; turns: number }) => [mate.name, mate.turns])).toEqual([
        ['ada', 1],
        ['bob', 1],
      ]);
      const sent = (await client('GET', `/v1/workspaces/${WS}/events?kind=message.sent`)).body.events;
      expect(sent.map((fact: { payload: { teammate: string } }) => fact.payload.teammate)).toEqual(['ada', 'bob']);
    });

    it('5: the task bob filed is claimed and completed', async () => {
      const [result] = await runStep(5);
      expect(result!.stdout).toContain('"subject": "Write the release notes for v1.2"');
      const tasks = (await (await api())('GET', `/v1/workspaces/${WS}/tasks`)).body.tasks;
      expect(tasks).toEqual([expect.objectContaining({ subject: 'Write the release notes for v1.2', status: 'completed' })]);
    });

    it("6: the MCP endpoint lists the token's tools and answers a call", async () => {
      const [result] = await runStep(6);
      const [tools, ...task] = result!.stdout.trim().split('\n');
      expect(tools!.split(' ')).toEqual(expect.arrayContaining(['list_events', 'emit_event', 'decide_approval', 'list_tasks']));
      expect(JSON.parse(task.join('\n'))).toEqual({ subject: 'Write the release notes for v1.2', status: 'completed' });
    });

    it("7: the Mattermost bot posts the test message and a rule's note to the channel", async () => {
      const [result] = await runStep(7);
      expect(result!.stdout).toContain('"ok": true');
      const posts = await waitFor(
        async () => {
          const messages = mattermost.postsIn(channel).map((post) => post.message);
          return messages.some((message) => message === 'Scorecard sc_10: 2 failures noted') && messages;
        },
        { timeoutMs: 30_000, what: 'the note posted to Mattermost' },
      );
      expect(posts).toHaveLength(2);
      expect(posts[0]).toMatch(/test/i);
    });

    it('8: a schedule fires and is turned off, a run waits for CI and resumes with it, a backfill dry run counts the scorecards', async () => {
      const [schedule, wait, backfill] = await runStep(8);
      expect(schedule!.stdout).toContain('{"name":"heartbeat","enabled":false}');
      expect(JSON.parse(wait!.stdout)).toEqual({ status: 'completed', summary: 'CI is green: deploying.' });
      const client = await api();
      const entries = (await client('GET', `/v1/workspaces/${WS}/runs/${await shell.variable('DEPLOY')}/transcript`)).body.entries;
      const waited = entries.find((entry: { type: string; content: { name?: string } }) => entry.type === 'tool' && entry.content.name === 'platform.wait_for_event');
      expect(JSON.parse(waited.content.result)).toMatchObject({ type: 'fact', fact: { kind: 'ci.finished', payload: { branch: 'main' } } });
      // Steps 1 and 7 recorded two scorecards today.
      expect(JSON.parse(backfill!.stdout)).toEqual({ dryRun: true, runs: 2 });
    });
  });
});
