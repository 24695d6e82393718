/**
 * `fh diff <messageId> [--patch] [--paths <p…>]`: the dry run of a rewind — which tracked files it
 * would change and by how many lines; nothing is written. `--patch` adds a unified diff (jsdiff)
 * from each file as it is now to the file at the checkpoint, coloured on a terminal.
 *
 * JSON: `{ "sessionId", "projectRoot", "messageId", "filesChanged", "insertions", "deletions",
 * "files": [{ "path", "status", "insertions", "deletions", "binary", "tooLarge"?, "tooManyChanges"?, "modeOnly"? }],
 * "skipped": [{ "path", "reason" }], "failed": [{ "path", "reason" }], "patch"? }` (`patch`: the
 * unified diff text, with `--patch`).
 */
import { resolve } from 'node:path';
import { DIFF_TIMEOUT_MS, snapshotFileBackups, type DiffStats } from '@fh/core';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { openSession, type OpenedSession } from '../open-session.js';
import type { Colors } from '../output.js';
import { readCurrentBytes, readEntryBytes } from '../snapshot-content.js';
import { renderDiffStats } from '../render-stats.js';
import { displayId } from '../format.js';
import { otherFilesHint } from '../refusal-hint.js';

/** Options of `fh diff`. */
export interface DiffOptions {
  patch?: boolean;
  paths?: string[];
}

/** Run `fh diff`. */
export async function run(context: CommandContext, messageId: string, options: DiffOptions): Promise<void> {
  assertCheckpointingEnabled(context);
  const session = await openSession(context, { lock: false });
  try {
    const paths = options.paths?.map((path) => resolve(context.cwd, path));
    const stats = await session.history.getDiffStats(messageId, paths === undefined ? {} : { paths });
    const patch = options.patch === true ? await unifiedPatch(session, messageId, stats) : undefined;
    const colors = context.output.colors;
    context.output.result(
      { sessionId: session.sessionId, projectRoot: session.projectRoot, messageId, ...stats, ...(patch === undefined ? {} : { patch }) },
      () => [
        ...renderDiffStats(stats, colors, `Rewinding to ${displayId(messageId)}`, { refusalHint: otherFilesHint(context, session.projectRoot, messageId, stats) }),
        ...(patch === undefined || patch === '' ? [] : ['', colorPatch(patch, colors)]),
      ],
    );
  } finally {
    await session.close();
  }
}

/** The unified diff of every changed file, from now to the checkpoint. */
async function unifiedPatch(session: OpenedSession, messageId: string, stats: DiffStats): Promise<string> {
  const { createTwoFilesPatch } = await import('diff');
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  const entries = snapshotFileBackups(session.history.state, messageId);
  for (const file of stats.files) {
    const entry = entries?.get(file.path);
    const target = entry === undefined ? null : await readEntryBytes(session.store, session.sessionId, entry);
    const current = await readCurrentBytes(session.projectRoot, file.path);
    const from = current === null ? '/dev/null' : `a/${file.path}`;
    const to = target === null ? '/dev/null' : `b/${file.path}`;
    if (file.binary || file.tooLarge === true) {
      parts.push(`diff ${from} ${to}\nBinary files ${from} and ${to} differ\n`);
      continue;
    }
    if (file.modeOnly === true) {
      parts.push(`diff ${from} ${to}\nmode changes${entry?.mode === undefined ? '' : ` to ${entry.mode.toString(8).padStart(4, '0')}`}\n`);
      continue;
    }
    const text = file.tooManyChanges === true
      ? undefined
      : createTwoFilesPatch(from, to, current === null ? '' : decoder.decode(current), target === null ? '' : decoder.decode(target), 'now', `at ${messageId}`, { timeout: DIFF_TIMEOUT_MS });
    if (text === undefined) {
      parts.push(`diff ${from} ${to}\nToo many changes to show as a patch (the line diff gave up after ${DIFF_TIMEOUT_MS} ms)\n`);
      continue;
    }
    parts.push(text.replace(/^=+\n/, ''));
  }
  return parts.join('');
}

function colorPatch(patch: string, colors: Colors): string {
  return patch
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('Index: ')) return colors.bold(line);
      if (line.startsWith('@@')) return colors.cyan(line);
      if (line.startsWith('+')) return colors.green(line);
      if (line.startsWith('-')) return colors.red(line);
      return line;
    })
    .join('\n');
}
