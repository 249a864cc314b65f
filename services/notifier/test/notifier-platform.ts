import { Client } from 'pg';
import { newSecretsKey } from '@switchyard/core';
import {
  apiClient,
  spawnService,
  startLocalMattermostServer,
  startTestPlatform,
  type LocalMattermostServer,
  type ServiceProcess,
  type TestPlatform,
} from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/** A workspace of the test: its admin client and id. */
export interface TestWorkspace {
  slug: string;
  id: string;
  admin: Api;
}

/** The platform with a notifier process and a local Mattermost server. */
export interface NotifierPlatform {
  platform: TestPlatform;
  mattermost: LocalMattermostServer;
  pg: Client;
  notifier: ServiceProcess;
  /** Starts a notifier process (again, after a kill). */
  startNotifier(): Promise<ServiceProcess>;
  /** Creates a workspace, its bot-token secret (the server's) and, given rules, its notification settings. */
  workspace(slug: string): Promise<TestWorkspace>;
  /** How many deliveries are recorded for a workspace. */
  deliveries(workspaceId: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Why this exists: the notifier's guarantees are end-to-end — a fact posted
 * to the gateway, persisted by the event-log, read from `facts` by the
 * notifier process, posted over real HTTP to a server speaking Mattermost's
 * API. This starts all of it on a database and Redis prefix of its own, with
 * short lock and backoff times so crashes and retries show within seconds.
 */
export async function startNotifierPlatform(extraEnv: Record<string, string> = {}): Promise<NotifierPlatform> {
  const mattermost = await startLocalMattermostServer();
  const platform = await startTestPlatform({
    env: { SECRETS_KEY: newSecretsKey(), NOTIFICATIONS_ALLOW_PRIVATE: 'true', GATEWAY_ADMIN_TOKEN: 'operator-token-0123456789abcdef0123456789', ...extraEnv },
  });
  const pg = new Client({ connectionString: platform.db.url });
  await pg.connect();
  let counter = 0;
  const startNotifier = () =>
    spawnService(
      'notifier',
      {
        ...platform.env,
        NOTIFIER_HEALTH_PORT: '0',
        NOTIFIER_CONSUMER: `n-${counter++}-${Date.now()}`,
        NOTIFIER_ACTION_URL: `${platform.gatewayUrl}/integrations/mattermost/actions`,
        NOTIFIER_LOCK_MS: '2000',
        NOTIFIER_BACKOFF_MS: '200',
        CLAIM_IDLE_MS: '1500',
      },
      { readyPattern: /notifier started/ },
    );
  const result: NotifierPlatform = {
    platform,
    mattermost,
    pg,
    notifier: await startNotifier(),
    startNotifier,
    workspace: async (slug) => {
      const admin = apiClient(platform.gatewayUrl, await platform.createWorkspace(slug));
      const secret = await admin('PUT', `/v1/workspaces/${slug}/secrets/mm-bot`, { value: mattermost.botToken });
      if (secret.status !== 201) throw new Error(`secret not stored: ${secret.status}`);
      const id = (await pg.query('SELECT id FROM workspaces WHERE slug = $1', [slug])).rows[0].id as string;
      return { slug, id, admin };
    },
    deliveries: async (workspaceId) => Number((await pg.query('SELECT count(*) FROM notification_deliveries WHERE workspace_id = $1', [workspaceId])).rows[0].count),
    stop: async () => {
      await result.notifier.stop('SIGTERM');
      await pg.end();
      await platform.stop();
      await mattermost.close();
    },
  };
  return result;
}
