/**
 * The message id a command's argument names: a whole id, a unique prefix (4+ characters), or a
 * turn number as `fh list` shows it (`3`; `-1` the newest checkpoint, `-2` two turns back). The
 * rule is the core's (`RewindSession.resolveReference`); this module only builds the session and
 * names the `fh list` command (with the user's global options) in the errors.
 */
import { currentBranchRecords, RewindSession } from '@fh/core';
import { fhCommand } from './command-hint.js';
import type { CommandContext } from './context.js';
import type { OpenedSession } from './open-session.js';

/**
 * The full message id `reference` names in `session` (see the module comment); `rewinder` is
 * used when the command has one already. Throws the core's `InvalidArgumentError` (empty,
 * ambiguous prefix: exit 2) or `NotFoundError` (nothing named: exit 1).
 */
export function resolveMessageId(context: CommandContext, session: OpenedSession, reference: string, rewinder?: RewindSession): string {
  const resolver = rewinder ?? new RewindSession({ history: session.history, messages: currentBranchRecords(session.records), undo: false, unrecordedCheckpoints: !session.claude });
  return resolver.resolveReference(reference, { listCommand: fhCommand(context, ['list'], { session: session.sessionId }) });
}
