/**
 * Caps on what a command window copies (issue 12): files over a cap are not captured and are
 * reported by name, never silently dropped.
 */
import { InvalidArgumentError } from '../errors.js';

/** Default per-file cap: 32 MiB. A larger file's before-bytes are not kept. */
export const DEFAULT_COMMAND_MAX_FILE_BYTES = 32 * 1024 * 1024;

/** Default per-command cap: 256 MiB copied into the store by one `beginCommand`. */
export const DEFAULT_COMMAND_MAX_COMMAND_BYTES = 256 * 1024 * 1024;

/**
 * Default total cap: 1 GiB of pre-images a session keeps for reuse that no checkpoint refers to
 * (dirty and untracked files backed up at `beginCommand` that no command changed yet). Past it
 * the oldest are deleted.
 */
export const DEFAULT_COMMAND_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

/** Caps of a command window, in bytes; each defaults to the constant named on it. */
export interface CommandLimits {
  /** Largest file whose before-bytes are kept. Default {@link DEFAULT_COMMAND_MAX_FILE_BYTES}. */
  maxFileBytes?: number;
  /** Most bytes one `beginCommand` copies into the store. Default {@link DEFAULT_COMMAND_MAX_COMMAND_BYTES}. */
  maxCommandBytes?: number;
  /** Most bytes of unattached pre-images kept for reuse. Default {@link DEFAULT_COMMAND_MAX_TOTAL_BYTES}. */
  maxTotalBytes?: number;
}

/** {@link CommandLimits} with every default filled. */
export type ResolvedCommandLimits = Required<CommandLimits>;

/** Fill defaults; `InvalidArgumentError` naming the option for a value that is not a number >= 0. */
export function resolveCommandLimits(limits: CommandLimits = {}): ResolvedCommandLimits {
  const pick = (name: keyof CommandLimits, fallback: number): number => {
    const value = limits[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InvalidArgumentError(`command limit ${name} must be a number of bytes >= 0, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  return {
    maxFileBytes: pick('maxFileBytes', DEFAULT_COMMAND_MAX_FILE_BYTES),
    maxCommandBytes: pick('maxCommandBytes', DEFAULT_COMMAND_MAX_COMMAND_BYTES),
    maxTotalBytes: pick('maxTotalBytes', DEFAULT_COMMAND_MAX_TOTAL_BYTES),
  };
}
