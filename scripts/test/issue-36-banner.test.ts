import { formatBanner } from '../lib/banner.cjs';
import { portsTakenMessage } from '../lib/platform-ports.cjs';

/*
 * Issue 36: the banner of `npm start` names the web UI and how to sign in, and the BullMQ
 * dashboard's state — where it is, or why it is not served. The addresses it prints are checked
 * against a running platform in issue-36-start-twice and issue-13-front-door; here, its text.
 */
const platform = {
  pid: 4242,
  gatewayUrl: 'http://127.0.0.1:8080',
  healthPorts: [{ name: 'gateway', port: 9100 }],
  redis: 'redis://127.0.0.1:6379 (already running)',
  postgres: 'postgresql://postgres@127.0.0.1:5432/switchyard (already running on 5432)',
  secretsKey: 'from SECRETS_KEY',
  platformFile: '.data/platform.json',
};
const lines = (text: string) => text.split('\n');

describe('the banner', () => {
  it('names the web UI, how to sign in with a token, and where the dashboard is', () => {
    const banner = formatBanner({ ...platform, frontDoor: { ui: true, dashboard: true } });
    expect(lines(banner).slice(1, 6)).toEqual([
      'Switchyard is running (pid 4242).',
      '  web UI      http://127.0.0.1:8080/',
      '  sign in     with an API token: npm run admin -- create-workspace NAME   (a new workspace and its admin token)',
      '              lost it? npm run admin -- create-token NAME --role admin',
      '  dashboard   http://127.0.0.1:8080/admin/queues   (BullMQ; password: GATEWAY_ADMIN_TOKEN, any user name)',
    ]);
  });

  it('says why the dashboard is not served, and that the UI was not built', () => {
    const banner = formatBanner({ ...platform, frontDoor: { ui: false, dashboard: false } });
    expect(banner).toContain('  dashboard   not served: set GATEWAY_ADMIN_TOKEN (32+ characters) and start again');
    expect(banner).toContain('  web UI      not built (`npm run ui:build`); the API works without it');
    expect(banner).not.toContain('/admin/queues');
    expect(banner).not.toContain('sign in');
  });

  it('prints a one-time sign-in link first when there is one, and nothing in its place when not', () => {
    const link = 'http://127.0.0.1:8080/sign-in#once';
    const withLink = lines(formatBanner({ ...platform, frontDoor: { ui: true, dashboard: false }, signInLink: link }));
    expect(withLink[3]).toBe(`  sign in     ${link}   (one-time link for the first admin)`);
    expect(withLink[4]).toBe('              or with an API token: npm run admin -- create-workspace NAME   (a new workspace and its admin token)');
    const without = formatBanner({ ...platform, frontDoor: { ui: true, dashboard: false } });
    expect(without).not.toMatch(/one-time|sign-in#|undefined/);
  });
});

describe('the message for taken ports', () => {
  it('names each port with its variable, and how to move it', () => {
    const message = portsTakenMessage([
      { what: 'the gateway', variable: 'PORT', port: 8080 },
      { what: "the gateway's health port", variable: 'GATEWAY_HEALTH_PORT', port: 9100 },
    ]);
    expect(message).toBe(
      [
        'another program already listens on a port Switchyard needs:',
        '  port 8080 (the gateway, PORT)',
        "  port 9100 (the gateway's health port, GATEWAY_HEALTH_PORT)",
        'Stop that program, or choose other ports, e.g. `PORT=8081 GATEWAY_HEALTH_PORT=0 npm start` (0: any free health port).',
      ].join('\n'),
    );
  });
});
