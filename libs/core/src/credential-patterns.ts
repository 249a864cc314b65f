/**
 * Shapes of credentials that must not travel in free text (peer notes,
 * decision 0047). The platform's own token prefixes come from tokens.ts; the
 * others are the widely documented shapes of providers' keys. A match is a
 * refusal to keep the text, not a redaction: it cannot prove absence, only
 * catch the common leaks (the pilot uses synthetic content only).
 */
const CREDENTIAL_PATTERNS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'switchyard_token', pattern: /\bsya?_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/ },
  { name: 'openai_key', pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/ },
  { name: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { name: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/ },
  { name: 'aws_access_key', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/ },
  { name: 'slack_token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/ },
  { name: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { name: 'stripe_key', pattern: /\b[rs]k_live_[0-9A-Za-z]{16,}/ },
  { name: 'private_key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { name: 'bearer_header', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/i },
  { name: 'password_assignment', pattern: /\b(?:password|passwd|pwd|secret|api[_-]?key)\s*[:=]\s*["']?[^\s"']{8,}/i },
];

/** The name of the first credential shape found in `text`, or undefined. Never returns the match itself. */
export function credentialShapeIn(text: string): string | undefined {
  return CREDENTIAL_PATTERNS.find(({ pattern }) => pattern.test(text))?.name;
}
