/**
 * Whether a fact kind matches a kind glob, as the API reads one (`*` one
 * segment, `**` any number): the live tail filters with the same rule as
 * `GET /events?kind=`.
 */
export function kindMatches(glob: string, kind: string): boolean {
  if (glob === '') return true;
  return segmentsMatch(glob.split('.'), kind.split('.'));
}

function segmentsMatch(glob: string[], kind: string[]): boolean {
  if (glob.length === 0) return kind.length === 0;
  const [head, ...rest] = glob;
  if (head === '**') return segmentsMatch(rest, kind) || (kind.length > 0 && segmentsMatch(glob, kind.slice(1)));
  if (kind.length === 0) return false;
  return (head === '*' || head === kind[0]) && segmentsMatch(rest, kind.slice(1));
}
