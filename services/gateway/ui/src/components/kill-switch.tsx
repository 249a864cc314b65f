import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError, wsPath } from '../api';
import { useSettings } from '../queries';
import { useWorkspace } from '../session';
import type { WorkspaceSettings } from '../types';

/** The workspace kill switch (admins), behind a confirmation: pausing cancels running runs at their next step. */
export function KillSwitch() {
  const { slug, role } = useWorkspace();
  const settings = useSettings(slug);
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | undefined>();
  if (!settings.data) return null;
  const paused = settings.data.agentsPaused;

  const flip = async () => {
    setError(undefined);
    try {
      const saved = await api<WorkspaceSettings>('PUT', wsPath(slug, '/settings'), { ...settings.data, agentsPaused: !paused });
      queryClient.setQueryData(['settings', slug], saved);
      setConfirming(false);
    } catch (caught) {
      setError(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
    }
  };

  return (
    <div className={`kill-switch ${paused ? 'paused' : ''}`}>
      <span data-testid="agents-state">{paused ? 'All agents paused' : 'Agents running'}</span>
      {role === 'admin' && !confirming && (
        <button type="button" className={paused ? '' : 'danger'} onClick={() => setConfirming(true)}>
          {paused ? 'Resume agents' : 'Pause all agents'}
        </button>
      )}
      {confirming && (
        <div role="dialog" aria-label="confirm kill switch" className="confirm">
          <span>{paused ? 'Resume activating agents?' : 'Pause every agent? Running runs are cancelled at their next step.'}</span>
          <button type="button" className={paused ? '' : 'danger'} onClick={flip} autoFocus>
            {paused ? 'Yes, resume' : 'Yes, pause all'}
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {error && <span role="alert" className="error">{error}</span>}
    </div>
  );
}
