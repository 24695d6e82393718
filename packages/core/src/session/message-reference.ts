/**
 * Short references to a checkpoint or prompt (issue 15): instead of a whole 36-character message
 * id a person may give a unique prefix of it (at least {@link MIN_PREFIX_LENGTH} characters), or a
 * turn number — `3` is the third checkpoint (oldest first, as `fh list` numbers them), `-1` the
 * newest one (rewinding there undoes the current turn), `-2` the one before it (two turns back).
 * One resolver for every front end, so a harness's picker reads references the way `fh` does.
 */
import { InvalidArgumentError, NotFoundError } from '../errors.js';

/** The shortest id prefix that is looked up (shorter references must be whole ids or turn numbers). */
export const MIN_PREFIX_LENGTH = 4;

/** Most candidates an ambiguous prefix's error lists. */
const MAX_LISTED_CANDIDATES = 10;

/** What {@link resolveMessageReference} matches a reference against. */
export interface MessageReferenceCandidates {
  /** The session the ids belong to (named in errors). */
  sessionId: string;
  /** The checkpoints' message ids, oldest first: turn `n` is `checkpointIds[n - 1]`. */
  checkpointIds: readonly string[];
  /** Other ids a reference may name (recorded prompts without a checkpoint, say); prefixes only. */
  otherIds?: readonly string[];
  /** What the command lists the ids with, for the errors' "what to do" (default `fh list`). */
  listCommand?: string;
}

/**
 * Whether `reference` reads as a turn number (`3`, `-1`: digits with an optional leading minus)
 * in {@link resolveMessageReference}, which takes an exact id first: a message id of that form
 * would shadow the turn.
 */
export function isTurnNumber(reference: string): boolean {
  return /^-?\d+$/.test(reference);
}

/**
 * The full message id `reference` names among `candidates`, in this order: an exact id; a turn
 * number (`/^-?\d+$/`: `n` from 1 to the number of checkpoints, or `-n` counting back from the
 * newest, `-1` being the newest); a unique prefix of at least {@link MIN_PREFIX_LENGTH}
 * characters of a checkpoint or other id.
 *
 * Throws `InvalidArgumentError` for an empty reference and for a prefix that fits several ids (the
 * message lists them); `NotFoundError` for a turn number out of range and for a reference that
 * names nothing. Every message names the session and says what to give instead. Pure.
 */
export function resolveMessageReference(reference: string, candidates: MessageReferenceCandidates): string {
  const { sessionId, checkpointIds } = candidates;
  const otherIds = candidates.otherIds ?? [];
  const listCommand = candidates.listCommand ?? 'fh list';
  const session = `session ${JSON.stringify(sessionId)}`;
  if (reference.trim() === '') {
    throw new InvalidArgumentError(
      `an empty message id names no checkpoint or prompt of ${session}: give a message id, a unique prefix of ${MIN_PREFIX_LENGTH} or more characters, or a turn number (${listCommand} shows them)`,
    );
  }
  if (checkpointIds.includes(reference) || otherIds.includes(reference)) return reference;
  if (isTurnNumber(reference)) {
    const turn = Number(reference);
    const count = checkpointIds.length;
    const index = turn > 0 ? turn - 1 : count + turn;
    if (turn !== 0 && index >= 0 && index < count) return checkpointIds[index] as string;
    if (reference.length < MIN_PREFIX_LENGTH || reference.startsWith('-')) {
      throw new NotFoundError(
        count === 0
          ? `turn ${reference} does not exist: ${session} has no checkpoints yet`
          : `turn ${reference} does not exist: ${session} has turns 1 to ${count} (or -1 to -${count}, counting back from the newest; ${listCommand} shows them)`,
      );
    }
  }
  if (reference.length >= MIN_PREFIX_LENGTH) {
    const matches = [...new Set([...checkpointIds, ...otherIds])].filter((id) => id.startsWith(reference));
    if (matches.length === 1) return matches[0] as string;
    if (matches.length > 1) {
      const listed = matches.slice(0, MAX_LISTED_CANDIDATES).join(', ');
      const more = matches.length > MAX_LISTED_CANDIDATES ? ` and ${matches.length - MAX_LISTED_CANDIDATES} more` : '';
      throw new InvalidArgumentError(
        `message id prefix ${JSON.stringify(reference)} fits ${matches.length} ids of ${session}: ${listed}${more}; give more characters`,
      );
    }
  }
  const short = reference.length < MIN_PREFIX_LENGTH ? ` (a prefix needs at least ${MIN_PREFIX_LENGTH} characters)` : '';
  throw new NotFoundError(`no checkpoint or prompt ${JSON.stringify(reference)} in ${session}${short}; ${listCommand} shows them`);
}
