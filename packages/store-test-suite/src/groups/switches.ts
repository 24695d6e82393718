/** Seed 000 §9 switches and seed 004 §8 subagents: tracking off means no I/O and empty answers. */
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

export function switchesTests(workspace: () => Workspace): void {
  describe('switches and subagents', () => {
    it('FH_DISABLE_FILE_CHECKPOINTING=1 turns every call into a no-op', async () => {
      const w = workspace();
      await w.write('file.txt', 'content\n');
      const history = await w.open({ env: { FH_DISABLE_FILE_CHECKPOINTING: '1' } });
      expect(history.enabled).toBe(false);
      expect(await history.makeSnapshot('m1')).toBeUndefined();
      await history.trackEdit('file.txt');
      await w.write('file.txt', 'changed\n');
      expect(history.canRestore('m1')).toBe(false);
      expect(await history.hasAnyChanges('m1')).toBe(false);
      expect(await history.getDiffStats('m1')).toEqual({ filesChanged: [], insertions: 0, deletions: 0, files: [], skipped: [], failed: [], missing: [] });
      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: [], deleted: [], skipped: [], failed: [] });
      expect(history.state.snapshots).toEqual([]);
      expect(await w.backups()).toEqual({});
      expect((await w.store.sessionLog(w.sessionId).read()).records).toEqual([]);
      expect(await w.text('file.txt')).toBe('changed\n');
    });

    it('enabled: false turns tracking off the same way', async () => {
      const w = workspace();
      await w.write('file.txt', 'content\n');
      const history = await w.open({ enabled: false });
      await history.makeSnapshot('m1');
      await history.trackEdit('file.txt');
      expect(history.state.snapshots).toEqual([]);
      expect(await w.backups()).toEqual({});
    });

    it("a subagent's handle reads the main history but neither tracks edits nor makes snapshots", async () => {
      const w = workspace();
      await w.write('main.txt', 'main\n');
      await w.write('sub.txt', 'sub\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('main.txt');
      const subagent = history.forSubagent();
      await subagent.trackEdit('sub.txt');
      expect(await subagent.makeSnapshot('sub-message')).toBeUndefined();
      await w.write('main.txt', 'main edited\n');

      expect(history.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['m1']);
      expect([...history.state.trackedFiles]).toEqual(['main.txt']);
      expect(subagent.state).toBe(history.state);
      expect(subagent.canRestore('m1')).toBe(true);
      expect(await subagent.hasAnyChanges('m1')).toBe(true);
      expect((await subagent.getDiffStats('m1')).filesChanged).toEqual(['main.txt']);
      expect(Object.keys(await w.backups())).toEqual([w.backupName('main.txt', 1)]);
    });
  });
}
