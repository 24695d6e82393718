import { execFile } from 'node:child_process';
import { appendFile, lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, createFixture, diskTree, fh, type Fixture } from '../src/disk-trials.js';

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.remove();
  fixture = undefined;
});

const log = (f: Fixture) => join(f.store, 'sessions', 's.jsonl');

/** An undo point record as fh writes it, with `entries` given. */
function undoPoint(entries: unknown[]): string {
  return `${JSON.stringify({ type: 'fh-undo-point', undoId: 'crafted-point', sessionId: 's', createdAt: new Date().toISOString(), operation: 'rewind', messageId: 'm1', entries })}\n`;
}

describe('crafted records are checked before fh acts on them', () => {
  it('an undo entry naming a checkpoint backup is refused, and the backup stays', async () => {
    fixture = await createFixture({ files: 4 });
    const backups = (await readdir(join(fixture.store, 'file-history', 's'))).filter((name) => name.endsWith('@v1')).sort();
    const victim = backups[0] as string;
    await appendFile(log(fixture), undoPoint([{ path: 'd1/f1.txt', kind: 'file', backupFileName: victim, mode: 0o644, size: 2048 }]));
    const before = diskTree(fixture.project);
    const result = await fh(fixture, ['undo']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('undo refused, nothing was changed');
    expect(result.stderr).toContain(victim);
    expect((await readdir(join(fixture.store, 'file-history', 's'))).sort()).toEqual(expect.arrayContaining(backups));
    expect(diskTree(fixture.project)).toEqual(before);
  });

  it('a symlink entry leading outside the project is skipped: no link is planted, and the undo says how to make it by hand', async () => {
    fixture = await createFixture({ files: 4 });
    await appendFile(log(fixture), undoPoint([{ path: 'd1/escape', kind: 'symlink', backupFileName: null, mode: null, symlinkTarget: '/etc/passwd' }]));
    const result = await fh(fixture, ['undo']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'd1/escape: skipped: it was a symbolic link to /etc/passwd, outside the project: fh does not create links that lead outside the project; if you trust it, recreate it with: ln -sfn "/etc/passwd" "d1/escape"',
    );
    await expect(lstat(join(fixture.project, 'd1', 'escape'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a rewind that turned a tracked link to outside the project into a file is undone for every other file', async () => {
    fixture = await createFixture({ files: 4 });
    const outside = join(fixture.base, 'outside.txt');
    await writeFile(outside, 'T1\n');
    await symlink(outside, join(fixture.project, 'd1', 'link'));
    const checkpoint = { project: fixture.project, store: fixture.store };
    // A second turn tracks the link (its target's bytes) and a file, which the agent then changes.
    expect((await fh(checkpoint, ['snapshot', 'm2'])).code).toBe(0);
    expect((await fh(checkpoint, ['track', 'd1/link', 'd2/f2.txt'])).code).toBe(0);
    await writeFile(outside, 'T2\n');
    await writeFile(join(fixture.project, 'd2', 'f2.txt'), 'precious agent work\n');
    expect((await fh(checkpoint, ['rewind', 'm2', '--mode', 'code', '--yes'])).code).toBe(0);
    expect((await lstat(join(fixture.project, 'd1', 'link'))).isFile()).toBe(true);

    const result = await fh(checkpoint, ['undo']);
    expect(result.code).toBe(3);
    expect(await readFile(join(fixture.project, 'd2', 'f2.txt'), 'utf8')).toBe('precious agent work\n');
    expect(result.stderr).toContain(`d1/link: skipped: it was a symbolic link to ${outside}, outside the project`);
    expect(await readFile(outside, 'utf8')).toBe('T2\n');
  });

  it("an fh-session record's projectRoot other than the folder in use is refused as for --other-project", async () => {
    fixture = await createFixture({ files: 4 });
    const elsewhere = join(fixture.base, 'elsewhere');
    await mkdir(join(elsewhere, 'd1'), { recursive: true });
    await writeFile(join(elsewhere, 'd1', 'f1.txt'), 'not the project\n');
    const text = await readFile(log(fixture), 'utf8');
    await writeFile(log(fixture), text.replace(`"projectRoot":${JSON.stringify(fixture.project)}`, `"projectRoot":${JSON.stringify(elsewhere)}`));
    // No --project: the command runs in the real project, the record names another folder.
    const f = fixture;
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [CLI, '--store', `fs:${f.store}`, '--session', 's', 'rewind', 'm1', '--mode', 'code', '--yes'], { cwd: f.project }, (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : (error.code as number), stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`was recorded for project ${elsewhere}, and this command runs in ${fixture.project}, outside it; nothing was changed`);
    expect(await readFile(join(elsewhere, 'd1', 'f1.txt'), 'utf8')).toBe('not the project\n');
    expect(await readdir(elsewhere)).toEqual(['d1']);
  });
});
