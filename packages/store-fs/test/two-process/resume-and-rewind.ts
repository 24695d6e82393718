/**
 * Process 2 of the two-process test: resume session argv[4] of the FsBackupStore at argv[2] into
 * the new session argv[5] for the project at argv[3], rewind to argv[6], snapshot the result as a
 * new turn, and print what happened as JSON. Run from a different current folder to show that
 * nothing depends on it.
 */
import { FileHistory } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';

const [storeRoot, projectRoot, fromSessionId, sessionId, messageId] = process.argv.slice(2) as [string, string, string, string, string];
const history = await FileHistory.resume({ projectRoot, sessionId, fromSessionId, store: new FsBackupStore({ root: storeRoot }) });
const canRestore = history.canRestore(messageId);
const diffStats = await history.getDiffStats(messageId);
const rewind = await history.rewind(messageId);
const after = await history.makeSnapshot('resumed-turn');
await history.close();

process.stdout.write(
  `${JSON.stringify({
    cwd: process.cwd(),
    canRestore,
    diffStats,
    rewind: { ...rewind, failed: rewind.failed.map(({ path, error }) => ({ path, error: error.message })) },
    resume: history.resumeResult,
    snapshots: history.state.snapshots.map((snapshot) => snapshot.messageId),
    after,
  })}\n`,
);
