export { newId } from './ids';
export { compileKindGlob, kindGlobLiteralPrefix, matchesKindGlob } from './kind-glob';
export { hashToken, newTokenSecret, TOKEN_PREFIX, tokenPrefix } from './tokens';
