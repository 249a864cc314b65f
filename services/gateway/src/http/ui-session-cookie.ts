import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppError, CSRF_HEADER, ErrorCode, UI_SESSION_COOKIE } from '@switchyard/contracts';

/** Methods that change nothing: the only ones a session cookie is accepted for without a CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A new session secret: `sys_` + 256 random bits. Only its SHA-256 is stored. */
export function newSessionSecret(): string {
  return `sys_${randomBytes(32).toString('base64url')}`;
}

/**
 * The session's CSRF token, derived from its secret (so nothing more is stored):
 * a page of another site can neither read the cookie nor compute this from it.
 */
export function csrfTokenOf(secret: string): string {
  return createHmac('sha256', secret).update('switchyard csrf').digest('base64url');
}

/** The value of the cookie `name` in the request's `Cookie` header, or undefined. */
export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The session secret in the request's `Cookie` header, or undefined. */
export function sessionCookieOf(req: Request): string | undefined {
  const value = cookieOf(req, UI_SESSION_COOKIE);
  return value !== undefined && /^sys_[\w-]{1,100}$/.test(value) ? value : undefined;
}

/** 403 CSRF_TOKEN_INVALID when a mutating request made with the cookie lacks the session's CSRF token. */
export function checkCsrf(req: Request, secret: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  const given = req.headers[CSRF_HEADER];
  const expected = Buffer.from(csrfTokenOf(secret));
  const actual = Buffer.from(typeof given === 'string' ? given : '');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new AppError(ErrorCode.CSRF_TOKEN_INVALID, `a request made with the session cookie must carry its ${CSRF_HEADER} header`);
  }
}

/** Whether the request reached us over HTTPS (directly or through a proxy that says so): the cookie is then Secure. */
export function isHttps(req: Request): boolean {
  return req.secure || req.headers['x-forwarded-proto'] === 'https';
}

/** Sets the session cookie: HttpOnly, SameSite=Strict, Secure over HTTPS, gone at `expiresAt`. */
export function setSessionCookie(req: Request, res: Response, secret: string, expiresAt: Date): void {
  res.cookie(UI_SESSION_COOKIE, secret, { httpOnly: true, sameSite: 'strict', secure: isHttps(req), path: '/', expires: expiresAt });
}

/** Tells the browser to drop the session cookie. */
export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(UI_SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure: isHttps(req), path: '/' });
}
