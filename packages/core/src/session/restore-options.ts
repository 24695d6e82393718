/**
 * The restore menu (seed 000 §2, MessageSelector): what a person may do with a chosen message.
 */
import type { AgentIdentity } from '../attribution/agents.js';
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
   * `changedSinceLatestSnapshot`; empty stats for the others, which change no file. For an
   * option with `agent`: the stats of that agent's files only, and in `diffStats.agent` the files
   * it covers and the conflicts it leaves alone (see `RewindPreview.agent`).
   */
  diffStats: RewindPreview;
  /**
   * "Only this sub-agent's changes" (issue 14; mode `code`): restoring this option is
   * `restore({ messageId, mode: 'code', agent: agent.agentId })`, which rewinds only the files
   * that sub-agent changed after the checkpoint and leaves those another agent changed too.
   * Absent for every other option.
   */
  agent?: Extract<AgentIdentity, { by: 'subagent' }>;
}

/** The label of the "only this sub-agent's changes" option of `agent`. */
export function subagentOptionLabel(agent: { agentId: string; agentType?: string }): string {
  return `Restore code: only the changes of sub-agent ${agent.agentId}${agent.agentType === undefined ? '' : ` (${agent.agentType})`}`;
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
