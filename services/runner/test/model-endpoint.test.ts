import { ModelError } from '../src/model/model';
import { modelEndpointCheck } from '../src/model/model-endpoint';

/*
 * The check of an agent's own model endpoint (issue 36): the models' settings, not the MCP
 * servers'; a refusal is a ModelError that names the setting, except for a metadata address,
 * which no setting but an allowed host opens.
 */
const lookup = (addresses: Record<string, string[]>) => async (host: string) => {
  const found = addresses[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const dns = lookup({ 'llm.lan': ['192.168.1.20'], 'api.example.com': ['93.184.216.34'], 'metadata.lan': ['169.254.169.254'] });
const settings = (allowPrivate: boolean, hosts: string[] = []) => ({ RUNNER_MODEL_ALLOW_PRIVATE: allowPrivate, RUNNER_MODEL_ALLOWED_HOSTS: hosts });
const refusal = (promise: Promise<unknown>) => promise.then(() => { throw new Error('expected a refusal'); }, (error: unknown) => error as ModelError);

describe('modelEndpointCheck', () => {
  it('lets a public endpoint through, pinned to its address', async () => {
    await expect(modelEndpointCheck(settings(false), dns)('https://api.example.com/v1')).resolves.toMatchObject({ hostname: 'api.example.com', address: '93.184.216.34' });
  });

  it.each([
    ['loopback', 'http://127.0.0.1:11434/v1'],
    ['private', 'http://llm.lan:8000/v1'],
    ['loopback (IPv6)', 'http://[::1]:8000/v1'],
  ])('refuses a %s endpoint by default, naming RUNNER_MODEL_ALLOW_PRIVATE', async (_range, url) => {
    const error = await refusal(modelEndpointCheck(settings(false), dns)(url));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_url_refused', message: expect.stringContaining('RUNNER_MODEL_ALLOW_PRIVATE=true') });
  });

  it('lets private and loopback endpoints through with RUNNER_MODEL_ALLOW_PRIVATE', async () => {
    const check = modelEndpointCheck(settings(true), dns);
    await expect(check('http://127.0.0.1:11434/v1')).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(check('http://llm.lan:8000/v1')).resolves.toMatchObject({ address: '192.168.1.20' });
  });

  it('never lets a metadata address through for RUNNER_MODEL_ALLOW_PRIVATE, and does not suggest it', async () => {
    const error = await refusal(modelEndpointCheck(settings(true), dns)('http://metadata.lan/v1'));
    expect(error).toMatchObject({ code: 'model_url_refused', message: expect.stringContaining('a metadata address') });
    expect(error.message).not.toContain('RUNNER_MODEL_ALLOW_PRIVATE');
  });

  it('lets a host named in RUNNER_MODEL_ALLOWED_HOSTS through whatever it resolves to', async () => {
    await expect(modelEndpointCheck(settings(false, ['llm.lan']), dns)('http://LLM.lan:8000/v1')).resolves.toMatchObject({ address: '192.168.1.20' });
  });

  it('refuses a name that does not resolve, without the private-address hint', async () => {
    const error = await refusal(modelEndpointCheck(settings(true), dns)('http://nowhere.lan/v1'));
    expect(error).toMatchObject({ code: 'model_url_refused', message: expect.stringContaining('does not resolve') });
    expect(error.message).not.toContain('RUNNER_MODEL_ALLOW_PRIVATE');
  });
});
