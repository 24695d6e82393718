/**
 * A small in-memory BackupStore for the core's unit tests of resume and cleanup: backups are
 * byte arrays shared by reference between sessions (like hard links), logs are record arrays, and
 * faults are injected per call. The real stores are covered by the conformance suite.
 */
import { LockedError, NotFoundError, type BackupStore, type LogRecord, type SessionLock, type SessionSummary } from '../../src/index.js';

export interface RecordStore extends BackupStore {
  backups: Map<string, Map<string, Uint8Array>>;
  logs: Map<string, LogRecord[]>;
  lastModified: Map<string, Date>;
  locks: Set<string>;
  deleted: string[];
  /** Throw this from carryBackup for the named backup. */
  carryFaults: Map<string, Error>;
}

function unsupported(): never {
  throw new Error('not used by these tests');
}

export function createRecordStore(): RecordStore {
  const backups = new Map<string, Map<string, Uint8Array>>();
  const logs = new Map<string, LogRecord[]>();
  const lastModified = new Map<string, Date>();
  const locks = new Set<string>();
  const deleted: string[] = [];
  const carryFaults = new Map<string, Error>();
  const folder = (sessionId: string) => {
    let entry = backups.get(sessionId);
    if (entry === undefined) {
      entry = new Map();
      backups.set(sessionId, entry);
    }
    return entry;
  };
  return {
    kind: 'records',
    capabilities: { hardLinks: true, serverSideCopy: false, locking: true, sha256: false },
    workspaceFs: {} as BackupStore['workspaceFs'],
    backups,
    logs,
    lastModified,
    locks,
    deleted,
    carryFaults,
    putBackup: unsupported,
    restoreBackup: unsupported,
    openBackup: unsupported,
    async statBackup(sessionId, name) {
      const bytes = backups.get(sessionId)?.get(name);
      return bytes === undefined ? null : { size: bytes.length, mode: 0o644 };
    },
    async deleteBackup(sessionId, name) {
      backups.get(sessionId)?.delete(name);
    },
    async listBackups(sessionId) {
      return [...(backups.get(sessionId)?.keys() ?? [])];
    },
    async carryBackup(fromSessionId, toSessionId, name) {
      const fault = carryFaults.get(name);
      if (fault !== undefined) throw fault;
      const bytes = backups.get(fromSessionId)?.get(name);
      if (bytes === undefined) throw new NotFoundError(`carryBackup "${name}" from session "${fromSessionId}": source backup does not exist`);
      const target = folder(toSessionId);
      if (target.has(name)) return 'exists';
      target.set(name, bytes);
      return 'linked';
    },
    async listSessions(): Promise<SessionSummary[]> {
      const ids = new Set([...backups.keys(), ...logs.keys()]);
      return [...ids].map((sessionId) => ({ sessionId, lastModified: lastModified.get(sessionId) ?? new Date(0), bytes: 0, backups: backups.get(sessionId)?.size ?? 0 }));
    },
    async deleteSession(sessionId) {
      deleted.push(sessionId);
      backups.delete(sessionId);
      logs.delete(sessionId);
    },
    sessionLog(sessionId) {
      return {
        async append(records) {
          logs.set(sessionId, [...(logs.get(sessionId) ?? []), ...JSON.parse(JSON.stringify(records))]);
        },
        async read() {
          return { records: logs.get(sessionId) ?? [], skipped: [] };
        },
      };
    },
    async lockSession(sessionId): Promise<SessionLock> {
      if (locks.has(sessionId)) throw new LockedError(`session "${sessionId}" is locked: another handle has it open`);
      locks.add(sessionId);
      return { release: async () => void locks.delete(sessionId) };
    },
    async isSessionLocked(sessionId) {
      return locks.has(sessionId);
    },
    containsPath: () => false,
  };
}

/** Put backups with the given names (content = name) into a session. */
export function seedBackups(store: RecordStore, sessionId: string, names: string[]): void {
  const folder = store.backups.get(sessionId) ?? new Map<string, Uint8Array>();
  for (const name of names) folder.set(name, new TextEncoder().encode(name));
  store.backups.set(sessionId, folder);
}
