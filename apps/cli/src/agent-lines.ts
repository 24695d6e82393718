/**
 * How the CLI shows attribution (issue 14): which agent changed which files in a turn, and the
 * conflicts of a rewind limited to one agent (`--agent`).
 */
import type { AgentIdentity, AgentSelection, AgentTurnChanges } from '@fh/core';
import { displayPath, escapeControl } from './format.js';
import type { Colors } from './output.js';

/** `main`, or `sub-agent a96cf8a5 (general-purpose)` with the id in full. */
export function agentLabel(agent: AgentIdentity): string {
  if (agent.by === 'main') return 'main agent';
  return escapeControl(`sub-agent ${agent.agentId}${agent.agentType === undefined ? '' : ` (${agent.agentType})`}`);
}

/** The JSON shape of an agent: `{ "by": "main" }` or `{ "by": "subagent", "agentId", "agentType" }` (`agentType` null when unknown). */
export function agentDocument(agent: AgentIdentity): { by: 'main' | 'subagent'; agentId: string | null; agentType: string | null } {
  return agent.by === 'main' ? { by: 'main', agentId: null, agentType: null } : { by: 'subagent', agentId: agent.agentId, agentType: agent.agentType ?? null };
}

/** One line per agent of a turn: `    sub-agent a1 (Explore): src/a.ts, src/b.ts`. */
export function turnAgentLines(changes: readonly AgentTurnChanges[], indent = '    '): string[] {
  return changes.map((change) => `${indent}${agentLabel(change.agent)}: ${change.paths.map(displayPath).join(', ')}`);
}

/** The JSON of an agent selection: the agent, the paths it covers, the conflicts with who changed them. */
export function selectionDocument(selection: AgentSelection) {
  return {
    ...agentDocument(selection.agent),
    paths: selection.paths,
    conflicts: selection.conflicts.map((conflict) => ({ path: conflict.path, changedBy: conflict.changedBy.map(agentDocument) })),
  };
}

/** The heading line of a selection: `Only <agent>'s changes: N files; M conflicts left alone`. */
export function selectionLines(selection: AgentSelection, colors: Colors): string[] {
  const conflicts = selection.conflicts.length;
  return [
    `Only the changes of the ${agentLabel(selection.agent)}: ${selection.paths.length} file${selection.paths.length === 1 ? '' : 's'}` +
      (conflicts === 0 ? '' : colors.yellow(`; ${conflicts} changed by other agents too, left alone (name them with --paths to rewind them anyway)`)),
  ];
}
