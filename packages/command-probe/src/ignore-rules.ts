/** `.gitignore`-style rules along a path, through the `ignore` package, as the walks apply them. */
import type { Ignore } from 'ignore';

/** One folder's ignore rules: the folder (relative to the walk's root, `''` at the root) and its rules. */
export interface Rules {
  base: string;
  rules: Ignore;
}

/**
 * Whether the rule sets on the way ignore `path` (a folder is tested with a trailing `/`): as in
 * git, a deeper `.gitignore` overrides a shallower one, and a `!pattern` there un-ignores. Rule
 * sets with base `''` (the root's, `.git/info/exclude`, the global excludes file) come first.
 */
export function isIgnored(rules: readonly Rules[], path: string, directory: boolean): boolean {
  let ignored = false;
  for (const { base, rules: set } of rules) {
    const relativePath = base === '' ? path : path.slice(base.length + 1);
    const verdict = set.test(directory ? `${relativePath}/` : relativePath);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
