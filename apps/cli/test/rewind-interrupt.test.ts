import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileHistory } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, sandbox, writeFiles } from './helpers.js';

describe('fh rewind interrupted with Ctrl-C', () => {
  it('after it began writing files, exits 130 and says fh undo puts them back; undo does', async () => {
    const box = await sandbox();
    const paths = Array.from({ length: 3000 }, (_, index) => `src/d${index % 30}/f${index}.txt`);
    await writeFiles(box.project, Object.fromEntries(paths.map((path) => [path, `before ${path}\n`])));
    const store = new FsBackupStore({ root: box.store });
    const history = await FileHistory.open({ projectRoot: box.project, sessionId: 's', store, env: {} });
    await history.makeSnapshot('m1');
    await Promise.all(paths.map((path) => history.trackEdit(path)));
    await history.close();
    await Promise.all(paths.map((path) => writeFile(join(box.project, path), `after ${path}\n`)));

    const child = spawn(process.execPath, [cliPath, '--store', `fs:${box.store}`, '--project', box.project, '--session', 's', 'rewind', 'm1', '--mode', 'code', '--yes'], {
      cwd: box.project,
      env: baseEnvironment(box.home),
    });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const logPath = join(box.store, 'sessions', 's.jsonl');
    for (;;) {
      const log = await readFile(logPath, 'utf8');
      if (log.includes('"type":"fh-point"') && (await readFile(join(box.project, paths[0] as string), 'utf8')).startsWith('before')) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Buffer.concat(stderr).toString('utf8')).toContain(`fh: rewind interrupted after it began writing files; fh --store fs:${box.store} --session s --project ${box.project} undo puts them back\n`);

    const undo = await box.fh(['--session', 's', 'undo']);
    expect(undo.exitCode).toBe(0);
    const contents = await Promise.all(paths.map((path) => readFile(join(box.project, path), 'utf8')));
    expect(contents.filter((text, index) => text !== `after ${paths[index]}\n`)).toEqual([]);
    // 3,000 files are saved, fsynced and restored twice (the rewind, then the undo): on a loaded
    // machine that outlasts the default 60 s.
  }, 180_000);
});
