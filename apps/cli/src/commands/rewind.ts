/**
 * `fh rewind [messageId] [--mode both|code|conversation] [--paths <p…>] [--agent <agentId>] [--dry-run] [--yes]`.
 *
 * `--agent <agentId>` (`main`, a sub-agent id or a unique prefix; issue 14): only the files that
 * agent changed after the checkpoint are rewound; a file other agents changed too is a conflict,
 * reported (skipped, with who changed it) and left alone unless `--paths` names it. It implies
 * `--mode code` unless a mode is given. JSON adds `"agent"` (see `fh diff`).
 *
 * Without a message id on a terminal it opens the interactive menu (seed 000 §2); without a
 * terminal it needs a message id. Before changing anything it asks on the terminal — or, without
 * one, refuses unless `--yes` is given. The files a rewind overwrites are saved first in an undo
 * point (`fh undo` puts them back). After a conversation rewind the rewound prompt is printed,
 * ready to edit and resend. The session log is append-only: the conversation a later turn
 * continues is the agent's; `fh fork` writes the rewound conversation as a new session to resume.
 *
 * While the menu or the question waits for a person, the session is open without its lock, so
 * agents' hooks keep backing up files and taking checkpoints; the lock is taken only to apply the
 * choice, with the state rebuilt from the log (what was recorded meanwhile is included). When the
 * chosen checkpoint or prompt is gone by then, nothing is written (`FH_CONFLICT`, exit 1).
 *
 * On a terminal, a lossless rewind (no file would change and only synthetic messages follow,
 * seed 000 §7) runs without asking.
 *
 * Default mode: `both` when the message is a recorded prompt with a checkpoint, `code` for a
 * checkpoint whose prompt was not recorded, `conversation` for a prompt without a checkpoint.
 *
 * JSON: `{ "sessionId", "projectRoot", "messageId", "mode", "dryRun", "code": { "restored",
 * "deleted", "skipped": [{ "path", "reason" }], "failed": [{ "path", "error" }] } | null,
 * "preview": DiffStats & { "changedSinceLatestSnapshot" } | null, "undoId": string | null,
 * "conversation": { "conversationId", "removedMessageIds", "prompt": { "text", "mode", "images",
 * "permissionMode" } } | null }`; the menu's "never mind" gives `{ "messageId": null, "mode":
 * "nevermind" }`. Exit 3 when some files could not be rewound or were skipped (each is named).
 * For a Claude Code session that tracked files outside the project, JSON adds `"outside": { "left",
 * "restored", "deleted", "skipped", "failed", "undoSession" } | null`: without `--include-outside`
 * they are left alone and named (`left`), with it they are rewound too (never through a symlink),
 * their undo point going to the `--store` session `{sessionId}.outside`.
 *
 * A code rewind whose project folder does not exist refuses (exit 1) before anything is created,
 * naming the `--project` to pass. For fh's own sessions the conversation belongs to the agent
 * that runs it: a conversation rewind records nothing and says so (the prompt is printed, and
 * `fh fork` writes the conversation before it as a new session).
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  ConflictError,
  CURRENT_PROMPT_ID,
  FhError,
  type BackupMissingError,
  messageText,
  NotFoundError,
  offeredCheckpointIds,
  snapshotFileBackups,
  findSelectableMessageIndex,
  isTranscriptMessage,
  promptForResubmit,
  rewindConversation,
  type ConversationRecord,
  type ProgressCallback,
  type PromptForResubmit,
  type RewindPreview,
  type RewindSession,
} from '@fh/core';
import { ExitCode, HintedError, partialMessage, PartialFailureError, UsageError } from '../cli-errors.js';
import { fhCommand } from '../command-hint.js';
import { confirm, isInteractive } from '../confirm.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { openSession, reopenWithLock, type OpenedSession } from '../open-session.js';
import { displayId, displayPath, escapeControl, plural } from '../format.js';
import { otherFilesHint } from '../refusal-hint.js';
import { reasonText, renderDiffStats } from '../render-stats.js';
import { rewindSessionFor } from '../rewind-session.js';
import { menuLoadingBar, progressBars, type MenuLoadingBar } from '../progress-bar.js';
import { selectionDocument, selectionLines } from '../agent-lines.js';
import { splitIdAndPaths } from '../id-and-paths.js';
import { filePatch } from '../file-patch.js';
import { commandSummarizer, summarizeCommandFor } from '../summarize-command.js';
import { resolveMessageId } from '../message-ref.js';
import type { MenuEntry, RewindMode } from '../menu/rewind-menu.js';

/** Options of `fh rewind`. */
export interface RewindCommandOptions {
  mode?: RewindMode;
  paths?: string[];
  agent?: string;
  dryRun?: boolean;
  yes?: boolean;
  includeOutside?: boolean;
  /** `--summarize-command <cmd>` (else `FH_SUMMARIZE_COMMAND`): offers and runs the summarize modes. */
  summarizeCommand?: string;
}

/** Run `fh rewind`. */
export async function run(context: CommandContext, messageArgument: string | undefined, operands: string[], options: RewindCommandOptions): Promise<number | void> {
  const split = splitIdAndPaths(messageArgument, operands, options.paths);
  const messageIdArgument = split.messageId;
  if (options.mode !== 'conversation') assertCheckpointingEnabled(context, 'only --mode conversation rewinds while it is set');
  // A person may look at the menu or the [y/N] preview for minutes: until the choice is made the
  // session is open without its lock, so agents' hooks keep backing up files meanwhile; the lock is
  // taken only to apply the rewind (see reopenWithLock).
  const applyAtOnce = options.yes === true && messageIdArgument !== undefined && options.dryRun !== true;
  let session = await openSession(context, { lock: applyAtOnce, writes: options.dryRun !== true });
  try {
    const summarizeCommand = summarizeCommandFor(context, options.summarizeCommand);
    const summarize = summarizeCommand === undefined ? undefined : commandSummarizer(summarizeCommand, session.projectRoot, context.environment);
    // The menu shows its own loading bar: the previews it runs for each prompt report to it.
    let loadingMenu: MenuLoadingBar | undefined;
    const bars = progressBars(context.output, 'rewind');
    const onProgress: ProgressCallback = (event) => {
      if (loadingMenu === undefined) bars(event);
      else loadingMenu.onProgress(event);
    };
    let rewinder = await rewindSessionFor(context, session, summarize === undefined ? { onProgress } : { summarize, onProgress });
    let messageId = messageIdArgument === undefined ? undefined : resolveMessageId(context, session, messageIdArgument, rewinder);
    let mode = options.mode;
    let agent = options.agent;
    if (agent !== undefined) mode ??= 'code';
    let confirmed = options.yes === true;
    if (messageId === undefined) {
      if (!isInteractive(context)) {
        throw new UsageError('rewind needs a message id when there is no terminal to show the menu on (fh list shows them)');
      }
      const { runRewindMenu } = await import('../menu/rewind-menu.js');
      const opened = session;
      const entries = await menuEntries(context, session, rewinder, (bar) => (loadingMenu = bar)).finally(() => {
        loadingMenu?.stop();
        loadingMenu = undefined;
      });
      const choice = await runRewindMenu(entries, {
        canSummarize: summarize !== undefined,
        loadPatch: async (id, path) => {
          const file = entries.find((entry) => entry.messageId === id)?.stats?.files.find((candidate) => candidate.path === path);
          return file === undefined ? '' : (await filePatch(opened, id, file)).text;
        },
      });
      if (choice === 'interrupted') {
        context.output.note('fh: interrupted: nothing changed');
        return ExitCode.interrupted;
      }
      if (choice === null) {
        context.output.result({ sessionId: session.sessionId, messageId: null, mode: 'nevermind' }, () => 'Never mind: nothing changed.');
        return;
      }
      messageId = choice.messageId;
      mode = choice.mode;
      if (choice.agent !== undefined) agent = choice.agent;
      confirmed = true;
    }
    const hasMessage = isRecordedPrompt(rewinder, messageId);
    const canRestore = session.history.canRestore(messageId);
    mode ??= hasMessage && canRestore ? 'both' : canRestore || !hasMessage ? 'code' : 'conversation';
    const paths = split.paths?.map((path) => resolve(context.cwd, path));
    if (agent !== undefined && mode === 'conversation') throw new UsageError('--agent limits a code rewind; it cannot be used with --mode conversation');
    const filter = { ...(paths === undefined ? {} : { paths }), ...(agent === undefined ? {} : { agent }) };
    const codeMode = mode === 'both' || mode === 'code';
    const shownId = displayId(messageId);
    const hintWords = [...(options.mode === undefined ? [] : ['--mode', mode]), ...(options.yes === true ? ['--yes'] : [])];
    if (codeMode) await assertProjectFolderExists(context, session);
    if (mode === 'summarize' || mode === 'summarize_up_to') {
      if (summarize === undefined) {
        throw new UsageError(`--mode ${mode} needs a summarize command: pass --summarize-command <cmd> or set FH_SUMMARIZE_COMMAND (the conversation on its stdin, the summary on its stdout); nothing was changed`);
      }
      await summarizeIntoNewSession(context, session, rewinder, messageId, mode, options.dryRun === true);
      return;
    }

    if (!confirmed && options.dryRun !== true && hasMessage && mode !== 'code' && isInteractive(context)) {
      confirmed = await rewinder.isLosslessRewind(messageId);
    }
    if (options.dryRun === true || !confirmed) {
      const preview = codeMode ? await rewinder.preview(messageId, filter) : null;
      const outsidePreview = codeMode && paths === undefined && agent === undefined ? ((await rewinder.previewOutside(messageId)) ?? null) : null;
      const conversation = mode === 'code' ? null : conversationPreview(rewinder, messageId);
      const outsideLines =
        outsidePreview === null
          ? []
          : renderDiffStats(outsidePreview, context.output.colors, options.includeOutside === true ? 'Outside the project (--include-outside), rewinding' : 'Outside the project (left unless --include-outside is given), rewinding');
      if (options.dryRun === true) {
        context.output.result(
          { sessionId: session.sessionId, projectRoot: session.projectRoot, messageId, mode, dryRun: true, code: null, preview, undoId: null, conversation, outsidePreview, ...(preview?.agent === undefined ? {} : { agent: selectionDocument(preview.agent) }) },
          () => [
            ...(preview?.agent === undefined ? [] : selectionLines(preview.agent, context.output.colors)),
            ...(preview === null
              ? []
              : renderDiffStats(preview, context.output.colors, `Rewinding the code to ${shownId}`, {
                  refusalHint: otherFilesHint(context, session, messageId, preview, hintWords),
                })),
            ...outsideLines,
            ...(conversation === null ? [] : [`Rewinding the conversation would drop ${plural(conversation.removedMessageIds.length, 'message')}, from the prompt: ${escapeControl(conversation.prompt.text, { keepLines: true })}`]),
            'Dry run: nothing changed.',
          ],
        );
        return;
      }
      if (!isInteractive(context)) {
        throw new UsageError('refusing to rewind without confirmation: there is no terminal to ask on; pass --yes (or --dry-run to preview)');
      }
      const summary =
        preview === null
          ? []
          : [
              ...(preview.agent === undefined ? [] : selectionLines(preview.agent, context.output.colors)),
              ...renderDiffStats(preview, context.output.colors, `Rewinding the code to ${shownId}`, {
                refusalHint: otherFilesHint(context, session, messageId, preview, hintWords),
              }),
            ];
      for (const line of [...summary, ...outsideLines]) context.output.line(line);
      if (preview !== null && preview.changedSinceLatestSnapshot.length > 0) {
        context.output.line(context.output.colors.yellow(`Changed since the last checkpoint (kept in the undo point): ${preview.changedSinceLatestSnapshot.map(displayPath).join(', ')}`));
      }
      if (!(await confirm(`Rewind ${mode === 'both' ? 'code and conversation' : mode} to ${shownId}? [y/N] `))) {
        context.output.line('Nothing changed.');
        return;
      }
    }

    if (!applyAtOnce) {
      session = await reopenWithLock(context, session);
      rewinder = await rewindSessionFor(context, session, summarize === undefined ? { onProgress } : { summarize, onProgress });
      assertStillRewindable(session, rewinder, messageId, mode);
    }
    // Ctrl-C during the restore: say whether files had started to change, and how to put them back.
    let writing = false;
    const onInterrupt = () => {
      process.stderr.write(
        writing
          ? `fh: rewind interrupted after it began writing files; ${fhCommand(context, ['undo'], { session: session.sessionId })} puts them back\n`
          : 'fh: rewind interrupted before it changed any file\n',
      );
      process.exit(130);
    };
    process.once('SIGINT', onInterrupt);
    const result = await rewinder
      .restore({
        messageId,
        mode,
        ...filter,
        ...(options.includeOutside === true && paths === undefined && agent === undefined ? { includeOutside: true } : {}),
        onUndoPointSaved: () => (writing = true),
      })
      .catch(async (error: unknown) => {
        if (FhError.hasCode(error, 'FH_BACKUP_MISSING')) {
          const stats = await rewinder.preview(messageId, filter);
          const refused = (error as BackupMissingError).missing.map((entry) => entry.path);
          throw new HintedError(error, otherFilesHint(context, session, messageId, stats, hintWords, refused));
        }
        // Refused before the first write (the undo point could not be saved, say): say so.
        if (!writing && !(error instanceof HintedError) && !/\bnothing\b/i.test(error instanceof Error ? error.message : String(error))) {
          throw new HintedError(error, `Nothing was changed in ${displayPath(session.projectRoot)}. Fix what is named above and rewind again${paths === undefined ? `, or leave that file out with --paths (${fhCommand(context, ['diff', messageId], { session: session.sessionId })} lists the files)` : ''}.`);
        }
        // Stopped after its first write: its timeline point stays pending, and undo rolls it back.
        if (writing && !(error instanceof HintedError)) {
          throw new HintedError(error, `The rewind stopped after it saved its undo point, so files in ${displayPath(session.projectRoot)} may have changed. To put every file back as it was before it: ${fhCommand(context, ['undo'], { session: session.sessionId })}`);
        }
        throw error;
      })
      .finally(() => process.removeListener('SIGINT', onInterrupt));
    const code = result.code === undefined
      ? null
      : { restored: result.code.restored, deleted: result.code.deleted, skipped: result.code.skipped, failed: result.code.failed.map((failure) => ({ path: failure.path, error: failure.error.message })) };
    const conversation = result.conversation === undefined
      ? null
      : { conversationId: result.conversation.conversationId, removedMessageIds: result.conversation.removedMessageIds, prompt: promptDocument(result.conversation.prompt) };
    const undoId = result.undoPoint?.undoId ?? null;
    const outsideCode = result.outside?.code;
    const outside =
      result.outside === undefined
        ? null
        : {
            left: result.outside.left,
            restored: outsideCode?.restored ?? [],
            deleted: outsideCode?.deleted ?? [],
            skipped: outsideCode?.skipped ?? [],
            failed: (outsideCode?.failed ?? []).map((failure) => ({ path: failure.path, error: failure.error.message })),
            undoSession: result.outside.undoPoint === null || result.outside.undoPoint === undefined ? null : `${session.sessionId}.outside`,
          };
    const colors = context.output.colors;
    // Something was written (an undo point alone changes no file): only then is there anything to undo.
    const changedFiles = (code === null ? 0 : code.restored.length + code.deleted.length) > 0;
    const ownConversation = !session.claude && conversation !== null;
    context.output.result(
      { sessionId: session.sessionId, projectRoot: session.projectRoot, messageId, mode, dryRun: false, code: plainFailures(context, code), preview: null, undoId, conversation, outside: plainFailures(context, outside), ...(result.agent === undefined ? {} : { agent: selectionDocument(result.agent) }) },
      () => [
        ...(result.agent === undefined ? [] : selectionLines(result.agent, colors)),
        ...(code === null
          ? []
          : [
              `Rewound the code to ${shownId}: ${code.restored.length} restored, ${code.deleted.length} deleted${code.failed.length > 0 ? colors.red(`, ${code.failed.length} failed`) : ''}, in ${displayPath(session.projectRoot)}`,
              ...code.restored.map((path) => `  restored  ${displayPath(path)}`),
              ...code.deleted.map((path) => `  deleted   ${displayPath(path)}`),
              ...code.skipped.map((entry) => `  ${colors.yellow('skipped')}   ${displayPath(entry.path)}: ${reasonText(entry.path, entry.reason)}`),
            ]),
        ...(outside === null
          ? []
          : outside.left.length > 0
            ? [
                colors.yellow(`Left ${plural(outside.left.length, 'file')} outside the project unchanged: ${outside.left.map(displayPath).join(', ')}`),
                `To rewind them too: ${fhCommand(context, ['rewind', messageId, ...(mode === 'both' ? [] : ['--mode', mode]), '--include-outside'], { session: session.sessionId })}`,
              ]
            : outsideCode === undefined
              ? []
              : [
                  `Outside the project: ${outside.restored.length} restored, ${outside.deleted.length} deleted${outside.failed.length > 0 ? colors.red(`, ${outside.failed.length} failed`) : ''}`,
                  ...outside.restored.map((path) => `  restored  ${displayPath(path)}`),
                  ...outside.deleted.map((path) => `  deleted   ${displayPath(path)}`),
                  ...outside.skipped.map((entry) => `  ${colors.yellow('skipped')}   ${displayPath(entry.path)}: ${reasonText(entry.path, entry.reason)}`),
                ]),
        ...(undoId === null || !changedFiles ? [] : [colors.dim(`Undo with: ${fhCommand(context, ['undo'], { session: session.sessionId })}`)]),
        ...(outside === null || outside.undoSession === null ? [] : [colors.dim(`Undo the files outside the project with: ${fhCommand(context, ['undo', '--outside'], { session: session.sessionId })}`)]),
        ...(conversation === null
          ? []
          : ownConversation
            ? [
                `The conversation of session ${displayId(session.sessionId)} belongs to the agent that runs it: nothing was dropped or recorded. The prompt at ${shownId}, ready to edit and resend:`,
                '',
                escapeControl(conversation.prompt.text, { keepLines: true }),
                '',
                colors.dim(`To continue from before it as a new session: ${fhCommand(context, ['fork', messageId], { session: session.sessionId })}`),
              ]
            : [
              `Rewound the conversation to before ${shownId} (${plural(conversation.removedMessageIds.length, 'message')} dropped). The prompt, ready to edit and resend:`,
              '',
              escapeControl(conversation.prompt.text, { keepLines: true }),
              '',
              colors.dim(`To continue from here as a new session: ${fhCommand(context, ['fork', messageId], { session: session.sessionId })}`),
            ]),
      ],
    );
    const failed = [...(code?.failed ?? []), ...(outside?.failed ?? [])];
    const skipped = [...(code?.skipped ?? []), ...(outside?.skipped ?? [])];
    if (failed.length > 0 || skipped.length > 0) {
      const partial = new PartialFailureError(partialMessage(failed.length, skipped.length, 'rewound'), [
        ...failed,
        ...skipped.map((entry) => ({ path: entry.path, error: `skipped: ${entry.reason}` })),
      ]);
      if (failed.length === 0) throw partial;
      const changed = (code?.restored.length ?? 0) + (code?.deleted.length ?? 0);
      throw new HintedError(
        partial,
        changed === 0
          ? `Nothing was changed in ${displayPath(session.projectRoot)}.`
          : `${plural(changed, 'other file')} in ${displayPath(session.projectRoot)} ${changed === 1 ? 'was' : 'were'} rewound; the ${failed.length === 1 ? 'file' : 'files'} named above ${failed.length === 1 ? 'was' : 'were'} left as ${failed.length === 1 ? 'it was' : 'they were'}. To put everything back: ${fhCommand(context, ['undo'], { session: session.sessionId })}`,
      );
    }
  } finally {
    await session.close();
  }
}

/**
 * After the session was opened again with its lock (it may have changed while a person chose):
 * throw `ConflictError` when the chosen checkpoint or prompt is no longer there, before anything
 * is written.
 */
function assertStillRewindable(session: OpenedSession, rewinder: RewindSession, messageId: string, mode: RewindMode): void {
  const gone =
    (mode === 'both' || mode === 'code') && !session.history.canRestore(messageId)
      ? 'checkpoint'
      : mode !== 'code' && !isRecordedPrompt(rewinder, messageId)
        ? 'prompt'
        : undefined;
  if (gone === undefined) return;
  throw new ConflictError(
    `the ${gone} ${displayId(messageId)} is no longer in session ${displayId(session.sessionId)}: the session changed while you were choosing; nothing was changed`,
  );
}

/** `part` with its `failed` errors as `context.errorText` gives them (each naming its file, not a temp file), for the JSON document. */
function plainFailures<T extends { failed: Array<{ path: string; error: string }> } | null>(context: CommandContext, part: T): T {
  return part === null ? part : { ...part, failed: part.failed.map((failure) => ({ path: failure.path, error: context.errorText(failure.error, failure.path) })) };
}

/** The prompt fields of the JSON document (images as a count: their bytes stay in the session). */
function promptDocument(prompt: PromptForResubmit): { text: string; mode: string; images: number; permissionMode: string | null } {
  return { text: prompt.text, mode: prompt.mode, images: prompt.images.length, permissionMode: prompt.permissionMode ?? null };
}

function isRecordedPrompt(rewinder: RewindSession, messageId: string): boolean {
  try {
    findSelectableMessageIndex(rewinder.messages as ConversationRecord[], messageId);
    return true;
  } catch {
    return false;
  }
}

function conversationPreview(rewinder: RewindSession, messageId: string) {
  const rewind = rewindConversation(rewinder.messages as ConversationRecord[], messageId);
  return { conversationId: null, removedMessageIds: rewind.removedMessageIds, prompt: promptDocument(rewind.prompt) };
}

/**
 * The menu's entries: the current prompt, then every recorded prompt and every checkpoint whose
 * prompt was not recorded, newest first, each with the dry run of a code rewind there.
 */
async function menuEntries(context: CommandContext, session: OpenedSession, rewinder: RewindSession, showBar: (bar: MenuLoadingBar) => void): Promise<MenuEntry[]> {
  const history = session.history;
  const entries: Array<MenuEntry & { order: number }> = [];
  const seen = new Set<string>();
  const prompts = rewinder.selectableMessages();
  const offered = new Set(offeredCheckpointIds(session.records, history.state.snapshots.map((snapshot) => snapshot.messageId), { unrecordedMessages: !session.claude }));
  // The bar counts the files each dry run checks: those its checkpoint covers.
  const filesAt = (messageId: string): number => snapshotFileBackups(history.state, messageId)?.size ?? 0;
  const promptIds = new Set(prompts.map((entry) => entry.messageId));
  const previewed = [
    ...prompts.filter((entry) => !entry.isCurrentPrompt && history.canRestore(entry.messageId)).map((entry) => entry.messageId),
    ...history.state.snapshots.filter((snapshot) => !promptIds.has(snapshot.messageId) && offered.has(snapshot.messageId)).map((snapshot) => snapshot.messageId),
  ];
  const progress = menuLoadingBar(context.output, [...new Set(previewed)].reduce((sum, id) => sum + filesAt(id), 0));
  showBar(progress);
  for (const [position, selectable] of prompts.entries()) {
    if (selectable.isCurrentPrompt) continue;
    progress.beginPreview();
    seen.add(selectable.messageId);
    const canRestore = history.canRestore(selectable.messageId);
    const timestamp = selectable.timestamp === undefined ? undefined : new Date(selectable.timestamp);
    entries.push({
      messageId: selectable.messageId,
      isCurrent: false,
      text: selectable.text,
      timestamp,
      hasMessage: true,
      hasEarlierMessages: position > 0 || selectable.index > 0,
      canRestore,
      stats: canRestore ? await rewinder.preview(selectable.messageId) : undefined,
      ...(canRestore ? outsideField(await rewinder.previewOutside(selectable.messageId)) : {}),
      subagentOptions: canRestore ? await rewinder.subagentOptions(selectable.messageId) : [],
      order: timestamp?.getTime() ?? position,
    });
  }
  const texts = new Map<string, string>();
  for (const record of session.records) {
    if (record.type === 'user' && isTranscriptMessage(record)) texts.set(record.uuid, promptForResubmit(record).text);
  }
  for (const snapshot of history.state.snapshots) {
    if (seen.has(snapshot.messageId) || !offered.has(snapshot.messageId)) continue;
    seen.add(snapshot.messageId);
    progress.beginPreview();
    entries.push({
      messageId: snapshot.messageId,
      isCurrent: false,
      text: texts.get(snapshot.messageId) ?? '',
      timestamp: snapshot.timestamp,
      hasMessage: false,
      canRestore: true,
      stats: await rewinder.preview(snapshot.messageId),
      ...outsideField(await rewinder.previewOutside(snapshot.messageId)),
      subagentOptions: await rewinder.subagentOptions(snapshot.messageId),
      order: snapshot.timestamp.getTime(),
    });
  }
  entries.sort((a, b) => b.order - a.order);
  const current: MenuEntry = { messageId: '', isCurrent: true, text: '', timestamp: undefined, hasMessage: false, canRestore: false, stats: undefined };
  return [current, ...entries.map(({ order: _order, ...entry }) => entry)];
}

/** The menu entry's `outside` field, when the session tracked files outside the project. */
function outsideField(preview: RewindPreview | undefined): { outside?: RewindPreview } {
  return preview === undefined ? {} : { outside: preview };
}

/**
 * Refuse (exit 1) a code rewind into a project folder that does not exist (a session recorded on
 * another machine, or a folder since removed): nothing is created there.
 */
async function assertProjectFolderExists(context: CommandContext, session: OpenedSession): Promise<void> {
  const stats = await stat(session.projectRoot).catch(() => undefined);
  if (stats?.isDirectory() === true) return;
  throw new NotFoundError(
    `the project folder ${displayPath(session.projectRoot)} of session ${displayId(session.sessionId)} does not exist here; nothing was changed. ` +
      `Pass --project <folder> to rewind into another folder (${fhCommand({ ...context, options: { ...context.options, project: '<folder>', otherProject: true } }, ['rewind', '<checkpoint>'], { session: session.sessionId })})`,
  );
}

/**
 * `summarize` / `summarize_up_to` (seed 000 §2): the summarize command replaces the messages from
 * the prompt on (or before it) with one summary, and the result is written as a new session (as
 * `fork` writes one: its messages, the checkpoints of the kept turns and their backups) ready to
 * resume — `claude --resume <id>` for a Claude Code session. The session itself and the project
 * are not changed. When the command fails, nothing is written and the error says why.
 */
async function summarizeIntoNewSession(
  context: CommandContext,
  session: OpenedSession,
  rewinder: RewindSession,
  messageId: string,
  mode: 'summarize' | 'summarize_up_to',
  dryRun: boolean,
): Promise<void> {
  const what = mode === 'summarize' ? 'from this prompt on' : 'before this prompt';
  if (dryRun) {
    context.output.result(
      { sessionId: session.sessionId, projectRoot: session.projectRoot, messageId, mode, dryRun: true, code: null, preview: null, undoId: null, conversation: null, summary: null },
      () => [`Summarizing the messages ${what} (${displayId(messageId)}) would write a new session with the summary in their place. Dry run: nothing changed.`],
    );
    return;
  }
  const result = await rewinder.restore({ messageId, mode });
  if (result.conversationError !== undefined || result.compact === undefined) {
    throw new FhError(`${result.conversationError?.message ?? 'the summary was not made'}; nothing was changed (no session was written). Fix the command, or choose another option`);
  }
  const compact = result.compact;
  const fork = await context.output.withProgress('carrying backups', (onProgress) => rewinder.fork(CURRENT_PROMPT_ID, { onProgress }));
  const summary = { sessionId: fork.sessionId, summaryMessageId: compact.summaryMessage.uuid, summarizedMessageIds: compact.removedMessageIds, text: messageText(compact.summaryMessage), checkpoints: fork.resume.state.snapshots.length };
  context.output.result(
    { sessionId: session.sessionId, projectRoot: session.projectRoot, messageId, mode, dryRun: false, code: null, preview: null, undoId: null, conversation: null, summary },
    () => [
      `Summarized ${plural(compact.removedMessageIds.length, 'message')} ${what} (${displayId(messageId)}) into new session ${displayId(fork.sessionId)} (${plural(summary.checkpoints, 'checkpoint')}); session ${displayId(session.sessionId)} is unchanged.`,
      session.claude ? `Resume it with: claude --resume ${fork.sessionId}` : `Use it with: ${fhCommand(context, ['list'], { session: fork.sessionId })}`,
    ],
  );
}
