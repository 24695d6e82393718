/** Ages on the command line (`fh undo --prune`, `fh cleanup --older-than`). */
import { UsageError } from './cli-errors.js';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `30d`, `12h`, `90m`, or a bare number of days → ms. Throws `UsageError` naming `option` and
 * saying `nothing was removed` for anything else.
 */
export function parseAge(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)([mhd]?)$/.exec(text);
  if (match === null) throw new UsageError(`${option} takes an age like 30d, 12h or 90m (a bare number is days), not ${JSON.stringify(text)}; nothing was removed`);
  return Number(match[1]) * (UNITS[match[2] === '' ? 'd' : (match[2] as string)] as number);
}

/** {@link parseAge} in days. */
export function parseAgeInDays(text: string, option: string): number {
  return parseAge(text, option) / UNITS.d!;
}
