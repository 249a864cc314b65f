import { argumentsText } from '../format';
import type { TranscriptEntry } from '../types';

type Content = Record<string, unknown>;

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** One transcript entry's body (its `li` is the caller's). */
export function Entry({ entry }: { entry: TranscriptEntry }) {
  const c = entry.content as Content;
  switch (entry.type) {
    case 'system':
    case 'user':
      return (
        <>
          <div className="who-line">
            {entry.type}
            {c.from ? <span className="muted"> from {json(c.from)}</span> : null}
          </div>
          <pre className="text">{String(c.text ?? '')}</pre>
        </>
      );
    case 'assistant': {
      const calls = (c.toolCalls as { id: string; name: string; arguments: unknown }[] | undefined) ?? [];
      const usage = c.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      return (
        <>
          <div className="who-line">
            assistant
            {usage && (
              <span className="muted" data-testid="usage">
                {' '}
                · {usage.inputTokens ?? 0} in / {usage.outputTokens ?? 0} out{typeof c.costUsd === 'number' ? ` · $${c.costUsd.toFixed(4)}` : ''}
              </span>
            )}
          </div>
          {c.text ? <pre className="text">{String(c.text)}</pre> : null}
          {calls.map((call) => (
            <details key={call.id} open>
              <summary>
                calls <code>{call.name}</code>
              </summary>
              <pre data-testid="call-arguments">{argumentsText(call.arguments)}</pre>
            </details>
          ))}
        </>
      );
    }
    case 'tool':
      return (
        <>
          <div className="who-line">
            tool <code>{String(c.name)}</code>{' '}
            {c.wouldHave ? <span className="status s-awaiting_approval">would have (not executed)</span> : <span className={c.ok ? 'ok' : 'error'}>{c.ok ? 'ok' : 'error'}</span>}
            {typeof c.durationMs === 'number' && <span className="muted"> · {c.durationMs} ms</span>}
            {refusalOf(c.error) && (
              <span className="status s-failed" data-testid="refusal">
                {' '}
                refused: {refusalOf(c.error)}
              </span>
            )}
          </div>
          <details>
            <summary>arguments</summary>
            <pre data-testid="tool-arguments">{argumentsText(c.arguments)}</pre>
          </details>
          <details open>
            <summary>{c.ok ? 'result' : 'error'}</summary>
            <pre>{json(c.ok ? c.result : c.error)}</pre>
          </details>
        </>
      );
    case 'notice':
      return (
        <>
          <div className="who-line">
            notice <code>{String(c.code)}</code>
          </div>
          <pre className="text">{String(c.message ?? '')}</pre>
        </>
      );
    case 'compaction': {
      // Decision 0052: the raw entries it replaces stay listed; this marks where the model's view was summarized.
      const usage = (c.usage ?? {}) as { inputTokens?: number; outputTokens?: number };
      return (
        <>
          <div className="who-line" data-testid="compaction">
            compaction <span className="muted">
              · entries {String(c.fromSeq)}–{String(c.throughSeq)} ({c.turns === 1 ? '1 turn' : `${String(c.turns)} turns`}) summarized · ~{String(c.tokensBefore)} → ~{String(c.tokensAfter)} tokens · {usage.inputTokens ?? 0} in / {usage.outputTokens ?? 0} out
            </span>
          </div>
          <details open>
            <summary>summary the model is sent instead</summary>
            <pre className="text">{String(c.summary ?? '')}</pre>
          </details>
        </>
      );
    }
  }
}

/** A run's transcript: messages, tool calls with their arguments and results, usage and notices. */
export function Transcript({ entries }: { entries: TranscriptEntry[] }) {
  if (entries.length === 0) return <p className="muted">Nothing in the transcript yet.</p>;
  return (
    <ol className="transcript" data-testid="transcript">
      {entries.map((entry) => (
        <li key={entry.seq} className={`entry e-${entry.type}`}>
          <Entry entry={entry} />
        </li>
      ))}
    </ol>
  );
}

/**
 * A platform tool's typed refusal (its error body's code, and the reason or final state it names:
 * `DELEGATION_REFUSED: fan_out_cap`, decision 0059), read from a failed call's message; null otherwise.
 */
function refusalOf(error: unknown): string | null {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message !== 'string' || !message.trimStart().startsWith('{')) return null;
  try {
    const body = JSON.parse(message) as { error?: { code?: unknown; details?: { reason?: unknown; finalState?: unknown } } };
    const code = body.error?.code;
    if (typeof code !== 'string') return null;
    const why = [body.error?.details?.reason, body.error?.details?.finalState].filter((part) => typeof part === 'string');
    return why.length > 0 ? `${code}: ${why.join(', ')}` : code;
  } catch {
    return null;
  }
}
