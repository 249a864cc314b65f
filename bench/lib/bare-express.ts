/**
 * Baseline for bench:ingest: an express app that parses the same JSON bodies
 * the gateway gets and answers 202 doing nothing else, so the gateway's own
 * cost on top of express is visible. Prints its port once listening.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';

const app = express();
app.use(express.json({ limit: 1024 * 1024 }));
app.post('/v1/workspaces/:ws/events', (_req, res) => void res.status(202).json({ id: '00000000-0000-7000-8000-000000000000' }));
app.post('/v1/workspaces/:ws/events\\:batch', (req, res) => void res.status(202).json({ ids: (req.body as { events: unknown[] }).events.map(() => 'x') }));
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'bare express listening', port: (server.address() as AddressInfo).port })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
