import { afterEach, describe, expect, it } from 'vitest';
import { readTree, gitRepository, openWorld, rewindAndUndo, runInWindow, sh, storeBackups, type World } from './helpers.js';
import { backupFileName, FileHistory, RewindSession } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { FsCommandJournal, NodeCommandProbe } from '../src/index.js';
import { scanBegin, scanEnd, type ScanTree } from '../src/git-scan.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const baseRepository = (project: string): void =>
  gitRepository(
    project,
    [
      'mkdir -p src/lib docs',
      "printf 'one\\ntwo\\n' > src/a.txt",
      "printf 'lib\\n' > src/lib/b.txt",
      "printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 755 run.sh",
      "printf 'doc\\n' > docs/guide.md",
      "printf 'node_modules/\\n*.log\\n' > .gitignore",
    ].join(' && '),
  );

/** Rewind must give back `before` exactly; undo must give back `after` exactly. */
async function expectRewindAndUndo(current: World, before: ReturnType<typeof readTree>, after: ReturnType<typeof readTree>): Promise<void> {
  const { rewound, undone } = await rewindAndUndo(current);
  expect(rewound).toEqual(before);
  expect(undone).toEqual(after);
}

describe('command window with the real git and bash', () => {
  it('sed -i on a clean file: the blob is copied only for that file, rewind and undo are exact', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const { window, capture } = await runInWindow(world, "sed -i 's/one/ONE/' src/a.txt");
    expect(window.kind).toBe('git');
    expect(window.copied).toBe(0);
    expect(capture.captured).toEqual([{ path: 'src/a.txt', change: 'modified', source: 'git' }]);
    expect(capture.copiedBytes).toBe(8);
    expect(storeBackups(world)).toEqual({ count: 1, bytes: 8 });
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('rm -rf src/ of clean, dirty and untracked files brings all three back', async () => {
    world = await openWorld(baseRepository);
    sh(world.project, "printf 'dirty\\n' >> src/a.txt && printf 'new\\n' > src/lib/untracked.txt && chmod 600 src/lib/untracked.txt");
    const before = readTree(world.project);
    const { window, capture } = await runInWindow(world, 'rm -rf src/');
    expect(window.copied).toBe(2);
    expect(capture.captured).toEqual([
      { path: 'src/a.txt', change: 'deleted', source: 'backup' },
      { path: 'src/lib/b.txt', change: 'deleted', source: 'git' },
      { path: 'src/lib/untracked.txt', change: 'deleted', source: 'backup' },
    ]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('every backup a window attaches records the sha256 of its bytes (git blob, begin copy, reused copy): a rewind refuses one corrupted after', async () => {
    world = await openWorld(baseRepository, { timestampGranularityMs: 0 });
    sh(world.project, "printf 'dirty\\n' >> src/a.txt");
    expect((await runInWindow(world, 'true')).window).toMatchObject({ copied: 1, reused: 0 });
    sh(world.project, "printf 'new\\n' > src/new.txt");
    const before = readTree(world.project);
    const { window, capture } = await runInWindow(world, 'rm -rf src/');
    expect(window).toMatchObject({ copied: 1, reused: 1 });
    expect(capture.captured).toEqual([
      { path: 'src/a.txt', change: 'deleted', source: 'backup' },
      { path: 'src/lib/b.txt', change: 'deleted', source: 'git' },
      { path: 'src/new.txt', change: 'deleted', source: 'backup' },
    ]);
    const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
    const entries = world.history.state.snapshots.at(-1)?.trackedFileBackups ?? {};
    for (const path of ['src/a.txt', 'src/lib/b.txt', 'src/new.txt']) {
      const entry = entries[path];
      const stored = readFileSync(join(world.storeRoot, 'file-history', 's1', entry?.backupFileName ?? ''));
      expect({ path, sha256: entry?.sha256 }).toEqual({ path, sha256: sha256(Buffer.from(before[path]?.type === 'file' ? before[path].bytes : '', 'base64')) });
      expect(sha256(stored)).toBe(entry?.sha256);
    }
    const blobBackup = join(world.storeRoot, 'file-history', 's1', entries['src/lib/b.txt']?.backupFileName ?? '');
    writeFileSync(blobBackup, 'LIB\n');
    const after = readTree(world.project);
    await expect(new RewindSession({ history: world.history }).restore({ messageId: 'm1', mode: 'code' })).rejects.toThrow(/src\/lib\/b\.txt.*do not match the content hash/);
    expect(readTree(world.project)).toEqual(after);
  });

  it('the project folder deleted by the command: endCommand rejects, and no unhandled error ends the process', async () => {
    world = await openWorld(baseRepository);
    const project = world.project;
    await expect(runInWindow(world, `rm -rf "${project}"`)).rejects.toThrow(/ENOENT/);
  });

  it('mv across folders is a delete plus a create', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const { capture } = await runInWindow(world, 'mkdir -p moved && mv src/lib/b.txt moved/b.txt && mv docs moved/docs');
    expect(capture.captured).toEqual([
      { path: 'docs/guide.md', change: 'deleted', source: 'git' },
      { path: 'moved/b.txt', change: 'created', source: 'created' },
      { path: 'moved/docs/guide.md', change: 'created', source: 'created' },
      { path: 'src/lib/b.txt', change: 'deleted', source: 'git' },
    ]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it.each([
    ['git checkout other-branch', 'git checkout -q other'],
    ['git stash', 'git stash -q'],
    ['git reset --hard', 'git reset -q --hard HEAD~1'],
    ['git commit -am', 'git commit -qam wip'],
  ])('%s inside the command: rewind brings back the working tree as before, uncommitted work included', async (_name, command) => {
    world = await openWorld((project) => {
      baseRepository(project);
      sh(project, "git checkout -q -b other && printf 'other\\n' > src/a.txt && printf 'only on other\\n' > other.txt && git add -A && git commit -qm other && git checkout -q main");
      sh(project, "printf 'two\\n' > second.txt && git add second.txt && git commit -qm second");
    });
    sh(world.project, "printf 'uncommitted\\n' >> src/lib/b.txt");
    const before = readTree(world.project);
    const { exitCode, capture } = await runInWindow(world, command);
    expect(exitCode).toBe(0);
    const after = readTree(world.project);
    expect(capture.notCaptured).toEqual([]);
    if (command.startsWith('git commit')) {
      // The work tree did not change (only HEAD did): nothing to capture, a rewind writes nothing.
      expect(after).toEqual(before);
      expect(capture.captured).toEqual([]);
      const stats = await world.history.getDiffStats('m1');
      expect(stats.filesChanged).toEqual([]);
      return;
    }
    expect(after).not.toEqual(before);
    expect(capture.captured.length).toBeGreaterThan(0);
    await expectRewindAndUndo(world, before, after);
  });

  it('a before-image whose backup name an unattached object holds is stored once, straight from the blob, as the next version', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const store = new FsBackupStore({ root: world.storeRoot });
    writeFileSync(join(world.base, 'stray'), 'stray\n');
    const taken = backupFileName(join(world.project, 'src/a.txt'), 1);
    await store.putBackup('s1', taken, join(world.base, 'stray'));
    const { capture } = await runInWindow(world, "sed -i 's/one/ONE/' src/a.txt && rm src/lib/b.txt");
    expect(capture.captured).toEqual([
      { path: 'src/a.txt', change: 'modified', source: 'git' },
      { path: 'src/lib/b.txt', change: 'deleted', source: 'git' },
    ]);
    const entries = world.history.state.snapshots.at(-1)?.trackedFileBackups ?? {};
    expect([entries['src/a.txt']?.version, entries['src/lib/b.txt']?.version]).toEqual([2, 1]);
    expect(readFileSync(join(world.storeRoot, 'file-history', 's1', taken), 'utf8')).toBe('stray\n');
    // No blob file was written beside the window: the before-images went straight into the store.
    expect(readdirSync(join(world.base, 'commands', 's1')).filter((name) => name.includes('.blob-'))).toEqual([]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it("the begin's copies and the end's blobs are each durable in one batch before the record that names them (window record, session log)", async () => {
    const events: string[] = [];
    class RecordingStore extends FsBackupStore {
      override async putBackup(...args: Parameters<FsBackupStore['putBackup']>) {
        events.push(`putBackup ${args[1]}`);
        return super.putBackup(...args);
      }
      override async putBackups(...args: Parameters<FsBackupStore['putBackups']>) {
        const results = await super.putBackups(...args);
        events.push(`putBackups durable: ${args[1].length}`);
        return results;
      }
      override sessionLog(...args: Parameters<FsBackupStore['sessionLog']>) {
        const log = super.sessionLog(...args);
        const append = log.append.bind(log);
        log.append = async (records) => {
          events.push(`log append: ${records.map((record) => record.type).join(',')}`);
          return append(records);
        };
        return log;
      }
    }
    world = await openWorld(baseRepository, { store: (root) => new RecordingStore({ root }) });
    const journal = world.journal;
    const saveWindow = journal.saveWindow.bind(journal);
    journal.saveWindow = async (record) => {
      events.push('window record');
      return saveWindow(record);
    };
    sh(world.project, "printf 'dirty\\n' >> src/a.txt && printf 'new\\n' > src/lib/untracked.txt");
    const before = readTree(world.project);
    events.length = 0;
    const { window, capture } = await runInWindow(world, 'rm -rf src/');
    expect(window.copied).toBe(2);
    expect(capture.captured.map((item) => item.source)).toEqual(['backup', 'git', 'backup']);
    expect(events).toEqual(['putBackups durable: 2', 'window record', 'putBackups durable: 1', 'log append: fh-snapshot']);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('a file created then deleted inside one command needs nothing', async () => {
    world = await openWorld(baseRepository);
    const { capture } = await runInWindow(world, 'echo x > tmp.txt && rm tmp.txt');
    expect(capture.captured).toEqual([]);
    expect(capture.notCaptured).toEqual([]);
    expect(storeBackups(world)).toEqual({ count: 0, bytes: 0 });
  });

  it('a command that changes nothing adds 0 bytes to the store', async () => {
    world = await openWorld(baseRepository);
    const { capture } = await runInWindow(world, 'cat src/a.txt > /dev/null');
    expect(capture.captured).toEqual([]);
    expect(storeBackups(world)).toEqual({ count: 0, bytes: 0 });
  });

  it('a file the agent also wrote with Write in the same turn keeps its v1', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    await world.history.trackEdit('src/a.txt');
    writeFileSync(join(world.project, 'src/a.txt'), 'written by the agent\n');
    const { capture } = await runInWindow(world, "sed -i 's/agent/shell/' src/a.txt");
    expect(capture.captured).toEqual([{ path: 'src/a.txt', change: 'modified', source: 'tracked' }]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('a command that fails half-way: what it changed before failing is captured', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const { exitCode, capture } = await runInWindow(world, "printf 'half\\n' > docs/guide.md && rm src/a.txt && false && rm run.sh");
    expect(exitCode).toBe(1);
    expect(capture.captured.map((entry) => entry.path)).toEqual(['docs/guide.md', 'src/a.txt']);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('two parallel commands: each file comes back to its state before both', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const options = { probe: world.probe, journal: world.journal };
    const first = await world.history.beginCommand({ ...options, windowId: 'toolu_A' });
    sh(world.project, "printf 'A1\\n' > src/a.txt");
    const second = await world.history.beginCommand({ ...options, windowId: 'toolu_B' });
    sh(world.project, "printf 'B\\n' > src/a.txt && printf 'B\\n' > docs/guide.md && echo new > b-new.txt");
    const secondCapture = await world.history.endCommand(second.windowId, options);
    expect(secondCapture.coveredBy).toBe('toolu_A');
    const firstCapture = await world.history.endCommand(first.windowId, options);
    expect(firstCapture.captured.map((entry) => entry.path)).toEqual(['b-new.txt', 'docs/guide.md', 'src/a.txt']);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('a command in a folder that is not a git repository: a walk with .gitignore rules', async () => {
    world = await openWorld((project) => {
      mkdirSync(join(project, 'src'), { recursive: true });
      mkdirSync(join(project, 'build'));
      writeFileSync(join(project, 'src/a.txt'), 'a\n');
      writeFileSync(join(project, 'notes.md'), 'n\n', { mode: 0o640 });
      writeFileSync(join(project, 'build/out.bin'), 'bin');
      writeFileSync(join(project, '.gitignore'), 'build/\n');
    }, { timestampGranularityMs: 0 });
    const before = readTree(world.project);
    const { window, capture } = await runInWindow(world, "rm notes.md && printf 'A\\n' > src/a.txt && echo new > src/new.txt && echo more > build/more.bin");
    expect(window.kind).toBe('walk');
    expect(window.copied).toBe(3);
    expect(capture.captured).toEqual([
      { path: 'notes.md', change: 'deleted', source: 'backup' },
      { path: 'src/a.txt', change: 'modified', source: 'backup' },
      { path: 'src/new.txt', change: 'created', source: 'created' },
    ]);
    expect(capture.ignored).toEqual({ count: 1, paths: ['build/'] });
    const after = readTree(world.project);
    const { rewound, undone } = await rewindAndUndo(world);
    expect(rewound).toEqual({ ...before, 'build/more.bin': after['build/more.bin'] });
    expect(undone).toEqual(after);
    // The next command reuses the unchanged pre-image (.gitignore) instead of copying it again;
    // the files the checkpoint now tracks need none.
    const next = await runInWindow(world, 'true');
    expect(next.window).toMatchObject({ files: 3, copied: 0, reused: 1, tracked: 2 });
  });

  it('a command that touches an ignored file: reported, not captured', async () => {
    world = await openWorld((project) => {
      baseRepository(project);
      sh(project, "mkdir -p node_modules/pkg && echo m > node_modules/pkg/index.js && echo l > debug.log");
    });
    const { capture } = await runInWindow(world, 'echo more >> debug.log && rm -rf node_modules/pkg');
    expect(capture.captured).toEqual([]);
    expect(capture.ignored).toEqual({ count: 2, paths: ['debug.log', 'node_modules/'] });
  });

  it('a symlink created by the command is deleted by the rewind; a file made executable gets its mode back', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const { capture } = await runInWindow(world, 'ln -s src/a.txt link && chmod +x docs/guide.md');
    expect(capture.captured).toEqual([
      { path: 'docs/guide.md', change: 'mode', source: 'git' },
      { path: 'link', change: 'created', source: 'created' },
    ]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });
});

describe('command window caps and failures', () => {
  it('files over the per-file cap are reported, never silently dropped', async () => {
    world = await openWorld(baseRepository);
    sh(world.project, "head -c 100 /dev/zero > big-untracked.bin && printf '%.0s-' $(seq 1 80) > src/lib/b.txt && git add src/lib/b.txt && git commit -qm big");
    const options = { probe: world.probe, journal: world.journal, limits: { maxFileBytes: 50 } };
    const window = await world.history.beginCommand(options);
    expect(window.notCaptured).toEqual([{ path: 'big-untracked.bin', reason: '100 bytes, over the per-file cap of 50 bytes (maxFileBytes)' }]);
    sh(world.project, 'rm big-untracked.bin src/lib/b.txt && echo small > src/a.txt');
    const capture = await world.history.endCommand(window.windowId, options);
    expect(capture.captured).toEqual([{ path: 'src/a.txt', change: 'modified', source: 'git' }]);
    expect(capture.notCaptured).toEqual([
      { path: 'big-untracked.bin', change: 'deleted', reason: '100 bytes, over the per-file cap of 50 bytes (maxFileBytes)' },
      { path: 'src/lib/b.txt', change: 'deleted', reason: 'over the per-file cap of 50 bytes (maxFileBytes)' },
    ]);
  });

  it('an end that fails leaves the window open: ending it again captures the command', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const real = world.probe;
    let failures = 1;
    const flaky = {
      begin: real.begin.bind(real),
      materializeBlobs: real.materializeBlobs.bind(real),
      release: real.release.bind(real),
      checkoutMode: real.checkoutMode.bind(real),
      end: async (...args: Parameters<typeof real.end>) => {
        if (failures-- > 0) throw new Error('git status failed (injected)');
        return real.end(...args);
      },
    };
    const options = { probe: flaky, journal: world.journal };
    const window = await world.history.beginCommand({ ...options, windowId: 'toolu_retry' });
    sh(world.project, 'rm src/a.txt');
    await expect(world.history.endCommand(window.windowId, options)).rejects.toThrow('git status failed (injected)');
    expect((await world.journal.listWindows()).map((record) => record.windowId)).toEqual(['toolu_retry']);
    const capture = await world.history.endCommand(window.windowId, options);
    expect(capture.captured).toEqual([{ path: 'src/a.txt', change: 'deleted', source: 'git' }]);
    expect(await world.journal.listWindows()).toEqual([]);
    await expect(world.history.endCommand(window.windowId, options)).rejects.toThrow('no open command window "toolu_retry" in session s1: it was never begun or has already ended');
    const { rewound } = await rewindAndUndo(world);
    expect(rewound).toEqual(before);
  });
});

describe("a sub-agent's command window (issue 14, history.forSubagent)", () => {
  it('attributes every file the command changed to the sub-agent; a rewind of its changes restores exactly those, leaving the main agent\'s edit', async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    await world.history.trackEdit(join(world.project, 'docs/guide.md'));
    writeFileSync(join(world.project, 'docs/guide.md'), 'main agent\n');
    const subagent = world.history.forSubagent({ agentId: 'a96cf8a57447af436', agentType: 'general-purpose' });
    const window = await subagent.beginCommand({ probe: world.probe, journal: world.journal, command: 'sed and a new file' });
    sh(world.project, "sed -i 's/one/ONE/' src/a.txt && printf 'new\\n' > src/new.txt");
    const capture = await subagent.endCommand(window.windowId, { probe: world.probe, journal: world.journal, agent: { by: 'main' } });
    expect(capture.captured.map((entry) => entry.path).sort()).toEqual(['src/a.txt', 'src/new.txt']);
    const entries = world.history.state.snapshots.at(-1)?.trackedFileBackups ?? {};
    for (const path of ['src/a.txt', 'src/new.txt']) {
      expect(entries[path]?.changedBy?.map(({ at: _at, ...agent }) => agent), path).toEqual([{ by: 'subagent', agentId: 'a96cf8a57447af436', agentType: 'general-purpose' }]);
    }
    expect(entries['docs/guide.md']?.changedBy?.map(({ at: _at, ...agent }) => agent)).toEqual([{ by: 'main' }]);

    const result = await new RewindSession({ history: world.history }).restore({ messageId: 'm1', mode: 'code', agent: 'a96c' });
    expect(result.code?.restored).toEqual(['src/a.txt']);
    expect(result.code?.deleted).toEqual(['src/new.txt']);
    expect(readTree(world.project)).toEqual({ ...before, 'docs/guide.md': { type: 'file', bytes: Buffer.from('main agent\n').toString('base64'), mode: before['docs/guide.md']?.type === 'file' ? before['docs/guide.md'].mode : 0 } });
  });
});

/**
 * Rewrite the index entry of `path` so its stat data is the file's current `lstat` (as if git had
 * recorded the file after it changed, keeping the old blob id), set the index file's mtime to
 * `indexMtimeSec`, and fix the index checksum.
 */
function forgeIndexStat(project: string, path: string, indexMtimeSec: number): void {
  const indexFile = join(project, '.git', 'index');
  const bytes = readFileSync(indexFile);
  const stats = lstatSync(join(project, path), { bigint: true });
  let offset = 12;
  for (let index = 0; index < bytes.readUInt32BE(8); index += 1) {
    const end = bytes.indexOf(0, offset + 62);
    if (bytes.toString('utf8', offset + 62, end) === path) {
      const write = (at: number, value: bigint) => bytes.writeUInt32BE(Number(value & 0xffffffffn), offset + at);
      write(0, stats.ctimeNs / 1_000_000_000n);
      write(4, stats.ctimeNs % 1_000_000_000n);
      write(8, stats.mtimeNs / 1_000_000_000n);
      write(12, stats.mtimeNs % 1_000_000_000n);
      write(20, stats.ino);
      write(28, stats.uid);
      write(32, stats.gid);
      write(36, stats.size);
      createHash('sha1').update(bytes.subarray(0, bytes.length - 20)).digest().copy(bytes, bytes.length - 20);
      writeFileSync(indexFile, bytes);
      utimesSync(indexFile, indexMtimeSec, indexMtimeSec);
      return;
    }
    offset += (end - offset + 8) & ~7;
  }
  throw new Error(`${path} is not in the index`);
}

describe('the in-process scan of a git work tree', () => {
  it('begins and ends without starting git, and says so in the window record', async () => {
    world = await openWorld(baseRepository);
    sh(world.project, "printf 'dirty\\n' >> docs/guide.md");
    const before = readTree(world.project);
    const probe = new NodeCommandProbe({ stateDir: join(world.base, 'no-git'), gitBinary: join(world.base, 'no-such-git') });
    const journal = new FsCommandJournal(join(world.base, 'no-git'));
    const window = await world.history.beginCommand({ probe, journal, windowId: 'w1' });
    expect((await journal.loadWindow('w1'))?.probeState).toMatchObject({ kind: 'scan' });
    expect(window.copied).toBe(1);
    sh(world.project, "echo new > new.txt && printf 'more\\n' >> docs/guide.md");
    const capture = await world.history.endCommand('w1', { probe, journal });
    expect(capture.captured).toEqual([
      { path: 'docs/guide.md', change: 'modified', source: 'backup' },
      { path: 'new.txt', change: 'created', source: 'created' },
    ]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('the end reads loose blobs in-process and starts git cat-file only for packed ones; rewind and undo exact', async () => {
    world = await openWorld((project) => {
      baseRepository(project);
      if (sh(project, 'git gc -q && test -z "$(find .git/objects -type f -path \'*/[0-9a-f][0-9a-f]/*\')"') !== 0) throw new Error('git gc left loose objects');
      sh(project, "printf 'loose\\n' > docs/guide.md && git add docs/guide.md");
    });
    const before = readTree(world.project);
    const log = join(world.base, 'git.log');
    const wrapper = join(world.base, 'git-logged');
    writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec git "$@"\n`, { mode: 0o755 });
    const probe = new NodeCommandProbe({ stateDir: join(world.base, 'logged'), gitBinary: wrapper });
    const journal = new FsCommandJournal(join(world.base, 'logged'));
    const gitRuns = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((line) => line !== '') : []);
    const window = async (script: string) => {
      const begun = await world!.history.beginCommand({ probe, journal });
      expect(sh(world!.project, script)).toBe(0);
      return (await world!.history.endCommand(begun.windowId, { probe, journal })).captured;
    };
    expect(await window('rm docs/guide.md')).toEqual([{ path: 'docs/guide.md', change: 'deleted', source: 'git' }]);
    expect(gitRuns()).toEqual([]);
    expect(await window("sed -i 's/one/ONE/' src/a.txt && sed -i 's/lib/LIB/' src/lib/b.txt")).toEqual([
      { path: 'src/a.txt', change: 'modified', source: 'git' },
      { path: 'src/lib/b.txt', change: 'modified', source: 'git' },
    ]);
    expect(gitRuns()).toEqual(['--no-optional-locks cat-file --batch']);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('a repository with .gitattributes uses git status, and is captured the same', async () => {
    world = await openWorld((project) => gitRepository(project, "mkdir src && printf 'one\\n' > src/a.txt && printf '*.txt text\\n' > .gitattributes"));
    const before = readTree(world.project);
    const window = await world.history.beginCommand({ probe: world.probe, journal: world.journal, windowId: 'w1' });
    expect((await world.journal.loadWindow('w1'))?.probeState).toMatchObject({ kind: 'git' });
    sh(world.project, "sed -i 's/one/ONE/' src/a.txt");
    const capture = await world.history.endCommand(window.windowId, { probe: world.probe, journal: world.journal });
    expect(capture.captured).toEqual([{ path: 'src/a.txt', change: 'modified', source: 'git' }]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it("gitScan: 'status' lists with git status instead, and captures the same", async () => {
    world = await openWorld(baseRepository);
    const before = readTree(world.project);
    const probe = new NodeCommandProbe({ stateDir: join(world.base, 'status'), gitScan: 'status' });
    const journal = new FsCommandJournal(join(world.base, 'status'));
    await world.history.beginCommand({ probe, journal, windowId: 'w1' });
    expect((await journal.loadWindow('w1'))?.probeState).toMatchObject({ kind: 'git' });
    sh(world.project, "sed -i 's/one/ONE/' src/a.txt && rm docs/guide.md");
    const capture = await world.history.endCommand('w1', { probe, journal });
    expect(capture.captured).toEqual([
      { path: 'docs/guide.md', change: 'deleted', source: 'git' },
      { path: 'src/a.txt', change: 'modified', source: 'git' },
    ]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });

  it('racy git: an entry modified within the same second the index was written is hashed, never trusted by its stat data', async () => {
    world = await openWorld(baseRepository);
    sh(world.project, "printf 'BBBB\\n' > src/lib/b.txt");
    const mtimeSec = Math.floor(lstatSync(join(world.project, 'src/lib/b.txt')).mtimeMs / 1000);
    forgeIndexStat(world.project, 'src/lib/b.txt', mtimeSec);
    const before = readTree(world.project);
    const { window, capture } = await runInWindow(world, 'rm src/lib/b.txt');
    expect(window.copied).toBe(1);
    expect(capture.captured).toEqual([{ path: 'src/lib/b.txt', change: 'deleted', source: 'backup' }]);
    const { rewound } = await rewindAndUndo(world);
    expect(rewound).toEqual(before);
    expect(before['src/lib/b.txt']).toMatchObject({ bytes: Buffer.from('BBBB\n').toString('base64') });
  });

  it('the same forged entry in an index written a later second is trusted by its stat data, as git does', async () => {
    world = await openWorld(baseRepository);
    sh(world.project, "printf 'BBBB\\n' > src/lib/b.txt");
    const mtimeSec = Math.floor(lstatSync(join(world.project, 'src/lib/b.txt')).mtimeMs / 1000);
    forgeIndexStat(world.project, 'src/lib/b.txt', mtimeSec + 5);
    const window = await world.history.beginCommand({ probe: world.probe, journal: world.journal });
    expect(window.copied).toBe(0);
    expect(window.files).toBe(0);
    await world.history.endCommand(window.windowId, { probe: world.probe, journal: world.journal });
  });

  it('chmod 750 → 777 of a clean file is a mode change: rewind gives back 0750, undo 0777', async () => {
    world = await openWorld((project) => {
      baseRepository(project);
      sh(project, 'chmod 750 run.sh');
    });
    const before = readTree(world.project);
    expect(before['run.sh']).toMatchObject({ mode: 0o750 });
    const { capture } = await runInWindow(world, 'chmod 777 run.sh');
    expect(capture.captured).toEqual([{ path: 'run.sh', change: 'mode', source: 'git' }]);
    const after = readTree(world.project);
    expect(after['run.sh']).toMatchObject({ mode: 0o777 });
    await expectRewindAndUndo(world, before, after);
  });

  it('a folder the command created and emptied by the rewind is removed; one that existed stays; undo brings the files back', async () => {
    world = await openWorld((project) => {
      baseRepository(project);
      mkdirSync(join(project, 'empty-before'));
    });
    const before = readTree(world.project);
    const { capture } = await runInWindow(world, 'mkdir -p a/b && echo > a/b/f && echo x > empty-before/x && mkdir src/new && echo y > src/new/g');
    expect(capture.captured.map((entry) => entry.path)).toEqual(['a/b/f', 'empty-before/x', 'src/new/g']);
    const after = readTree(world.project);
    const session = new RewindSession({ history: world.history });
    await session.restore({ messageId: 'm1', mode: 'code' });
    expect(readTree(world.project)).toEqual(before);
    expect(['a', 'a/b', 'src/new'].filter((folder) => existsSync(join(world!.project, folder)))).toEqual([]);
    expect(lstatSync(join(world.project, 'empty-before')).isDirectory()).toBe(true);
    await session.undoRewind();
    expect(readTree(world.project)).toEqual(after);
    expect(lstatSync(join(world.project, 'a/b')).isDirectory()).toBe(true);
  });
});

describe('index version 4', () => {
  it('paths after a stripped non-ASCII suffix are read byte-exact: every file is clean at begin and a change is taken from git', async () => {
    world = await openWorld((project) => gitRepository(project, "mkdir dir && printf 'a\\n' > dir/éa.txt && printf 'z\\n' > dir/z.txt && printf 'r\\n' > root.txt && git update-index --index-version 4"));
    expect(readFileSync(join(world.project, '.git', 'index')).readUInt32BE(4)).toBe(4);
    const before = readTree(world.project);
    const window = await world.history.beginCommand({ probe: world.probe, journal: world.journal, windowId: 'w1' });
    expect((await world.journal.loadWindow('w1'))?.probeState).toMatchObject({ kind: 'scan' });
    expect(window.files).toBe(0);
    sh(world.project, "printf 'Z\\n' > dir/z.txt && printf 'A\\n' > dir/éa.txt");
    const capture = await world.history.endCommand('w1', { probe: world.probe, journal: world.journal });
    expect(capture.captured).toEqual([
      { path: 'dir/z.txt', change: 'modified', source: 'git' },
      { path: 'dir/éa.txt', change: 'modified', source: 'git' },
    ]);
    await expectRewindAndUndo(world, before, readTree(world.project));
  });
});

describe('listing limits (a project folder of / or a huge folder)', () => {
  /** A probe of `current`'s state folder with listing limits. */
  const limited = (current: World, options: { maxScanEntries?: number; maxScanMs?: number }) => new NodeCommandProbe({ stateDir: join(current.base, 'commands', 's1'), ...options });

  it('a git work tree with more entries than maxScanEntries: the begin is refused naming the cap, and no window is kept', async () => {
    world = await openWorld(baseRepository);
    const probe = limited(world, { maxScanEntries: 3 });
    await expect(world.history.beginCommand({ probe, journal: world.journal, windowId: 'w1' })).rejects.toThrow(
      `the project folder ${world.project} is too large to scan for a command window: it holds more than 3 files and folders (maxScanEntries); the command's changes are not captured`,
    );
    expect(await world.journal.listWindows()).toEqual([]);
    expect(existsSync(join(world.base, 'commands', 's1', 'w1.tree'))).toBe(false);
  });

  it('a folder that is not a git repository: the walk stops at maxScanEntries too', async () => {
    world = await openWorld((project) => {
      mkdirSync(join(project, 'a/b'), { recursive: true });
      for (const name of ['x', 'y', 'a/z', 'a/b/w']) writeFileSync(join(project, name), name);
    });
    const probe = limited(world, { maxScanEntries: 4 });
    await expect(world.history.beginCommand({ probe, journal: world.journal })).rejects.toThrow('it holds more than 4 files and folders (maxScanEntries)');
    expect(await world.journal.listWindows()).toEqual([]);
    // Within the cap the same folder is captured as usual.
    const roomy = limited(world, { maxScanEntries: 6 });
    const window = await world.history.beginCommand({ probe: roomy, journal: world.journal });
    expect(window).toMatchObject({ kind: 'walk', files: 4 });
  });

  it('a listing past maxScanMs is stopped (find is killed) and the begin refused', async () => {
    // 3,000 files: their listing takes several ms on any machine, so a 1 ms limit always passes
    // (a small repository was listed within the same millisecond on a quiet machine).
    world = await openWorld((project) => gitRepository(project, "mkdir many && for i in $(seq 1 3000); do echo $i > many/$i; done"));
    const probe = limited(world, { maxScanMs: 1 });
    await expect(world.history.beginCommand({ probe, journal: world.journal })).rejects.toThrow("listing it took longer than the scan's time limit (maxScanMs");
    expect(await world.journal.listWindows()).toEqual([]);
  });

  it('a command that makes the project pass the cap: the end closes the window, captures nothing and says why', async () => {
    world = await openWorld((project) => gitRepository(project, "printf 'a\\n' > a.txt"));
    const probe = limited(world, { maxScanEntries: 10 });
    const window = await world.history.beginCommand({ probe, journal: world.journal, windowId: 'w1' });
    sh(world.project, "printf 'A\\n' > a.txt && mkdir many && for i in $(seq 1 20); do echo $i > many/$i; done");
    const capture = await world.history.endCommand(window.windowId, { probe, journal: world.journal });
    expect(capture).toMatchObject({ windowId: 'w1', messageId: 'm1', captured: [], notCaptured: [], copiedBytes: 0 });
    expect(capture.scanLimit).toBe(
      `the project folder ${world.project} is too large to scan for a command window: it holds more than 10 files and folders (maxScanEntries); the command's changes are not captured: run the agent in a smaller project folder, or raise the limit`,
    );
    expect(await world.journal.loadWindow('w1')).toBeUndefined();
    expect(existsSync(join(world.base, 'commands', 's1', 'w1.tree'))).toBe(false);
  });

  it('a project folder of / is refused before anything is listed', async () => {
    world = await openWorld(baseRepository);
    const history = await FileHistory.open({ projectRoot: '/', sessionId: 'root', store: new FsBackupStore({ root: world.storeRoot }) });
    try {
      await history.makeSnapshot('m1');
      const started = Date.now();
      await expect(history.beginCommand({ probe: world.probe, journal: world.journal })).rejects.toThrow('the project folder is /, the root of the file system: fh does not scan the whole file system for a command window, so this command is not captured');
      expect(Date.now() - started).toBeLessThan(2000);
      expect(await world.journal.listWindows()).toEqual([]);
    } finally {
      await history.close();
    }
  });
});

describe('the end of a git scan matches rows in any order', () => {
  /** `tree` with its rows in reverse order (as a listing whose folders list in another order would meet them). */
  function reversed(tree: ScanTree): ScanTree {
    const order = Array.from({ length: tree.count }, (_, index) => tree.count - 1 - index);
    const paths = order.map((r) => tree.pathBytes.toString('utf8', tree.pathStarts[r] as number, (tree.pathStarts[r + 1] as number) - 1));
    const pathStarts = new Uint32Array(tree.count + 1);
    paths.forEach((path, index) => {
      pathStarts[index + 1] = (pathStarts[index] as number) + Buffer.byteLength(path) + 1;
    });
    const facts = new Float64Array(tree.facts.length);
    const oids = Buffer.alloc(tree.oids.length);
    order.forEach((r, index) => {
      facts.set(tree.facts.subarray(r * 6, r * 6 + 6), index * 6);
      tree.oids.copy(oids, index * tree.oidBytes, r * tree.oidBytes, (r + 1) * tree.oidBytes);
    });
    return {
      ...tree,
      pathBytes: Buffer.from(paths.map((path) => `${path}\0`).join('')),
      pathStarts,
      facts,
      gitModes: Uint32Array.from(order.map((r) => tree.gitModes[r] as number)),
      oids,
      gitignoreRows: tree.gitignoreRows.map((r) => tree.count - 1 - r),
    };
  }

  it('rows met out of order are looked up by path: the same changes, bytes, modes and new files as in order', async () => {
    world = await openWorld((project) => gitRepository(project, "mkdir -p src && for i in $(seq 1 12); do printf \"$i\\n\" > src/f$i.txt; done && printf '*.log\\n' > src/.gitignore"));
    const location = { top: world.project, prefix: '', gitDir: join(world.project, '.git'), commonDir: join(world.project, '.git') };
    const limits = { maxEntries: 1000, deadline: Date.now() + 60_000 };
    const begun = await scanBegin(world.project, location, new Set(), limits);
    if ('unsupported' in begun) throw new Error(begun.unsupported);
    expect(begun.tree.count).toBe(13);
    sh(world.project, 'echo more >> src/f3.txt && rm src/f7.txt && chmod 600 src/f9.txt && echo new > src/new.txt && echo log > src/x.log');
    const expected = new Map([
      ['src/f3.txt', { blobId: expect.any(String), gitMode: 0o100644, mode: 0o644, contentChanged: true }],
      ['src/f7.txt', { blobId: expect.any(String), gitMode: 0o100644, mode: 0o644, contentChanged: true }],
      ['src/f9.txt', { blobId: expect.any(String), gitMode: 0o100644, mode: 0o644, contentChanged: false }],
    ]);
    for (const tree of [begun.tree, reversed(begun.tree)]) {
      const ended = await scanEnd(world.project, location, tree, limits);
      expect(ended.changed).toEqual(expected);
      expect(ended.changed.get('src/f3.txt')?.blobId).toBe(createHash('sha1').update('blob 2\0').update('3\n').digest('hex'));
      expect([...ended.own.keys()]).toEqual(['src/new.txt']);
      expect([...ended.ignored.keys()]).toEqual(['src/x.log']);
    }
  });
});

describe('without GNU find', () => {
  it('the scan lists in-process (find not on PATH) and captures the same, window after window', async () => {
    world = await openWorld(baseRepository);
    const bin = join(world.base, 'bin');
    mkdirSync(bin);
    for (const tool of ['git', 'bash']) symlinkSync(execFileSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      for (const round of [1, 2]) {
        const before = readTree(world.project);
        const window = await world.history.beginCommand({ probe: world.probe, journal: world.journal, windowId: `w${round}` });
        expect((await world.journal.loadWindow(`w${round}`))?.probeState).toMatchObject({ kind: 'scan' });
        expect(window.files).toBe(0);
        sh(world.project, `printf 'round ${round}\\n' >> docs/guide.md && echo new > new-${round}.txt`);
        const capture = await world.history.endCommand(`w${round}`, { probe: world.probe, journal: world.journal });
        expect(capture.captured).toEqual([
          { path: 'docs/guide.md', change: 'modified', source: round === 1 ? 'git' : 'tracked' },
          { path: `new-${round}.txt`, change: 'created', source: 'created' },
        ]);
        if (round === 1) await expectRewindAndUndo(world, before, readTree(world.project));
        sh(world.project, 'git add -A');
      }
    } finally {
      process.env.PATH = path;
    }
  });
});
