import { useEffect, useState } from 'react';
import type { AgentSpec } from '../types';

/** The draft on the canvas: a spec without `enabled` (state, not spec). */
export type CraftDraft = Omit<AgentSpec, 'enabled'>;

const MODES = ['default', 'auto', 'bypass', 'plan'] as const;

/**
 * A JSON value edited as text: the draft changes only when the text parses,
 * and the text follows the draft when a patch changes it from outside.
 */
function JsonField({ id, label, value, onChange, rows = 3 }: { id: string; label: string; value: unknown; onChange: (value: unknown) => void; rows?: number }) {
  const shown = value === undefined ? '' : JSON.stringify(value, null, 1);
  const [text, setText] = useState(shown);
  const [bad, setBad] = useState(false);
  useEffect(() => {
    setText(shown);
    setBad(false);
  }, [shown]);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={rows}
        spellCheck={false}
        value={text}
        aria-invalid={bad}
        onChange={(e) => {
          setText(e.target.value);
          try {
            onChange(e.target.value.trim() === '' ? undefined : JSON.parse(e.target.value));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
    </div>
  );
}

function NumberField({ id, label, value, onChange }: { id: string; label: string; value: number | undefined; onChange: (value: number | undefined) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="number" min="0" step="any" value={value ?? ''} onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))} />
    </div>
  );
}

/**
 * The canvas of the crafting page (decision 0056): every part of the draft the
 * crafting agent patches, editable by hand too. A hand edit only changes the
 * draft here; it goes to the model with the next message.
 */
export function CraftCanvas({ draft, onChange, patches, changedPaths }: { draft: CraftDraft; onChange: (next: CraftDraft) => void; patches: number; changedPaths: readonly string[] }) {
  const set = <K extends keyof CraftDraft>(key: K, value: CraftDraft[K]) => onChange({ ...draft, [key]: value });
  const setTrigger = (index: number, trigger: CraftDraft['triggers'][number]) => set('triggers', draft.triggers.map((t, i) => (i === index ? trigger : t)));
  const changed = (prefix: string) => (changedPaths.some((path) => path === prefix || path.startsWith(`${prefix}/`)) ? 'changed' : undefined);
  return (
    <section className="craft-canvas stack-form" aria-label="canvas" data-testid="canvas" data-patches={patches}>
      <h2>Canvas</h2>
      <div className={`field ${changed('/name') ?? ''}`}>
        <label htmlFor="craft-name">Name</label>
        <input id="craft-name" value={draft.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" />
      </div>
      <div className={`field ${changed('/instructions') ?? ''}`}>
        <label htmlFor="craft-instructions">Instructions</label>
        <textarea id="craft-instructions" rows={4} value={draft.instructions} onChange={(e) => set('instructions', e.target.value)} />
      </div>
      <div className={`field ${changed('/task') ?? ''}`}>
        <label htmlFor="craft-task">Task</label>
        <textarea id="craft-task" rows={2} value={draft.task ?? ''} onChange={(e) => set('task', e.target.value)} />
      </div>
      <fieldset className={changed('/triggers')} data-testid="craft-triggers">
        <legend>Triggers</legend>
        {draft.triggers.map((trigger, index) => (
          <div key={index} className="form-row craft-trigger">
            <div className="field">
              <label htmlFor={`craft-trigger-${index}-kind`}>Kind</label>
              <input id={`craft-trigger-${index}-kind`} value={trigger.kind} onChange={(e) => setTrigger(index, { ...trigger, kind: e.target.value })} />
            </div>
            <JsonField id={`craft-trigger-${index}-filter`} label="Filter (JSON)" rows={6} value={trigger.filter} onChange={(filter) => setTrigger(index, { ...trigger, filter: filter as never })} />
            <button type="button" onClick={() => set('triggers', draft.triggers.filter((_, i) => i !== index))} disabled={draft.triggers.length === 1}>
              Remove trigger
            </button>
          </div>
        ))}
        <button type="button" onClick={() => set('triggers', [...draft.triggers, { kind: '' }])}>
          Add trigger
        </button>
      </fieldset>
      <JsonField id="craft-model" label="Model (JSON)" value={draft.model} onChange={(model) => set('model', model as CraftDraft['model'])} />
      <JsonField id="craft-tools" label="Tools (JSON)" value={draft.tools} onChange={(tools) => set('tools', tools as CraftDraft['tools'])} />
      <div className="form-row">
        <div className={`field ${changed('/permissionMode') ?? ''}`}>
          <label htmlFor="craft-mode">Mode</label>
          <select id="craft-mode" value={draft.permissionMode ?? 'default'} onChange={(e) => set('permissionMode', e.target.value as CraftDraft['permissionMode'])}>
            {MODES.map((mode) => (
              <option key={mode}>{mode}</option>
            ))}
          </select>
        </div>
        <NumberField id="craft-budget-run" label="Budget per run (USD)" value={draft.budget?.perRunUsd} onChange={(v) => set('budget', { ...draft.budget, perRunUsd: v } as CraftDraft['budget'])} />
        <NumberField id="craft-budget-day" label="Budget per day (USD)" value={draft.budget?.perDayUsd} onChange={(v) => set('budget', { ...draft.budget, perDayUsd: v } as CraftDraft['budget'])} />
        <NumberField id="craft-budget-turns" label="Max turns" value={draft.budget?.maxTurns} onChange={(v) => set('budget', { ...draft.budget, maxTurns: v } as CraftDraft['budget'])} />
      </div>
      <div className={`form-row ${changed('/flow') ?? ''}`}>
        <NumberField id="craft-flow-concurrency" label="Concurrency" value={draft.flow?.concurrency} onChange={(v) => set('flow', { ...draft.flow, concurrency: v } as CraftDraft['flow'])} />
        <NumberField id="craft-flow-cooldown" label="Cooldown (ms)" value={draft.flow?.cooldownMs} onChange={(v) => set('flow', { ...draft.flow, cooldownMs: v } as CraftDraft['flow'])} />
        <NumberField id="craft-flow-queue" label="Queue cap" value={draft.flow?.queueCap} onChange={(v) => set('flow', { ...draft.flow, queueCap: v } as CraftDraft['flow'])} />
        <NumberField id="craft-flow-debounce" label="Debounce (ms)" value={draft.flow?.debounceMs} onChange={(v) => set('flow', { ...draft.flow, debounceMs: v } as CraftDraft['flow'])} />
      </div>
    </section>
  );
}
