/**
 * Where things live in the bucket (all keys start with the store's normalised prefix, `''` or
 * `"some/prefix/"`):
 *
 *   <prefix>file-history/<sessionId>/<backupFileName>     one backup; its metadata holds
 *                                                          `fh-mode` (octal permission bits),
 *                                                          `fh-size` (bytes) and `fh-sha256` (hex)
 *   <prefix>sessions/<sessionId>/<sequence>.jsonl          one append of the session log: JSONL
 *                                                          lines, `<sequence>` zero-padded to 16
 *                                                          digits, so key order is append order
 *   <prefix>sessions/<sessionId>/<first>-<last>.jsonl      a compacted run of the log (layout 2):
 *                                                          exactly the bytes of the appends
 *                                                          `<first>`..`<last>` (16 digits each),
 *                                                          in order; it stands for them (see
 *                                                          `S3SessionLog`, "Compaction")
 *   <prefix>sessions/<sessionId>/lock.json                 the session lock (a lease) while held; a
 *                                                          released lease (expiry 0, see
 *                                                          `S3SessionLocks`) once released
 *
 * Objects are immutable: backups and log objects are written once with `If-None-Match: *`.
 */
import { InvalidArgumentError } from '@fh/core';

/** Digits of a log object's sequence number; 16 digits outlast any session. */
export const SEQUENCE_DIGITS = 16;

/** Object metadata names (sent as `x-amz-meta-<name>`). */
export const METADATA = { mode: 'fh-mode', size: 'fh-size', sha256: 'fh-sha256' } as const;

const LOG_OBJECT_PATTERN = /^(\d{16})(?:-(\d{16}))?\.jsonl$/;

/** The appends a log object holds: `first`..`last` (equal for one append, `first < last` for a compacted run). */
export interface LogObjectRange {
  first: number;
  last: number;
}

/**
 * Normalise a user prefix: no leading `/`, exactly one trailing `/` unless empty.
 * `''`, `'/'` → `''`; `'a/b'`, `'/a/b/'` → `'a/b/'`. Throws `InvalidArgumentError` for a prefix
 * with an empty, `.` or `..` segment (`a//b`, `a/../b`).
 */
export function normalisePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (trimmed.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new InvalidArgumentError(`prefix must be "/"-separated names without empty, "." or ".." parts: ${JSON.stringify(prefix)}`);
  }
  return `${trimmed}/`;
}

/**
 * Check that `value` can be used as one key segment (a session id or a backup file name): not
 * empty, not `.` or `..`, no `/`, `\` or NUL. Throws `InvalidArgumentError` naming the argument.
 */
export function validateName(argument: string, value: string): void {
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..' || /[/\\\0]/.test(value)) {
    throw new InvalidArgumentError(
      `${argument} must be a single path segment (not empty, not "." or "..", no "/", "\\" or NUL): ${JSON.stringify(value)}`,
    );
  }
}

/** The key layout of one store (one bucket and prefix). */
export class Layout {
  constructor(
    /** Normalised prefix (see {@link normalisePrefix}). */
    readonly prefix: string,
  ) {}

  /** `<prefix>file-history/` — parent of every session's backups. */
  get backupsRoot(): string {
    return `${this.prefix}file-history/`;
  }

  /** `<prefix>sessions/` — parent of every session's log objects and lock. */
  get sessionsRoot(): string {
    return `${this.prefix}sessions/`;
  }

  /** `<prefix>file-history/<sessionId>/`. */
  backupFolder(sessionId: string): string {
    return `${this.backupsRoot}${sessionId}/`;
  }

  /** `<prefix>file-history/<sessionId>/<backupFileName>`. */
  backupKey(sessionId: string, backupFileName: string): string {
    return `${this.backupFolder(sessionId)}${backupFileName}`;
  }

  /** `<prefix>sessions/<sessionId>/`. */
  sessionFolder(sessionId: string): string {
    return `${this.sessionsRoot}${sessionId}/`;
  }

  /** `<prefix>sessions/<sessionId>/<sequence as 16 digits>.jsonl`. */
  logObjectKey(sessionId: string, sequence: number): string {
    return `${this.sessionFolder(sessionId)}${String(sequence).padStart(SEQUENCE_DIGITS, '0')}.jsonl`;
  }

  /** `<prefix>sessions/<sessionId>/<first as 16 digits>-<last as 16 digits>.jsonl`: a compacted run. */
  compactedObjectKey(sessionId: string, first: number, last: number): string {
    const digits = (sequence: number) => String(sequence).padStart(SEQUENCE_DIGITS, '0');
    return `${this.sessionFolder(sessionId)}${digits(first)}-${digits(last)}.jsonl`;
  }

  /** `<prefix>sessions/<sessionId>/lock.json`. */
  lockKey(sessionId: string): string {
    return `${this.sessionFolder(sessionId)}lock.json`;
  }

  /**
   * The appends a log object key of `sessionId` holds (one append, or a compacted run), or
   * undefined for any other key (the lock, a run whose last precedes its first).
   */
  logObjectRange(sessionId: string, key: string): LogObjectRange | undefined {
    const folder = this.sessionFolder(sessionId);
    if (!key.startsWith(folder)) return undefined;
    const match = LOG_OBJECT_PATTERN.exec(key.slice(folder.length));
    if (match === null) return undefined;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    return last >= first ? { first, last } : undefined;
  }

  /**
   * Which session an object key belongs to and whether it is a backup, or undefined for a key
   * outside this layout.
   */
  classify(key: string): { sessionId: string; kind: 'backup' | 'session' } | undefined {
    for (const [root, kind] of [
      [this.backupsRoot, 'backup'],
      [this.sessionsRoot, 'session'],
    ] as const) {
      if (!key.startsWith(root)) continue;
      const rest = key.slice(root.length);
      const slash = rest.indexOf('/');
      if (slash <= 0 || slash === rest.length - 1) return undefined;
      return { sessionId: rest.slice(0, slash), kind };
    }
    return undefined;
  }
}
