/**
 * The message id and `--paths` of `fh diff` and `fh rewind`, however they were placed:
 * `<id> --paths a b`, `--paths a b <id>` (the variadic option takes the id too: the last value is
 * then the id), `<id> -- -rf` and `<id> --paths -- -rf` (paths after `--`, even ones that start
 * with a dash).
 */

/** What {@link splitIdAndPaths} found. */
export interface IdAndPaths {
  /** The message reference, undefined when none was given. */
  messageId: string | undefined;
  /** The paths, undefined when neither `--paths` nor paths after `--` were given. */
  paths: string[] | undefined;
}

/**
 * Split commander's parse of `[messageId] [paths...]` and `--paths <paths...>` (see the module
 * comment). `fh --paths x` alone (no id, one value) keeps `x` as a path.
 */
export function splitIdAndPaths(messageId: string | undefined, operands: readonly string[], pathsOption: readonly string[] | undefined): IdAndPaths {
  let id = messageId;
  let optionPaths = pathsOption === undefined ? undefined : [...pathsOption];
  if (id === undefined && optionPaths !== undefined && optionPaths.length >= 2) id = optionPaths.pop();
  if (optionPaths === undefined && operands.length === 0) return { messageId: id, paths: undefined };
  return { messageId: id, paths: [...(optionPaths ?? []), ...operands] };
}
