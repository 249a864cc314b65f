import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { ApprovalCard } from '../components/approval-card';
import { useFacts } from '../live';
import { useWorkspace } from '../session';
import type { Approval } from '../types';

/** The approvals inbox: pending ones oldest first, then the latest decided ones; live through `approval.*` facts. */
export function ApprovalsPage() {
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const live = useFacts(
    slug,
    (fact) => {
      if (fact.kind.startsWith('approval.')) void queryClient.invalidateQueries({ queryKey: ['approvals', slug] });
    },
    [['approvals', slug]],
  );
  const pending = useQuery({
    queryKey: ['approvals', slug, 'pending'],
    queryFn: () => api<{ approvals: Approval[] }>('GET', wsPath(slug, '/approvals?status=pending&limit=200')).then((r) => r.approvals),
    enabled: live,
  });
  const decided = useQuery({
    queryKey: ['approvals', slug, 'decided'],
    queryFn: async () => {
      const pages = await Promise.all(
        ['approved', 'denied', 'expired'].map((status) => api<{ approvals: Approval[] }>('GET', wsPath(slug, `/approvals?status=${status}&limit=50`))),
      );
      return pages.flatMap((p) => p.approvals).sort((a, b) => ((a.decidedAt ?? '') < (b.decidedAt ?? '') ? 1 : -1));
    },
    enabled: live,
  });
  return (
    <section>
      <div className="page-head">
        <h1>Approvals</h1>
        <span className="badge">{pending.data?.length ?? '…'} pending</span>
      </div>
      {pending.error && <p role="alert" className="error">{errorText(pending.error)}</p>}
      <div data-testid="pending-list">
        {pending.data?.map((approval) => <ApprovalCard key={approval.id} approval={approval} />)}
        {pending.data?.length === 0 && <p className="muted">Nothing waits for a decision.</p>}
      </div>
      <h2>Decided</h2>
      <div data-testid="decided-list">{decided.data?.map((approval) => <ApprovalCard key={approval.id} approval={approval} />)}</div>
    </section>
  );
}
