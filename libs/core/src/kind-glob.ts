/**
 * Kind globs match dot-separated kinds segment by segment: `*` is exactly one
 * segment, `**` is any number of segments (also none): `scorecard.*`,
 * `*.failed`, `agent.**`, `**`.
 */
export interface KindMatcher {
  readonly glob: string;
  test(kind: string): boolean;
}

/**
 * Compiles a glob (already validated by KindGlobSchema) into a matcher. The
 * match is a dynamic programme over segments, O(glob × kind) in the worst
 * case and never exponential, whatever the glob.
 */
export function compileKindGlob(glob: string): KindMatcher {
  const pattern = glob.split('.');
  if (!pattern.includes('**') && !pattern.includes('*')) {
    return { glob, test: (kind) => kind === glob };
  }
  return { glob, test: (kind) => matchSegments(pattern, kind.split('.')) };
}

/** Whether `kind` matches `glob` (see compileKindGlob). */
export function matchesKindGlob(glob: string, kind: string): boolean {
  return compileKindGlob(glob).test(kind);
}

function matchSegments(pattern: string[], kind: string[]): boolean {
  // reachable[j]: the pattern prefix seen so far can consume exactly kind[0..j).
  let reachable = new Array<boolean>(kind.length + 1).fill(false);
  reachable[0] = true;
  for (const segment of pattern) {
    const next = new Array<boolean>(kind.length + 1).fill(false);
    for (let j = 0; j <= kind.length; j++) {
      if (segment === '**') {
        // `**` keeps every reachable position and extends it by any number of segments.
        next[j] = reachable[j] === true || (j > 0 && next[j - 1] === true);
      } else if (j > 0 && reachable[j - 1] === true) {
        next[j] = segment === '*' || segment === kind[j - 1];
      }
    }
    reachable = next;
  }
  return reachable[kind.length] === true;
}

/**
 * The literal kind prefix every kind matching `glob` starts with (for an
 * index-friendly SQL prefix filter before the exact match); '' when the glob
 * starts with a wildcard.
 */
export function kindGlobLiteralPrefix(glob: string): string {
  const literal: string[] = [];
  for (const segment of glob.split('.')) {
    if (segment === '*' || segment === '**') break;
    literal.push(segment);
  }
  return literal.join('.');
}

/**
 * The glob as a POSIX regular expression over `'.' || kind` (every segment
 * preceded by a dot), for filtering in SQL: `('.' || kind) ~ source`.
 * PostgreSQL's regex engine does not backtrack exponentially on it.
 */
export function kindGlobToSqlRegex(glob: string): string {
  const parts = glob.split('.').map((segment) => {
    if (segment === '**') return '(\\.[a-z0-9_]+)*';
    if (segment === '*') return '\\.[a-z0-9_]+';
    return `\\.${segment}`;
  });
  return `^${parts.join('')}$`;
}
