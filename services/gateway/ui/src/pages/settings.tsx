import { NotificationsPanel } from '../components/notifications-panel';
import { SecretsPanel } from '../components/secrets-panel';
import { TokensPanel } from '../components/tokens-panel';
import { useWorkspace } from '../session';

/**
 * The workspace's settings (issue 32 §3): API tokens, secrets, and the
 * Mattermost connection with its notification rules. Each section offers the
 * writes the role may make; the API decides, and its refusal is shown.
 */
export function SettingsPage() {
  const { slug, role } = useWorkspace();
  const isAdmin = role === 'admin';
  return (
    <section className="settings">
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <h2 id="tokens">API tokens</h2>
      <TokensPanel ws={slug} canWrite={isAdmin} />
      <h2 id="secrets">Secrets</h2>
      <SecretsPanel ws={slug} canWrite={isAdmin} />
      <h2 id="notifications">Notifications</h2>
      <NotificationsPanel ws={slug} canWrite={isAdmin} />
    </section>
  );
}
