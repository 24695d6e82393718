/**
 * Process 1 of the two-process test: in the project at argv[3], with an FsBackupStore at argv[2],
 * session argv[4], track, edit and snapshot over three turns, then exit. Paths are given to
 * trackEdit both relative to the project root and absolute; the process's current folder is
 * whatever the test chose, and must not matter.
 *
 * turn-1: src/app.ts edited, bin/run.sh edited and chmod 0700, notes/new.txt created.
 * turn-2: src/app.ts rewritten with the same size, data.bin created with invalid UTF-8, bin/run.sh deleted.
 * turn-3: src/app.ts edited again.
 */
import { FileHistory } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const [storeRoot, projectRoot, sessionId] = process.argv.slice(2) as [string, string, string];
const history = await FileHistory.open({ projectRoot, sessionId, store: new FsBackupStore({ root: storeRoot }) });
const file = (path: string) => join(projectRoot, path);

await history.makeSnapshot('turn-1');
await history.trackEdit('src/app.ts');
await writeFile(file('src/app.ts'), 'console.log("turn 1");\n');
await history.trackEdit(file('bin/run.sh'));
await writeFile(file('bin/run.sh'), '#!/bin/sh\necho changed\n');
await chmod(file('bin/run.sh'), 0o700);
await history.trackEdit('notes/new.txt');
await mkdir(file('notes'), { recursive: true });
await writeFile(file('notes/new.txt'), 'created in turn 1\n');

await history.makeSnapshot('turn-2');
await history.trackEdit('src/app.ts');
await writeFile(file('src/app.ts'), 'console.log("turn 2");\n');
await history.trackEdit('data.bin');
await writeFile(file('data.bin'), Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]));
await history.trackEdit('bin/run.sh');
await rm(file('bin/run.sh'));

await history.makeSnapshot('turn-3');
await writeFile(file('src/app.ts'), 'console.log("turn 3, longer");\n');
await history.makeSnapshot('turn-4');
await history.close();

process.stdout.write(`${JSON.stringify({ snapshots: history.state.snapshots.map((snapshot) => snapshot.messageId) })}\n`);
