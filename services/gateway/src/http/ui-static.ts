import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import express, { Router, type Request } from 'express';
import { FLEET_FIRST_READS, SESSION_PATH } from '../../ui/src/first-reads';

/** The client-side routes of the web UI: a reload on one of them gets the page, not a 404. */
const UI_ROUTE = /^\/(?:(?:runs|agents|events)(?:\/[\w-]{1,100})?|approvals|team)?\/?$/;

/** Where `npm run ui:build` (Vite) writes the web UI. */
export const DEFAULT_UI_DIR = path.resolve(__dirname, '../../ui/dist');

/** The workspace slug of the request's signed-in UI session (its cookie), or null. */
export type SessionWorkspace = (req: Request) => Promise<string | null>;

/**
 * Serves the built web UI (decision 0029): hashed files under `/assets/` are
 * cached for a year as immutable (a new build has new names), `index.html`
 * is `no-cache` so a deploy is seen at the next load. The page names the
 * reads it makes first as preloads (ui/src/first-reads.ts): who is signed in,
 * and for the fleet page of a signed-in session its workspace's first page of
 * runs, agents and pending approvals — so the browser fetches them beside the
 * script. Null when the UI was not built: the API works without it.
 */
export function uiStatic(dir: string, sessionWorkspace?: SessionWorkspace): Router | null {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return null;
  const router = Router();
  router.use(
    '/assets',
    express.static(path.join(dir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
    }),
  );
  // A middleware, not routes: the pages are not API operations (the OpenAPI document lists those).
  const sendIndex: express.RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !UI_ROUTE.test(req.path)) return next();
    void (async () => {
      // A lookup that fails leaves the page without its workspace's preloads, never without the page.
      const workspace = req.path === '/' && sessionWorkspace ? await sessionWorkspace(req).catch(() => null) : null;
      const reads = [SESSION_PATH, ...(workspace ? FLEET_FIRST_READS.map((read) => `/v1/workspaces/${encodeURIComponent(workspace)}${read}`) : [])];
      const preloads = reads.map((href) => `<link rel="preload" as="fetch" crossorigin href="${href.replaceAll('&', '&amp;')}">`).join('');
      const html = (await readFile(index, 'utf8')).replace('<head>', `<head>${preloads}`);
      // Private: the page names the session's workspace.
      res.setHeader('cache-control', 'private, no-cache');
      res.setHeader('vary', 'cookie');
      res.setHeader('x-content-type-options', 'nosniff');
      // The page loads nothing from elsewhere and no one may frame it.
      res.setHeader('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
      res.type('html').send(html);
    })().catch(next);
  };
  router.use(sendIndex);
  return router;
}
