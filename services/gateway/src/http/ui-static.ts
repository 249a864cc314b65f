import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

/** The client-side routes of the web UI: a reload on one of them gets the page, not a 404. */
const UI_ROUTE = /^\/(?:(?:runs|agents|events)(?:\/[\w-]{1,100})?|agents\/[\w-]{1,100}\/craft|teams(?:\/[^/?#]{1,200})?|teammates\/[\w-]{1,100}|approvals|templates|team|audit|overview|members|settings|schedules|peer-notes|join|sign-in)?\/?$/;

/** Where `npm run ui:build` (Vite) writes the web UI. */
export const DEFAULT_UI_DIR = path.resolve(__dirname, '../../ui/dist');

/**
 * Serves the built web UI (decision 0029): hashed files under `/assets/` are
 * cached for a year as immutable (a new build has new names), `index.html`
 * is `no-cache` so a deploy is seen at the next load. Null when the UI was not
 * built: the API works without it.
 */
export function uiStatic(dir: string): Router | null {
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
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('x-content-type-options', 'nosniff');
    // The page loads nothing from elsewhere and no one may frame it.
    res.setHeader('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
    res.sendFile(index);
  };
  router.use(sendIndex);
  return router;
}
