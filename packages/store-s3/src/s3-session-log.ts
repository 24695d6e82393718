import {
  ConflictError,
  formatJsonl,
  parseJsonl,
  type LogEnds,
  type LogReadResult,
  type LogRecord,
  type SessionLog,
  type SkippedLine,
} from '@fh/core';
import { isNotFound, isPreconditionFailed } from './translate-error.js';
import { listObjects, type S3Context } from './s3-context.js';

/** How many times an append looks for a free sequence number before giving up. */
const APPEND_ATTEMPTS = 20;

/** Most objects `readEnds` reads at the log's head (the `fh-session` record is in the first). */
export const HEAD_OBJECTS = 2;

/** `readEnds` reads one tail object per this many bytes of its tail budget (16 for 1 MiB). */
export const TAIL_BYTES_PER_OBJECT = 64 * 1024;

/** Fewest objects `readEnds` reads at the log's tail. */
export const MIN_TAIL_OBJECTS = 16;

/** Where a session's next append goes, shared by every handle of the session in one store. */
export interface LogCursor {
  /** Next sequence number to try; undefined until the session's objects were listed. */
  nextSequence: number | undefined;
  /** Appends of this session, run one after another so their objects keep the call order. */
  queue: Promise<void>;
}

/**
 * A session's record log in S3 (S3 has no append). Each `append` call writes one immutable object
 * `<prefix>sessions/<sessionId>/<sequence>.jsonl` holding the records as JSONL lines, created
 * with `If-None-Match: *`; sequence numbers are zero-padded so key order is append order. Two
 * writers of one session (two sandboxes) never overwrite each other: the loser of a sequence
 * number re-lists and takes the next free one. `read` concatenates the objects in sequence order
 * and parses them with the core's `parseJsonl`, giving the records a JSONL file would.
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
    const keys = await this.logKeys();
    const texts = await Promise.all(keys.map(({ key }) => this.context.limit(() => this.readText(key))));
    const records: LogRecord[] = [];
    const skipped: SkippedLine[] = [];
    let lineOffset = 0;
    for (const text of texts) {
      if (text === undefined) continue;
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
   * fetched one at a time; one that disappeared since the listing is left out. A session without
   * log objects yields nothing. Throws `UnavailableError`/`PermissionError` when S3 fails.
   */
  async *readStream(): AsyncGenerator<Uint8Array> {
    for (const { key } of await this.logKeys()) {
      let body: AsyncIterable<Uint8Array> | undefined;
      try {
        const response = await this.context.limit(async () => {
          const { client, s3 } = await this.context.sdk();
          return client.send(new s3.GetObjectCommand({ Bucket: this.context.bucket, Key: key }));
        });
        body = response.Body as AsyncIterable<Uint8Array> | undefined;
      } catch (error) {
        if (isNotFound(error)) continue;
        throw await this.context.translate(error, `read session log ${this.context.describe(key)}`);
      }
      if (body === undefined) continue;
      try {
        for await (const chunk of body) yield chunk;
      } catch (error) {
        throw await this.context.translate(error, `read session log ${this.context.describe(key)}`);
      }
    }
  }

  /**
   * The records of the first objects holding at most `headBytes` and the last objects holding at
   * most `tailBytes` (objects are whole lines, so no line is cut; an object larger than the room
   * left is not read), fetching only those objects; every record, in `head`, when the two cover
   * all objects. Each object is a request, so the ends are also bounded in objects: at most
   * {@link HEAD_OBJECTS} at the head and one per {@link TAIL_BYTES_PER_OBJECT} of `tailBytes`
   * (at least {@link MIN_TAIL_OBJECTS}) at the tail; a log of many small appends is not read whole
   * just because its bytes would fit. Sizes in bytes. Throws like {@link read}.
   */
  async readEnds(headBytes: number, tailBytes: number): Promise<LogEnds> {
    const keys = await this.logKeys();
    const total = keys.reduce((sum, entry) => sum + entry.size, 0);
    const tailObjects = Math.max(MIN_TAIL_OBJECTS, Math.floor(tailBytes / TAIL_BYTES_PER_OBJECT));
    if (total <= headBytes + tailBytes && keys.length <= HEAD_OBJECTS + tailObjects) return { head: (await this.read()).records, tail: [], whole: true };
    let headCount = 0;
    for (let used = 0; headCount < Math.min(keys.length, HEAD_OBJECTS) && used + (keys[headCount]?.size ?? 0) <= headBytes; headCount += 1) used += keys[headCount]?.size ?? 0;
    let tailStart = keys.length;
    for (let used = 0; tailStart > headCount && keys.length - tailStart < tailObjects && used + (keys[tailStart - 1]?.size ?? 0) <= tailBytes; tailStart -= 1) used += keys[tailStart - 1]?.size ?? 0;
    const recordsOf = async (entries: ReadonlyArray<{ key: string }>) => {
      const texts = await Promise.all(entries.map(({ key }) => this.context.limit(() => this.readText(key))));
      return texts.flatMap((text) => (text === undefined ? [] : parseJsonl(text).records));
    };
    const [head, tail] = await Promise.all([recordsOf(keys.slice(0, headCount)), recordsOf(keys.slice(tailStart))]);
    return { head, tail, whole: false };
  }

  private async appendObject(body: string): Promise<void> {
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt += 1) {
      if (this.cursor.nextSequence === undefined) {
        const keys = await this.logKeys();
        this.cursor.nextSequence = (keys.at(-1)?.sequence ?? 0) + 1;
      }
      const sequence = this.cursor.nextSequence;
      const key = this.context.layout.logObjectKey(this.sessionId, sequence);
      const written = await this.context.limit(() => this.putIfAbsent(key, body));
      if (written) {
        this.cursor.nextSequence = sequence + 1;
        return;
      }
      this.cursor.nextSequence = undefined;
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

  private async logKeys(): Promise<Array<{ key: string; sequence: number; size: number }>> {
    const folder = this.context.layout.sessionFolder(this.sessionId);
    const keys: Array<{ key: string; sequence: number; size: number }> = [];
    for (const object of await listObjects(this.context, folder)) {
      const sequence = object.Key === undefined ? undefined : this.context.layout.logObjectSequence(this.sessionId, object.Key);
      if (sequence !== undefined && object.Key !== undefined) keys.push({ key: object.Key, sequence, size: object.Size ?? 0 });
    }
    return keys.sort((left, right) => left.sequence - right.sequence);
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
