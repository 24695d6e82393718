import { FileHistory, fullSnapshotRecord } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { readFile, writeFile } from 'node:fs/promises';
const root = '/tmp/state-work/one'; const project = root + '/project'; const store = new FsBackupStore({ root: root + '/store' });
const logPath = root + '/store/sessions/one-turn.jsonl';
const h0 = await FileHistory.open({ projectRoot: project, sessionId: 'one-turn', store });
await writeFile('/tmp/state-work/one-full.jsonl', JSON.stringify(fullSnapshotRecord(h0.state.snapshots.at(-1), 1)) + '\n');
await h0.close();
const fns = {
  floor: async () => { const t = await readFile('/tmp/state-work/one-full.jsonl', 'utf8'); const r = []; for (const l of t.split('\n')) if (l) r.push(JSON.parse(l)); return r; },
  lines: async () => { const t = await readFile(logPath, 'utf8'); const r = []; for (const l of t.split('\n')) if (l) r.push(JSON.parse(l)); return r; },
  linesDates: async () => { const t = await readFile(logPath, 'utf8'); const r = []; for (const l of t.split('\n')) if (l) { const rec = JSON.parse(l); r.push(rec); if (rec.entries) for (const k in rec.entries) { const e = rec.entries[k]; e.backupTime = new Date(e.backupTime); for (const c of e.changedBy ?? []) c.at = new Date(c.at); } } return r; },
  open: async () => { const h = await FileHistory.open({ projectRoot: project, sessionId: 'one-turn', store }); await h.close(); },
  openNoLock: async () => { const h = await FileHistory.open({ projectRoot: project, sessionId: 'one-turn', store, lock: false }); await h.close(); },
};
const times = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
for (let i = 0; i < Number(process.env.R ?? 11); i++) for (const [k, f] of Object.entries(fns)) { const c0 = process.cpuUsage(); const t = performance.now(); await f(); times[k].push([performance.now() - t, (process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1000]); }
for (const [k, v] of Object.entries(times)) { const w = v.map((x) => x[0]).sort((a, b) => a - b); const c = v.map((x) => x[1]).sort((a, b) => a - b); console.log(k.padEnd(12), 'wall', w[w.length >> 1].toFixed(1), 'cpu', c[c.length >> 1].toFixed(1)); }
