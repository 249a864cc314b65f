import { AUDIT_FACT_KINDS, type Fact } from '@switchyard/contracts';
import { whatWasDone, whoDid, type AuditNames } from '../ui/src/audit-words';

const names: AuditNames = {
  actor: (type, id) => (type === 'member' && id === 'u-bea' ? 'Bea' : undefined),
  agent: (id) => (id === 'a-1' ? 'triage' : undefined),
};
const fact = (kind: string, payload: Record<string, unknown>, subject = { type: 'x', id: 'a-1' }, actor?: Fact['actor']): Fact => ({
  id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
  seq: 1,
  workspace: 'acme',
  kind,
  subject,
  ...(actor ? { actor } : {}),
  payload: payload as Fact['payload'],
  ts: '2026-12-04T10:00:00.000Z',
});

/** The Audit page's words (services/gateway/ui/src/audit-words.ts) are pure: every audit kind reads as a sentence, not as its kind. */
describe('the audit page’s words', () => {
  it('has words for every audit kind', () => {
    for (const kind of AUDIT_FACT_KINDS) expect(whatWasDone(fact(kind, {}), names)).not.toContain(kind);
  });

  it.each([
    ['token.revoked', { name: 'ci', role: 'member', prefix: 'sy_abcdef', expiresAt: null }, 'revoked token “ci” (member, sy_abcdef…)'],
    ['secret.set', { name: 'OPENAI_KEY' }, 'set secret OPENAI_KEY'],
    ['schedule.created', { name: 'standup', cron: '0 9 * * 1-5', everyMs: null, timezone: 'Europe/Paris', enabled: true }, 'created schedule standup (0 9 * * 1-5 in Europe/Paris)'],
    ['schedule.updated', { name: 'tick', cron: null, everyMs: 60000, timezone: 'UTC', enabled: false }, 'changed schedule tick (every 60 s, disabled)'],
    ['schedule.deleted', { name: 'tick' }, 'deleted schedule tick'],
    ['workspace.settings_changed', { agentsPaused: true, approvals: 'enabled', changed: ['agentsPaused'] }, 'paused all agents (kill switch on)'],
    ['workspace.settings_changed', { agentsPaused: false, approvals: 'deny', changed: ['agentsPaused', 'approvals'] }, 'resumed agents (kill switch off) and set approvals to deny'],
    ['workspace.settings_changed', { agentsPaused: false, approvals: 'enabled', changed: [] }, 'saved the workspace settings (nothing changed)'],
    ['workspace.settings_changed', { agentsPaused: false, approvals: 'enabled', retention: { factsDays: 7, transcriptsDays: 30 }, changed: ['retention'] }, 'set retention to facts 7 days, transcripts 30 days'],
    ['workspace.settings_changed', { agentsPaused: true, approvals: 'enabled' }, 'saved the workspace settings: agents paused, approvals enabled'],
    [
      'notifications.settings_changed',
      { changed: ['defaultChannel', 'rules'], rules: { added: ['a'], removed: [], changed: ['b', 'c'], count: 3 } },
      'changed the notification settings: default channel, rules (added a; changed b, c)',
    ],
    ['notifications.settings_changed', { changed: [], rules: {} }, 'saved the notification settings (nothing changed)'],
    ['mattermost.linked', { userId: 'u-bea', role: 'member' }, 'linked Mattermost user a-1 to Bea (at most member)'],
    ['agent.collaborator_changed', { collaboratorId: 'a-2', collaboratorName: 'fixer', enabled: true }, 'allowed agent triage to delegate to fixer'],
    ['agent.collaborator_changed', { collaboratorId: 'a-2', collaboratorName: 'fixer', enabled: null }, 'removed the rule letting agent triage delegate to fixer'],
    ['agent.updated', { name: 'triage', version: 4, enabled: true }, 'saved version 4 of agent triage'],
    ['agent.pinned', { name: 'triage', version: 4, enabled: true, pinnedVersion: 2 }, 'pinned version 2 of agent triage: new runs use it (latest is 4)'],
    ['agent.unpinned', { name: 'triage', version: 4, enabled: true, pinnedVersion: null }, 'unpinned agent triage: new runs use the latest version (4)'],
    ['agent.tagged', { name: 'triage', tag: 'stable', version: 3, previousVersion: 2 }, 'tagged version 3 of agent triage “stable” (moved from version 2)'],
    ['agent.tagged', { name: 'triage', tag: 'stable', version: 3, previousVersion: null }, 'tagged version 3 of agent triage “stable”'],
    ['agent.untagged', { name: 'triage', tag: 'stable', version: 3 }, 'removed tag “stable” from version 3 of agent triage'],
    ['member.role_changed', { userId: 'u-bea', role: 'admin', previousRole: 'member' }, 'changed Bea’s role from member to admin'],
    ['member.removed', { userId: 'u-9876543210' }, 'removed member 76543210 from the workspace'],
    ['webhook.configured', { name: 'gh', verifier: 'github', created: true }, 'created inbound webhook gh (github)'],
    ['webhook.configured', { name: 'gh', verifier: 'hmac-sha256', created: false }, 'changed inbound webhook gh (hmac-sha256)'],
    ['webhook.deleted', { name: 'gh', verifier: 'github' }, 'deleted inbound webhook gh'],
  ])('%s %j reads “%s”', (kind, payload, words) => {
    expect(whatWasDone(fact(kind, payload), names)).toBe(words);
  });

  it('names who did it: the recorded name, a known one, or the kind of actor and the end of its id', () => {
    expect(whoDid(fact('secret.set', {}, undefined, { type: 'member', id: 'u-bea', name: 'Beatrice' }), names)).toBe('Beatrice');
    expect(whoDid(fact('secret.set', {}, undefined, { type: 'member', id: 'u-bea' }), names)).toBe('Bea');
    expect(whoDid(fact('secret.set', {}, undefined, { type: 'member', id: 'u-0123456789ab' }), names)).toBe('member 456789ab');
    expect(whoDid(fact('agent.created', {}, undefined, { type: 'agent', id: 'a-1' }), { ...names, actor: () => 'triage' })).toBe('agent triage');
    expect(whoDid(fact('agent.created', {}), names)).toBe('someone');
    expect(whoDid(fact('token.created', {}, undefined, { type: 'system', id: 'admin-cli', name: 'operator (npm run admin)' }), names)).toBe('operator (npm run admin)');
    expect(whoDid(fact('token.created', {}, undefined, { type: 'system', id: 'ops' }), names)).toBe('the platform');
  });
});
