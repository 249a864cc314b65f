import { newSecretsKey } from '@switchyard/core';
import {
  apiClient,
  scorecardBatchFacts,
  spawnService,
  startLocalMattermostServer,
  startStandInMcpServer,
  startTestPlatform,
  waitFor,
  type LocalMattermostServer,
  type ScriptedCase,
  type ServiceProcess,
  type StandInMcpServer,
  type TestPlatform,
} from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;
interface Run {
  id: string;
  status: string;
}

/*
 * Issue 32 §2 (decision 0049): each first-party template, adopted and enabled
 * as a person would — secrets set, its MCP servers pointed at the stand-in
 * scorecard service and code host, the checklist's notification rules added —
 * runs its scenario end to end on real processes (gateway, event-log, matcher,
 * runner, approvals, notifier) with its shipped script as the model.
 */
jest.setTimeout(240_000);

/** The `/switchyard` slash command's token (links a Mattermost user to a member, so their clicks decide). */
const COMMAND_TOKEN = 'slash-token-templates';

describe('issue 32: first-party templates, end to end', () => {
  let platform: TestPlatform;
  let notifier: ServiceProcess;
  let standIn: StandInMcpServer;
  let mattermost: LocalMattermostServer;

  beforeAll(async () => {
    [standIn, mattermost] = await Promise.all([startStandInMcpServer(), startLocalMattermostServer()]);
    platform = await startTestPlatform({
      matcher: true,
      approvals: true,
      env: { SECRETS_KEY: newSecretsKey(), RUNNER_MCP_ALLOW_PRIVATE: 'true', NOTIFICATIONS_ALLOW_PRIVATE: 'true' },
    });
    // The runner reaches the platform's own tools (emit_event) at the gateway's /mcp.
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    // Approval posts carry Approve/Deny buttons that call the gateway back.
    notifier = await spawnService('notifier', { ...platform.env, NOTIFIER_ACTION_URL: `${platform.gatewayUrl}/integrations/mattermost/actions`, NOTIFIER_HEALTH_PORT: '0', NOTIFIER_CONSUMER: `n-${Date.now()}`, NOTIFIER_BACKOFF_MS: '200' }, { readyPattern: /notifier started/ });
  }, 180_000);
  afterAll(async () => {
    await notifier?.stop();
    await platform?.stop();
    await Promise.all([standIn?.close(), mattermost?.close()]);
  });

  /**
   * A workspace with the template adopted and made ready as its checklist
   * says: secrets set, MCP servers pointed at the stand-ins, the notification
   * rules added; then enabled. Returns the workspace's client, base path, the
   * agent id and the Mattermost channel.
   */
  async function adoptAndEnable(slug: string, templateId: string) {
    const api = apiClient(platform.gatewayUrl, await platform.createWorkspace(slug));
    const base = `/v1/workspaces/${slug}`;
    const channel = mattermost.newChannelId();
    const adopted = await api('POST', `${base}/templates/${templateId}/adopt`, {});
    expect(adopted.status).toBe(201);
    const { agent, checklist } = adopted.body;
    expect(agent.enabled).toBe(false);
    // An MCP header secret holds the whole header value.
    const values: Record<string, string> = { 'scorecard-token': `Bearer ${standIn.tokens.scorecard}`, 'code-host-token': `Bearer ${standIn.tokens.code}` };
    for (const secret of checklist.secrets) {
      expect(secret.set).toBe(false);
      expect((await api('PUT', `${base}/secrets/${secret.name}`, { value: values[secret.name] })).status).toBe(201);
    }
    expect((await api('PUT', `${base}/secrets/mm-bot`, { value: mattermost.botToken })).status).toBe(201);
    expect((await api('PUT', `${base}/secrets/mm-command`, { value: COMMAND_TOKEN })).status).toBe(201);
    const settings = await api('PUT', `${base}/settings/notifications`, {
      connection: { type: 'bot', serverUrl: mattermost.url, tokenSecret: 'mm-bot', commandTokenSecret: 'mm-command' },
      defaultChannel: channel,
      rules: checklist.notificationRules,
    });
    expect(settings.status).toBe(200);
    const { spec } = (await api('GET', `${base}/agents/${agent.id}`)).body;
    const urls = standIn.urls as Record<string, string>;
    spec.tools.mcpServers = spec.tools.mcpServers.map((server: { name: string }) => ({ ...server, url: urls[server.name] }));
    const enabled = await api('PUT', `${base}/agents/${agent.id}`, { ...spec, enabled: true });
    expect([enabled.status, enabled.body.enabled]).toEqual([200, true]);
    return { api, base, agentId: agent.id as string, channel };
  }

  const runsOf = async (api: Api, base: string, agentId: string): Promise<Run[]> => (await api('GET', `${base}/runs?agentId=${agentId}&limit=100`)).body.runs;

  it('Scorecard Sentinel retries exactly the transient failures of a 20-case batch and posts one summary to Mattermost', async () => {
    const { api, base, agentId, channel } = await adoptAndEnable('sentinel', 'scorecard-sentinel');
    const cases: ScriptedCase[] = Array.from({ length: 20 }, (_, i) => ([2, 7, 11, 16].includes(i) ? 'transient' : [5, 13].includes(i) ? 'assertion' : 'passed'));
    for (const fact of scorecardBatchFacts('sc-20', cases)) expect((await api('POST', `${base}/events`, fact)).status).toBe(202);

    // One run per fact it watches: the submission, the six failed cases, the completion.
    const runs = await waitFor(
      async () => {
        const listed = await runsOf(api, base, agentId);
        return listed.length === 8 && listed.every((run) => ['completed', 'failed', 'cancelled'].includes(run.status)) && listed;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'the eight runs of the Sentinel ended' },
    );
    expect(runs.map((run) => run.status)).toEqual(Array(8).fill('completed'));
    const retried = standIn.calls.filter((call) => call.server === 'scorecard' && call.tool === 'retry_case').map((call) => call.arguments.caseId);
    expect(retried.sort()).toEqual(['case-03', 'case-08', 'case-12', 'case-17']);
    expect(standIn.calls.filter((call) => call.tool === 'get_batch')).toEqual([expect.objectContaining({ arguments: { scorecardId: 'sc-20' } })]);

    const summaries = (await api('GET', `${base}/events?kind=sentinel.summary`)).body.events;
    expect(summaries).toEqual([expect.objectContaining({ subject: { type: 'scorecard', id: 'sc-20' }, causedBy: expect.objectContaining({ runId: expect.any(String) }) })]);
    const posted = await waitFor(async () => mattermost.postsIn(channel).length > 0 && mattermost.postsIn(channel), { timeoutMs: 30_000, what: 'the summary posted to Mattermost' });
    expect(posted.map((post) => post.message)).toEqual(['Scorecard sc-20 ended (scorecard.completed): 6 of 20 cases failed.']);
    // Every run has ended and recorded one summary; deliveries are idempotent per (fact, rule).
    expect(mattermost.postsIn(channel)).toHaveLength(1);
  });

  it('Failure Fix PR parks at the PR call; an approval from a Mattermost button opens it exactly once; the comment fact carries causedBy the run', async () => {
    const { api, base, agentId, channel } = await adoptAndEnable('fixes', 'failure-fix-pr');
    // The deciding person links their Mattermost account to their membership (`/switchyard link <code>`).
    const reviewer = 'mmreviewer0000000000000000';
    const code = (await api('POST', `${base}/integrations/mattermost/link-codes`)).body.code;
    const linked = await mattermost.slashCommand(`${platform.gatewayUrl}/integrations/mattermost/commands/fixes`, { token: COMMAND_TOKEN, userId: reviewer, text: `link ${code}` });
    expect(JSON.stringify(linked.body)).toContain('Linked');
    // A scorecard that passed everything wakes nothing; one with failures wakes the agent.
    expect((await api('POST', `${base}/events`, { kind: 'scorecard.completed', subject: { type: 'scorecard', id: 'sc-ok' }, payload: { totalCases: 5, failedCases: 0 } })).status).toBe(202);
    expect((await api('POST', `${base}/events`, { kind: 'scorecard.completed', subject: { type: 'scorecard', id: 'sc-7' }, payload: { totalCases: 20, failedCases: 2 } })).status).toBe(202);

    const approval = await waitFor(async () => (await api('GET', `${base}/approvals?status=pending`)).body.approvals[0], { timeoutMs: 60_000, what: 'the parked PR call' });
    expect(approval.tool).toMatchObject({ name: 'code.open_pull_request' });
    const [run] = await runsOf(api, base, agentId);
    expect(run).toMatchObject({ id: approval.runId, status: 'awaiting_approval' });
    expect(standIn.calls.filter((call) => call.server === 'code' || call.tool === 'get_failed_cases').map((call) => call.tool)).toEqual(['get_failed_cases', 'get_file']);
    expect(standIn.pullRequests).toEqual([]);

    // Approve from the post's button; Mattermost asks the clicking user alone to confirm.
    const post = await waitFor(async () => mattermost.postsIn(channel).find((p) => p.message.includes(approval.id)), { timeoutMs: 30_000, what: 'the approval post' });
    expect((await mattermost.click(post.id, 'approve', { id: reviewer })).status).toBe(200);
    const confirmation = await waitFor(async () => mattermost.ephemeralFor(reviewer).find((p) => p.props.attachments?.[0]?.actions?.some((a) => a.id === 'confirm')), { what: 'the confirmation' });
    expect((await mattermost.click(confirmation.id, 'confirm', { id: reviewer })).status).toBe(200);
    expect((await api('GET', `${base}/approvals/${approval.id}`)).body).toMatchObject({ status: 'approved', decidedBy: { type: 'member' } });
    const ended = await waitFor(
      async () => {
        const current = (await api('GET', `${base}/runs/${approval.runId}`)).body;
        return ['completed', 'failed', 'cancelled'].includes(current.status) && current;
      },
      { timeoutMs: 60_000, what: 'the run after the approval' },
    );
    expect(ended.status).toBe('completed');
    expect(standIn.pullRequests).toEqual([expect.objectContaining({ number: 1, branch: 'fix/sc-7', title: 'Fix the failed cases of sc-7' })]);
    // A second decision changes nothing: the PR opened once.
    expect((await api('POST', `${base}/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBeGreaterThanOrEqual(400);
    expect(standIn.calls.filter((call) => call.tool === 'open_pull_request')).toHaveLength(1);

    const comments = (await api('GET', `${base}/events?kind=scorecard.commented`)).body.events;
    expect(comments).toEqual([
      expect.objectContaining({ subject: { type: 'scorecard', id: 'sc-7' }, payload: expect.objectContaining({ branch: 'fix/sc-7' }), causedBy: expect.objectContaining({ runId: approval.runId }) }),
    ]);
    expect(await runsOf(api, base, agentId)).toHaveLength(1);
  });

  it('Incident triage records incident.triaged from an opened incident, caused by its run, and posts it', async () => {
    const { api, base, agentId, channel } = await adoptAndEnable('ops', 'incident-triage');
    const opened = { kind: 'incident.opened', subject: { type: 'incident', id: 'inc-42' }, payload: { title: 'Checkout latency', severity: 'sev2' } };
    expect((await api('POST', `${base}/events`, opened)).status).toBe(202);
    const run = await waitFor(async () => (await runsOf(api, base, agentId)).find((r) => r.status === 'completed'), { timeoutMs: 60_000, what: 'the triage run' });
    const triaged = (await api('GET', `${base}/events?kind=incident.triaged`)).body.events;
    expect(triaged).toEqual([expect.objectContaining({ subject: { type: 'incident', id: 'inc-42' }, payload: expect.objectContaining({ severity: 'sev2' }), causedBy: expect.objectContaining({ runId: run.id }) })]);
    const posts = await waitFor(async () => mattermost.postsIn(channel).length > 0 && mattermost.postsIn(channel), { timeoutMs: 30_000, what: 'the triage posted' });
    expect(posts.map((post) => post.message)).toEqual(['Incident inc-42 triaged sev2: Triaged inc-42: Checkout latency']);
  });
});
