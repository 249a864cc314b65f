import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@switchyard/contracts';

/** A path template of the gateway's routes and the methods it answers. */
interface KnownPath {
  pattern: RegExp;
  methods: string[];
}

/** `/v1/workspaces/{ws}/runs/{id}` → a pattern for one path segment per `{param}`, as express matches (case-insensitive, optional trailing slash). */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`, 'i');
}

/**
 * Answers a request whose path is one of the gateway's but whose method is
 * not with `405 METHOD_NOT_ALLOWED` and `Allow`, before authentication (the
 * method is wrong whoever asks).
 * `paths` is the OpenAPI document's (path template → lowercase methods), the
 * one list of the gateway's routes. `HEAD` is allowed wherever `GET` is, as
 * express serves it.
 */
export function methodNotAllowed(paths: Record<string, Record<string, unknown>>): RequestHandler {
  const known: KnownPath[] = Object.entries(paths).map(([template, operations]) => {
    const methods = Object.keys(operations).map((method) => method.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    return { pattern: templatePattern(template), methods };
  });
  return (req, res, next) => {
    // A literal path and a template may both match (`/agents/try` and `/agents/{id}`): the methods are theirs together.
    const matching = known.filter((entry) => entry.pattern.test(req.path));
    const methods = [...new Set(matching.flatMap((entry) => entry.methods))];
    if (matching.length === 0 || methods.includes(req.method)) return next();
    res.setHeader('Allow', methods.join(', '));
    next(new AppError(ErrorCode.METHOD_NOT_ALLOWED, `${req.method} is not allowed here`, { allow: methods }));
  };
}
