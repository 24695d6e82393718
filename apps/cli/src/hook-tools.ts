/** The agent tools whose edits `fh hook` tracks (Claude Code's file-writing tools). */
export const TRACKED_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;

/** The agent tool whose commands `fh hook` captures in command windows (see `command-window.ts`). */
export const COMMAND_TOOL = 'Bash';
