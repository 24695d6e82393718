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

    it("a sub-agent's handle backs its edits up into the main turn, attributed to it, and makes no snapshot", async () => {
      const w = workspace();
      await w.write('main.txt', 'main\n');
      await w.write('sub.txt', 'sub\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('main.txt');
      const subagent = history.forSubagent({ agentId: 'a96cf8a57447af436', agentType: 'general-purpose' });
      expect(subagent.agent).toEqual({ agentId: 'a96cf8a57447af436', agentType: 'general-purpose' });
      await subagent.trackEdit('sub.txt');
      await subagent.trackEdit('main.txt');
      await history.trackEdit('main.txt');
      expect(await subagent.makeSnapshot('sub-message')).toBeUndefined();
      await w.write('main.txt', 'main edited\n');
      await w.write('sub.txt', 'sub edited\n');

      expect(history.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['m1']);
      expect([...history.state.trackedFiles].sort()).toEqual(['main.txt', 'sub.txt']);
      const backups = history.state.snapshots[0]?.trackedFileBackups ?? {};
      expect(backups['main.txt']?.changedBy?.map((item) => ({ ...item, at: undefined }))).toEqual([
        { by: 'main', at: undefined },
        { by: 'subagent', agentId: 'a96cf8a57447af436', agentType: 'general-purpose', at: undefined },
      ]);
      expect(backups['sub.txt']?.changedBy?.map((item) => ({ ...item, at: undefined }))).toEqual([
        { by: 'subagent', agentId: 'a96cf8a57447af436', agentType: 'general-purpose', at: undefined },
      ]);
      expect(subagent.state).toBe(history.state);
      expect(subagent.canRestore('m1')).toBe(true);
      expect((await subagent.getDiffStats('m1')).filesChanged).toEqual(['main.txt', 'sub.txt']);
      expect(Object.keys(await w.backups()).sort()).toEqual([w.backupName('main.txt', 1), w.backupName('sub.txt', 1)].sort());
      expect(() => history.forSubagent({ agentId: '' })).toThrow('forSubagent takes { agentId, agentType? } with a non-empty agentId, got {"agentId":""}');

      const reopened = await (async () => {
        await history.close();
        return w.open();
      })();
      expect(reopened.state.snapshots[0]?.trackedFileBackups['sub.txt']?.changedBy).toEqual(backups['sub.txt']?.changedBy);
      await reopened.makeSnapshot('m2');
      expect(reopened.state.snapshots[1]?.trackedFileBackups['sub.txt']?.changedBy).toBeUndefined();
      await reopened.close();
    });
  });
}
