/**
 * @fh/store-test-suite: the behaviour every `BackupStore` must show through `@fh/core`, as one
 * vitest suite. A store's `test/conformance.test.ts` calls {@link runConformanceSuite} once with a
 * harness factory; the suite covers each numbered rule of issue 2 with exact bytes, modes and
 * results.
 */
import { describe } from 'vitest';
import { backupBatchTests } from './groups/backup-batch.js';
import { backupIntegrityTests } from './groups/backup-integrity.js';
import { changeDetectionTests } from './groups/change-detection.js';
import { concurrencyTests } from './groups/concurrency.js';
import { diffStatsTests } from './groups/diff-stats.js';
import { makeSnapshotTests } from './groups/make-snapshot.js';
import { rewindTests } from './groups/rewind.js';
import { sessionRecordsTests } from './groups/session-records.js';
import { switchesTests } from './groups/switches.js';
import { syncReadTests } from './groups/sync-read.js';
import { trackEditTests } from './groups/track-edit.js';
import type { ConformanceOptions } from './harness.js';
import { useWorkspace } from './workspace.js';

export type { ConformanceOptions, StoreHarness } from './harness.js';
export { storeFailingPuts } from './groups/make-snapshot.js';

/** Declare the conformance suite (vitest `describe`/`it`) for one store. */
export function runConformanceSuite(options: ConformanceOptions): void {
  describe(`${options.name} store conformance`, () => {
    const workspace = useWorkspace(options);
    trackEditTests(workspace);
    makeSnapshotTests(workspace);
    changeDetectionTests(workspace);
    rewindTests(workspace);
    diffStatsTests(workspace);
    switchesTests(workspace);
    sessionRecordsTests(workspace);
    backupIntegrityTests(workspace);
    backupBatchTests(workspace);
    syncReadTests(workspace, options.syncRead === true);
    concurrencyTests(workspace, { realFileSystem: options.realFileSystem, manyFilesCount: options.manyFilesCount ?? 5000 });
  });
}
