/** Unit tests of @fh/core's worktree-state module (pure: no disk, no git). */
import {
  InvalidArgumentError,
  NotFoundError,
  findWorktreeState,
  isValidBranchName,
  parseWorktreeSession,
  planWorktreeExit,
  planWorktreeRestore,
  planWorktreeRewind,
  worktreeSnapshotMessageIds,
  worktreeStateRecord,
  type FileHistoryState,
  type WorktreeFacts,
  type WorktreeSession,
} from '@fh/core';
import { describe, expect, it } from 'vitest';

const COMMIT = 'a'.repeat(40);

const session: WorktreeSession = {
  originalCwd: '/work/repo',
  worktreePath: '/work/repo/.claude/worktrees/feature',
  worktreeName: 'feature',
  worktreeBranch: 'worktree-feature',
  originalBranch: 'main',
  originalHeadCommit: COMMIT,
};

function facts(overrides: Partial<WorktreeFacts> = {}): WorktreeFacts {
  return { dir: 'missing', registered: null, branchExists: true, branchCheckedOutAt: null, ...overrides };
}

function invalid(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return (error as Error).message;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('parseWorktreeSession', () => {
  it('keeps the known fields, drops unknown ones, and treats null optionals as absent', () => {
    expect(parseWorktreeSession({ ...session, originalBranch: null, originalHeadCommit: undefined, tmuxSessionName: 'x', hookBased: false })).toEqual({
      originalCwd: '/work/repo',
      worktreePath: '/work/repo/.claude/worktrees/feature',
      worktreeName: 'feature',
      worktreeBranch: 'worktree-feature',
    });
  });

  it.each([
    [{ worktreePath: 'feature' }, 'worktreeSession.worktreePath must be an absolute path, got "feature"'],
    [{ originalCwd: '' }, 'worktreeSession.originalCwd must be a non-empty string, got ""'],
    [{ originalCwd: 7 }, 'worktreeSession.originalCwd must be a non-empty string, got 7'],
    [
      { worktreePath: '/work/repo/../etc' },
      'worktreeSession.worktreePath must be a normalised absolute path (no ".", "..", doubled or trailing separators), got "/work/repo/../etc"',
    ],
    [
      { worktreePath: '/work/repo/wt/' },
      'worktreeSession.worktreePath must be a normalised absolute path (no ".", "..", doubled or trailing separators), got "/work/repo/wt/"',
    ],
    [{ worktreePath: '/work/repo\0x' }, 'worktreeSession.worktreePath must not contain a NUL byte: "/work/repo\\u0000x"'],
    [{ worktreePath: '/work/repo' }, 'worktreeSession.worktreePath must differ from originalCwd, both are "/work/repo"'],
    [{ worktreeBranch: '--force' }, 'worktreeSession.worktreeBranch must be a valid git branch name, got "--force"'],
    [{ worktreeBranch: undefined }, 'worktreeSession.worktreeBranch must be a valid git branch name, got undefined'],
    [{ originalBranch: 'a..b' }, 'worktreeSession.originalBranch must be a valid git branch name, got "a..b"'],
    [
      { worktreeName: '../x' },
      'worktreeSession.worktreeName must be a name of letters, digits, ".", "_", "-" (segments separated by "/"), got "../x"',
    ],
    [{ originalHeadCommit: 'HEAD~1' }, 'worktreeSession.originalHeadCommit must be a full lower-case hex commit id, got "HEAD~1"'],
    [{ originalHeadCommit: 'ABC' }, 'worktreeSession.originalHeadCommit must be a full lower-case hex commit id, got "ABC"'],
    [{ hookBased: 'yes' }, 'worktreeSession.hookBased must be a boolean, got "yes"'],
  ])('rejects %j with one message naming the field', (change, message) => {
    expect(invalid(() => parseWorktreeSession({ ...session, ...change }))).toBe(message);
  });

  it('accepts names with "/" segments and SHA-256 commit ids', () => {
    expect(parseWorktreeSession({ ...session, worktreeName: 'team/feature-2', originalHeadCommit: 'b'.repeat(64) })).toMatchObject({
      worktreeName: 'team/feature-2',
      originalHeadCommit: 'b'.repeat(64),
    });
  });
});

describe('isValidBranchName', () => {
  it.each(['main', 'worktree-feature', 'team/feature', 'v1.2', 'a_b'])('accepts %s', (name) => expect(isValidBranchName(name)).toBe(true));
  it.each(['', '-x', 'HEAD', '@', 'a..b', 'a b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b', '/a', 'a/', 'a//b', 'a.', '.a', 'a/.b', 'a.lock', 'a@{1}', 'a\u007f'])(
    'rejects %j',
    (name) => expect(isValidBranchName(name)).toBe(false),
  );
});

describe('findWorktreeState', () => {
  it('is undefined without a worktree-state record', () => {
    expect(findWorktreeState([{ type: 'user' }, { type: 'summary' }])).toBeUndefined();
  });

  it('takes the last record; null means the session left its worktree', () => {
    const entered = worktreeStateRecord('s1', session);
    expect(findWorktreeState([{ type: 'user' }, entered])).toEqual({ type: 'worktree-state', sessionId: 's1', worktreeSession: session });
    expect(findWorktreeState([entered, worktreeStateRecord('s1', null)])).toEqual({ type: 'worktree-state', sessionId: 's1', worktreeSession: null });
    expect(findWorktreeState([worktreeStateRecord('s1', null), entered])?.worktreeSession).toEqual(session);
  });

  it('validates only the winning record and names the field', () => {
    const broken = { type: 'worktree-state', sessionId: 's1', worktreeSession: { ...session, worktreePath: 'rel' } };
    expect(findWorktreeState([broken, worktreeStateRecord('s1', session)])?.worktreeSession).toEqual(session);
    expect(invalid(() => findWorktreeState([worktreeStateRecord('s1', session), broken]))).toBe(
      'the last worktree-state record: worktreeSession.worktreePath must be an absolute path, got "rel"',
    );
    expect(invalid(() => findWorktreeState([{ type: 'worktree-state', sessionId: 's1' }]))).toBe(
      'the last worktree-state record: worktreeSession is missing (it must be an object or null)',
    );
    expect(invalid(() => findWorktreeState([{ type: 'worktree-state', sessionId: 5, worktreeSession: null }]))).toBe(
      'the last worktree-state record: sessionId must be a string, got 5',
    );
    expect(invalid(() => findWorktreeState([{ type: 'worktree-state', worktreeSession: 'x' }]))).toBe(
      'the last worktree-state record: worktreeSession must be an object, got "x"',
    );
  });
});

describe('planWorktreeRestore', () => {
  it('reuses a live registered worktree on its branch', () => {
    expect(planWorktreeRestore({ worktreeState: session, exists: facts({ dir: 'present', registered: { branch: 'worktree-feature', prunable: false, locked: false } }) })).toEqual({
      kind: 'reuse',
      worktreePath: session.worktreePath,
      branch: 'worktree-feature',
      actions: [],
    });
  });

  it('recreates a missing worktree on its existing branch', () => {
    expect(planWorktreeRestore({ worktreeState: session, exists: facts() })).toEqual({
      kind: 'recreate',
      worktreePath: session.worktreePath,
      branch: 'worktree-feature',
      actions: [{ type: 'add', worktreePath: session.worktreePath, branch: 'worktree-feature' }],
    });
  });

  it('prunes first when git still registers the missing worktree or a stale one holds the branch', () => {
    const stale = { branch: 'worktree-feature', prunable: true, locked: false };
    expect(planWorktreeRestore({ worktreeState: session, exists: facts({ registered: stale }) }).actions).toEqual([
      { type: 'prune' },
      { type: 'add', worktreePath: session.worktreePath, branch: 'worktree-feature' },
    ]);
    expect(planWorktreeRestore({ worktreeState: session, exists: facts({ dir: 'empty', registered: { ...stale, prunable: false } }) }).kind).toBe('recreate');
    expect(planWorktreeRestore({ worktreeState: session, exists: facts({ branchCheckedOutAt: { path: '/gone', prunable: true } }) }).actions).toEqual([
      { type: 'prune' },
      { type: 'add', worktreePath: session.worktreePath, branch: 'worktree-feature' },
    ]);
  });

  it('recreates the branch at originalHeadCommit when it is gone', () => {
    expect(planWorktreeRestore({ worktreeState: session, exists: facts({ branchExists: false, commitExists: true }) })).toEqual({
      kind: 'recreate-from-commit',
      worktreePath: session.worktreePath,
      branch: 'worktree-feature',
      commit: COMMIT,
      actions: [{ type: 'add', worktreePath: session.worktreePath, branch: 'worktree-feature', newBranchAt: COMMIT }],
    });
  });

  it.each<[string, WorktreeSession, Partial<WorktreeFacts>, string]>([
    ['occupied path', session, { dir: 'present' }, `${session.worktreePath} is occupied by something that is not the session's worktree; move it away first`],
    [
      'a worktree on another branch',
      session,
      { dir: 'present', registered: { branch: 'other', prunable: false, locked: false } },
      `${session.worktreePath} is a worktree on branch other, not on branch worktree-feature`,
    ],
    [
      'a detached worktree',
      session,
      { dir: 'present', registered: { branch: null, prunable: false, locked: false } },
      `${session.worktreePath} is a worktree on a detached HEAD, not on branch worktree-feature`,
    ],
    [
      'a locked stale registration',
      session,
      { registered: { branch: 'worktree-feature', prunable: true, locked: true } },
      `git keeps a locked registration of the missing worktree ${session.worktreePath}; run git worktree unlock ${session.worktreePath} first`,
    ],
    [
      'the branch checked out elsewhere',
      session,
      { branchCheckedOutAt: { path: '/work/other', prunable: false } },
      'branch worktree-feature is checked out in another worktree at /work/other',
    ],
    [
      'the branch gone with no commit recorded',
      { ...session, originalHeadCommit: undefined } as WorktreeSession,
      { branchExists: false },
      'branch worktree-feature is gone and the session recorded no originalHeadCommit to recreate it from',
    ],
    [
      'the branch gone and the commit too',
      session,
      { branchExists: false, commitExists: false },
      `branch worktree-feature is gone and its originalHeadCommit ${COMMIT} is not in the repository`,
    ],
    [
      'a hook-made worktree',
      { ...session, hookBased: true },
      {},
      `the worktree ${session.worktreePath} was made by a WorktreeCreate hook, not by git worktree; recreate it with that hook`,
    ],
  ])('refuses: %s', (_title, worktreeState, change, reason) => {
    expect(planWorktreeRestore({ worktreeState, exists: facts(change) })).toEqual({
      kind: 'refuse',
      worktreePath: session.worktreePath,
      branch: 'worktree-feature',
      reason,
      actions: [],
    });
  });

  it('accepts a worktree next to the repository, or inside the repository root above originalCwd', () => {
    expect(planWorktreeRestore({ worktreeState: { ...session, worktreePath: '/work/repo-feature' }, exists: facts() }).kind).toBe('recreate');
    const fromSubfolder = { ...session, originalCwd: '/work/repo/packages/app' };
    expect(invalid(() => planWorktreeRestore({ worktreeState: fromSubfolder, exists: facts() }))).toBe(
      'worktreeSession.worktreePath "/work/repo/.claude/worktrees/feature" is neither inside the repository "/work/repo/packages/app" nor next to it',
    );
    expect(planWorktreeRestore({ worktreeState: fromSubfolder, exists: facts({ repositoryRoot: '/work/repo' }) }).kind).toBe('recreate');
  });

  it.each(['/etc/feature', '/work', '/work/repo/.git/worktrees/feature', '/work/other/feature'])('rejects the misplaced worktree path %s', (worktreePath) => {
    expect(invalid(() => planWorktreeRestore({ worktreeState: { ...session, worktreePath }, exists: facts() }))).toBe(
      `worktreeSession.worktreePath "${worktreePath}" is neither inside the repository "/work/repo" nor next to it`,
    );
  });
});

describe('planWorktreeExit', () => {
  const live = { branch: 'worktree-feature', prunable: false, locked: false };

  it('removes a clean live worktree on its branch', () => {
    expect(planWorktreeExit({ worktreeState: session, exists: { dir: 'present', registered: live, changedFiles: [] } })).toEqual({
      kind: 'remove',
      worktreePath: session.worktreePath,
      branch: 'worktree-feature',
    });
  });

  it('is absent when nothing is there (or only a stale registration)', () => {
    expect(planWorktreeExit({ worktreeState: session, exists: { dir: 'missing', registered: null, changedFiles: [] } }).kind).toBe('absent');
    expect(planWorktreeExit({ worktreeState: session, exists: { dir: 'missing', registered: { ...live, prunable: true }, changedFiles: [] } }).kind).toBe('absent');
  });

  it('refuses with uncommitted changes and names them', () => {
    expect(planWorktreeExit({ worktreeState: session, exists: { dir: 'present', registered: live, changedFiles: ['a.txt'] } })).toEqual({
      kind: 'refuse',
      worktreePath: session.worktreePath,
      branch: 'worktree-feature',
      reason: `the worktree ${session.worktreePath} has 1 uncommitted change: a.txt; commit or discard it first`,
      changedFiles: ['a.txt'],
    });
  });

  it.each<[string, Parameters<typeof planWorktreeExit>[0]['exists'], string]>([
    ['an unknown folder', { dir: 'present', registered: null, changedFiles: [] }, `${session.worktreePath} is not a worktree git knows; it is left alone`],
    ['an empty unknown folder', { dir: 'empty', registered: null, changedFiles: [] }, `${session.worktreePath} is not a worktree git knows; it is left alone`],
    [
      'another branch',
      { dir: 'present', registered: { ...live, branch: 'other' }, changedFiles: [] },
      `${session.worktreePath} is a worktree on branch other, not on branch worktree-feature; it is left alone`,
    ],
    [
      'a registered worktree whose folder is empty',
      { dir: 'empty', registered: live, changedFiles: [] },
      `git registers the worktree ${session.worktreePath} but its folder is empty; run git worktree prune to clear the registration`,
    ],
    [
      'a locked worktree',
      { dir: 'present', registered: { ...live, locked: true }, changedFiles: [] },
      `the worktree ${session.worktreePath} is locked; run git worktree unlock ${session.worktreePath} first`,
    ],
  ])('refuses %s', (_title, exists, reason) => {
    expect(planWorktreeExit({ worktreeState: session, exists })).toMatchObject({ kind: 'refuse', reason, changedFiles: [] });
  });
});

function state(snapshots: Array<{ messageId: string; files: string[] }>, tracked: string[] = []): FileHistoryState {
  return {
    snapshots: snapshots.map(({ messageId, files }) => ({
      messageId,
      timestamp: new Date(0),
      trackedFileBackups: Object.fromEntries(files.map((path) => [path, { backupFileName: null, version: 1, backupTime: new Date(0) }])),
    })),
    trackedFiles: new Set([...tracked, ...snapshots.flatMap((snapshot) => snapshot.files)]),
    snapshotSequence: snapshots.length,
  };
}

describe('planWorktreeRewind', () => {
  it('defaults to the latest snapshot and every tracked path when the root is the worktree', () => {
    expect(
      planWorktreeRewind({ worktreeState: session, state: state([{ messageId: 'm1', files: ['a'] }, { messageId: 'm2', files: ['a', 'b'] }], ['c']), projectRoot: session.worktreePath }),
    ).toEqual({ messageId: 'm2', paths: ['a', 'b', 'c'], outside: [], worktreePrefix: '' });
  });

  it('keeps only the paths inside the worktree when the root is around it', () => {
    const around = state([{ messageId: 'm1', files: ['.claude/worktrees/feature/src/a.ts', 'README.md', '.claude/worktrees/feature-2/x'] }]);
    expect(planWorktreeRewind({ worktreeState: session, state: around, projectRoot: '/work/repo' })).toEqual({
      messageId: 'm1',
      paths: ['.claude/worktrees/feature/src/a.ts'],
      outside: ['.claude/worktrees/feature-2/x', 'README.md'],
      worktreePrefix: '.claude/worktrees/feature',
    });
  });

  it('rewinds nothing from a root that does not contain the worktree', () => {
    expect(planWorktreeRewind({ worktreeState: session, state: state([{ messageId: 'm1', files: ['a'] }]), projectRoot: '/work/elsewhere' })).toMatchObject({
      paths: [],
      outside: ['a'],
    });
  });

  it('has no message when the session has no snapshot', () => {
    expect(planWorktreeRewind({ worktreeState: session, state: state([]), projectRoot: session.worktreePath })).toEqual({
      messageId: undefined,
      paths: [],
      outside: [],
      worktreePrefix: '',
    });
  });

  it('honours eligible messages: the default is the latest eligible, others are refused', () => {
    const history = state([{ messageId: 'm1', files: ['a'] }, { messageId: 'm2', files: ['a'] }, { messageId: 'm3', files: ['a'] }]);
    const eligibleMessageIds = new Set(['m2']);
    expect(planWorktreeRewind({ worktreeState: session, state: history, projectRoot: session.worktreePath, eligibleMessageIds }).messageId).toBe('m2');
    expect(invalid(() => planWorktreeRewind({ worktreeState: session, state: history, projectRoot: session.worktreePath, eligibleMessageIds, messageId: 'm1' }))).toBe(
      `the snapshot of message "m1" was taken before the session entered the worktree ${session.worktreePath}; its paths belong to another folder`,
    );
  });

  it('throws NotFoundError for an unknown message', () => {
    expect(() => planWorktreeRewind({ worktreeState: session, state: state([]), projectRoot: session.worktreePath, messageId: 'x' })).toThrow(NotFoundError);
    expect(() => planWorktreeRewind({ worktreeState: session, state: state([]), projectRoot: session.worktreePath, messageId: 'x' })).toThrow(
      'no snapshot for message "x" in the session',
    );
  });
});

describe('worktreeSnapshotMessageIds', () => {
  const snapshot = (messageId: string, isSnapshotUpdate = false) => ({
    type: 'file-history-snapshot',
    messageId,
    snapshot: { messageId, trackedFileBackups: {}, timestamp: '2026-01-01T00:00:00.000Z' },
    isSnapshotUpdate,
  });

  it('counts every snapshot of a session launched in the worktree', () => {
    expect([...worktreeSnapshotMessageIds([{ type: 'user', cwd: session.worktreePath }, snapshot('m1'), snapshot('m2')], session.worktreePath)]).toEqual(['m1', 'm2']);
  });

  it('counts the snapshots between entering and leaving the worktree', () => {
    const records = [
      { type: 'user', cwd: session.originalCwd },
      snapshot('m0'),
      worktreeStateRecord('s', session),
      snapshot('m1'),
      snapshot('m0', true),
      worktreeStateRecord('s', null),
      snapshot('m2'),
      worktreeStateRecord('s', { ...session, worktreePath: '/work/repo-other' }),
      snapshot('m3'),
      worktreeStateRecord('s', session),
      snapshot('m4'),
      { type: 'worktree-state', worktreeSession: 'junk' },
      snapshot('m5'),
    ];
    expect([...worktreeSnapshotMessageIds(records, session.worktreePath)]).toEqual(['m1', 'm4']);
  });

  it('drops a message whose snapshot was taken again outside the worktree', () => {
    const records = [worktreeStateRecord('s', session), snapshot('m1'), worktreeStateRecord('s', null), snapshot('m1')];
    expect(worktreeSnapshotMessageIds(records, session.worktreePath).size).toBe(0);
  });
});

describe('the record a host writes', () => {
  it('worktreeStateRecord round-trips through findWorktreeState', () => {
    const record = worktreeStateRecord('s1', session);
    expect(record).toEqual({ type: 'worktree-state', sessionId: 's1', worktreeSession: session });
    expect(findWorktreeState([JSON.parse(JSON.stringify(record))])).toEqual({ type: 'worktree-state', sessionId: 's1', worktreeSession: session });
  });
});
