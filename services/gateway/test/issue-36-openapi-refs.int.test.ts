import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { componentSchemas } from '../src/routes/openapi-components';
import { createInProcessGateway, type InProcessGateway } from './in-process-gateway';
import { validateOpenApi as validate } from './openapi-validator';

/** Every `$ref` value in a JSON value. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child);
      else refsIn(child, found);
    }
  }
  return found;
}

/** What a local `$ref` (a JSON pointer into the document, RFC 6901) points at; undefined when it points nowhere. */
function resolveRef(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/') || ref.indexOf('#', 1) !== -1) return undefined;
  let at: unknown = document;
  for (const token of ref.slice(2).split('/').map((t) => decodeURIComponent(t).replaceAll('~1', '/').replaceAll('~0', '~'))) {
    if (!at || typeof at !== 'object' || !Object.hasOwn(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}

/**
 * Issue 36 §8: the document `/v1/openapi.json` serves (fetched over HTTP, as
 * a client reads it) has every `$ref` resolving inside it — it held
 * `#/components/schemas/__shared#/$defs/schema0`, the recursive filter-miss
 * schema zod had no name for — is valid OpenAPI 3.1, and names a server.
 */
describe('issue 36: the served OpenAPI document resolves', () => {
  let gateway: InProcessGateway;
  let server: Server;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    gateway = await createInProcessGateway();
    server = gateway.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Record<string, unknown>;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await gateway?.close();
  });

  it('resolves every $ref to a schema of the document', () => {
    const refs = [...new Set(refsIn(document))];
    expect(refs.length).toBeGreaterThan(50);
    expect(refs.filter((ref) => resolveRef(document, ref) === undefined)).toEqual([]);
    expect(JSON.stringify(document)).not.toContain('__shared');
  });

  it('is valid OpenAPI 3.1 by the maintained validator', async () => {
    const verdict = await validate(document);
    expect(verdict.errors).toBeNull();
    expect(verdict).toMatchObject({ valid: true, version: '3.1' });
  });

  it('names one server, relative to where the document was fetched', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('gives a recursive schema with no name a component of its own, so its $refs resolve', () => {
    interface Node {
      name: string;
      children?: Node[];
    }
    const NodeSchema: z.ZodType<Node> = z.object({
      name: z.string(),
      get children() {
        return z.array(NodeSchema).optional();
      },
    });
    const schemas = componentSchemas({ Tree: z.object({ root: NodeSchema, other: NodeSchema }) });
    expect(Object.keys(schemas)).toContain('Shared_schema0');
    const wrapped = { components: { schemas } };
    const refs = refsIn(wrapped);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => resolveRef(wrapped, ref) === undefined)).toEqual([]);
  });
});
