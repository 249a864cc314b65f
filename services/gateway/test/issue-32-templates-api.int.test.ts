import { newSecretsKey } from '@switchyard/core';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 32 §2 (decision 0049) over real HTTP: the shipped templates are listed
 * to any member; adopting one creates a disabled copy carrying templateOrigin,
 * records agent.created, and answers a checklist whose secrets say whether this
 * workspace holds them; a taken name is 409, an unknown template 404, a viewer 403.
 */
describe('issue 32: first-party templates — list and adopt', () => {
  let platform: TestPlatform;
  let admin: Api;
  let viewer: Api;
  const ws = '/v1/workspaces/acme';

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey() } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    expect((await admin('PUT', `${ws}/secrets/scorecard-token`, { value: 'sc-secret' })).status).toBeLessThan(300);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('lists the three templates to a viewer, with what each needs', async () => {
    const listed = await viewer('GET', `${ws}/templates`);
    expect(listed.status).toBe(200);
    expect(listed.body.templates.map((t: { id: string }) => t.id)).toEqual(['failure-fix-pr', 'incident-triage', 'scorecard-sentinel']);
    const fix = listed.body.templates[0];
    expect(fix).toMatchObject({
      title: 'Failure Fix PR',
      agentName: 'failure-fix-pr',
      triggers: ['scorecard.completed'],
      permissionMode: 'default',
      requiredMcpServers: [expect.objectContaining({ name: 'scorecard' }), expect.objectContaining({ name: 'code', tools: ['get_file', 'open_pull_request'] })],
    });
    expect(fix.requiredSecrets.map((s: { name: string }) => s.name)).toEqual(['scorecard-token', 'code-host-token', 'model-key']);
  });

  it('adopts a template as a disabled copy with templateOrigin, agent.created and a checklist of secrets set or missing', async () => {
    const adopted = await admin('POST', `${ws}/templates/failure-fix-pr/adopt`);
    expect(adopted.status).toBe(201);
    expect(adopted.body.agent).toMatchObject({ name: 'failure-fix-pr', version: 1, enabled: false, templateOrigin: { templateId: 'failure-fix-pr', templateVersion: '1.0.0' } });
    expect(adopted.body.checklist.secrets).toEqual([
      expect.objectContaining({ name: 'scorecard-token', set: true }),
      expect.objectContaining({ name: 'code-host-token', set: false }),
    ]);
    expect(adopted.body.checklist.mcpServers.map((s: { name: string; target: string }) => [s.name, s.target])).toEqual([
      ['scorecard', 'https://scorecards.example.com/mcp'],
      ['code', 'https://code.example.com/mcp'],
    ]);
    expect(adopted.body.checklist.notificationRules.map((r: { id: string }) => r.id)).toEqual(['failure-fix-approval', 'failure-fix-comment']);
    expect(adopted.body.checklist.notificationRulesInstalled).toEqual([
      { id: 'failure-fix-approval', status: 'installed' },
      { id: 'failure-fix-comment', status: 'installed' },
    ]);

    const id = adopted.body.agent.id;
    const agent = await admin('GET', `${ws}/agents/${id}`);
    expect(agent.body).toMatchObject({ enabled: false, version: 1, spec: { name: 'failure-fix-pr', model: { provider: 'scripted' }, permissionMode: 'default' } });
    // The origin travels with the agent (its bundle shows it).
    expect((await admin('GET', `${ws}/agents/${id}/export`)).body.agents[0].templateOrigin).toEqual({ templateId: 'failure-fix-pr', templateVersion: '1.0.0' });
    const created = await waitFor(
      async () => {
        const facts = (await admin('GET', `${ws}/events?kind=agent.created`)).body.events.filter((f: { subject: { id: string } }) => f.subject.id === id);
        return facts.length > 0 && facts;
      },
      { what: 'the agent.created fact of the copy' },
    );
    expect(created).toEqual([expect.objectContaining({ payload: expect.objectContaining({ name: 'failure-fix-pr', enabled: false, version: 1 }) })]);
  });

  it('refuses a taken name 409, adopts again under another name, and with the live model lists its key', async () => {
    const again = await admin('POST', `${ws}/templates/failure-fix-pr/adopt`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('AGENT_NAME_TAKEN');
    const live = await admin('POST', `${ws}/templates/failure-fix-pr/adopt`, { name: 'fix-live', model: 'live' });
    expect(live.status).toBe(201);
    expect(live.body.checklist.secrets.map((s: { name: string; set: boolean }) => [s.name, s.set])).toEqual([
      ['model-key', false],
      ['scorecard-token', true],
      ['code-host-token', false],
    ]);
    expect((await admin('GET', `${ws}/agents/${live.body.agent.id}`)).body.spec.model).toEqual({ provider: 'openai', name: 'gpt-4.1', apiKeySecret: 'model-key' });
  });

  it("installs the template's notification rules into the settings once, audited; a member's adopt and a workspace's own rule of that id are left alone", async () => {
    const rulesNow = async () => (await admin('GET', `${ws}/settings/notifications`)).body.rules as Array<{ id: string; kind: string }>;
    // failure-fix-pr was adopted above (twice): its two rules are in, once each, after the defaults.
    const ids = (await rulesNow()).map((rule) => rule.id);
    expect(ids.filter((id) => id.startsWith('failure-fix-'))).toEqual(['failure-fix-approval', 'failure-fix-comment']);
    const again = await admin('POST', `${ws}/templates/failure-fix-pr/adopt`, { name: 'fix-third' });
    expect(again.body.checklist.notificationRulesInstalled).toEqual([
      { id: 'failure-fix-approval', status: 'already_installed' },
      { id: 'failure-fix-comment', status: 'already_installed' },
    ]);
    expect((await rulesNow()).map((rule) => rule.id)).toEqual(ids);

    // A workspace's own rule with the template's id is kept; a member cannot change the settings through an adopt.
    const settings = (await admin('GET', `${ws}/settings/notifications`)).body;
    const own = { id: 'incident-triaged', kind: 'incident.*' };
    expect((await admin('PUT', `${ws}/settings/notifications`, { ...settings, rules: [...settings.rules, own] })).status).toBe(200);
    const member = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'builder', role: 'member' })).body.token);
    const byMember = await member('POST', `${ws}/templates/scorecard-sentinel/adopt`);
    expect(byMember.status).toBe(201);
    expect(byMember.body.checklist.notificationRulesInstalled.map((rule: { status: string }) => rule.status)).toEqual(byMember.body.checklist.notificationRules.map(() => 'not_admin'));
    const triage = await admin('POST', `${ws}/templates/incident-triage/adopt`);
    expect(triage.body.checklist.notificationRulesInstalled).toEqual([{ id: 'incident-triaged', status: 'kept_existing' }]);
    expect((await rulesNow()).find((rule) => rule.id === 'incident-triaged')).toEqual({ ...own, enabled: true });

    // Each install is one audited change of the settings document.
    const changes = await waitFor(
      async () => {
        const facts = (await admin('GET', `${ws}/events?kind=notifications.settings_changed`)).body.events as Array<{ payload: Record<string, unknown> }>;
        return facts.length >= 2 && facts;
      },
      { what: 'the settings changes recorded' },
    );
    expect(JSON.stringify(changes[0]!.payload)).toContain('failure-fix-approval');
  });

  it('answers 404 TEMPLATE_NOT_FOUND, 400 for a bad body, 403 for a viewer', async () => {
    const unknown = await admin('POST', `${ws}/templates/no-such-template/adopt`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    const bad = await admin('POST', `${ws}/templates/incident-triage/adopt`, { name: 'Not A Name', extra: 1 });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const refused = await viewer('POST', `${ws}/templates/incident-triage/adopt`);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect((await admin('GET', `${ws}/agents`)).body.agents.map((a: { spec: { name: string } }) => a.spec.name).sort()).toEqual(['failure-fix-pr', 'fix-live', 'fix-third', 'incident-triage', 'scorecard-sentinel']);
  });
});
