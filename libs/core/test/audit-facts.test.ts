import type { NotificationSettings } from '@switchyard/contracts';
import { notificationSettingsChange, secretFact, tokenFact } from '../src/index';

const author = { workspaceId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', workspaceSlug: 'acme', actor: { type: 'member' as const, id: 'u1', name: 'Ada' } };
const bot = { type: 'bot' as const, serverUrl: 'https://chat.example.com', tokenSecret: 'MM_BOT' };
const settings = (over: Partial<NotificationSettings> = {}): NotificationSettings => ({
  connection: bot,
  defaultChannel: 'c'.repeat(26),
  rules: [
    { id: 'a', kind: 'agent.run.failed', enabled: true },
    { id: 'b', kind: 'approval.requested', enabled: true },
  ],
  ...over,
});

/** The audit builders are pure: what a fact says is decided here, and never a secret. */
describe('audit fact builders', () => {
  it('a token fact carries its listed info and owner, whatever else it is handed', () => {
    const token = { id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5c', name: 'ci', role: 'member' as const, prefix: 'sy_abcdef', expiresAt: null, userId: 'u1' };
    const fact = tokenFact(author, 'token.created', { ...token, ...({ secret: 'sy_secret', hash: 'deadbeef' } as object) });
    expect(fact).toMatchObject({ kind: 'token.created', subject: { type: 'token', id: token.id }, actor: author.actor, payload: token });
    expect(Object.keys(fact.payload).sort()).toEqual(['expiresAt', 'id', 'name', 'prefix', 'role', 'userId']);
  });

  it('a secret fact is its name', () => {
    expect(secretFact(author, 'secret.set', 'OPENAI_KEY')).toMatchObject({ kind: 'secret.set', subject: { type: 'secret', id: 'OPENAI_KEY' }, payload: { name: 'OPENAI_KEY' } });
  });

  it('a notification save says what it changed: parts, and rules added, removed and changed by id', () => {
    expect(notificationSettingsChange(settings(), settings())).toEqual({
      changed: [],
      connection: bot,
      defaultChannel: 'c'.repeat(26),
      rules: { added: [], removed: [], changed: [], count: 2 },
    });
    const after = settings({ connection: { ...bot, commandTokenSecret: 'MM_CMD' }, rules: [{ id: 'b', kind: 'approval.*', enabled: true }, { id: 'c', kind: 'x.y', enabled: false }] });
    expect(notificationSettingsChange(settings(), after)).toMatchObject({ changed: ['connection', 'rules'], rules: { added: ['c'], removed: ['a'], changed: ['b'], count: 2 } });
    // Key order is not a change (a jsonb column gives keys back in its own order); a reordering is.
    const reordered = settings({ rules: [...settings().rules].reverse() });
    expect(notificationSettingsChange(settings(), reordered)).toMatchObject({ changed: ['rules'], rules: { added: [], removed: [], changed: [] } });
    const rekeyed = settings({ rules: settings().rules.map(({ enabled, kind, id }) => ({ enabled, kind, id })) });
    expect(notificationSettingsChange(settings(), rekeyed).changed).toEqual([]);
    expect(notificationSettingsChange(settings(), settings({ connection: null, defaultChannel: null })).changed).toEqual(['connection', 'defaultChannel']);
  });
});
