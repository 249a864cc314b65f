import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON request carries it (the fields the tests read). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status?: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean>;
  /** The resource's `service.name`. */
  serviceName?: string;
}

/** A local OTLP/HTTP receiver: what an operator's collector would be. */
export interface LocalOtlpReceiver {
  /** The base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`); requests arrive at `<url>/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  /** Requests received, with their headers. */
  requests: { path: string; headers: Record<string, string | string[] | undefined> }[];
  /** While set, answers every request with this status (a collector that is down or refusing). */
  failWith: number | null;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
const valueOf = (value: AnyValue) => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue ?? value.boolValue ?? '');
const attributesOf = (list: { key: string; value: AnyValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/**
 * Why this exists: run traces leave the platform over OTLP/HTTP (decision
 * 0057), and only a real receiver shows that the SDK's exporter sent what the
 * trace API serves. Accepts OTLP JSON at `/v1/traces` and keeps the spans.
 */
export async function startLocalOtlpReceiver(): Promise<LocalOtlpReceiver> {
  const receiver: Omit<LocalOtlpReceiver, 'url' | 'close'> = { spans: [], requests: [], failWith: null };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests.push({ path: req.url ?? '', headers: req.headers });
      if (receiver.failWith !== null) return void res.writeHead(receiver.failWith).end();
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) return void res.writeHead(415).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'serviceName'> & { attributes?: { key: string; value: AnyValue }[] })[] }[] }[];
      };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
        for (const scope of resourceSpans.scopeSpans ?? []) for (const span of scope.spans ?? []) receiver.spans.push({ ...span, attributes: attributesOf(span.attributes), serviceName });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
