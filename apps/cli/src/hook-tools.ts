/** The agent tools whose edits `fh hook` tracks (Claude Code's file-writing tools). */
export const TRACKED_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;
