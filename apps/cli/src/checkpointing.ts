/** `FH_DISABLE_FILE_CHECKPOINTING`, read exactly as @fh/core reads it ("1" or "true"). */
export const DISABLE_VARIABLE = 'FH_DISABLE_FILE_CHECKPOINTING';

/** True when file checkpointing is switched off in `environment`. */
export function checkpointingDisabled(environment: NodeJS.ProcessEnv): boolean {
  return ['1', 'true'].includes((environment[DISABLE_VARIABLE] ?? '').trim().toLowerCase());
}

/**
 * Throw (exit 1) when checkpointing is off, so `track` and `snapshot` never claim work they did
 * not do, `list`, `diff` and `rewind` never call a session's checkpoints missing, and `undo`
 * writes no file. `hint` is added after the message (what still works).
 */
export function assertCheckpointingEnabled(context: { environment: NodeJS.ProcessEnv }, hint?: string): void {
  if (checkpointingDisabled(context.environment)) {
    throw new Error(`file checkpointing is disabled (${DISABLE_VARIABLE})${hint === undefined ? '' : `: ${hint}`}`);
  }
}
