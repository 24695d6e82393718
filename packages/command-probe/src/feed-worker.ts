/**
 * The source of the change feed's watcher, run in a `worker_thread` (`change-feed.ts`) so that it
 * has its own libuv loop and therefore its own inotify instance: its queue is not shared with the
 * host's own `fs.watch` use, and the host's busy main thread does not delay its reads.
 *
 * It is kept as plain JavaScript run with `eval: true`, so it works unchanged from the ESM and CJS
 * builds and from the TypeScript sources the tests run (no second bundle entry to locate).
 *
 * Protocol (messages with the main thread):
 * - in  `{ type: 'watch', id, folders }`: a non-recursive `fs.watch` per absolute folder (one
 *   already watched with the same inode is kept); out `{ type: 'watched', id, failed: [{ folder, code }] }`;
 * - in  `{ type: 'unwatch', folders }`: stop watching those folders and every folder under them;
 * - the main thread writes the file `cut-<n>` into the cookie folder; when its event arrives, every
 *   event queued before it has been delivered (inotify keeps one ordered queue per instance), so
 *   out `{ type: 'cut', id: n, paths, lost }`: every absolute path that had an event since the
 *   previous cut, and `lost` (a reason) when events may have been dropped since then: a drain of
 *   the inotify queue that delivered at least `overflowEvents` events (libuv drops the kernel's
 *   IN_Q_OVERFLOW without telling Node; after one, the next drain holds a full queue), a watcher
 *   error, or an event without a name;
 * - out `{ type: 'activity' }` at the first event after a cut (so the host may cut while idle);
 * - a watched folder whose inode changed or that is gone (deleted, renamed, replaced) is unwatched
 *   with every folder under it, and reported as a changed path.
 * `workerData`: `{ cookieDir, overflowEvents, failWatch, stallMs }` (test faults: `failWatch`, folders
 * whose watch fails with ENOSPC; `stallMs`, the thread busy that long at the first event after each cut).
 */
export const FEED_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { cookieDir, overflowEvents, failWatch, stallMs } = workerData;
let stalled = false;
const watchers = new Map();
let changed = new Set();
let lost = undefined;
let drained = 0;
let drainReset = false;
let answered = 0;
let active = false;

function countEvent() {
  drained += 1;
  if (drained >= overflowEvents && lost === undefined) lost = 'a drain of the inotify queue delivered ' + drained + ' events (the queue may have overflowed)';
  if (!drainReset) {
    drainReset = true;
    setImmediate(() => { drained = 0; drainReset = false; });
  }
}

function unwatchUnder(folder) {
  const inside = folder + '/';
  for (const [watched, entry] of watchers) {
    if (watched === folder || watched.startsWith(inside)) {
      watchers.delete(watched);
      try { entry.watcher.close(); } catch {}
    }
  }
}

function verify(folder) {
  const entry = watchers.get(folder);
  if (entry === undefined) return;
  let stats;
  try { stats = fs.lstatSync(folder); } catch {}
  if (stats !== undefined && stats.isDirectory() && stats.ino === entry.ino) return;
  unwatchUnder(folder);
  changed.add(folder);
}

function onEvent(folder, type, name) {
  countEvent();
  if (stallMs > 0 && !stalled && folder !== cookieDir) {
    // Test fault: the thread is busy for stallMs at the first event after a cut, so the events
    // that follow queue up in the kernel and arrive in one drain.
    stalled = true;
    const until = Date.now() + stallMs;
    while (Date.now() < until) {}
  }
  if (folder === cookieDir) {
    const match = /^cut-(\d+)$/.exec(String(name));
    if (match === null) return;
    const id = Number(match[1]);
    if (id <= answered) return;
    answered = id;
    const paths = [...changed];
    const reason = lost;
    changed = new Set();
    lost = undefined;
    stalled = false;
    active = false;
    parentPort.postMessage({ type: 'cut', id, paths, lost: reason });
    fs.unlink(path.join(cookieDir, String(name)), () => undefined);
    return;
  }
  if (name === null || name === undefined) {
    lost ??= 'an event in ' + folder + ' came without a name';
    changed.add(folder);
    return;
  }
  const full = folder + '/' + name;
  changed.add(full);
  if (!active) {
    active = true;
    parentPort.postMessage({ type: 'activity' });
  }
  if (type === 'rename') {
    if (watchers.has(full)) verify(full);
    if (name === path.basename(folder)) verify(folder);
  }
}

function watch(folder) {
  const existing = watchers.get(folder);
  const stats = fs.lstatSync(folder);
  if (!stats.isDirectory()) throw Object.assign(new Error(folder + ' is not a folder'), { code: 'ENOTDIR' });
  if (existing !== undefined) {
    if (existing.ino === stats.ino) return;
    unwatchUnder(folder);
  }
  if (failWatch.includes(folder)) throw Object.assign(new Error('injected watch failure on ' + folder), { code: 'ENOSPC' });
  const watcher = fs.watch(folder, { persistent: true }, (type, name) => onEvent(folder, type, name));
  watcher.on('error', (error) => {
    lost ??= 'the watch of ' + folder + ' failed (' + (error && error.code ? error.code : String(error)) + ')';
    unwatchUnder(folder);
    changed.add(folder);
  });
  watchers.set(folder, { watcher, ino: stats.ino });
}

parentPort.on('message', (message) => {
  if (message.type === 'watch') {
    const failed = [];
    for (const folder of message.folders) {
      try { watch(folder); } catch (error) { failed.push({ folder, code: error && error.code ? error.code : String(error) }); }
    }
    parentPort.postMessage({ type: 'watched', id: message.id, failed });
  } else if (message.type === 'unwatch') {
    for (const folder of message.folders) unwatchUnder(folder);
  }
});

watch(cookieDir);
parentPort.postMessage({ type: 'ready' });
`;
