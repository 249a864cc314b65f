import type { Express } from 'express';
import { buildOpenApi } from '../src/routes/openapi';
import { createInProcessGateway, type InProcessGateway } from './in-process-gateway';
import { validateOpenApi as validate } from './openapi-validator';

interface RouterLayer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

/**
 * Every (METHOD, path template) express serves, found by walking the app's
 * router stack (mounted routers included), with `:param` written `{param}`
 * as in OpenAPI and an escaped colon (`events\:batch`) as the colon it matches.
 */
function expressOperations(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const full = `${prefix}${layer.route.path}`.replace(/\/$/, '') || '/';
        const template = full.replace(/(?<!\\):(\w+)/g, '{$1}').replaceAll('\\:', ':');
        for (const method of Object.keys(layer.route.methods)) found.push(`${method.toUpperCase()} ${template}`);
      } else if (layer.handle.stack) {
        const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, `${prefix}${mount}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: RouterLayer[] } }).router.stack, '');
  return [...new Set(found)].sort();
}

/** Every (METHOD, path template) of the document. */
function documentOperations(document: Record<string, unknown>): string[] {
  const paths = document.paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .flatMap(([template, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${template}`))
    .sort();
}

/**
 * Issue 13 (front door): `/v1/openapi.json` is valid OpenAPI 3.1 by a
 * maintained validator (its `$ref`s resolve), every operation has a unique
 * `operationId`, and the document and the routes express serves are the same
 * set, so neither the document nor the 405's `Allow` (derived from it) can
 * drift from the code.
 */
describe('issue 13: the OpenAPI document', () => {
  let gateway: InProcessGateway;
  const document = buildOpenApi();

  beforeAll(async () => {
    gateway = await createInProcessGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('is valid OpenAPI 3.1 with every $ref resolving', async () => {
    const verdict = await validate(document);
    expect(verdict.errors).toBeNull();
    expect(verdict).toMatchObject({ valid: true, version: '3.1' });
  });

  it('is refused by the validator when a component points at a $defs that is not there (the defect as it was)', async () => {
    const broken = structuredClone(document) as { components: { schemas: Record<string, Record<string, unknown>> } };
    broken.components.schemas.Fact!.properties = { payload: { $ref: '#/$defs/__schema0' } };
    expect((await validate(broken)).valid).toBe(false);
  });

  it('has a unique operationId on every operation', () => {
    const paths = document.paths as Record<string, Record<string, { operationId?: string }>>;
    const ids = Object.values(paths).flatMap((operations) => Object.values(operations).map((operation) => operation.operationId));
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes exactly the operations express routes', () => {
    const served = expressOperations(gateway.app);
    expect(served.length).toBeGreaterThan(30);
    expect(served).toEqual(documentOperations(document));
  });

  it('takes query parameters from the zod query schemas', () => {
    const paths = document.paths as Record<string, Record<string, { parameters: Array<{ name: string; in: string }> }>>;
    const query = (template: string) => paths[template]!.get!.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    expect(query('/v1/workspaces/{ws}/events')).toEqual(['after', 'kind', 'limit', 'order', 'before']);
    expect(query('/v1/workspaces/{ws}/runs')).toEqual(['agentId', 'status', 'agentVersion', 'eventId', 'causedByRunId', 'batchId', 'toolResult', 'after', 'limit']);
    expect(query('/v1/workspaces/{ws}/runs/{id}/transcript')).toEqual(['after', 'limit']);
    expect(query('/v1/workspaces/{ws}/agents/{id}/export')).toEqual(['versions', 'with']);
  });

  it('documents versions and bundles (issue 32): pin, tags, diff, export, import', () => {
    const paths = document.paths as Record<string, Record<string, { operationId: string }>>;
    const ids = (template: string) => Object.values(paths[template] ?? {}).map((operation) => operation.operationId);
    expect(ids('/v1/workspaces/{ws}/agents/{id}/pin')).toEqual(['pinAgentVersion', 'unpinAgentVersion']);
    expect(ids('/v1/workspaces/{ws}/agents/{id}/tags')).toEqual(['listAgentTags']);
    expect(ids('/v1/workspaces/{ws}/agents/{id}/versions/{version}/tags/{tag}')).toEqual(['putAgentVersionTag', 'deleteAgentVersionTag']);
    expect(ids('/v1/workspaces/{ws}/agents/{id}/versions/{version}/diff/{to}')).toEqual(['diffAgentVersions']);
    expect(ids('/v1/workspaces/{ws}/agents/{id}/export')).toEqual(['exportAgents']);
    expect(ids('/v1/workspaces/{ws}/agents:import')).toEqual(['importAgents']);
    const components = (document.components as { schemas: Record<string, unknown> }).schemas;
    for (const name of ['PinAgentRequest', 'ListAgentTagsResponse', 'AgentVersionDiffResponse', 'AgentBundle', 'ImportAgentsResponse']) expect(components[name]).toBeDefined();
  });

  it('documents whoami', () => {
    const paths = document.paths as Record<string, Record<string, { operationId: string }>>;
    expect(paths['/v1/whoami']!.get!.operationId).toBe('whoAmI');
  });
});
