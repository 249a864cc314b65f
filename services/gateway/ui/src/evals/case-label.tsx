import { Link } from 'wouter';
import { useFact } from '../queries';
import type { EvalCase } from '../types';

/** A case as a person tells it apart: its recorded fact (kind and subject, linked) or the hand-built one. */
export function CaseLabel({ ws, index, c }: { ws: string; index: number; c: EvalCase | undefined }) {
  const fact = useFact(ws, c?.factId);
  const shown = c?.fact ?? fact.data;
  return (
    <span>
      <strong>#{index}</strong>{' '}
      {shown ? (
        <>
          <code>{shown.kind}</code> {shown.subject.type}/{shown.subject.id}
        </>
      ) : (
        <span className="muted">…</span>
      )}
      {c?.factId && (
        <>
          {' '}
          <Link href={`/events/${c.factId}`} className="muted">
            fact
          </Link>
        </>
      )}
    </span>
  );
}
