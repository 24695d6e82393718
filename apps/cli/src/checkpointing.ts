/** `FH_DISABLE_FILE_CHECKPOINTING`, read exactly as @fh/core reads it ("1" or "true"). */
export const DISABLE_VARIABLE = 'FH_DISABLE_FILE_CHECKPOINTING';

/** True when file checkpointing is switched off in `environment`. */
export function checkpointingDisabled(environment: NodeJS.ProcessEnv): boolean {
  return ['1', 'true'].includes((environment[DISABLE_VARIABLE] ?? '').trim().toLowerCase());
}
