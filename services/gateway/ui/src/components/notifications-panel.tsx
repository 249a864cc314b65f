import { useEffect, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, errorText, wsPath } from '../api';
import type { NotificationConnection, NotificationRule, NotificationSettings, NotificationTestResponse, ValidationIssue } from '../types';
import { IssueList } from './issue-list';

type ConnectionType = 'none' | 'bot' | 'webhook';

/** The connection's fields as typed (secrets by name only: the settings never hold a credential). */
interface ConnectionDraft {
  type: ConnectionType;
  serverUrl: string;
  tokenSecret: string;
  commandTokenSecret: string;
  webhookUrlSecret: string;
}

function draftOf(connection: NotificationConnection | null): ConnectionDraft {
  const blank: ConnectionDraft = { type: 'none', serverUrl: '', tokenSecret: '', commandTokenSecret: '', webhookUrlSecret: '' };
  if (!connection) return blank;
  if (connection.type === 'bot') return { ...blank, type: 'bot', serverUrl: connection.serverUrl, tokenSecret: connection.tokenSecret, commandTokenSecret: connection.commandTokenSecret ?? '' };
  return { ...blank, type: 'webhook', webhookUrlSecret: connection.webhookUrlSecret };
}

function connectionOf(draft: ConnectionDraft): NotificationConnection | null {
  if (draft.type === 'none') return null;
  if (draft.type === 'webhook') return { type: 'webhook', webhookUrlSecret: draft.webhookUrlSecret.trim() };
  return { type: 'bot', serverUrl: draft.serverUrl.trim(), tokenSecret: draft.tokenSecret.trim(), ...(draft.commandTokenSecret.trim() ? { commandTokenSecret: draft.commandTokenSecret.trim() } : {}) };
}

/**
 * The Mattermost connection and the notification rules (`/settings/notifications`,
 * decision 0030): everyone reads them; admins edit the connection, add, switch
 * and remove rules, save (one `PUT` of the whole settings, judged by the API)
 * and send a test post.
 */
export function NotificationsPanel({ ws, canWrite }: { ws: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ['notifications', ws], queryFn: () => api<NotificationSettings>('GET', wsPath(ws, '/settings/notifications')) });
  const [connection, setConnection] = useState<ConnectionDraft>(draftOf(null));
  const [defaultChannel, setDefaultChannel] = useState('');
  const [rules, setRules] = useState<NotificationRule[]>([]);
  const [newRule, setNewRule] = useState({ id: '', kind: '', channel: '', template: '' });
  const [issues, setIssues] = useState<ValidationIssue[]>([]);
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (!settings.data) return;
    setConnection(draftOf(settings.data.connection));
    setDefaultChannel(settings.data.defaultChannel ?? '');
    setRules(settings.data.rules);
  }, [settings.data]);
  const setField = (key: keyof ConnectionDraft, value: string) => setConnection((c) => ({ ...c, [key]: value }));

  const report = (caught: unknown) => {
    if (caught instanceof ApiError && caught.issues.length > 0) setIssues(caught.issues);
    else setError(errorText(caught));
  };
  const save = async () => {
    setIssues([]);
    setError(undefined);
    setMessage(undefined);
    try {
      const saved = await api<NotificationSettings>('PUT', wsPath(ws, '/settings/notifications'), { connection: connectionOf(connection), defaultChannel: defaultChannel.trim() || null, rules });
      queryClient.setQueryData(['notifications', ws], saved);
      setMessage('Saved.');
    } catch (caught) {
      report(caught);
    }
  };
  const test = async () => {
    setError(undefined);
    setMessage(undefined);
    try {
      const answer = await api<NotificationTestResponse>('POST', wsPath(ws, '/settings/notifications/test'), {});
      setMessage(answer.ok ? `Test post sent (${answer.message}).` : `Mattermost refused the test post: ${answer.status ?? 'unreachable'} ${answer.message}`);
    } catch (caught) {
      report(caught);
    }
  };
  const addRule = (event: FormEvent) => {
    event.preventDefault();
    const rule: NotificationRule = { id: newRule.id.trim(), kind: newRule.kind.trim(), enabled: true };
    if (newRule.channel.trim()) rule.channel = newRule.channel.trim();
    if (newRule.template.trim()) rule.template = newRule.template;
    setRules((current) => [...current, rule]);
    setNewRule({ id: '', kind: '', channel: '', template: '' });
  };

  if (settings.error) return <p role="alert" className="error">{errorText(settings.error)}</p>;
  if (!settings.data) return <p className="loading">Loading…</p>;
  return (
    <>
      <h3>Mattermost connection</h3>
      <fieldset className="stack-form plain" disabled={!canWrite} aria-label="Mattermost connection">
        <div className="form-row">
          <div className="field">
            <label htmlFor="mm-type">Connection</label>
            <select id="mm-type" value={connection.type} onChange={(e) => setField('type', e.target.value)}>
              <option value="none">none (notifications off)</option>
              <option value="bot">bot account (buttons)</option>
              <option value="webhook">incoming webhook (posts only)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="mm-default-channel">Default channel</label>
            <input id="mm-default-channel" value={defaultChannel} onChange={(e) => setDefaultChannel(e.target.value)} autoComplete="off" />
          </div>
        </div>
        {connection.type === 'bot' && (
          <div className="form-row">
            <div className="field">
              <label htmlFor="mm-server-url">Server URL</label>
              <input id="mm-server-url" value={connection.serverUrl} onChange={(e) => setField('serverUrl', e.target.value)} autoComplete="off" />
            </div>
            <div className="field">
              <label htmlFor="mm-token-secret">Bot token secret (name)</label>
              <input id="mm-token-secret" value={connection.tokenSecret} onChange={(e) => setField('tokenSecret', e.target.value)} autoComplete="off" />
            </div>
            <div className="field">
              <label htmlFor="mm-command-secret">Slash command token secret (name, optional)</label>
              <input id="mm-command-secret" value={connection.commandTokenSecret} onChange={(e) => setField('commandTokenSecret', e.target.value)} autoComplete="off" />
            </div>
          </div>
        )}
        {connection.type === 'webhook' && (
          <div className="field">
            <label htmlFor="mm-webhook-secret">Webhook URL secret (name)</label>
            <input id="mm-webhook-secret" value={connection.webhookUrlSecret} onChange={(e) => setField('webhookUrlSecret', e.target.value)} autoComplete="off" />
          </div>
        )}
      </fieldset>
      <h3>Rules</h3>
      <div className="table-wrap">
        <table data-testid="notification-rules">
          <thead>
            <tr>
              <th>Rule</th>
              <th>Kind</th>
              <th className="hide-narrow">Channel</th>
              <th>On</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.map((rule, index) => (
              <tr key={rule.id + index} data-rule={rule.id}>
                <td>{rule.id}</td>
                <td>
                  <code>{rule.kind}</code>
                </td>
                <td className="hide-narrow">{rule.channel ?? <span className="muted">default</span>}</td>
                <td>
                  <input
                    type="checkbox"
                    checked={rule.enabled}
                    disabled={!canWrite}
                    aria-label={`rule ${rule.id} on`}
                    onChange={(e) => setRules((current) => current.map((r, i) => (i === index ? { ...r, enabled: e.target.checked } : r)))}
                  />
                </td>
                <td>
                  {canWrite && (
                    <button type="button" className="danger" aria-label={`remove rule ${rule.id}`} onClick={() => setRules((current) => current.filter((_, i) => i !== index))}>
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {canWrite && (
        <>
          <form className="stack-form" aria-label="add a rule" onSubmit={addRule}>
            <div className="form-row">
              <div className="field">
                <label htmlFor="rule-id">Rule id</label>
                <input id="rule-id" value={newRule.id} onChange={(e) => setNewRule({ ...newRule, id: e.target.value })} required autoComplete="off" />
              </div>
              <div className="field">
                <label htmlFor="rule-kind">Fact kind (glob)</label>
                <input id="rule-kind" value={newRule.kind} onChange={(e) => setNewRule({ ...newRule, kind: e.target.value })} required autoComplete="off" />
              </div>
              <div className="field">
                <label htmlFor="rule-channel">Channel (optional)</label>
                <input id="rule-channel" value={newRule.channel} onChange={(e) => setNewRule({ ...newRule, channel: e.target.value })} autoComplete="off" />
              </div>
            </div>
            <div className="field">
              <label htmlFor="rule-template">Message template (optional, {'{{path}}'} placeholders)</label>
              <input id="rule-template" value={newRule.template} onChange={(e) => setNewRule({ ...newRule, template: e.target.value })} autoComplete="off" />
            </div>
            <div className="row">
              <button type="submit">Add rule</button>
            </div>
          </form>
          <p className="muted">The connection and the rules change when saved, all at once.</p>
          <div className="row">
            <button type="button" onClick={save}>
              Save notifications
            </button>
            <button type="button" onClick={test} disabled={settings.data.connection === null}>
              Send a test post
            </button>
          </div>
        </>
      )}
      {message && (
        <p role="status" className="ok" data-testid="notifications-done">
          {message}
        </p>
      )}
      {error && <p role="alert" className="error">{error}</p>}
      <IssueList issues={issues} testId="notification-issues" />
    </>
  );
}
