/**
 * Whether `name` matches `glob`, where `*` stands for any run of characters
 * (none included) and every other character for itself: tool-name globs
 * (`tools.platform`, `rules`) and model-price globs. The two-pointer walk
 * backtracks only to the last `*`, so it is O(length²) at worst, where a
 * regex built from a user's glob could backtrack exponentially. (Kind globs
 * over dot-separated segments are a different language: kind-glob.ts.)
 */
export function matchesStarGlob(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (g < glob.length && glob[g] !== '*' && glob[g] === name[n]) {
      g += 1;
      n += 1;
    } else if (g < glob.length && glob[g] === '*') {
      star = g;
      resume = n;
      g += 1;
    } else if (star !== -1) {
      g = star + 1;
      resume += 1;
      n = resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === '*') g += 1;
  return g === glob.length;
}
