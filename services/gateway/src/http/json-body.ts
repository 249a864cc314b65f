import express, { type RequestHandler } from 'express';
import { AppError, ErrorCode, MAX_JSON_DEPTH } from '@switchyard/contracts';
import { checkStorableJson, duplicateKeyIn } from '@switchyard/core';
import { requireJsonBody } from './validate';

/** Options of jsonBody. */
export interface JsonBodyOptions {
  /** Largest body accepted, in bytes, after decoding its `Content-Encoding`. */
  limitBytes: number;
  /** Deepest nesting accepted. @defaultValue MAX_JSON_DEPTH */
  maxDepth?: number;
}

/**
 * The one way the gateway reads a JSON body (every workspace route and
 * `/mcp`): it must say it is JSON (415), decode with its `Content-Encoding`
 * (400 `BODY_ENCODING_INVALID` when it does not, 415 for an unknown one),
 * parse (400 `MALFORMED_JSON`), and then pass one iterative check before any
 * schema sees it: no nesting past `maxDepth` (400 `JSON_TOO_DEEP`) and no
 * string or key PostgreSQL cannot store (400 `VALIDATION_FAILED` naming its path).
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler[] {
  const parse = express.json({ limit: options.limitBytes, type: 'application/json' });
  return [requireJsonBody, checkedBody(parse, options.maxDepth ?? MAX_JSON_DEPTH)];
}

/**
 * A form or JSON body (Mattermost's slash commands post either), read with
 * the same refusals and checks as jsonBody; any other content type leaves
 * the body unset, for the route's schema to refuse.
 */
export function formOrJsonBody(options: JsonBodyOptions): RequestHandler[] {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const form = express.urlencoded({ extended: false, limit: options.limitBytes, parameterLimit: 50 });
  const json = express.json({ limit: options.limitBytes, type: 'application/json' });
  return [checkedBody(form, maxDepth), checkedBody(json, maxDepth)];
}

/** A body-parser with its refusals as AppErrors, and the parsed body passed through checkStorableJson. */
function checkedBody(parse: RequestHandler, maxDepth: number): RequestHandler {
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error) return next(bodyParserError(error, req.headers['content-encoding']));
      if (req.body === undefined) return next();
      next(unstorableBodyError(req.body, maxDepth));
    });
  };
}

/** The refusal of a parsed body nested past `maxDepth` or holding text PostgreSQL cannot store; undefined when it passes. */
function unstorableBodyError(body: unknown, maxDepth: number): AppError | undefined {
  const check = checkStorableJson(body, maxDepth);
  if (check.ok) return undefined;
  if (check.reason === 'too_deep') {
    return new AppError(ErrorCode.JSON_TOO_DEEP, `request body is nested deeper than ${maxDepth} levels`, { maxDepth });
  }
  const where = check.path.length > 0 ? check.path.join('.') : '(body)';
  const message = `${where}: contains ${check.found}, which cannot be stored`;
  return new AppError(ErrorCode.VALIDATION_FAILED, 'invalid body', [{ code: 'unstorable_text', path: check.path, message }]);
}

/**
 * A JSON body kept as its bytes (`req.body` a Buffer), for a route that
 * verifies a signature over exactly what was sent before it reads it: the
 * same door as jsonBody — JSON content type (415), a charset other than
 * UTF-8 refused (415), the size limit after decoding the `Content-Encoding`
 * (413), a lying or unknown encoding (400/415). Parse with parseJsonBytes.
 */
export function rawJsonBody(options: Pick<JsonBodyOptions, 'limitBytes'>): RequestHandler[] {
  const read = express.raw({ limit: options.limitBytes, type: 'application/json' });
  const utf8Only: RequestHandler = (req, res, next) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return next(bodyParserError({ type: 'charset.unsupported' }, undefined));
    }
    read(req, res, (error?: unknown) => next(error ? bodyParserError(error, req.headers['content-encoding']) : undefined));
  };
  return [requireJsonBody, utf8Only];
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Bytes read by rawJsonBody as a JSON object or array, with jsonBody's
 * refusals and one more: valid UTF-8 and JSON (400 `MALFORMED_JSON`; an
 * object or array at the top, like express.json's strict mode), no key twice
 * in one object (400 `VALIDATION_FAILED`: parsers disagree on which one
 * counts), no nesting past `maxDepth` (400 `JSON_TOO_DEEP`), no text
 * PostgreSQL cannot store (400 `VALIDATION_FAILED`).
 */
export function parseJsonBytes(raw: Uint8Array, maxDepth = MAX_JSON_DEPTH): unknown {
  let text: string;
  let body: unknown;
  try {
    text = UTF8.decode(raw);
    body = JSON.parse(text);
  } catch {
    throw new AppError(ErrorCode.MALFORMED_JSON, 'request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null) throw new AppError(ErrorCode.MALFORMED_JSON, 'request body is not a JSON object or array');
  const refusal = unstorableBodyError(body, maxDepth);
  if (refusal) throw refusal;
  const duplicate = duplicateKeyIn(text);
  if (duplicate) {
    const message = `${duplicate.path.join('.')}: the key ${JSON.stringify(duplicate.key)} appears twice in one object`;
    throw new AppError(ErrorCode.VALIDATION_FAILED, 'invalid body', [{ code: 'duplicate_key', path: duplicate.path, message }]);
  }
  return body;
}

/**
 * body-parser's refusals as AppErrors. Its decoders (zlib, brotli) fail with
 * their own errors and no `type`: with a `Content-Encoding` given, such a
 * 400 means the body is not in that encoding.
 */
export function bodyParserError(error: unknown, contentEncoding: string | undefined): unknown {
  if (error instanceof AppError) return error;
  const { type, limit, status } = (error ?? {}) as { type?: string; limit?: number; status?: number };
  switch (type) {
    case 'entity.parse.failed':
      return new AppError(ErrorCode.MALFORMED_JSON, 'request body is not valid JSON');
    case 'entity.too.large':
      return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 'request body is too large', { limitBytes: limit });
    case 'encoding.unsupported':
      return new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'unsupported Content-Encoding: use gzip, deflate, br or none');
    case 'charset.unsupported':
      return new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'unsupported charset: use utf-8');
    case 'request.size.invalid':
      return new AppError(ErrorCode.BODY_ENCODING_INVALID, 'request body length does not match Content-Length');
  }
  const encoded = contentEncoding !== undefined && contentEncoding.trim().toLowerCase() !== 'identity';
  if (encoded && status !== undefined && status >= 400 && status < 500) {
    return new AppError(ErrorCode.BODY_ENCODING_INVALID, `request body is not valid ${contentEncoding}`);
  }
  return error;
}
