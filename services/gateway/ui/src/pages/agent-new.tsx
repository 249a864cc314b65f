import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api, ApiError, errorText, wsPath } from '../api';
import { IssueList } from '../components/issue-list';
import { useWorkspace } from '../session';
import type { AgentResponse, ValidationIssue } from '../types';

const MODES = ['default', 'auto', 'bypass', 'plan'] as const;

/** The blank form's fields as typed; turned into a spec only on submit so the API judges it. */
interface Draft {
  name: string;
  instructions: string;
  provider: 'openai' | 'scripted';
  modelName: string;
  triggers: string;
  mode: (typeof MODES)[number];
  perRunUsd: string;
  perDayUsd: string;
  /** Platform tool globs, comma- or space-separated. */
  platformTools: string;
  /** MCP servers as JSON (an array); empty: none. */
  mcpServers: string;
  concurrency: string;
  cooldownMs: string;
  queueCap: string;
  debounceMs: string;
  enabled: boolean;
}

const BLANK: Draft = {
  name: '',
  instructions: '',
  provider: 'openai',
  modelName: 'gpt-4.1-mini',
  triggers: '',
  mode: 'default',
  perRunUsd: '1',
  perDayUsd: '20',
  platformTools: '',
  mcpServers: '',
  concurrency: '1',
  cooldownMs: '0',
  queueCap: '100',
  debounceMs: '0',
  enabled: true,
};

/** Text as JSON when it parses; else the text itself, so the API refuses it at its path (VALIDATION_FAILED). */
function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One trigger per line: a fact kind, then (after a space) its filter as JSON, e.g. `scorecard.completed {"path":"payload.failedCases","op":"gt","value":2}`. */
function triggerOf(line: string): Record<string, unknown> {
  const space = line.search(/\s/);
  if (space < 0) return { kind: line };
  return { kind: line.slice(0, space), filter: jsonOr(line.slice(space).trim()) };
}

function specOf(draft: Draft): Record<string, unknown> {
  return {
    name: draft.name.trim(),
    instructions: draft.instructions,
    model: { provider: draft.provider, name: draft.modelName.trim() },
    triggers: draft.triggers
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map(triggerOf),
    tools: {
      platform: draft.platformTools.split(/[\s,]+/).filter(Boolean),
      mcpServers: draft.mcpServers.trim() ? jsonOr(draft.mcpServers) : [],
    },
    permissionMode: draft.mode,
    budget: { perRunUsd: Number(draft.perRunUsd), perDayUsd: Number(draft.perDayUsd) },
    flow: { concurrency: Number(draft.concurrency), cooldownMs: Number(draft.cooldownMs), queueCap: Number(draft.queueCap), debounceMs: Number(draft.debounceMs) },
    enabled: draft.enabled,
  };
}

/** A labelled whole-number field of the form (the flow control's). */
function NumberField({ id, label, min, value, onChange }: { id: string; label: string; min: number; value: string; onChange: (value: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="number" min={min} value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/**
 * A new agent from a blank form (`POST /agents`, the API's own command): the
 * fields most agents need — triggers with their filters, tools, mode, budget,
 * flow control; everything else keeps its default and is edited afterwards as JSON. The API's VALIDATION_FAILED issues are shown at their path.
 */
export function AgentNewPage() {
  const { slug } = useWorkspace();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(BLANK);
  const [issues, setIssues] = useState<ValidationIssue[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setIssues([]);
    setError(undefined);
    setBusy(true);
    try {
      const created = await api<AgentResponse>('POST', wsPath(slug, '/agents'), specOf(draft));
      void queryClient.invalidateQueries({ queryKey: ['agents', slug] });
      navigate(`/agents/${created.id}`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.issues.length > 0) setIssues(caught.issues);
      else setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <div className="page-head">
        <h1>New agent</h1>
      </div>
      <form className="stack-form" aria-label="new agent" onSubmit={submit}>
        <div className="field">
          <label htmlFor="new-agent-name">Name</label>
          <input id="new-agent-name" value={draft.name} onChange={(e) => set('name', e.target.value)} required autoComplete="off" />
        </div>
        <div className="field">
          <label htmlFor="new-agent-instructions">Instructions</label>
          <textarea id="new-agent-instructions" value={draft.instructions} onChange={(e) => set('instructions', e.target.value)} rows={5} required />
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor="new-agent-model-provider">Model provider</label>
            <select id="new-agent-model-provider" value={draft.provider} onChange={(e) => set('provider', e.target.value as Draft['provider'])}>
              <option value="openai">OpenAI-compatible</option>
              <option value="scripted">scripted (needs a script: add it as JSON)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="new-agent-model-name">Model name</label>
            <input id="new-agent-model-name" value={draft.modelName} onChange={(e) => set('modelName', e.target.value)} required autoComplete="off" />
          </div>
        </div>
        <div className="field">
          <label htmlFor="new-agent-triggers">Triggers (one per line: a fact kind, then optionally its filter as JSON)</label>
          <textarea
            id="new-agent-triggers"
            value={draft.triggers}
            onChange={(e) => set('triggers', e.target.value)}
            rows={3}
            placeholder={'deploy.requested\nscorecard.completed {"path":"payload.failedCases","op":"gt","value":2}'}
          />
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor="new-agent-platform-tools">Platform tools (globs, comma-separated)</label>
            <input id="new-agent-platform-tools" value={draft.platformTools} onChange={(e) => set('platformTools', e.target.value)} placeholder="list_events, emit_event" autoComplete="off" />
          </div>
          <div className="field">
            <label htmlFor="new-agent-mcp-servers">MCP servers (JSON array)</label>
            <textarea id="new-agent-mcp-servers" value={draft.mcpServers} onChange={(e) => set('mcpServers', e.target.value)} rows={2} placeholder='[{"name":"github","transport":"http","url":"https://…/mcp"}]' />
          </div>
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor="new-agent-mode">Mode</label>
            <select id="new-agent-mode" value={draft.mode} onChange={(e) => set('mode', e.target.value as Draft['mode'])}>
              {MODES.map((mode) => (
                <option key={mode}>{mode}</option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="new-agent-budget-per-run-usd">Budget per run (USD)</label>
            <input id="new-agent-budget-per-run-usd" type="number" min="0" step="any" value={draft.perRunUsd} onChange={(e) => set('perRunUsd', e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="new-agent-budget-per-day-usd">Budget per day (USD)</label>
            <input id="new-agent-budget-per-day-usd" type="number" min="0" step="any" value={draft.perDayUsd} onChange={(e) => set('perDayUsd', e.target.value)} />
          </div>
        </div>
        <fieldset className="form-row">
          <legend>Flow control</legend>
          <NumberField id="new-agent-concurrency" label="Concurrency" min={1} value={draft.concurrency} onChange={(value) => set('concurrency', value)} />
          <NumberField id="new-agent-cooldown" label="Cooldown (ms)" min={0} value={draft.cooldownMs} onChange={(value) => set('cooldownMs', value)} />
          <NumberField id="new-agent-queue-cap" label="Queue cap" min={1} value={draft.queueCap} onChange={(value) => set('queueCap', value)} />
          <NumberField id="new-agent-debounce" label="Debounce (ms)" min={0} value={draft.debounceMs} onChange={(value) => set('debounceMs', value)} />
        </fieldset>
        <label className="inline">
          <input type="checkbox" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} /> Enabled
        </label>
        <div className="row">
          <button type="submit" disabled={busy}>
            Create agent
          </button>
        </div>
        {error && <p role="alert" className="error">{error}</p>}
        <IssueList issues={issues} testId="new-agent-issues" />
      </form>
    </section>
  );
}
