import { RewindSession } from '@fh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { readTree, gitRepository, openWorld, rewindAndUndo, runInWindow, sh, storeBackups, type World } from './helpers.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
