import {
  ConflictError,
  LOG_HEAD_BYTES,
  LOG_TAIL_BYTES_STEPS,
  UnavailableError,
  formatJsonl,
  parseJsonl,
  type LogEnds,
  type LogReadResult,
  type LogTail,
  type LogRecord,
  type SessionLog,
  type SkippedLine,
} from '@fh/core';
import { isNotFound, isPreconditionFailed } from './translate-error.js';
import { listObjects, type S3Context } from './s3-context.js';
import { RELEASED_LEASE_BYTES, type SeenLease } from './s3-session-lock.js';

/** How many times an append looks for a free sequence number before giving up. */
const APPEND_ATTEMPTS = 20;

/** Most objects `readEnds` reads at the log's head (the `fh-session` record is in the first). */
export const HEAD_OBJECTS = 2;

/** `readEnds` reads one tail object per this many bytes of its tail budget (16 for 1 MiB). */
export const TAIL_BYTES_PER_OBJECT = 64 * 1024;

/** Fewest objects `readEnds` reads at the log's tail. */
export const MIN_TAIL_OBJECTS = 16;

/**
 * Appends after the newest compacted run (the log's first object aside) at which the session's
 * lease holder compacts them when it releases the lease (see "Compaction" on {@link S3SessionLog}).
 * Every reader of the log's ends (each hook event, before and under the lease) fetches the
 * appends since the newest run, one request each: at 2 it fetches at most one, for a compaction
 * (a run and a removal beside the lease's removal) every second acting event (at 4, measured in
 * `npm run bench -- hook-s3`: 33 requests per round of the four acting events; at 2: 28).
 */
export const COMPACT_AFTER_APPENDS = 2;

/**
 * Largest compacted run, in bytes, that newer appends are merged into; past it a new run starts
 * after it. Bounds what one compaction rewrites, and keeps a 1 MiB tail to a few objects.
 */
export const COMPACTED_RUN_MAX_BYTES = 256 * 1024;

/** Bytes of log object bodies one store keeps in memory (log objects never change once written). */
export const BODY_CACHE_BYTES = 32 * 1024 * 1024;

/** Times a read lists the log again when an object it listed was removed meanwhile (by a compaction). */
const READ_ATTEMPTS = 3;

/** One object of the log as listed: the appends `first`..`last` it holds, and its size in bytes. */
export interface LogObject {
  key: string;
  first: number;
  last: number;
  size: number;
}

/**
 * The session's log objects as last seen by this store: `objects`, the ones a read uses (in
 * append order, each run standing for the appends it holds), and `superseded`, objects a
 * compacted run holds (removed by the next compaction).
 */
export interface LogView {
  objects: LogObject[];
  superseded: string[];
  /** The session's lock object as the listing saw it; null when there was none. */
  lease?: SeenLease | null;
}

/** Where a session's next append goes, shared by every handle of the session in one store. */
export interface LogCursor {
  /** Next sequence number to try; undefined until the session's objects were listed. */
  nextSequence: number | undefined;
  /** Appends of this session, run one after another so their objects keep the call order. */
  queue: Promise<void>;
  /** Leases on the session this store holds now (see `S3BackupStore.lockSession`). */
  leases: number;
  /** The log as this store last listed it, with its own appends since; undefined before a listing. */
  view: LogView | undefined;
  /** Bodies of log objects read or written by this store (see {@link BodyCache}). */
  bodies: BodyCache;
  /**
   * While it answers true, `view` is the log as it is (a lease taken on the listing itself, see
   * `S3SessionLocks.lock`'s `seen`, and still held): reads use it without listing again.
   */
  current: (() => boolean) | undefined;
  /** Log object bodies being fetched, by key (a read and a prefetch of one object share one request). */
  fetching: Map<string, Promise<string | undefined>>;
}

/**
 * Log object bodies by key, up to {@link BODY_CACHE_BYTES} (oldest dropped first). A log object
 * is written once (`If-None-Match: *`) and never changed, so a cached body is never stale: a
 * second read of the log in one process (an agent hook reads it before and under the lock)
 * fetches only the objects added since.
 */
export class BodyCache {
  private readonly bodies = new Map<string, string>();
  private bytes = 0;

  get(key: string): string | undefined {
    return this.bodies.get(key);
  }

  set(key: string, body: string): void {
    if (this.bodies.has(key) || body.length > BODY_CACHE_BYTES) return;
    this.bodies.set(key, body);
    this.bytes += body.length;
    for (const [oldest, text] of this.bodies) {
      if (this.bytes <= BODY_CACHE_BYTES) break;
      this.bodies.delete(oldest);
      this.bytes -= text.length;
    }
  }
}

/** A new cursor: nothing listed, nothing cached. */
export function newLogCursor(): LogCursor {
  return { nextSequence: undefined, queue: Promise.resolve(), leases: 0, view: undefined, bodies: new BodyCache(), current: undefined, fetching: new Map() };
}

/**
 * Which of `listed` a read uses, in append order: from the first sequence on, the object that
 * reaches furthest (a compacted run over the appends it holds, a newer run over an older one it
 * contains); an object inside one already taken is superseded. Pure.
 */
export function coverOf(listed: readonly LogObject[]): LogView {
  const sorted = [...listed].sort((left, right) => left.first - right.first || right.last - left.last);
  const objects: LogObject[] = [];
  const superseded: string[] = [];
  let through = 0;
  for (const object of sorted) {
    if (object.first <= through) {
      superseded.push(object.key);
      continue;
    }
    objects.push(object);
    through = object.last;
  }
  return { objects, superseded };
}

/**
 * A session's record log in S3 (S3 has no append). Each `append` call writes one immutable object
 * `<prefix>sessions/<sessionId>/<sequence>.jsonl` holding the records as JSONL lines, created
 * with `If-None-Match: *`; sequence numbers are zero-padded so key order is append order. Two
 * writers of one session (two sandboxes) never overwrite each other: the loser of a sequence
 * number re-lists and takes the next free one. `read` concatenates the objects in sequence order
 * and parses them with the core's `parseJsonl`, giving the records a JSONL file would.
 *
 * Compaction (layout 2), so reading the log's ends costs a few requests at any session length:
 * when this store releases the session's lease and at least {@link COMPACT_AFTER_APPENDS}
 * appends follow the newest compacted run (the log's first object, which holds its `fh-session`
 * record, is never compacted), they are written as one object
 * `<first>-<last>.jsonl` holding exactly their bytes in order, merged with the run before them
 * while that stays within {@link COMPACTED_RUN_MAX_BYTES}. The run is written before anything is
 * removed, and what it holds is removed only by the next compaction (one compaction later), so
 * a crash at any point leaves a log that reads the same, and a reader that listed the objects
 * just before a compaction still finds them; readers take the run over the objects it holds
 * ({@link coverOf}), and list again if an object they listed was removed meanwhile. An append
 * made without the lease lists the log first, so it never takes a sequence a run already holds.
 */
export class S3SessionLog implements SessionLog {
  constructor(
    private readonly context: S3Context,
    readonly sessionId: string,
    private readonly cursor: LogCursor,
  ) {}

  /**
   * Append records, in order, as one new object; durable (written to S3) when the promise resolves.
   * Appends through any handle of the session in this store keep their call order. An empty list
   * writes nothing. Throws `UnavailableError`/`PermissionError` on store failure, with nothing
   * visible to `read`; `ConflictError` if no free sequence number was found after many tries.
   */
  append(records: readonly LogRecord[]): Promise<void> {
    if (records.length === 0) return this.cursor.queue;
    const body = formatJsonl(records);
    const appended = this.cursor.queue.then(() => this.appendObject(body));
    this.cursor.queue = appended.catch(() => undefined);
    return appended;
  }

  /**
   * Read every record in append order. A session without log objects reads as empty. Corrupt
   * lines are skipped and reported with their line number counted across all objects, as in one
   * JSONL file; they never hide later records. Throws `UnavailableError`/`PermissionError` when
   * S3 fails.
   */
  async read(): Promise<LogReadResult> {
    const texts = await this.withFreshListing(async (objects) => this.texts(objects));
    const records: LogRecord[] = [];
    const skipped: SkippedLine[] = [];
    let lineOffset = 0;
    for (const text of texts) {
      const parsed = parseJsonl(text);
      records.push(...parsed.records);
      for (const line of parsed.skipped) skipped.push({ line: line.line + lineOffset, reason: line.reason });
      lineOffset += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    }
    return { records, skipped };
  }

  /**
   * The log's bytes in append order: each object's body, streamed as it is consumed, objects in
   * sequence order (each holds whole lines, so the bytes are those of one JSONL file). Objects are
   * fetched one at a time. An object removed since the listing (a compaction) makes it list
   * again and go on from the next append when a listed object starts there; when the appends
   * still to stream were merged into a run with ones already streamed, it throws
   * `UnavailableError` (read again). A session without log objects yields nothing. Throws
   * `UnavailableError`/`PermissionError` when S3 fails.
   */
  async *readStream(): AsyncGenerator<Uint8Array> {
    let streamedThrough = 0;
    let objects = (await this.listing()).objects;
    for (let attempt = 0; ; ) {
      let removed = false;
      for (const object of objects) {
        if (object.last <= streamedThrough) continue;
        if (object.first !== streamedThrough + 1 && streamedThrough > 0) throw this.compactedMeanwhile();
        const cached = this.cursor.bodies.get(object.key);
        if (cached !== undefined) {
          yield Buffer.from(cached, 'utf8');
          streamedThrough = object.last;
          continue;
        }
        let body: AsyncIterable<Uint8Array> | undefined;
        try {
          const response = await this.context.limit(async () => {
            const { client, s3 } = await this.context.sdk();
            return client.send(new s3.GetObjectCommand({ Bucket: this.context.bucket, Key: object.key }));
          });
          body = response.Body as AsyncIterable<Uint8Array> | undefined;
        } catch (error) {
          if (!isNotFound(error)) throw await this.context.translate(error, `read session log ${this.context.describe(object.key)}`);
          removed = true;
          break;
        }
        if (body !== undefined) {
          try {
            for await (const chunk of body) yield chunk;
          } catch (error) {
            throw await this.context.translate(error, `read session log ${this.context.describe(object.key)}`);
          }
        }
        streamedThrough = object.last;
      }
      if (!removed) return;
      attempt += 1;
      if (attempt >= READ_ATTEMPTS) throw this.compactedMeanwhile();
      objects = (await this.listing(true)).objects;
    }
  }

  /**
   * The records of the first objects holding at most `headBytes` and the last objects holding at
   * most `tailBytes` (objects are whole lines, so no line is cut; an object larger than the room
   * left is not read), fetching only those objects; every record, in `head`, when the two cover
   * all objects. Each object is a request, so the ends are also bounded in objects: at most
   * {@link HEAD_OBJECTS} at the head and one per {@link TAIL_BYTES_PER_OBJECT} of `tailBytes`
   * (at least {@link MIN_TAIL_OBJECTS}) at the tail; a log of many small appends is not read whole
   * just because its bytes would fit. With compaction the tail is a few runs and the appends
   * since, and objects this store read or wrote before are not fetched again: a list request and
   * a handful of gets at any session length. Sizes in bytes. Throws like {@link read}.
   */
  async readEnds(headBytes: number, tailBytes: number): Promise<LogEnds> {
    return this.withFreshListing(async (objects) => {
      const recordsOf = async (entries: readonly LogObject[]) => (await this.texts(entries)).flatMap((text) => parseJsonl(text).records);
      const ends = endObjects(objects, headBytes, tailBytes);
      if (ends === undefined) return { head: await recordsOf(objects), tail: [], whole: true };
      const [head, tail] = await Promise.all([recordsOf(ends.head), recordsOf(ends.tail)]);
      return { head, tail, whole: false };
    });
  }

  /**
   * The records of the log's first objects (as {@link readEnds} picks them) and the raw bytes of
   * its last objects, unparsed, fetching only those objects (the same ones {@link readEnds}
   * fetches, so the same few requests at any session length). Objects hold whole lines and each
   * ends with a newline, so the tail is returned with the newline that ends the object before it:
   * exactly the log's last bytes, its first line (that newline) the one a reader drops as cut.
   * When the two cover the log, `whole` is true, `head` is empty and `tail` holds every byte.
   * `size`: the log's bytes as listed. Sizes in bytes. Throws like {@link read}.
   */
  async readTail(headBytes: number, tailBytes: number): Promise<LogTail> {
    return this.withFreshListing(async (objects) => {
      const size = objects.reduce((sum, entry) => sum + entry.size, 0);
      const bytesOf = async (entries: readonly LogObject[]) => (await this.texts(entries)).map((text) => Buffer.from(text, 'utf8'));
      const ends = endObjects(objects, headBytes, tailBytes);
      if (ends === undefined) return { head: [], tail: Buffer.concat(await bytesOf(objects)), whole: true, size };
      const [head, tail] = await Promise.all([this.texts(ends.head), bytesOf(ends.tail)]);
      return { head: head.flatMap((text) => parseJsonl(text).records), tail: Buffer.concat([NEWLINE, ...tail]), whole: false, size };
    });
  }

  /**
   * Compact the appends after the newest run (see "Compaction" on the class): first remove what
   * the previous compaction superseded, then write the new run. Only for the lease holder, as it
   * releases the lease (`S3BackupStore.lockSession`, sent beside the lease's removal); works from
   * this store's view of the log (its last listing and its own appends since, all durable), so
   * it sends no list request, and nothing at all when fewer than {@link COMPACT_AFTER_APPENDS}
   * appends wait; the removal and the new run go out at once (the run holds none of the removed
   * objects' appends that no other run holds). Throws the store's errors; a failure at any point
   * leaves a log that reads the same.
   */
  async compact(): Promise<void> {
    await this.cursor.queue;
    const view = this.cursor.view;
    if (view === undefined) return;
    const { objects } = view;
    // The trailing appends, each right after the one before (a run never claims a sequence it
    // does not hold), never the log's first object.
    let start = objects.length;
    while (start > 1 && isAppend(objects[start - 1] as LogObject) && (start === objects.length || (objects[start - 1] as LogObject).last + 1 === (objects[start] as LogObject).first)) start -= 1;
    const waiting = objects.length - start;
    if (waiting < COMPACT_AFTER_APPENDS && view.superseded.length === 0) return;
    // The removal of what the previous compaction superseded goes out beside the new run.
    const superseded = view.superseded;
    view.superseded = [];
    const removed = superseded.length === 0 ? Promise.resolve() : this.deleteKeys(superseded);
    if (waiting < COMPACT_AFTER_APPENDS) {
      await removed;
      return;
    }
    const written = this.writeRun(objects, start);
    const [removal, run] = await Promise.allSettled([removed, written]);
    if (removal.status === 'rejected') {
      view.superseded.push(...superseded);
      throw removal.reason;
    }
    if (run.status === 'rejected') throw run.reason;
  }

  /** Write the run of `objects` from `start` on (merged with the run before them when small enough) and take it into the view. */
  private async writeRun(objects: LogObject[], start: number): Promise<void> {
    const view = this.cursor.view as LogView;
    const before = objects[start - 1];
    const run = objects.slice(start);
    const runBytes = run.reduce((sum, object) => sum + object.size, 0);
    if (before !== undefined && start > 1 && !isAppend(before) && before.last + 1 === (run[0] as LogObject).first && before.size + runBytes <= COMPACTED_RUN_MAX_BYTES) run.unshift(before);
    const first = (run[0] as LogObject).first;
    const last = (run.at(-1) as LogObject).last;
    const body = (await this.texts(run)).join('');
    const key = this.context.layout.compactedObjectKey(this.sessionId, first, last);
    await this.context.limit(() => this.putIfAbsent(key, body));
    this.cursor.bodies.set(key, body);
    const replaced = new Set(run.map((object) => object.key));
    view.objects = [...objects.filter((object) => !replaced.has(object.key) && object.last < first), { key, first, last, size: Buffer.byteLength(body) }, ...objects.filter((object) => object.first > last)];
    view.superseded = [...replaced];
  }

  /** The error for a read that met a compaction too often. */
  private compactedMeanwhile(): Error {
    return new UnavailableError(
      `read session log ${this.context.describe(this.context.layout.sessionFolder(this.sessionId))}: ` +
        'its objects were compacted while it was read; read it again',
    );
  }

  /**
   * Run `read` over the listed objects; when an object it needed was removed since the listing
   * (`MissingObjectError` from {@link texts}), list again and rerun, up to {@link READ_ATTEMPTS} times.
   */
  private async withFreshListing<T>(read: (objects: readonly LogObject[]) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const { objects } = await this.listing(attempt > 1);
      try {
        return await read(objects);
      } catch (error) {
        if (!(error instanceof MissingObjectError)) throw error;
        if (attempt >= READ_ATTEMPTS) throw this.compactedMeanwhile();
      }
    }
  }

  /**
   * Fetch into this store's cache the objects of `view` that reading the log's ends (`readTail`
   * or `readEnds` with core's first sizes, `LOG_HEAD_BYTES` and `LOG_TAIL_BYTES_STEPS[0]`) takes,
   * so they travel beside another request (the lease's write, see `S3BackupStore.lockSession`).
   * Log objects never change, so what is fetched is never stale; failures are left to the read.
   */
  prefetchEnds(view: LogView): void {
    const ends = endObjects(view.objects, LOG_HEAD_BYTES, LOG_TAIL_BYTES_STEPS[0] ?? 0);
    this.texts(ends === undefined ? view.objects : [...ends.head, ...ends.tail]).catch(() => undefined);
  }

  /** The bodies of `objects`, in order: cached, else fetched (in parallel; one request per key at a time). Throws `MissingObjectError` for one removed since listed. */
  private async texts(objects: readonly LogObject[]): Promise<string[]> {
    return Promise.all(
      objects.map(async ({ key }) => {
        let text = this.cursor.bodies.get(key);
        if (text === undefined) {
          let fetching = this.cursor.fetching.get(key);
          if (fetching === undefined) {
            fetching = this.context.limit(() => this.readText(key));
            this.cursor.fetching.set(key, fetching);
            void fetching.then(
              () => this.cursor.fetching.delete(key),
              () => this.cursor.fetching.delete(key),
            );
          }
          text = await fetching;
        }
        if (text === undefined) throw new MissingObjectError(key);
        this.cursor.bodies.set(key, text);
        return text;
      }),
    );
  }

  private async appendObject(body: string): Promise<void> {
    // Without the lease a compaction may have run since this store last listed: list first.
    if (this.cursor.leases === 0) this.cursor.nextSequence = undefined;
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt += 1) {
      if (this.cursor.nextSequence === undefined) await this.listing();
      const sequence = this.cursor.nextSequence as number;
      const key = this.context.layout.logObjectKey(this.sessionId, sequence);
      const written = await this.context.limit(() => this.putIfAbsent(key, body));
      if (written) {
        this.cursor.nextSequence = sequence + 1;
        this.cursor.bodies.set(key, body);
        this.cursor.view?.objects.push({ key, first: sequence, last: sequence, size: Buffer.byteLength(body) });
        return;
      }
      // Another writer took the sequence: the view is no longer the log.
      this.cursor.nextSequence = undefined;
      this.cursor.current = undefined;
    }
    throw new ConflictError(
      `append to session log ${this.context.describe(this.context.layout.sessionFolder(this.sessionId))}: ` +
        `no free sequence number after ${APPEND_ATTEMPTS} tries (many writers at once?)`,
    );
  }

  /**
   * Create `key` with `body` unless it exists. True when written. An existing object with exactly
   * `body` counts as written (the SDK retried a put whose answer was lost).
   */
  private async putIfAbsent(key: string, body: string): Promise<boolean> {
    try {
      const { client, s3 } = await this.context.sdk();
      await client.send(
        new s3.PutObjectCommand({
          Bucket: this.context.bucket,
          Key: key,
          Body: body,
          IfNoneMatch: '*',
          ContentType: 'application/x-ndjson; charset=utf-8',
        }),
      );
      return true;
    } catch (error) {
      if (!isPreconditionFailed(error)) throw await this.context.translate(error, `append to session log ${this.context.describe(key)}`);
    }
    return (await this.readText(key)) === body;
  }

  /** Delete `keys` (one DeleteObjects request per 1,000); a key already gone is not an error. */
  private async deleteKeys(keys: readonly string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += 1000) {
      const batch = keys.slice(start, start + 1000);
      await this.context.limit(async () => {
        const context = `compact session log ${this.context.describe(this.context.layout.sessionFolder(this.sessionId))}`;
        let errors;
        try {
          const { client, s3 } = await this.context.sdk();
          ({ Errors: errors } = await client.send(new s3.DeleteObjectsCommand({ Bucket: this.context.bucket, Delete: { Objects: batch.map((key) => ({ Key: key })), Quiet: true } })));
        } catch (error) {
          throw await this.context.translate(error, context);
        }
        const first = errors?.[0];
        if (first) throw await this.context.translate(Object.assign(new Error(first.Message ?? first.Code ?? 'delete failed'), { name: first.Code ?? 'Error' }), `${context}: could not delete ${this.context.describe(first.Key ?? '')}`);
      });
    }
  }

  /**
   * List the session's log objects (see {@link coverOf}); remembers the result as this store's
   * view, and where the next append goes (past the last append any object holds), and how the
   * lock object looked (`LogView.lease`). While the view is current (`LogCursor.current`) it is
   * the answer, with no request, unless `fresh`.
   */
  async listing(fresh = false): Promise<LogView> {
    if (!fresh && this.cursor.view !== undefined && this.cursor.current?.() === true) return this.cursor.view;
    this.cursor.current = undefined;
    const folder = this.context.layout.sessionFolder(this.sessionId);
    const lockKey = this.context.layout.lockKey(this.sessionId);
    const listed: LogObject[] = [];
    let lease: SeenLease | null = null;
    for (const object of await listObjects(this.context, folder)) {
      if (object.Key === lockKey && object.ETag !== undefined) lease = { etag: object.ETag, released: object.Size === RELEASED_LEASE_BYTES };
      const range = object.Key === undefined ? undefined : this.context.layout.logObjectRange(this.sessionId, object.Key);
      if (range !== undefined && object.Key !== undefined) listed.push({ key: object.Key, ...range, size: object.Size ?? 0 });
    }
    const view: LogView = { ...coverOf(listed), lease };
    this.cursor.view = view;
    this.cursor.nextSequence = listed.reduce((highest, object) => Math.max(highest, object.last), 0) + 1;
    return view;
  }

  /** The object's text, or undefined if it disappeared since it was listed. */
  private async readText(key: string): Promise<string | undefined> {
    try {
      const { client, s3 } = await this.context.sdk();
      const response = await client.send(new s3.GetObjectCommand({ Bucket: this.context.bucket, Key: key }));
      const bytes = await response.Body?.transformToByteArray();
      return Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw await this.context.translate(error, `read session log ${this.context.describe(key)}`);
    }
  }
}

/** The newline that ends every log object (`formatJsonl`), put before a tail that starts at an object. */
const NEWLINE = Buffer.from('\n');

/**
 * Which of `objects` (the log in append order) `readEnds` and `readTail` fetch: the first ones
 * holding at most `headBytes` (at most {@link HEAD_OBJECTS}) and the last ones holding at most
 * `tailBytes` (at most one per {@link TAIL_BYTES_PER_OBJECT}, at least {@link MIN_TAIL_OBJECTS});
 * undefined when those bounds take in every object (the log is read whole). Pure.
 */
function endObjects(objects: readonly LogObject[], headBytes: number, tailBytes: number): { head: LogObject[]; tail: LogObject[] } | undefined {
  const total = objects.reduce((sum, entry) => sum + entry.size, 0);
  const tailObjects = Math.max(MIN_TAIL_OBJECTS, Math.floor(tailBytes / TAIL_BYTES_PER_OBJECT));
  if (total <= headBytes + tailBytes && objects.length <= HEAD_OBJECTS + tailObjects) return undefined;
  let headCount = 0;
  for (let used = 0; headCount < Math.min(objects.length, HEAD_OBJECTS) && used + (objects[headCount]?.size ?? 0) <= headBytes; headCount += 1) used += objects[headCount]?.size ?? 0;
  let tailStart = objects.length;
  for (let used = 0; tailStart > headCount && objects.length - tailStart < tailObjects && used + (objects[tailStart - 1]?.size ?? 0) <= tailBytes; tailStart -= 1) used += objects[tailStart - 1]?.size ?? 0;
  return { head: objects.slice(0, headCount), tail: objects.slice(tailStart) };
}

/** Whether `object` is one append (not a compacted run). */
function isAppend(object: LogObject): boolean {
  return object.first === object.last;
}

/** An object listed a moment ago is gone (a compaction removed it): the read lists again. */
class MissingObjectError extends Error {
  override readonly name = 'MissingObjectError';
  constructor(readonly key: string) {
    super(`log object ${key} is gone`);
  }
}
