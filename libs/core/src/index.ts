export { newId } from './ids';
export { compileKindGlob, kindGlobLiteralPrefix, kindGlobToSqlRegex, matchesKindGlob } from './kind-glob';
export type { KindMatcher } from './kind-glob';
export { hashToken, newTokenSecret, TOKEN_PREFIX, tokenPrefix } from './tokens';
export { compileFilter } from './trigger-filter';
export type { FactPredicate } from './trigger-filter';
export { platformFact } from './platform-facts';
export type { PlatformFactInput } from './platform-facts';
