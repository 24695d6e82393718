import { afterEach, describe, expect, it } from 'vitest';
import { RewindSession, type CommandCapture } from '@fh/core';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NodeCommandProbe } from '../src/index.js';
import { gitRepository, openWorld, readTree, runInWindow, sh, type TreeEntry, type World } from './helpers.js';

// Feeds here wait up to 10 s for a cut (not 2 s): on a loaded machine a late answer would make a full scan and change the counts asserted.
const worlds: World[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

const repository = (project: string): void =>
  gitRepository(
    project,
    [
      'mkdir -p src/lib docs node_modules/pkg',
      "printf 'one\\ntwo\\n' > src/a.txt",
      "printf 'lib\\n' > src/lib/b.txt",
      "printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 755 run.sh",
      "printf 'doc\\n' > docs/guide.md",
      "printf 'module\\n' > node_modules/pkg/index.js",
      "printf 'node_modules/\\n*.log\\n' > .gitignore",
      'git checkout -q -b other && git add -A && git commit -qm first',
      "printf 'other\\n' > src/a.txt && printf 'only on other\\n' > other.txt && git add -A && git commit -qm other && git checkout -q main",
    ].join(' && '),
  );

/** What a capture says, without the window id and the checkpoint. */
function summary(capture: CommandCapture): unknown {
  return { captured: capture.captured, notCaptured: capture.notCaptured.map(({ path, change }) => ({ path, change })), ignored: capture.ignored };
}

/** The tree without what a rewind never restores (ignored paths). */
function restorable(tree: Record<string, TreeEntry>): Record<string, TreeEntry> {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => !path.endsWith('.log') && !path.startsWith('node_modules/') && !path.startsWith('extra/')));
}

/** [what the user does before the command (or ''), the command]: every nasty case of issue 12, one checkpoint each. */
const STEPS: Array<[string, string]> = [
  ['', "sed -i 's/one/ONE/' src/a.txt"],
  ["printf 'user\\n' >> docs/guide.md", "printf 'agent\\n' >> docs/guide.md"],
  ["printf 'dirty\\n' >> src/lib/b.txt && printf 'new\\n' > src/lib/untracked.txt && chmod 600 src/lib/untracked.txt", 'rm -rf src/'],
  ['', 'mkdir -p moved && mv docs moved/docs'],
  ['', "mkdir -p fresh/deep && printf 'x\\n' > fresh/deep/x.txt && printf 'y\\n' > fresh/y.txt"],
  ['', 'ln -s run.sh link.sh && chmod +x moved/docs/guide.md'],
  ['', "printf 'log\\n' > debug.log && printf 'm\\n' > node_modules/new.js"],
  ['', "printf 'tmp\\n' > tmp.txt && rm tmp.txt"],
  ['git add -A && git commit -qm work', "printf 'stash me\\n' >> run.sh && git stash -q"],
  ['', 'git checkout -q other'],
  ["printf 'uncommitted\\n' >> other.txt", 'git reset -q --hard HEAD~1'],
  ["printf 'more\\n' >> run.sh", 'git commit -qam wip'],
  ["printf 'extra/\\n' >> .gitignore", "mkdir extra && printf 'e\\n' > extra/e.txt && printf 'k\\n' > keep.txt"],
  ['', "printf 'again\\n' >> keep.txt && mkdir -p fresh/deep && printf 'x2\\n' >> fresh/deep/x.txt"],
  ["mkdir -p fresh/deep && printf 'y\\n' > fresh/y.txt", "mv fresh fresh-old && mkdir -p fresh/deep && printf 'replaced\\n' > fresh/deep/x.txt"],
  ["printf 'user\\n' >> fresh-old/y.txt", "printf 'o\\n' >> fresh-old/deep/x.txt && printf 'p\\n' >> fresh/deep/x.txt && rm fresh-old/y.txt"],
];

describe('command window on a change feed (real git, bash, inotify)', () => {
  // 16 commands on two worlds (a full-scan twin and the feed), each rewound to every checkpoint:
  // ~8 s alone, several times that beside the other packages' suites under turbo.
  it('every nasty case, one command after another on one probe: the same captures as a full scan, and rewinds exact', async () => {
    const scanned = await openWorld(repository);
    // rebaseRows 3: the delta is folded into a new base tree at most begins, so that path is taken too.
    const fed = await openWorld(repository, { probe: { watch: { rebaseRows: 3, cutTimeoutMs: 10_000 } } });
    worlds.push(scanned, fed);
    expect(await fed.probe.startFeed(fed.project)).toBe(true);
    const before: Array<Record<string, TreeEntry>> = [];
    const capturedPaths: string[][] = [];
    for (const [index, [user, command]] of STEPS.entries()) {
      const messageId = `t${index}`;
      for (const world of [scanned, fed]) {
        await world.history.makeSnapshot(messageId);
        if (user !== '') expect(sh(world.project, user)).toBe(0);
      }
      before.push(readTree(fed.project));
      const expected = await runInWindow(scanned, command);
      const actual = await runInWindow(fed, command);
      expect({ command, exit: actual.exitCode }).toEqual({ command, exit: 0 });
      expect({ command, exit: expected.exitCode }).toEqual({ command, exit: 0 });
      expect({ command, ...(summary(actual.capture) as object) }).toEqual({ command, ...(summary(expected.capture) as object) });
      // A file the checkpoint already tracked keeps its checkpoint bytes (not the user's later edit): checked by the twin comparison only.
      capturedPaths.push(actual.capture.captured.filter(({ source }) => source !== 'tracked').map(({ path }) => path));
    }
    // Start + the .gitignore edit; every other begin and end came from the feed.
    expect(fed.probe.feedStatus()).toMatchObject({ running: true, fullScans: 2, incremental: STEPS.length * 2 - 1 });
    // Every window released: only the current base tree is left of the feed's files (old bases, deltas and blobs removed).
    expect(readdirSync(join(fed.base, 'commands', 's1')).filter((name) => name.startsWith('feed-base-') || name.endsWith('.delta') || name.includes('.blob-')).length).toBe(1);
    // Rewind both to each checkpoint, newest first: the same trees, and each command's files exactly as before it ran.
    const sessions = [new RewindSession({ history: scanned.history }), new RewindSession({ history: fed.history })];
    for (let index = STEPS.length - 1; index >= 0; index -= 1) {
      for (const session of sessions) await session.restore({ messageId: `t${index}`, mode: 'code' });
      const tree = readTree(fed.project);
      expect({ step: index, tree: restorable(tree) }).toEqual({ step: index, tree: restorable(readTree(scanned.project)) });
      // link.sh: a symbolic link, which fh does not back up (both worlds agree, checked above).
      const pick = (from: Record<string, TreeEntry>): Record<string, TreeEntry | undefined> => Object.fromEntries((capturedPaths[index] ?? []).filter((path) => path !== 'link.sh').map((path) => [path, from[path]]));
      expect({ step: index, files: pick(tree) }).toEqual({ step: index, files: pick(before[index] as Record<string, TreeEntry>) });
    }
  }, 180_000);

  it('blobs git keeps packed come through the warm cat-file, loose ones in-process: rewind exact both ways', async () => {
    const world = await openWorld((project) => {
      repository(project);
      if (sh(project, 'git gc -q && test -z "$(find .git/objects -type f -path \'*/[0-9a-f][0-9a-f]/*\')"') !== 0) throw new Error('git gc left loose objects');
    }, { probe: { watch: { cutTimeoutMs: 10_000 } } });
    worlds.push(world);
    expect(await world.probe.startFeed(world.project)).toBe(true);
    const before = readTree(world.project);
    const packed = await runInWindow(world, "sed -i 's/lib/LIB/' src/lib/b.txt && chmod 700 run.sh");
    expect(packed.capture.captured).toEqual([
      { path: 'run.sh', change: 'mode', source: 'git' },
      { path: 'src/lib/b.txt', change: 'modified', source: 'git' },
    ]);
    sh(world.project, "printf 'loose\\n' > docs/guide.md && git add docs/guide.md");
    await world.history.makeSnapshot('m2');
    const staged = readTree(world.project);
    const loose = await runInWindow(world, 'rm docs/guide.md');
    expect(loose.capture.captured).toEqual([{ path: 'docs/guide.md', change: 'deleted', source: 'git' }]);
    // A checkout writes files from the pack: the index names their blobs.
    await runInWindow(world, 'git checkout -q -f other');
    const checkedOut = await runInWindow(world, "printf 'changed\\n' >> other.txt");
    // docs/guide.md came back from the pack: clean by its index entry, so the begin holds no file of its own (as a full scan).
    expect(checkedOut.window).toMatchObject({ files: 0, copied: 0 });
    expect(checkedOut.capture.captured).toEqual([{ path: 'other.txt', change: 'modified', source: 'git' }]);
    expect(world.probe.feedStatus()).toMatchObject({ fullScans: 1, incremental: 8 });
    const session = new RewindSession({ history: world.history });
    await session.restore({ messageId: 'm2', mode: 'code' });
    expect(restorable(readTree(world.project))).toEqual(restorable(staged));
    await session.restore({ messageId: 'm1', mode: 'code' });
    expect(restorable(readTree(world.project))).toEqual(restorable({ ...before, 'docs/guide.md': staged['docs/guide.md'] as TreeEntry }));
  });

  it('a drain past the overflow threshold: the feed falls back to a full scan and captures everything', async () => {
    const world = await openWorld(repository, { probe: { watch: { overflowEvents: 5, stallMs: 1000, cutTimeoutMs: 10_000 } } });
    worlds.push(world);
    expect(await world.probe.startFeed(world.project)).toBe(true);
    const before = readTree(world.project);
    const { capture } = await runInWindow(world, "for n in 1 2 3 4 5 6 7 8; do printf \"$n\\n\" > new-$n.txt; done && printf 'x\\n' >> docs/guide.md");
    expect(capture.captured.map(({ path, change }) => `${change} ${path}`)).toEqual(['modified docs/guide.md', ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `created new-${n}.txt`)]);
    expect(world.probe.feedStatus()).toMatchObject({ fullScans: 1, incremental: 1 });
    expect(world.probe.feedStatus().lastFallback).toMatch(/queue may have overflowed/);
    // The next window starts the feed again with a full scan.
    await world.history.makeSnapshot('m2');
    const { capture: second } = await runInWindow(world, "sed -i 's/lib/LIB/' src/lib/b.txt");
    expect(second.captured).toEqual([{ path: 'src/lib/b.txt', change: 'modified', source: 'git' }]);
    expect(world.probe.feedStatus()).toMatchObject({ fullScans: 2 });
    await new RewindSession({ history: world.history }).restore({ messageId: 'm1', mode: 'code' });
    expect(readTree(world.project)).toEqual(before);
  });

  it('a watch that fails: no feed, every window scans in full and still captures everything', async () => {
    const world = await openWorld(repository);
    worlds.push(world);
    const project = world.project;
    const broken = new NodeCommandProbe({ stateDir: join(world.base, 'broken-state'), watch: { failWatch: [join(project, 'src', 'lib')] } });
    expect(await broken.startFeed(project)).toBe(false);
    expect(broken.feedStatus()).toMatchObject({ running: false, fullScans: 0 });
    expect(broken.feedStatus().lastFallback).toMatch(/src\/lib failed \(ENOSPC\)/);
    const before = readTree(project);
    const window = await world.history.beginCommand({ probe: broken, journal: world.journal });
    sh(project, "printf 'changed\\n' > src/lib/b.txt && mkdir src/lib/new && printf 'n\\n' > src/lib/new/n.txt");
    const capture = await world.history.endCommand(window.windowId, { probe: broken, journal: world.journal });
    expect(capture.captured).toEqual([
      { path: 'src/lib/b.txt', change: 'modified', source: 'git' },
      { path: 'src/lib/new/n.txt', change: 'created', source: 'created' },
    ]);
    await broken.close();
    await new RewindSession({ history: world.history }).restore({ messageId: 'm1', mode: 'code' });
    expect(readTree(project)).toEqual(before);
  });

  it('a window begun on the feed and ended by another process (no feed) from the base tree and its delta', async () => {
    const world = await openWorld(repository, { probe: { watch: { cutTimeoutMs: 10_000 } } });
    worlds.push(world);
    expect(await world.probe.startFeed(world.project)).toBe(true);
    await runInWindow(world, "sed -i 's/doc/DOC/' docs/guide.md && printf 'n\\n' > docs/new.txt");
    await world.history.makeSnapshot('m2');
    const before = readTree(world.project);
    const window = await world.history.beginCommand({ probe: world.probe, journal: world.journal });
    expect(world.probe.feedStatus()).toMatchObject({ fullScans: 1, incremental: 3 });
    // The window's delta is in its record (one durable write), not in a file of its own.
    const { probeState } = (await world.journal.loadWindow(window.windowId)) ?? {};
    expect(probeState).toMatchObject({ kind: 'scan', delta: { version: 1, dropped: ['docs/guide.md'], added: [], known: ['docs/guide.md', 'docs/new.txt'] } });
    expect(readdirSync(join(world.base, 'commands', 's1')).filter((name) => name.endsWith('.delta'))).toEqual([]);
    sh(world.project, "printf 'again\\n' >> docs/guide.md && rm docs/new.txt && printf 'r\\n' >> run.sh && mkdir -p later && printf 'l\\n' > later/l.txt");
    const other = new NodeCommandProbe({ stateDir: join(world.base, 'commands', 's1') });
    const capture = await world.history.endCommand(window.windowId, { probe: other, journal: world.journal });
    expect(capture.captured).toEqual([
      { path: 'docs/guide.md', change: 'modified', source: 'tracked' },
      { path: 'docs/new.txt', change: 'deleted', source: 'tracked' },
      { path: 'later/l.txt', change: 'created', source: 'created' },
      { path: 'run.sh', change: 'modified', source: 'git' },
    ]);
    await new RewindSession({ history: world.history }).restore({ messageId: 'm2', mode: 'code' });
    expect(readTree(world.project)).toEqual(before);
  });
});
