/**
 * The restore menu (seed 000 §2, MessageSelector): what a person may do with a chosen message.
 */
import type { RewindPreview } from './rewind-preview.js';

/**
 * - `both`: restore code and conversation (the default when code can be restored)
 * - `conversation`: rewind the conversation only
 * - `code`: restore the files only
 * - `summarize`: replace the message and everything after it with a summary (partial compact)
 * - `summarize_up_to`: replace everything before the message with a summary
 * - `nevermind`: do nothing
 */
export type RestoreMode = 'both' | 'conversation' | 'code' | 'summarize' | 'summarize_up_to' | 'nevermind';

/** One entry of the restore menu. */
export interface RestoreOption {
  mode: RestoreMode;
  /** A label for the menu, e.g. `Restore code and conversation`. */
  label: string;
  /** True for the option to preselect. */
  isDefault: boolean;
  /**
   * What the option would do to files (dry run): the rewind's stats for `both` and `code`, with
   * `changedSinceLatestSnapshot`; empty stats for the others, which change no file.
   */
  diffStats: RewindPreview;
}

/** Menu labels, as Claude Code words them. */
export const RESTORE_MODE_LABELS: Readonly<Record<RestoreMode, string>> = {
  both: 'Restore code and conversation',
  conversation: 'Restore conversation',
  code: 'Restore code',
  summarize: 'Summarize from here',
  summarize_up_to: 'Summarize up to here',
  nevermind: 'Never mind',
};

/** Diff stats of an option that changes no file. */
export function emptyDiffStats(): RewindPreview {
  return { filesChanged: [], insertions: 0, deletions: 0, files: [], changedSinceLatestSnapshot: [], refusals: [] };
}
