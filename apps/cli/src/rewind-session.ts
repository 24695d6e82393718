/**
 * The `RewindSession` (core) a command drives: the opened session's history and conversation,
 * with undo points kept in fh's own store — for a Claude Code session (read-only) in the
 * `--store` under the same session id, so `fh --claude undo` finds them.
 */
import { currentBranchRecords, RewindSession, type ProgressCallback, type SummarizeCallback, type UndoStore } from '@fh/core';
import type { CommandContext } from './context.js';
import type { OpenedSession } from './open-session.js';

/** Where a session's undo points live (see the module comment). */
export async function undoStoreFor(context: CommandContext, session: OpenedSession): Promise<UndoStore> {
  return session.claude ? { store: await context.store(), sessionId: session.sessionId } : { store: session.store, sessionId: session.sessionId };
}

/**
 * Where the undo points of rewinds of a Claude Code session's files outside its project live: the
 * `--store`, session `{sessionId}.outside`.
 */
export async function outsideUndoStoreFor(context: CommandContext, session: OpenedSession): Promise<UndoStore> {
  return { store: await context.store(), sessionId: `${session.sessionId}.outside` };
}

/**
 * A RewindSession over the session's current conversation branch, with its undo store (and its
 * files outside the project, if any). `onProgress`: where its long operations report (the
 * command's progress bars, `progress-bar.ts`).
 */
export async function rewindSessionFor(context: CommandContext, session: OpenedSession, options: { summarize?: SummarizeCallback; onProgress?: ProgressCallback } = {}): Promise<RewindSession> {
  return new RewindSession({
    ...(options.summarize === undefined ? {} : { summarize: options.summarize }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    history: session.history,
    messages: currentBranchRecords(session.records),
    undo: await undoStoreFor(context, session),
    unrecordedCheckpoints: !session.claude,
    ...(session.outsideHistory === undefined ? {} : { outside: { history: session.outsideHistory, undo: await outsideUndoStoreFor(context, session) } }),
  });
}
