import { FileHistory } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { mkdirSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const root = '/tmp/state-work/one'; const project = join(root, 'project'); const storeRoot = join(root, 'store');
const store = new FsBackupStore({ root: storeRoot });
const count = Number(process.env.N ?? 16000);
if (!existsSync(join(root, 'done'))) {
  const paths = [];
  for (let i = 0; i < count; i++) { const dir = join(project, `m${i % 100}`); mkdirSync(dir, { recursive: true }); const p = join(dir, `f${i}.ts`); writeFileSync(p, 'x'.repeat(256)); paths.push(p); }
  const h = await FileHistory.open({ projectRoot: project, sessionId: 'one-turn', store });
  await h.makeSnapshot('turn-1');
  for (let s = 0; s < paths.length; s += 2000) await Promise.all(paths.slice(s, s + 2000).map((p) => h.trackEdit(p)));
  await h.close(); writeFileSync(join(root, 'done'), '');
}
const times = [];
for (let i = 0; i < Number(process.env.R ?? 15); i++) {
  const t = performance.now();
  const h = await FileHistory.open({ projectRoot: project, sessionId: 'one-turn', store });
  await h.close();
  times.push(performance.now() - t);
}
const text = () => { const t = performance.now(); const s = readFileSync(join(storeRoot, 'sessions', 'one-turn.jsonl'), 'utf8'); const r = []; for (const l of s.split('\n')) if (l) r.push(JSON.parse(l)); return performance.now() - t; };
const ft = []; for (let i = 0; i < 5; i++) ft.push(text());
times.sort((a, b) => a - b); ft.sort((a,b)=>a-b);
console.log('open median', times[times.length >> 1].toFixed(1), 'all', times.map((t) => t.toFixed(0)).join(' '), '| parse whole log', ft[2].toFixed(1));
