/** Interleaved timing: every contender runs once per round, in a rotating order, so drift hits all alike. */

/** One thing being timed; `prepare` runs untimed before each timed `run`. */
export interface Contender {
  name: string;
  prepare?(round: number): Promise<void>;
  run(round: number): Promise<void>;
}

/** Run `rounds` rounds of every contender (rotating who goes first); returns each one's times in ms. */
export async function interleave(rounds: number, contenders: readonly Contender[]): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let offset = 0; offset < contenders.length; offset += 1) {
      const contender = contenders[(round + offset) % contenders.length] as Contender;
      await contender.prepare?.(round);
      const started = process.hrtime.bigint();
      await contender.run(round);
      times.get(contender.name)?.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return times;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
