/**
 * `fh fork <messageId> [--to <id>]`: write the conversation up to (not including) that prompt as a
 * new session — its messages, the checkpoints of the kept turns and their backups (hard-linked
 * where possible) — so an agent can resume it. Only the new session is written; the source is
 * only read. With `--claude` the fork is a new Claude Code session (`claude --resume <id>`), written
 * under `projects/{slug of the session's working folder}/` wherever fh runs; it keeps every record
 * of the branch up to the fork point (parallel tool calls and their results included, see `planFork`).
 *
 * JSON: `{ "sessionId", "forkSessionId", "messageId", "projectRoot", "messages", "checkpoints",
 * "linked", "copied", "missing": [{ "backupFileName", "references" }], "prompt": { "text", ... } | null }`.
 * Exit 3 when backups were missing from the source (each named; the rest was carried).
 */
import { CURRENT_PROMPT_ID } from '@fh/core';
import { PartialFailureError } from '../cli-errors.js';
import { resolveMessageId } from '../message-ref.js';
import { fhCommand } from '../command-hint.js';
import type { CommandContext } from '../context.js';
import { displayId, escapeControl, plural } from '../format.js';
import { openSession } from '../open-session.js';
import { rewindSessionFor } from '../rewind-session.js';

/** Options of `fh fork`. */
export interface ForkOptions {
  to?: string;
}

/** Run `fh fork`. */
export async function run(context: CommandContext, messageArgument: string, options: ForkOptions): Promise<void> {
  const session = await openSession(context, { lock: false, writes: true });
  try {
    const rewinder = await rewindSessionFor(context, session);
    const messageId = messageArgument === CURRENT_PROMPT_ID ? messageArgument : resolveMessageId(context, session, messageArgument, rewinder);
    const result = await context.output.withProgress('carrying backups', (onProgress) =>
      rewinder.fork(messageId, { ...(options.to === undefined ? {} : { sessionId: options.to }), onProgress, records: session.records }),
    );
    const prompt = result.plan.rewind?.prompt;
    const missing = result.resume.missing;
    context.output.result(
      {
        sessionId: session.sessionId,
        forkSessionId: result.sessionId,
        messageId,
        projectRoot: session.projectRoot,
        messages: result.plan.messages.length,
        checkpoints: result.resume.state.snapshots.length,
        linked: result.resume.linked.length,
        copied: result.resume.copied.length,
        missing,
        prompt: prompt === undefined ? null : { text: prompt.text, mode: prompt.mode, images: prompt.images.length, permissionMode: prompt.permissionMode ?? null },
      },
      () => [
        `Forked ${displayId(session.sessionId)} before ${displayId(messageId)} as ${displayId(result.sessionId)}: ${plural(result.plan.messages.length, 'message')}, ${plural(result.resume.state.snapshots.length, 'checkpoint')}`,
        session.claude
          ? `Resume it with: claude --resume ${result.sessionId}`
          : `Use it with: ${fhCommand(context, ['list'], { session: result.sessionId })}`,
        ...(prompt === undefined ? [] : ['The prompt you forked before, ready to edit and resend:', '', escapeControl(prompt.text, { keepLines: true })]),
      ],
    );
    if (missing.length > 0) {
      throw new PartialFailureError(
        `${missing.length} backup${missing.length === 1 ? ' is' : 's are'} missing from session ${session.sessionId}`,
        missing.map((entry) => ({ path: [...new Set(entry.references.map((reference) => reference.path))].join(', '), error: `backup ${entry.backupFileName} missing` })),
      );
    }
  } finally {
    await session.close();
  }
}
