import { createWorkspace, SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';

/**
 * The operator's bootstrap (`create-workspace`, decision 0006): one statement
 * writes the workspace, its seq row, its admin and the first token; the token
 * works at once; a taken name is WORKSPACE_EXISTS and writes nothing.
 */
jest.setTimeout(60_000);

describe('workspace bootstrap', () => {
  let platform: TestPlatform;
  let sql: SqlPool;
  beforeAll(async () => {
    platform = await startTestPlatform();
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
  });
  afterAll(async () => {
    await sql?.$disconnect();
    await platform?.stop();
  });
  const count = async (table: string) => Number((await sql.$queryRawUnsafe<Array<{ n: string }>>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

  it('creates a workspace whose first token is its admin', async () => {
    const created = await createWorkspace(sql, 'boot');
    expect(created.token).toMatch(/^sy_/);
    const whoami = await apiClient(platform.gatewayUrl, created.token)('GET', '/v1/whoami');
    expect(whoami.status).toBe(200);
    expect(whoami.body).toMatchObject({ workspace: { id: created.workspaceId, slug: 'boot' }, role: 'admin', userId: created.userId });
    // Facts can be recorded at once: the seq row exists.
    expect((await apiClient(platform.gatewayUrl, created.token)('POST', '/v1/workspaces/boot/events', { kind: 'boot.done', subject: { type: 't', id: '1' } })).status).toBe(202);
  });

  it('refuses a name taken, writing nothing', async () => {
    const before = await Promise.all(['workspaces', 'users', 'memberships', 'api_tokens'].map(count));
    await expect(createWorkspace(sql, 'boot')).rejects.toMatchObject({ code: 'WORKSPACE_EXISTS' });
    expect(await Promise.all(['workspaces', 'users', 'memberships', 'api_tokens'].map(count))).toEqual(before);
  });
});
