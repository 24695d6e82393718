import { createHash } from 'node:crypto';
import { readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, sandbox, writeFiles, type Sandbox } from './helpers.js';

const SESSION = 's1';

function short(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * a.txt and b.txt tracked at t1 (a0, b0), checkpoint t2, both edited (a1, b1), then rewound to t2:
 * the store holds the checkpoint backups (a0, b0) and the rewind's pre-images (a1, b1).
 */
async function rewoundSession(): Promise<{ box: Sandbox; backups: Record<string, string>; pointId: string }> {
  const box = await sandbox();
  const fh = async (args: string[]) => expect((await box.fh(['--session', SESSION, ...args])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
  await fh(['snapshot', 't1']);
  await fh(['track', 'a.txt', 'b.txt']);
  await fh(['snapshot', 't2']);
  await writeFiles(box.project, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
  const rewound = await box.fhJson<{ undoId: string }>(['--session', SESSION, 'rewind', 't2', '--mode', 'code', '--yes']);
  const folder = join(box.store, 'file-history', SESSION);
  const backups: Record<string, string> = {};
  for (const name of await readdir(folder)) backups[await readFile(join(folder, name), 'utf8')] = name;
  return { box, backups, pointId: rewound.json.undoId };
}

describe('fh verify', () => {
  it('says every backup of the project\'s sessions is sound, exit 0', async () => {
    const { box } = await rewoundSession();
    expect(await box.fh(['verify'])).toEqual({ exitCode: 0, stdout: 'session s1: 4 backups checked (12 B hashed): 4 sound, 0 damaged\n', stderr: '' });
  });

  it('reports a flipped and a truncated backup with the checkpoints and points they break, exit 1; --json has the same', async () => {
    const { box, backups, pointId } = await rewoundSession();
    const folder = join(box.store, 'file-history', SESSION);
    await writeFile(join(folder, backups['a0\n'] as string), 'a9\n');
    await writeFile(join(folder, backups['b1\n'] as string), 'b1');

    // Damaged backups are listed by name (names hash the file's absolute path).
    const blocks = [
      [
        backups['a0\n'] as string,
        `  damaged a.txt: backup ${backups['a0\n']}: its bytes do not match the content hash recorded when it was made (sha256 ${short('a0\n')}…, now ${short('a9\n')}…)`,
        '    breaks the rewind to 2 checkpoints: t1, t2',
      ],
      [backups['b1\n'] as string, `  damaged b.txt: backup ${backups['b1\n']}: the backup has 2 bytes, not the 3 recorded when it was made`, `    breaks undo to before 1 timeline point: ${pointId}`],
    ].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1));
    expect(await box.fh(['verify'])).toEqual({
      exitCode: 1,
      stdout: [
        'session s1: 4 backups checked (9 B hashed): 2 sound, 2 damaged',
        ...blocks.flatMap((block) => block.slice(1)),
        '  This breaks the rewind to 2 checkpoints and undo to before 1 timeline point: fh refuses them, changing nothing, while these backups are damaged, and cannot repair them. ' +
          `Rewind the other files by naming them (fh --store fs:${box.store} --session s1 --project ${box.project} rewind <checkpoint> --paths <other files>) ` +
          'and take the damaged files from another copy (git, a backup of the store).',
        '',
      ].join('\n'),
      stderr: '',
    });

    const { result, json } = await box.fhJson<Record<string, unknown>>(['--session', SESSION, 'verify']);
    expect(result.exitCode).toBe(1);
    expect(json).toEqual({
      projectRoot: box.project,
      damaged: 2,
      sessions: [
        {
          sessionId: SESSION,
          checked: 4,
          ok: 2,
          unverifiable: 0,
          damaged: [
            { backupFileName: backups['a0\n'], status: 'hash', problem: expect.stringContaining('do not match the content hash'), paths: ['a.txt'], checkpoints: ['t1', 't2'], points: [] },
            { backupFileName: backups['b1\n'], status: 'size', problem: 'the backup has 2 bytes, not the 3 recorded when it was made', paths: ['b.txt'], checkpoints: [], points: [pointId] },
          ].sort((x, y) => ((x.backupFileName as string) < (y.backupFileName as string) ? -1 : 1)),
          brokenCheckpoints: ['t1', 't2'],
          brokenPoints: [pointId],
          bytesHashed: 9,
        },
      ],
    });
  });

  it('lists a backup that is a symbolic link in the store as damaged with every other result, exit 1; --json has the same', async () => {
    const { box, backups } = await rewoundSession();
    const folder = join(box.store, 'file-history', SESSION);
    const name = backups['b0\n'] as string;
    await writeFiles(box.home, { 'outside.txt': 'b0\n' });
    await rm(join(folder, name));
    await symlink(join(box.home, 'outside.txt'), join(folder, name));
    const link = `${join(folder, name)} is a symbolic link: fh never follows a link inside its store (${box.store}), so it was not read or written; replace it by what fh wrote there (or remove it) and run the command again`;

    const { result, json } = await box.fhJson<Record<string, unknown>>(['--session', SESSION, 'verify']);
    expect(result.exitCode).toBe(1);
    expect(json).toEqual({
      projectRoot: box.project,
      damaged: 1,
      sessions: [
        {
          sessionId: SESSION,
          checked: 4,
          ok: 3,
          unverifiable: 0,
          damaged: [{ backupFileName: name, status: 'refused', problem: link, paths: ['b.txt'], checkpoints: ['t1', 't2'], points: [] }],
          brokenCheckpoints: ['t1', 't2'],
          brokenPoints: [],
          bytesHashed: 9,
        },
      ],
    });
    const human = await box.fh(['verify']);
    expect([human.exitCode, ...human.stdout.split('\n').slice(0, 3)]).toEqual([
      1,
      'session s1: 4 backups checked (9 B hashed): 3 sound, 1 damaged',
      `  damaged b.txt: backup ${name}: ${link}`,
      '    breaks the rewind to 2 checkpoints: t1, t2',
    ]);
  });

  it('a rewind needing the flipped backup refuses before writing, says what to do, and rewinds the others by --paths', async () => {
    const { box, backups } = await rewoundSession();
    await writeFile(join(box.store, 'file-history', SESSION, backups['a0\n'] as string), 'a9\n');
    await writeFiles(box.project, { 'a.txt': 'aX\n', 'b.txt': 'bX\n' });
    const name = backups['a0\n'] as string;
    const damage = `its bytes do not match the content hash recorded when it was made (sha256 ${short('a0\n')}…, now ${short('a9\n')}…)`;
    const hint = `fh --store fs:${box.store} --session s1 --project ${box.project} rewind t2 --mode code --yes --paths b.txt`;
    expect(await box.fh(['--session', SESSION, 'rewind', 't2', '--mode', 'code', '--yes'])).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: [
        `fh: rewind refused, nothing was changed: 1 backup is missing or damaged: a.txt (${name}: ${damage}). Rewind the other files by naming them (the paths option, fh rewind --paths), and run fh verify to see which checkpoints and undo points the damage breaks`,
        `  a.txt: backup ${name} damaged: ${damage}`,
        `To rewind the other files, name them: ${hint}`,
        '',
      ].join('\n'),
    });
    expect([await readFile(join(box.project, 'a.txt'), 'utf8'), await readFile(join(box.project, 'b.txt'), 'utf8')]).toEqual(['aX\n', 'bX\n']);
    expect((await runCli(hint.split(' ').slice(1), { home: box.home, cwd: box.project })).exitCode).toBe(0);
    expect([await readFile(join(box.project, 'a.txt'), 'utf8'), await readFile(join(box.project, 'b.txt'), 'utf8')]).toEqual(['aX\n', 'b0\n']);
  });
});
