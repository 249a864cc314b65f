import type { Fact } from './types';

/** What the words need beside the fact: names of people and agents known to the page. */
export interface AuditNames {
  /** The name of an actor by type and id, when the page knows it. */
  actor(type: string, id: string): string | undefined;
  /** An agent's name by id, when the page knows it. */
  agent(id: string): string | undefined;
}

type Payload = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
const short = (id: string) => id.slice(-8);

/** Who did it, in words: the recorded name, the name the page knows, or the kind of actor and the end of its id. */
export function whoDid(fact: Fact, names: AuditNames): string {
  const actor = fact.actor;
  if (!actor) return 'someone';
  const name = actor.name ?? names.actor(actor.type, actor.id);
  if (actor.type === 'agent') return `agent ${name ?? short(actor.id)}`;
  if (actor.type === 'system') return actor.name ?? 'the platform';
  return name ?? `${actor.type} ${short(actor.id)}`;
}

/** A person named in a payload (the member a change was about), by the names the page knows. */
function person(id: unknown, names: AuditNames, fallback?: unknown): string {
  if (typeof id !== 'string') return text(fallback) ?? 'someone';
  return names.actor('member', id) ?? text(fallback) ?? `member ${short(id)}`;
}

function tokenWords(verb: string, p: Payload): string {
  const expiry = text(p.expiresAt) ? `, expires ${new Date(String(p.expiresAt)).toLocaleString()}` : '';
  return `${verb} token “${text(p.name) ?? '?'}” (${text(p.role) ?? '?'}, ${text(p.prefix) ?? ''}…${expiry})`;
}

function notificationWords(p: Payload): string {
  const changed = list(p.changed);
  if (changed.length === 0) return 'saved the notification settings (nothing changed)';
  const rules = (p.rules ?? {}) as Payload;
  const detail = [['added', rules.added], ['removed', rules.removed], ['changed', rules.changed]]
    .filter(([, ids]) => list(ids).length > 0)
    .map(([verb, ids]) => `${String(verb)} ${list(ids).join(', ')}`);
  const parts = changed.map((part) => (part === 'rules' && detail.length > 0 ? `rules (${detail.join('; ')})` : part === 'defaultChannel' ? 'default channel' : part));
  return `changed the notification settings: ${parts.join(', ')}`;
}

/** A schedule's timing as its audit fact states it: `0 9 * * 1-5 in Europe/Paris`, or `every 60 s`. */
function scheduleTiming(p: Payload): string {
  if (typeof p.everyMs === 'number') return `every ${p.everyMs % 1000 === 0 ? `${p.everyMs / 1000} s` : `${p.everyMs} ms`}`;
  return `${text(p.cron) ?? '?'} in ${text(p.timezone) ?? 'UTC'}`;
}

function settingsWords(p: Payload): string {
  const changed = Array.isArray(p.changed) ? list(p.changed) : undefined;
  const paused = p.agentsPaused === true;
  if (changed === undefined) return `saved the workspace settings: agents ${paused ? 'paused' : 'running'}, approvals ${text(p.approvals) ?? 'enabled'}`;
  if (changed.length === 0) return 'saved the workspace settings (nothing changed)';
  const parts = changed.map((name) => {
    if (name === 'agentsPaused') return paused ? 'paused all agents (kill switch on)' : 'resumed agents (kill switch off)';
    if (name === 'retention') return retentionWords(p.retention);
    return `set approvals to ${text(p.approvals) ?? '?'}`;
  });
  return parts.join(' and ');
}

function retentionWords(value: unknown): string {
  const retention = (value ?? {}) as Payload;
  const days = (n: unknown) => (typeof n === 'number' ? `${n} days` : '?');
  return `set retention to facts ${days(retention.factsDays)}, transcripts ${days(retention.transcriptsDays)}`;
}

function collaboratorWords(fact: Fact, names: AuditNames): string {
  const p = fact.payload as Payload;
  const from = names.agent(fact.subject.id) ?? short(fact.subject.id);
  const to = text(p.collaboratorName) || short(String(p.collaboratorId ?? ''));
  if (p.enabled === null) return `removed the rule letting agent ${from} delegate to ${to}`;
  return p.enabled === true ? `allowed agent ${from} to delegate to ${to}` : `forbade agent ${from} to delegate to ${to}`;
}

function memberWords(fact: Fact, names: AuditNames): string {
  const p = fact.payload as Payload;
  const who = person(p.userId ?? (fact.subject.type === 'member' ? fact.subject.id : undefined), names, p.name ?? p.displayName ?? p.email);
  const role = text(p.role);
  switch (fact.kind) {
    case 'member.invited':
      return `invited ${text(p.email) ?? text(p.name) ?? 'a person'}${role ? ` as ${role}` : ''}`;
    case 'member.joined':
      return `joined the workspace${role ? ` as ${role}` : ''}`;
    case 'member.role_changed':
      return `changed ${who}’s role${text(p.previousRole) ? ` from ${text(p.previousRole)}` : ''} to ${role ?? '?'}`;
    default:
      return `removed ${who} from the workspace`;
  }
}

/** What an audit fact records, in words: “revoked token “ci” (member, sy_abc123…)”. */
export function whatWasDone(fact: Fact, names: AuditNames): string {
  const p = fact.payload as Payload;
  const agent = text(p.name) ?? names.agent(fact.subject.id) ?? short(fact.subject.id);
  switch (fact.kind) {
    case 'token.created':
      return tokenWords('created', p);
    case 'token.revoked':
      return tokenWords('revoked', p);
    case 'secret.set':
      return `set secret ${text(p.name) ?? fact.subject.id}`;
    case 'secret.deleted':
      return `deleted secret ${text(p.name) ?? fact.subject.id}`;
    case 'notifications.settings_changed':
      return notificationWords(p);
    case 'mattermost.linked':
      return `linked Mattermost user ${fact.subject.id} to ${person(p.userId, names)} (at most ${text(p.role) ?? '?'})`;
    case 'mattermost.unlinked':
      return `unlinked Mattermost user ${fact.subject.id} from ${person(p.userId, names)}`;
    case 'workspace.settings_changed':
      return settingsWords(p);
    case 'agent.collaborator_changed':
      return collaboratorWords(fact, names);
    case 'webhook.configured':
      return `${p.created === true ? 'created' : 'changed'} inbound webhook ${text(p.name) ?? fact.subject.id} (${text(p.verifier) ?? '?'})`;
    case 'webhook.deleted':
      return `deleted inbound webhook ${text(p.name) ?? fact.subject.id}`;
    case 'schedule.created':
    case 'schedule.updated':
      return `${fact.kind === 'schedule.created' ? 'created' : 'changed'} schedule ${text(p.name) ?? fact.subject.id} (${scheduleTiming(p)}${p.enabled === false ? ', disabled' : ''})`;
    case 'schedule.deleted':
      return `deleted schedule ${text(p.name) ?? fact.subject.id}`;
    case 'agent.created':
      return `created agent ${agent}`;
    case 'agent.updated':
      return `saved version ${String(p.version ?? '?')} of agent ${agent}`;
    case 'agent.pinned':
      return `pinned version ${String(p.pinnedVersion ?? '?')} of agent ${agent}: new runs use it (latest is ${String(p.version ?? '?')})`;
    case 'agent.unpinned':
      return `unpinned agent ${agent}: new runs use the latest version (${String(p.version ?? '?')})`;
    case 'agent.tagged':
      return `tagged version ${String(p.version ?? '?')} of agent ${agent} “${text(p.tag) ?? '?'}”${typeof p.previousVersion === 'number' ? ` (moved from version ${p.previousVersion})` : ''}`;
    case 'agent.untagged':
      return `removed tag “${text(p.tag) ?? '?'}” from version ${String(p.version ?? '?')} of agent ${agent}`;
    case 'agent.eval_gate_overridden':
      return `let version ${String(p.version ?? '?')} of agent ${agent} past its eval gate: “${text(p.reason) ?? '?'}”`;
    case 'agent.enabled':
    case 'agent.disabled':
    case 'agent.deleted':
      return `${fact.kind.slice('agent.'.length)} agent ${agent}`;
    default:
      return fact.kind.startsWith('member.') ? memberWords(fact, names) : `${fact.kind} ${fact.subject.type} ${fact.subject.id}`;
  }
}
