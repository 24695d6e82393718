import { FhError, LockedError, type SessionLock } from '@fh/core';
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { isNotFound, isPreconditionFailed } from './translate-error.js';
import type { S3Context } from './s3-context.js';

/** The body of `<prefix>sessions/<sessionId>/lock.json`. */
export interface LockLease {
  /** Random id of this holder (one `lockSession` call). */
  holder: string;
  /** Host name and pid of the holder, for the `LockedError` message. */
  host: string;
  pid: number;
  /**
   * Where `pid` can be checked (Linux: boot id and pid namespace). A lease with this process's
   * `machine` whose pid is gone was left by a process that died here, and is taken over at once.
   */
  machine?: string;
  /** When the lease ends unless renewed, ms since the epoch (the holder's clock). */
  expiresAtMs: number;
}

/**
 * The body of a released lease: the releasing holder's id (so no two released leases have the
 * same bytes, nor the same ETag) and an expiry of 0 (expired for every reader, old ones too).
 */
export function releasedLeaseBody(holder: string): string {
  return JSON.stringify({ holder, expiresAtMs: 0 });
}

/**
 * Bytes of every released lease ({@link releasedLeaseBody} of a random UUID): a held lease is
 * always longer (it also names a host, a pid and a 13-digit expiry), so a listing tells them apart.
 */
export const RELEASED_LEASE_BYTES = releasedLeaseBody(randomUUID()).length;

/** The lock object as a listing saw it (see `lock`'s `seen`): its ETag, and whether it is a released lease. */
export interface SeenLease {
  etag: string;
  released: boolean;
}

/** Options of {@link S3SessionLocks.lock}. */
export interface LockOptions {
  /**
   * Runs at `release` when the lease is still this holder's (not when a renewal found it taken
   * over), sent at the same time as the lease's release: it must only do work that is safe once
   * another holder may have the lease (the log's compaction is: it writes a run of objects that
   * never change, and removes only objects a run already holds). It must not reject.
   */
  beforeRelease?: () => Promise<void>;
  /**
   * The lock object as the caller's last listing of the session saw it (null: none; undefined: no
   * listing): a released lease is taken with `If-Match` on its ETag first (one request;
   * `fromListing` on success), any other is read first.
   */
  seen?: SeenLease | null;
  /** Told the released lease this holder wrote at `release` (its ETag), so a view of the log that stayed current can be taken on again. */
  onReleased?: (released: SeenLease) => void;
  /** Asked at release: false deletes the lease instead (a session with no log objects is left with no lock object). Default: true. */
  keepReleased?: () => boolean;
}

/** A lock taken by {@link S3SessionLocks.lock}. */
export interface HeldLease extends SessionLock {
  /**
   * True when the lease was taken with `If-Match` on the released lease `seen` named: no holder
   * came between the listing that saw it and this lock, so that listing still describes the log.
   */
  readonly fromListing: boolean;
  /** Whether the lease is still this holder's as far as it knows: released, lost to a takeover, or past the expiry last written all make it false. */
  held(): boolean;
}

/** A lease as read back from S3, with its ETag for conditional writes. */
interface StoredLease {
  lease: LockLease;
  etag: string | undefined;
}

/**
 * Session locks as leases in S3: the lock is the object `<prefix>sessions/<sessionId>/lock.json`,
 * created with `If-None-Match: *` (so exactly one of two racing sandboxes gets it) and renewed by
 * its holder every third of the TTL with `If-Match: <etag>`. A lease past its expiry (its holder
 * died with its sandbox), or one whose holder was a process on this machine that no longer exists
 * (killed, interrupted), is taken over with `If-Match` on the stale lease's ETag, so only one
 * taker wins. Release replaces the lease, if it is still this holder's (`If-Match`), by a released
 * one ({@link releasedLeaseBody}: its holder's id and an expiry of 0, so any reader takes it for an
 * expired lease) rather than deleting it (a session without log objects has it deleted): the
 * object then stays, and its ETag changes with every
 * holder (each lease's body is unique), so a listing that saw a released lease with ETag E, followed
 * by a successful `If-Match: E` write of a new lease, proves that no holder took the lease between
 * the listing and the write, and the log as listed is still the log (`lock`'s `seen`). A released
 * lease is told from a held one by its size in a listing ({@link RELEASED_LEASE_BYTES}). If S3
 * cannot be reached at release, release still succeeds and the lease is left to expire (within the
 * TTL), since a holder whose sandbox lost the network must still be able to shut down.
 */
export class S3SessionLocks {
  /** Holders taken through this store, by session id, so `isSessionLocked` can skip our own. */
  private readonly heldHere = new Map<string, Set<string>>();
  /** Per session, how to drop each lease held here (see {@link forget}). */
  private readonly dropHere = new Map<string, Set<() => void>>();

  constructor(
    private readonly context: S3Context,
    private readonly ttlMs: number,
  ) {}

  /**
   * Take the session's lock (see {@link LockOptions}). Throws `LockedError` naming the session,
   * the holder's host and pid, and when its lease ends, if another unexpired lease exists;
   * `UnavailableError` and `PermissionError` when S3 fails.
   */
  async lock(sessionId: string, options: LockOptions = {}): Promise<HeldLease> {
    const { beforeRelease, seen, onReleased, keepReleased = () => true } = options;
    const key = this.context.layout.lockKey(sessionId);
    const machine = thisMachine();
    const lease: LockLease = { holder: randomUUID(), host: hostname(), pid: process.pid, expiresAtMs: 0, ...(machine === undefined ? {} : { machine }) };
    if (seen?.released === true) {
      const etag = await this.write(key, lease, { IfMatch: seen.etag });
      if (etag !== undefined) return this.hold(sessionId, key, lease, etag, { beforeRelease, onReleased, keepReleased }, true);
    }
    // A lock object the listing saw (held, or changed since) is read first: a create-only write would fail.
    let known = seen !== undefined && seen !== null;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      let etag = known ? undefined : await this.write(key, lease, { IfNoneMatch: '*' });
      known = false;
      if (etag === undefined) {
        const existing = await this.read(key);
        if (existing === undefined) continue;
        if (existing.lease.expiresAtMs > Date.now() && !leftByDeadProcessHere(existing.lease, machine)) {
          throw new LockedError(
            `session "${sessionId}" is locked by ${existing.lease.host} (pid ${existing.lease.pid}) until ` +
              `${new Date(existing.lease.expiresAtMs).toISOString()} (${this.context.describe(key)})`,
          );
        }
        if (existing.etag === undefined) continue;
        etag = await this.write(key, lease, { IfMatch: existing.etag });
        if (etag === undefined) continue;
      }
      return this.hold(sessionId, key, lease, etag, { beforeRelease, onReleased, keepReleased }, false);
    }
    throw new LockedError(`session "${sessionId}" could not be locked: other holders keep changing ${this.context.describe(key)}`);
  }

  /**
   * Forget the leases this store holds on `sessionId` (the session was deleted, lock object
   * included): their release sends nothing, so no lock object is written back into a removed session.
   */
  forget(sessionId: string): void {
    for (const drop of this.dropHere.get(sessionId) ?? []) drop();
  }

  /** Whether a holder other than this store's own `lock` calls has an unexpired lease on the session. */
  async isLocked(sessionId: string): Promise<boolean> {
    const existing = await this.read(this.context.layout.lockKey(sessionId));
    if (existing === undefined || existing.lease.expiresAtMs <= Date.now() || leftByDeadProcessHere(existing.lease, thisMachine())) return false;
    return !(this.heldHere.get(sessionId)?.has(existing.lease.holder) ?? false);
  }

  private hold(
    sessionId: string,
    key: string,
    lease: LockLease,
    firstEtag: string,
    { beforeRelease, onReleased, keepReleased }: { beforeRelease: (() => Promise<void>) | undefined; onReleased: ((released: SeenLease) => void) | undefined; keepReleased: () => boolean },
    fromListing: boolean,
  ): HeldLease {
    let etag: string | undefined = firstEtag;
    // The expiry of the last lease written: past it another holder may have taken over.
    let validUntilMs = lease.expiresAtMs;
    let released = false;
    const holders = this.heldHere.get(sessionId) ?? new Set<string>();
    holders.add(lease.holder);
    this.heldHere.set(sessionId, holders);
    const drops = this.dropHere.get(sessionId) ?? new Set<() => void>();
    const drop = () => {
      etag = undefined;
    };
    drops.add(drop);
    this.dropHere.set(sessionId, drops);
    const renew = async (): Promise<void> => {
      if (etag === undefined) return;
      try {
        const expiresAtMs = Date.now() + this.ttlMs;
        etag = await this.write(key, lease, { IfMatch: etag });
        if (etag !== undefined) validUntilMs = expiresAtMs;
      } catch {
        // A failed renewal is retried at the next tick; the lease stays valid until it expires.
      }
    };
    let renewing: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(renew);
    }, Math.max(1, Math.floor(this.ttlMs / 3)));
    timer.unref();
    return {
      fromListing,
      held: () => !released && etag !== undefined && Date.now() < validUntilMs,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        await renewing;
        holders.delete(lease.holder);
        drops.delete(drop);
        if (etag === undefined) return;
        const held = etag;
        // Still the holder (no renewal was refused): the holder's last work, sent beside the
        // lease's release (one round trip for both; see `beforeRelease` on `lock`).
        const last = beforeRelease === undefined ? Promise.resolve() : beforeRelease();
        const removed = this.context.limit(async () => {
          try {
            const { client, s3 } = await this.context.sdk();
            if (!keepReleased()) {
              await client.send(new s3.DeleteObjectCommand({ Bucket: this.context.bucket, Key: key, IfMatch: held }));
              return;
            }
            const { ETag } = await client.send(new s3.PutObjectCommand({ Bucket: this.context.bucket, Key: key, Body: releasedLeaseBody(lease.holder), ContentType: 'application/json', IfMatch: held }));
            if (ETag !== undefined) onReleased?.({ etag: ETag, released: true });
          } catch (error) {
            if (isPreconditionFailed(error) || isNotFound(error)) return;
            const translated = await this.context.translate(error, `release session lock ${this.context.describe(key)}`);
            if (!FhError.hasCode(translated, 'FH_UNAVAILABLE')) throw translated;
          }
        });
        await Promise.all([last, removed]);
      },
    };
  }

  /**
   * Write the lease with a fresh expiry under the given condition. Returns the new ETag (`*` if
   * S3 sent none), or undefined when the condition failed (412).
   */
  private async write(key: string, lease: LockLease, condition: { IfNoneMatch: '*' } | { IfMatch: string }): Promise<string | undefined> {
    lease.expiresAtMs = Date.now() + this.ttlMs;
    return this.context.limit(async () => {
      try {
        const { client, s3 } = await this.context.sdk();
        const response = await client.send(
          new s3.PutObjectCommand({
            Bucket: this.context.bucket,
            Key: key,
            Body: JSON.stringify(lease),
            ContentType: 'application/json',
            ...condition,
          }),
        );
        return response.ETag ?? '*';
      } catch (error) {
        if (isPreconditionFailed(error)) return undefined;
        throw await this.context.translate(error, `write session lock ${this.context.describe(key)}`);
      }
    });
  }

  /**
   * The stored lease, or undefined if there is none. A lease that does not parse is read again a
   * few times (a server without atomic puts may show a half-written one) before it counts as
   * expired.
   */
  private async read(key: string): Promise<StoredLease | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      const stored = await this.readOnce(key);
      if (stored === undefined || stored.lease !== undefined || attempt === UNREADABLE_LEASE_READS) {
        return stored && { lease: stored.lease ?? EXPIRED_LEASE, etag: stored.etag };
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }

  private async readOnce(key: string): Promise<{ lease: LockLease | undefined; etag: string | undefined } | undefined> {
    return this.context.limit(async () => {
      try {
        const { client, s3 } = await this.context.sdk();
        const response = await client.send(new s3.GetObjectCommand({ Bucket: this.context.bucket, Key: key }));
        const text = (await response.Body?.transformToString('utf8')) ?? '';
        return { lease: parseLease(text), etag: response.ETag };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw await this.context.translate(error, `read session lock ${this.context.describe(key)}`);
      }
    });
  }
}

/**
 * This process's machine for {@link LockLease.machine}: the kernel's boot id and the pid
 * namespace, so two containers of one host (which share the boot id but not their pids) differ.
 * Undefined where they cannot be read (not Linux).
 */
function thisMachine(): string | undefined {
  try {
    return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
}

/** True when `lease` was taken on this machine by a process that no longer exists. */
function leftByDeadProcessHere(lease: LockLease, machine: string | undefined): boolean {
  if (machine === undefined || lease.machine !== machine || !Number.isInteger(lease.pid) || lease.pid <= 0) return false;
  try {
    process.kill(lease.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** How many times an unparsable lease is read before it counts as expired. */
const UNREADABLE_LEASE_READS = 4;

/** What an unreadable lock object counts as: a lease that has expired, so it can be taken over. */
const EXPIRED_LEASE: LockLease = { holder: '', host: 'unknown host', pid: 0, expiresAtMs: 0 };

/** Parse a lease, or undefined if the text is not one. */
function parseLease(text: string): LockLease | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockLease>;
    if (typeof value.holder === 'string' && typeof value.expiresAtMs === 'number') {
      const lease: LockLease = { holder: value.holder, host: String(value.host ?? 'unknown host'), pid: Number(value.pid ?? 0), expiresAtMs: value.expiresAtMs };
      if (typeof value.machine === 'string') lease.machine = value.machine;
      return lease;
    }
  } catch {
    return undefined;
  }
  return undefined;
}
