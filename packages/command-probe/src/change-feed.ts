/**
 * `ChangeFeed`: the watcher thread of a feed-backed `NodeCommandProbe` (see `feed-worker.ts` for
 * what runs in the thread and `feed-model.ts` for how its paths are used). It owns a private cookie
 * folder (`mkdtemp` under the folder it is given, never the project) and gives the main thread:
 * - {@link ChangeFeed.watch}: a non-recursive watch per folder;
 * - {@link ChangeFeed.cut}: every path with an event since the previous cut — correct up to the
 *   moment of the call: the cut writes a cookie file and waits for its event, which inotify
 *   queues after every earlier event of the same instance.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { FEED_WORKER_SOURCE } from './feed-worker.js';

/** Injectable thresholds and faults of a {@link ChangeFeed}; every member has a default. */
export interface ChangeFeedOptions {
  /** Longest a cut waits for its cookie's event, in ms, before the feed is distrusted. Default 2000. */
  cutTimeoutMs?: number;
  /**
   * A drain of the inotify queue that delivers this many events or more marks the feed lost (a
   * full scan follows). Default: `/proc/sys/fs/inotify/max_queued_events` − 512 (16384 − 512 when
   * it cannot be read).
   */
  overflowEvents?: number;
  /** Test fault: absolute folders whose watch fails with ENOSPC (as when max_user_watches is reached). Default none. */
  failWatch?: readonly string[];
  /** Test fault: the watcher thread is busy this long (ms) at the first event after each cut, so later events queue up in the kernel. Default 0. */
  stallMs?: number;
}

/** What a cut found. */
export interface FeedCut {
  /** Absolute paths with an event since the previous cut (files and folders, any order). */
  paths: string[];
  /** Set when events may have been lost since the previous cut: why. The caller must scan in full. */
  lost?: string;
}

/** The inotify queue's length here, or 16384 (the kernel's default) when it cannot be read. */
function maxQueuedEvents(): number {
  try {
    const value = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isFinite(value) && value > 0 ? value : 16384;
  } catch {
    return 16384;
  }
}

/** See the top of this file. */
export class ChangeFeed {
  private worker: Worker | undefined;
  private readonly cookieDir: string;
  private nextId = 1;
  private readonly waiting = new Map<number, (message: { failed?: Array<{ folder: string; code: string }>; paths?: string[]; lost?: string }) => void>();
  /** Set once a cut timed out or the thread failed: every later cut reports it lost. */
  private broken: string | undefined;
  private readonly cutTimeoutMs: number;
  /** Called at the first event after each cut (must not throw). */
  onActivity: (() => void) | undefined;

  /** `parent`: an absolute folder fh owns (not the project) for the cookie folder. */
  private constructor(parent: string, private readonly options: ChangeFeedOptions) {
    this.cookieDir = mkdtempSync(join(parent, 'feed-'));
    this.cutTimeoutMs = options.cutTimeoutMs ?? 2000;
  }

  /** Start the watcher thread (resolves once it watches its cookie folder). */
  static async start(parent: string, options: ChangeFeedOptions = {}): Promise<ChangeFeed> {
    const feed = new ChangeFeed(parent, options);
    await feed.launch();
    return feed;
  }

  private async launch(): Promise<void> {
    const worker = new Worker(FEED_WORKER_SOURCE, {
      eval: true,
      workerData: { cookieDir: this.cookieDir, overflowEvents: this.options.overflowEvents ?? maxQueuedEvents() - 512, failWatch: [...(this.options.failWatch ?? [])], stallMs: this.options.stallMs ?? 0 },
    });
    this.worker = worker;
    // The timer also keeps this process's loop alive while the thread starts.
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the change feed's watcher thread did not start within ${this.cutTimeoutMs} ms`)), this.cutTimeoutMs);
      const onReady = (message: { type: string }): void => {
        if (message.type !== 'ready') return;
        worker.off('error', reject);
        resolve();
      };
      worker.once('error', reject);
      worker.on('message', onReady);
    }).finally(() => clearTimeout(timer));
    worker.on('message', (message: { type: string; id?: number }) => {
      if (message.type === 'ready') return;
      if (message.type === 'activity') {
        this.onActivity?.();
        return;
      }
      const resolve = this.waiting.get(message.id ?? -1);
      if (resolve === undefined) {
        // A cut answered after its wait timed out: its paths are gone.
        if (message.type === 'cut') this.broken ??= 'a cut was answered after it timed out';
        return;
      }
      this.settle(message.id as number);
      resolve(message as never);
    });
    worker.on('error', (error) => {
      this.broken ??= `the watcher thread failed: ${error.message}`;
    });
    worker.on('exit', () => {
      this.broken ??= 'the watcher thread exited';
      for (const resolve of this.waiting.values()) resolve({ lost: this.broken });
      this.waiting.clear();
    });
    worker.unref();
  }

  /** Wait for answer `id`: the thread keeps this process alive while any answer is awaited (and only then). */
  private expect(id: number, resolve: (message: { failed?: Array<{ folder: string; code: string }>; paths?: string[]; lost?: string }) => void): void {
    if (this.waiting.size === 0) this.worker?.ref();
    this.waiting.set(id, resolve);
  }

  /** Answer `id` arrived or is given up. */
  private settle(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
  }

  /** Watch each absolute folder (non-recursive). Resolves with the folders whose watch failed, and why. */
  async watch(folders: readonly string[]): Promise<Array<{ folder: string; code: string }>> {
    if (folders.length === 0) return [];
    if (this.worker === undefined || this.broken !== undefined) return folders.map((folder) => ({ folder, code: this.broken ?? 'closed' }));
    const id = this.nextId++;
    const answer = new Promise<{ failed?: Array<{ folder: string; code: string }> }>((resolve) => this.expect(id, resolve));
    this.worker.postMessage({ type: 'watch', id, folders });
    return (await answer).failed ?? folders.map((folder) => ({ folder, code: this.broken ?? 'closed' }));
  }

  /** Stop watching these absolute folders and every folder under them. */
  unwatch(folders: readonly string[]): void {
    if (folders.length > 0) this.worker?.postMessage({ type: 'unwatch', folders });
  }

  /** Every path with an event since the previous cut (see the top of this file). */
  async cut(): Promise<FeedCut> {
    if (this.worker === undefined || this.broken !== undefined) return { paths: [], lost: this.broken ?? 'the feed is closed' };
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<{ paths?: string[]; lost?: string }>((resolve) => {
      this.expect(id, resolve);
      timer = setTimeout(() => {
        this.settle(id);
        this.broken ??= `a cut got no answer within ${this.cutTimeoutMs} ms`;
        resolve({ lost: this.broken });
      }, this.cutTimeoutMs);
    });
    try {
      writeFileSync(join(this.cookieDir, `cut-${id}`), '');
    } catch (error) {
      this.settle(id);
      clearTimeout(timer);
      this.broken ??= `the cookie could not be written (${error instanceof Error ? error.message : String(error)})`;
      return { paths: [], lost: this.broken };
    }
    const message = await answer;
    clearTimeout(timer);
    return message.lost === undefined ? { paths: message.paths ?? [] } : { paths: message.paths ?? [], lost: message.lost };
  }

  /** Stop the thread and remove the cookie folder. Idempotent. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.broken ??= 'the feed is closed';
    if (worker !== undefined) await worker.terminate();
    rmSync(this.cookieDir, { recursive: true, force: true });
  }
}
