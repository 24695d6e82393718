/**
 * Run a function over many items with a fixed number of workers, each a single task under a
 * concurrency limit that pulls the next item until none are left. This bounds concurrency exactly
 * like one limited task per item, but pays the limiter's bookkeeping once per worker instead of
 * once per item (about 5 µs each with p-limit, as much as a `stat` costs), which halves the time
 * to scan thousands of files.
 */
import type { RunLimited } from './file-history-context.js';

/**
 * `fn` applied to every item, results in item order. At most `width` calls run at once (and
 * fewer when `limit` is busy with other work). When `stopWhen(result)` is true, workers take no
 * more items and the items not started stay `undefined`. Rejects with the first error `fn` throws.
 */
export async function mapWithWorkers<Item, Result>(
  limit: RunLimited,
  items: readonly Item[],
  width: number,
  fn: (item: Item) => Promise<Result>,
  stopWhen?: (result: Result) => boolean,
): Promise<Array<Result | undefined>> {
  const results = new Array<Result | undefined>(items.length);
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < items.length) {
      const index = next;
      next += 1;
      const result = await fn(items[index] as Item);
      results[index] = result;
      if (stopWhen?.(result)) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, () => limit(worker)));
  return results;
}
