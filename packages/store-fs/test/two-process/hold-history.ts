/**
 * Child for the cross-process lock test: open the file history of session argv[4] (FsBackupStore
 * at argv[2], project argv[3]), print "open", and keep it open until stdin closes.
 */
import { FileHistory } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';

const [storeRoot, projectRoot, sessionId] = process.argv.slice(2) as [string, string, string];
const history = await FileHistory.open({ projectRoot, sessionId, store: new FsBackupStore({ root: storeRoot }) });
process.stdout.write('open\n');
process.stdin.resume();
process.stdin.on('end', () => {
  void history.close().then(() => process.exit(0));
});
