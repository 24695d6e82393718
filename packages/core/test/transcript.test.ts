import { describe, expect, it } from 'vitest';
import { baseFolderTracker, restoreStateFromLog, restoreStateWithOutside, type FileHistoryBackup } from '../src/index.js';

const AT = '2026-05-01T10:00:00.000Z';
const entry = (name: string | null, version = 1): FileHistoryBackup => ({ backupFileName: name, version, backupTime: new Date(AT) });
const raw = (name: string | null, version = 1) => ({ backupFileName: name, version, backupTime: AT });
const snapshot = (messageId: string, files: Record<string, unknown>, update = false) => ({
  type: 'file-history-snapshot', messageId, isSnapshotUpdate: update, snapshot: { messageId, trackedFileBackups: files, timestamp: AT },
});
const worktree = (path: string | null) => ({
  type: 'worktree-state',
  sessionId: 's',
  worktreeSession: path === null ? null : { originalCwd: '/p', worktreePath: path, worktreeName: 'feat', worktreeBranch: 'feat' },
});

describe('baseFolderTracker', () => {
  it('follows worktree-state records and cwd values naming a known worktree or the first folder, not a shell cd', () => {
    const base = baseFolderTracker({ recordedRoot: '/p' });
    expect([
      base({ type: 'user', cwd: '/p' }),
      base({ type: 'user', cwd: '/p/sub' }),
      base(worktree('/p/.claude/worktrees/feat')),
      base({ type: 'user', cwd: '/p/.claude/worktrees/feat/src' }),
      base(worktree(null)),
      base({ type: 'user', cwd: '/p/.claude/worktrees/feat' }),
      base({ type: 'user', cwd: '/p' }),
      base('not a record'),
    ]).toEqual(['/p', '/p', '/p/.claude/worktrees/feat', '/p/.claude/worktrees/feat', '/p', '/p/.claude/worktrees/feat', '/p', '/p']);
  });

  it('maps folders inside the recorded root into the project it is opened for', () => {
    const base = baseFolderTracker({ recordedRoot: '/p', projectRoot: '/copy' });
    expect([base({ cwd: '/p' }), base(worktree('/p/wt')), base(worktree('/elsewhere/wt')), base(worktree(null))]).toEqual(['/copy', '/copy/wt', '/elsewhere/wt', '/copy']);
  });
});

describe('restoreStateFromLog with baseFolder', () => {
  it('resolves a relative key against the base folder of its record', () => {
    const records = [snapshot('u1', { 'a.txt': raw('eeeeeeeeeeeeeeee@v1') }), worktree('/p/wt'), snapshot('u2', { 'a.txt': raw('ffffffffffffffff@v1') })];
    const state = restoreStateFromLog(records, { projectRoot: '/p', baseFolder: baseFolderTracker({ recordedRoot: '/p' }) });
    expect(state.snapshots.map((s) => Object.keys(s.trackedFileBackups))).toEqual([['a.txt'], ['wt/a.txt']]);
    expect(restoreStateFromLog(records, { projectRoot: '/p' }).snapshots.map((s) => Object.keys(s.trackedFileBackups))).toEqual([['a.txt'], ['a.txt']]);
  });
});

describe('restoreStateWithOutside', () => {
  it('keeps absolute keys outside the project apart, with the same snapshots, instead of dropping them', () => {
    const records = [
      snapshot('u1', { 'src/a.ts': raw('aaaaaaaaaaaaaaaa@v1'), '/p/b.ts': raw('bbbbbbbbbbbbbbbb@v1'), '/tmp/plan.md': raw('cccccccccccccccc@v1'), '/home/me/.claude/plans/x.md': raw(null) }),
      snapshot('u2', { '../sibling/c.ts': raw('dddddddddddddddd@v2', 2) }),
    ];
    const split = restoreStateWithOutside(records, { projectRoot: '/p' });
    expect(split.project.snapshots.map((s) => [s.messageId, s.trackedFileBackups])).toEqual([
      ['u1', { 'src/a.ts': entry('aaaaaaaaaaaaaaaa@v1'), 'b.ts': entry('bbbbbbbbbbbbbbbb@v1') }],
      ['u2', {}],
    ]);
    expect(split.outside.snapshots.map((s) => [s.messageId, s.trackedFileBackups])).toEqual([
      ['u1', { 'tmp/plan.md': entry('cccccccccccccccc@v1'), 'home/me/.claude/plans/x.md': entry(null) }],
      ['u2', { 'sibling/c.ts': entry('dddddddddddddddd@v2', 2) }],
    ]);
    expect(split.outsideFiles).toEqual(['/home/me/.claude/plans/x.md', '/sibling/c.ts', '/tmp/plan.md']);
    expect([...split.project.trackedFiles].sort()).toEqual(['b.ts', 'src/a.ts']);
    expect(split.project.snapshotSequence).toBe(2);
  });

  it('maps absolute keys of the recorded folder into the project it is opened for; of two keys for one file the higher version wins', () => {
    const records = [snapshot('u1', { '/old/a.ts': raw('aaaaaaaaaaaaaaaa@v1'), 'a.ts': raw('aaaaaaaaaaaaaaaa@v2', 2), '/old2/x': raw('eeeeeeeeeeeeeeee@v1') })];
    const split = restoreStateWithOutside(records, { projectRoot: '/new', recordedRoot: '/old', baseFolder: baseFolderTracker({ recordedRoot: '/old', projectRoot: '/new' }) });
    expect(split.project.snapshots[0]?.trackedFileBackups).toEqual({ 'a.ts': entry('aaaaaaaaaaaaaaaa@v2', 2) });
    expect(split.outsideFiles).toEqual(['/old2/x']);
  });

  it('refuses a project root that is not an absolute POSIX path', () => {
    expect(() => restoreStateWithOutside([], { projectRoot: 'relative' })).toThrow('projectRoot must be an absolute POSIX path, got "relative"');
  });
});
