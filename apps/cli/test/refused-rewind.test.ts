import { readdir, readFile, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_CONTENT, CLAUDE_SESSION, writeClaudeFixture } from './claude-fixture.js';
import { runCli, sandbox, tempFolder, writeFiles, type Sandbox } from './helpers.js';

const SESSION = 's1';

/**
 * Checkpoint t2 holds a.txt ("a0") and b.txt ("b0"); both are edited after it, then a.txt's
 * backup is deleted from the store. Returns the sandbox and the deleted backup's name.
 */
async function sessionWithLostBackup(): Promise<{ box: Sandbox; lost: string }> {
  const box = await sandbox();
  const fh = async (args: string[]) => expect((await box.fh(['--session', SESSION, ...args])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
  await fh(['snapshot', 't1']);
  await fh(['track', 'a.txt', 'b.txt']);
  await fh(['snapshot', 't2']);
  await writeFiles(box.project, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
  const lost = await backupHolding(join(box.store, 'file-history', SESSION), 'a0\n');
  await unlink(join(box.store, 'file-history', SESSION, lost));
  return { box, lost };
}

/** The name of the backup file in `folder` whose bytes are `content`. */
async function backupHolding(folder: string, content: string): Promise<string> {
  for (const name of await readdir(folder)) {
    if ((await readFile(join(folder, name), 'utf8')) === content) return name;
  }
  throw new Error(`no backup in ${folder} holds ${JSON.stringify(content)}`);
}

describe('a rewind refused for a missing backup names the --paths workaround', () => {
  it('fh diff says up front that the rewind will be refused and prints the --paths command', async () => {
    const { box, lost } = await sessionWithLostBackup();
    const result = await box.fh(['--session', SESSION, 'diff', 't2']);
    expect(result).toEqual({
      exitCode: 0,
      stdout: [
        'Rewinding to t2 would change 1 file (+1 -1), but the rewind will be refused and change nothing: 1 backup is missing or damaged',
        '  modify  b.txt  +1 -1',
        `  cannot restore  a.txt: backup ${lost} missing: the backup does not exist in the store`,
        `To rewind the other files, name them: fh --store fs:${box.store} --session s1 --project ${box.project} rewind t2 --paths b.txt`,
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('the refused rewind changes nothing and prints the command that rewinds the other files; that command works', async () => {
    const { box, lost } = await sessionWithLostBackup();
    const refused = await box.fh(['--session', SESSION, 'rewind', 't2', '--mode', 'code', '--yes']);
    const hint = `fh --store fs:${box.store} --session s1 --project ${box.project} rewind t2 --mode code --yes --paths b.txt`;
    expect(refused).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: [
        `fh: rewind refused, nothing was changed: 1 backup is missing or damaged: a.txt (${lost}: the backup does not exist in the store)`,
        `  a.txt: backup ${lost} missing: the backup does not exist in the store`,
        `To rewind the other files, name them: ${hint}`,
        '',
      ].join('\n'),
    });
    expect([await readFile(join(box.project, 'a.txt'), 'utf8'), await readFile(join(box.project, 'b.txt'), 'utf8')]).toEqual(['a1\n', 'b1\n']);

    const json = await box.fhJson<{ error: Record<string, unknown> }>(['--session', SESSION, 'rewind', 't2', '--mode', 'code', '--yes']);
    expect(json.json.error).toMatchObject({ code: 'FH_BACKUP_MISSING', hint: `To rewind the other files, name them: ${hint}` });

    const followed = await runCli(hint.split(' ').slice(1), { home: box.home, cwd: box.project });
    expect(followed.exitCode).toBe(0);
    expect(followed.stdout).toContain('Rewound the code to t2: 1 restored, 0 deleted');
    expect([await readFile(join(box.project, 'a.txt'), 'utf8'), await readFile(join(box.project, 'b.txt'), 'utf8')]).toEqual(['a1\n', 'b0\n']);
  });

  it('rewind --dry-run shows the same notice; with no other file to rewind it says so', async () => {
    const { box, lost } = await sessionWithLostBackup();
    const dry = await box.fh(['--session', SESSION, 'rewind', 't2', '--mode', 'code', '--dry-run']);
    expect(dry.stdout.split('\n')[0]).toBe('Rewinding the code to t2 would change 1 file (+1 -1), but the rewind will be refused and change nothing: 1 backup is missing or damaged');
    await writeFiles(box.project, { 'b.txt': 'b0\n' });
    const alone = await box.fh(['--session', SESSION, 'rewind', 't2', '--mode', 'code', '--yes']);
    expect(alone.exitCode).toBe(1);
    expect(alone.stderr.split('\n').slice(1)).toEqual([
      `  a.txt: backup ${lost} missing: the backup does not exist in the store`,
      'No other file would change: every change this rewind makes needs a missing or damaged backup.',
      '',
    ]);
  });

  it('a backup that is a symbolic link in the store: refused as damaged store data (exit 1, as fh verify), naming the link', async () => {
    const { box, lost } = await sessionWithLostBackup();
    const outside = join(box.home, 'secret.txt');
    await writeFiles(box.home, { 'secret.txt': 'a0\n' });
    await symlink(outside, join(box.store, 'file-history', SESSION, lost));
    const link = `${join(box.store, 'file-history', SESSION, lost)} is a symbolic link: fh never follows a link inside its store (${box.store}), so it was not read or written; replace it by what fh wrote there (or remove it) and run the command again`;
    const diff = await box.fh(['--session', SESSION, 'diff', 't2']);
    expect(diff.stdout.split('\n').slice(0, 3)).toEqual([
      'Rewinding to t2 would change 1 file (+1 -1), but the rewind will be refused and change nothing: 1 backup is missing or damaged',
      '  modify  b.txt  +1 -1',
      `  cannot restore  a.txt: backup ${lost} damaged: ${link}`,
    ]);
    const refused = await box.fh(['--session', SESSION, 'rewind', 't2', '--mode', 'code', '--yes']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.split('\n').slice(0, 2)).toEqual([
      `fh: rewind refused, nothing was changed: 1 backup is missing or damaged: a.txt (${lost}: ${link})`,
      `  a.txt: backup ${lost} damaged: ${link}`,
    ]);
    expect([await readFile(join(box.project, 'a.txt'), 'utf8'), await readFile(join(box.project, 'b.txt'), 'utf8')]).toEqual(['a1\n', 'b1\n']);
    expect((await box.fh(['--session', SESSION, 'verify'])).exitCode).toBe(1);
  });

  it('under --claude a pruned backup is reported with the same "cannot restore" wording and the other files rewind (exit 3)', async () => {
    const base = await tempFolder();
    const fixture = await writeClaudeFixture(base);
    const home = join(base, 'home');
    const folder = join(fixture.configDir, 'file-history', CLAUDE_SESSION);
    const appV2 = await backupHolding(folder, CLAUDE_CONTENT.appV2);
    await unlink(join(folder, appV2));
    const fh = (args: readonly string[]) => runCli(['--store', `fs:${join(base, 'store')}`, '--claude', fixture.configDir, '--session', CLAUDE_SESSION, ...args], { home, cwd: fixture.projectRoot });
    const diff = await fh(['diff', 'u2']);
    expect(diff.stdout).toBe(
      [
        'Rewinding to u2 would change 1 file (+0 -1)',
        '  delete  new.txt  +0 -1',
        `  cannot restore  app.js: its backup at this snapshot failed: backup ${appV2} missing from Claude Code session ${CLAUDE_SESSION}`,
        '',
      ].join('\n'),
    );
    const rewind = await fh(['rewind', 'u2', '--mode', 'code', '--yes']);
    expect(rewind.exitCode).toBe(3);
    expect(rewind.stderr).toBe(
      [
        'fh: 1 file could not be rewound',
        `  app.js: its backup at this snapshot failed: backup ${appV2} missing from Claude Code session ${CLAUDE_SESSION}`,
        `1 other file in ${fixture.projectRoot} was rewound; the file named above was left as it was. To put everything back: fh --claude ${fixture.configDir} --store fs:${join(base, 'store')} --session ${CLAUDE_SESSION} undo`,
        '',
      ].join('\n'),
    );
  });
});
