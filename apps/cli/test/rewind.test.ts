import { readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { restoreStateFromLog } from '@fh/core';
import { describe, expect, it } from 'vitest';
import { readTree, sandbox, writeFiles, type Sandbox } from './helpers.js';

const SESSION = 'rewind-session';

/**
 * Turn p1 ("make it loud"): app.sh (0755) and lib.txt tracked, edited, gen.txt created.
 * Turn p2 ("add docs"): lib.txt edited again. Then the user edits app.sh by hand after p2.
 */
async function session(): Promise<Sandbox> {
  const box = await sandbox();
  const fh = async (args: string[]) => expect((await box.fh(['--session', SESSION, ...args])).exitCode).toBe(0);
  await writeFiles(box.project, { 'app.sh': { content: '#!/bin/sh\necho quiet\n', mode: 0o755 }, 'lib.txt': 'lib v1\n' });
  await fh(['snapshot', 'p1', '--prompt', 'make it loud']);
  await fh(['track', 'app.sh', 'lib.txt', 'gen.txt']);
  await writeFiles(box.project, { 'app.sh': { content: '#!/bin/sh\necho LOUD\n', mode: 0o755 }, 'lib.txt': 'lib v2\n', 'gen.txt': 'generated\n' });
  await fh(['snapshot', 'p2', '--prompt', 'add docs']);
  await writeFiles(box.project, { 'lib.txt': 'lib v3\n' });
  await writeFiles(box.project, { 'app.sh': { content: '#!/bin/sh\necho LOUD # my own edit\n', mode: 0o700 } });
  return box;
}

describe('fh rewind', () => {
  it('refuses without a terminal and without --yes, changing nothing (exit 2)', async () => {
    const box = await session();
    const before = await readTree(box.project);
    const result = await box.fh(['--session', SESSION, 'rewind', 'p1']);
    expect(result).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh: refusing to rewind without confirmation: there is no terminal to ask on; pass --yes (or --dry-run to preview)\n',
    });
    const menu = await box.fh(['--session', SESSION, 'rewind']);
    expect(menu.exitCode).toBe(2);
    expect(menu.stderr).toBe('fh: rewind needs a message id when there is no terminal to show the menu on (fh list shows them)\n');
    expect(await readTree(box.project)).toEqual(before);
  });

  it('--dry-run previews code and conversation and changes nothing', async () => {
    const box = await session();
    const before = await readTree(box.project);
    const { result, json } = await box.fhJson<Record<string, any>>(['--session', SESSION, 'rewind', 'p1', '--dry-run']);
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ messageId: 'p1', mode: 'both', dryRun: true, code: null, undoId: null });
    expect(json.preview.filesChanged).toEqual(['app.sh', 'gen.txt', 'lib.txt']);
    expect(json.preview.changedSinceLatestSnapshot).toEqual(['app.sh', 'lib.txt']);
    expect(json.conversation.prompt.text).toBe('make it loud');
    expect(json.conversation.removedMessageIds).toEqual(['p1', 'p2']);
    expect(await readTree(box.project)).toEqual(before);
  });

  it('rewinds code and conversation with --yes, prints the prompt, and undo brings every byte back', async () => {
    const box = await session();
    const before = await readTree(box.project);
    const { result, json } = await box.fhJson<Record<string, any>>(['--session', SESSION, 'rewind', 'p1', '--yes']);
    expect(result.exitCode).toBe(0);
    expect(json.code).toEqual({ restored: ['app.sh', 'lib.txt'], deleted: ['gen.txt'], skipped: [], failed: [] });
    expect(json.conversation).toEqual({
      conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      removedMessageIds: ['p1', 'p2'],
      prompt: { text: 'make it loud', mode: 'prompt', images: 0, permissionMode: null },
    });
    expect(json.undoId).toEqual(expect.any(String));
    expect(await readTree(box.project)).toEqual({
      'app.sh': { content: '#!/bin/sh\necho quiet\n', mode: 0o755 },
      'lib.txt': { content: 'lib v1\n', mode: 0o644 },
    });

    const undo = await box.fhJson<Record<string, unknown>>(['--session', SESSION, 'undo']);
    expect(undo.result.exitCode).toBe(0);
    expect(undo.json).toMatchObject({ restored: ['app.sh', 'gen.txt', 'lib.txt'], deleted: [], failed: [] });
    expect(await readTree(box.project)).toEqual(before);
  });

  it('prints the rewound prompt for editing in human output', async () => {
    const box = await session();
    const result = await box.fh(['--session', SESSION, 'rewind', 'p2', '--yes']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      [
        `Rewound the code to p2: 2 restored, 0 deleted, in ${box.project}`,
        '  restored  app.sh',
        '  restored  lib.txt',
        `Undo with: fh --store fs:${box.store} --session ${SESSION} --project ${box.project} undo`,
        `The conversation of session ${SESSION} belongs to the agent that runs it: nothing was dropped or recorded. The prompt at p2, ready to edit and resend:`,
        '',
        'add docs',
        '',
        `To continue from before it as a new session: fh --store fs:${box.store} --session ${SESSION} --project ${box.project} fork p2`,
        '',
      ].join('\n'),
    );
  });

  it('--mode code --paths rewinds only the named files; --mode conversation touches no file', async () => {
    const box = await session();
    const code = await box.fhJson<Record<string, any>>(['--session', SESSION, 'rewind', 'p1', '--mode', 'code', '--paths', 'lib.txt', '--yes']);
    expect(code.result.exitCode).toBe(0);
    expect(code.json.code.restored).toEqual(['lib.txt']);
    expect(code.json.conversation).toBeNull();
    expect(await readFile(join(box.project, 'lib.txt'), 'utf8')).toBe('lib v1\n');
    expect(await readFile(join(box.project, 'gen.txt'), 'utf8')).toBe('generated\n');
    const before = await readTree(box.project);
    const conversation = await box.fhJson<Record<string, any>>(['--session', SESSION, 'rewind', 'p2', '--mode', 'conversation', '--yes']);
    expect(conversation.json.code).toBeNull();
    expect(conversation.json.conversation.prompt.text).toBe('add docs');
    expect(await readTree(box.project)).toEqual(before);
  });

  it('an unknown message id and a bad mode are named, and nothing changes', async () => {
    const box = await session();
    const before = await readTree(box.project);
    const unknown = await box.fh(['--session', SESSION, 'rewind', 'nope', '--yes']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/^fh: .*nope.*\n$/);
    const mode = await box.fh(['--session', SESSION, 'rewind', 'p1', '--mode', 'everything', '--yes']);
    expect(mode.exitCode).toBe(2);
    expect(mode.stderr).toContain("argument 'everything' is invalid. Allowed choices are both, code, conversation, summarize, summarize_up_to.");
    expect(await readTree(box.project)).toEqual(before);
  });

  it('refuses when a backup is missing, naming it, and changes nothing', async () => {
    const box = await session();
    const before = await readTree(box.project);
    const log = (await readFile(join(box.store, 'sessions', `${SESSION}.jsonl`), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    const name = restoreStateFromLog(log, { projectRoot: box.project }).snapshots.at(-1)?.trackedFileBackups['lib.txt']?.backupFileName as string;
    await unlink(join(box.store, 'file-history', SESSION, name));
    const result = await box.fh(['--session', SESSION, 'rewind', 'p2', '--mode', 'code', '--yes']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`lib.txt: backup ${name}`);
    expect(await readTree(box.project)).toEqual(before);
  });

  it('undo with nothing to undo fails with one line', async () => {
    const box = await session();
    const result = await box.fh(['--session', SESSION, 'undo']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });
});

describe('fh fork', () => {
  it('writes the conversation before the prompt as a new session that can rewind', async () => {
    const box = await session();
    const { result, json } = await box.fhJson<Record<string, unknown>>(['--session', SESSION, 'fork', 'p2', '--to', 'forked']);
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ sessionId: SESSION, forkSessionId: 'forked', messageId: 'p2', messages: 1, checkpoints: 1, missing: [] });
    expect((json.prompt as { text: string }).text).toBe('add docs');
    const list = await box.fhJson<{ checkpoints: Array<{ messageId: string; prompt: string }> }>(['--session', 'forked', 'list']);
    expect(list.json.checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.prompt])).toEqual([['p1', 'make it loud']]);
    const rewind = await box.fhJson<Record<string, any>>(['--session', 'forked', 'rewind', 'p1', '--mode', 'code', '--yes']);
    expect(rewind.json.code.deleted).toEqual(['gen.txt']);
    await expect(stat(join(box.project, 'gen.txt'))).rejects.toThrow(/ENOENT/);
  });
});

describe('fh rewind: skipped files', () => {
  it('a folder standing at a tracked path is skipped, named, and the exit code is 3 (partly done)', async () => {
    const box = await session();
    await unlink(join(box.project, 'lib.txt'));
    await writeFiles(box.project, { 'lib.txt/keep.txt': 'mine\n' });
    const { result, json } = await box.fhJson<Record<string, any>>(['--session', SESSION, 'rewind', 'p1', '--mode', 'code', '--yes']);
    expect(result.exitCode).toBe(3);
    expect(json.code.skipped.map((entry: { path: string }) => entry.path)).toEqual(['lib.txt']);
    expect(json.code.restored).toEqual(['app.sh']);
    const reason = json.code.skipped[0].reason as string;
    expect(result.stderr).toBe(`fh: 1 file could not be rewound (1 skipped)\n  lib.txt: skipped: ${reason}\n`);
    expect(await readFile(join(box.project, 'lib.txt', 'keep.txt'), 'utf8')).toBe('mine\n');
    const human = await box.fh(['--session', SESSION, 'rewind', 'p1', '--mode', 'code', '--yes']);
    expect(human.exitCode).toBe(3);
    expect(human.stdout).toContain(`  skipped   lib.txt: ${reason}\n`);
  });
});
