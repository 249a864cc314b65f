import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { useWorkspace } from '../session';

/** A person's message to a teammate (it wakes an idle one), and stop behind a confirmation. */
export function TeammateActions({ name }: { name: string }) {
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<string | undefined>();
  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    try {
      const sent = await api<{ id: string; woke: boolean }>('POST', wsPath(slug, `/teammates/${encodeURIComponent(name)}/messages`), { content: text });
      setText('');
      setOutcome(sent.woke ? 'sent; woke it' : 'sent');
    } catch (error) {
      setOutcome(errorText(error));
    }
  };
  const stop = async () => {
    try {
      await api('POST', wsPath(slug, `/teammates/${encodeURIComponent(name)}/stop`));
      setConfirming(false);
      for (const key of ['teammates', 'teams', 'team', 'teammate']) void queryClient.invalidateQueries({ queryKey: [key, slug] });
    } catch (error) {
      setOutcome(errorText(error));
    }
  };
  return (
    <div className="mate-actions">
      <form onSubmit={send} aria-label={`message ${name}`}>
        <input aria-label={`message to ${name}`} value={text} onChange={(e) => setText(e.target.value)} placeholder="message" maxLength={8000} />
        <button type="submit">Send</button>
      </form>
      {!confirming && (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Stop
        </button>
      )}
      {confirming && (
        <span role="dialog" aria-label={`confirm stop ${name}`} className="confirm">
          Stop {name}?
          <button type="button" className="danger" onClick={stop} autoFocus>
            Yes, stop
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      )}
      {outcome && (
        <span className="muted" role="status">
          {outcome}
        </span>
      )}
    </div>
  );
}
