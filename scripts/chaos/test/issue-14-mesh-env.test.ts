import { SERVICE_ENVS } from '../../lib/service-envs';
import { meshEnv } from '../mesh-env';

/*
 * Issue 14: the chaos mesh left GATEWAY_HEALTH_PORT at its default (9100), so a
 * chaos run failed at start-up ("gateway exited before it was ready: listen
 * EADDRINUSE 127.0.0.1:9100") whenever anything else on the machine held it.
 */
const MESH_SERVICES = ['gateway', 'event-log', 'matcher', 'runner'];

describe('the chaos mesh environment', () => {
  it('sets the health port of every service the mesh runs to 0 (a free one)', () => {
    const env = meshEnv({ databaseUrl: 'postgresql://x@127.0.0.1/db', redisUrl: 'redis://127.0.0.1:1', redisPrefix: 'chaos', gatewayPort: 1234 });
    const healthPorts = SERVICE_ENVS.filter(({ service }) => MESH_SERVICES.includes(service)).flatMap(({ schema }) =>
      Object.keys(schema.shape).filter((name) => name.endsWith('_HEALTH_PORT')),
    );
    expect(healthPorts).toHaveLength(MESH_SERVICES.length);
    expect(healthPorts.map((name) => [name, env[name]])).toEqual(healthPorts.map((name) => [name, '0']));
  });
});
