/**
 * Questions over the attributions in a state (issue 14): which agent changed which files in each
 * turn, and — for a rewind of one agent's changes (`--agent`) — which files that agent changed
 * after a checkpoint and which of them another agent changed too (conflicts).
 *
 * A file's changes after the checkpoint of message M are the `changedBy` lists of its entries in
 * M's snapshot and every later one, in turn order: an entry's list holds who changed the file
 * during that entry's turn, which starts when the snapshot is taken.
 */
import { InvalidArgumentError, NotFoundError } from '../errors.js';
import { toTrackingPath } from '../paths.js';
import { findSnapshot } from '../state/state-queries.js';
import type { EditAttribution, FileHistorySnapshot, FileHistoryState } from '../types.js';
import { agentKey, agentOf, describeAgent, MAIN_AGENT, sameAgent, type AgentIdentity } from './agents.js';

/** One agent's changes in a turn: the tracked files it changed, sorted. */
export interface AgentTurnChanges {
  agent: AgentIdentity;
  paths: string[];
}

/**
 * Who changed what in the turn of `snapshot`: one entry per agent, the main agent first, then
 * sub-agents in the order of their first change; paths sorted. Empty when nothing was attributed.
 */
export function turnAgentChanges(snapshot: FileHistorySnapshot): AgentTurnChanges[] {
  const byAgent = new Map<string, { agent: AgentIdentity; first: number; paths: string[] }>();
  for (const path of Object.keys(snapshot.trackedFileBackups).sort()) {
    for (const attribution of snapshot.trackedFileBackups[path]?.changedBy ?? []) {
      const agent = agentOf(attribution);
      const key = agentKey(agent);
      const found = byAgent.get(key);
      if (found === undefined) byAgent.set(key, { agent, first: agent.by === 'main' ? -Infinity : attribution.at.getTime(), paths: [path] });
      else {
        found.paths.push(path);
        if (agent.by !== 'main' && attribution.at.getTime() < found.first) found.first = attribution.at.getTime();
        if (found.agent.by === 'subagent' && found.agent.agentType === undefined && agent.by === 'subagent' && agent.agentType !== undefined) found.agent = agent;
      }
    }
  }
  return [...byAgent.values()].sort((a, b) => a.first - b.first).map(({ agent, paths }) => ({ agent, paths }));
}

/** A file the chosen agent changed after the checkpoint that other agents changed too. */
export interface AgentConflict {
  /** Tracking path. */
  path: string;
  /** The other agents that changed it after the checkpoint, in the order of their first change. */
  changedBy: AgentIdentity[];
}

/** What a rewind of one agent's changes covers (see {@link selectAgentChanges}). */
export interface AgentSelection {
  /** The agent the query named. */
  agent: AgentIdentity;
  /** Tracking paths to rewind, sorted: the agent's files no other agent changed, plus conflicts named in `paths`. */
  paths: string[];
  /** The agent's files other agents changed too and `paths` did not name: left alone. */
  conflicts: AgentConflict[];
}

/** Options of {@link selectAgentChanges}. */
export interface SelectAgentOptions {
  /** Absolute project root, for `paths`. */
  projectRoot: string;
  /**
   * Conflicting files to rewind anyway (absolute, or relative to the project root). Each must be
   * a file the agent changed after the checkpoint, else `InvalidArgumentError`.
   */
  paths?: readonly string[];
}

/**
 * Every agent named in the attributions of the snapshot of `messageId` and later ones: the main
 * agent first, then sub-agents in the order of their first change.
 */
export function agentsSince(state: Readonly<FileHistoryState>, messageId: string): AgentIdentity[] {
  const found = new Map<string, { agent: AgentIdentity; first: number }>();
  for (const [, chain] of changesSince(state, messageId)) {
    for (const attribution of chain) {
      const agent = agentOf(attribution);
      const key = agentKey(agent);
      const time = agent.by === 'main' ? -Infinity : attribution.at.getTime();
      const known = found.get(key);
      if (known === undefined) {
        found.set(key, { agent, first: time });
        continue;
      }
      if (time < known.first) known.first = time;
      if (known.agent.by === 'subagent' && known.agent.agentType === undefined && agent.by === 'subagent' && agent.agentType !== undefined) known.agent = agent;
    }
  }
  return [...found.values()].sort((a, b) => a.first - b.first).map((entry) => entry.agent);
}

/**
 * The agent `query` names among those that changed files after the checkpoint of `messageId`:
 * `main` for the main agent, else a sub-agent id or a unique prefix of one. Throws
 * `NotFoundError` when no snapshot has `messageId` or no such agent changed anything after it
 * (naming the agents that did), `InvalidArgumentError` for an empty query or a prefix shared by
 * several agents (naming them).
 */
export function resolveAgent(state: Readonly<FileHistoryState>, messageId: string, query: string): AgentIdentity {
  if (typeof query !== 'string' || query.trim() === '') throw new InvalidArgumentError(`an agent id must be a non-empty string, got ${JSON.stringify(query)}`);
  if (findSnapshot(state as FileHistoryState, messageId) === undefined) throw new NotFoundError(`no snapshot for message ${messageId}`);
  const agents = agentsSince(state, messageId);
  const subagents = agents.filter((agent): agent is Extract<AgentIdentity, { by: 'subagent' }> => agent.by === 'subagent');
  const exact = subagents.find((agent) => agent.agentId === query);
  if (exact !== undefined) return exact;
  if (query === 'main') {
    if (agents.some((agent) => agent.by === 'main')) return MAIN_AGENT;
  }
  const matches = subagents.filter((agent) => agent.agentId.startsWith(query));
  if (matches.length === 1) return matches[0] as AgentIdentity;
  const known = agents.length === 0 ? 'no agent changed a tracked file after it' : `agents that did: ${agents.map(shortName).join(', ')}`;
  if (matches.length === 0) throw new NotFoundError(`no agent ${JSON.stringify(query)} changed a tracked file after the checkpoint ${messageId} (${known})`);
  throw new InvalidArgumentError(`agent id ${JSON.stringify(query)} is ambiguous: it starts ${matches.map(shortName).join(', ')}; give more of the id`);
}

function shortName(agent: AgentIdentity): string {
  return agent.by === 'main' ? 'main' : `${agent.agentId}${agent.agentType === undefined ? '' : ` (${agent.agentType})`}`;
}

/**
 * Which files a rewind of `query`'s changes after the checkpoint of `messageId` covers
 * (`fh rewind <id> --agent <agentId>`): the files that agent changed in the checkpoint's turn or
 * later. A file another agent (or the main agent) also changed after the checkpoint is a
 * conflict — restoring it would undo their change too — and is left out unless `options.paths`
 * names it. Throws like {@link resolveAgent}, and `InvalidArgumentError` for a path in
 * `options.paths` the agent did not change after the checkpoint. Pure: reads `state` only.
 */
export function selectAgentChanges(state: Readonly<FileHistoryState>, messageId: string, query: string, options: SelectAgentOptions): AgentSelection {
  const agent = resolveAgent(state, messageId, query);
  const named = new Set((options.paths ?? []).map((path) => toTrackingPath(options.projectRoot, path)));
  const paths: string[] = [];
  const conflicts: AgentConflict[] = [];
  const changed = new Set<string>();
  for (const [path, chain] of changesSince(state, messageId)) {
    if (!chain.some((attribution) => sameAgent(agentOf(attribution), agent))) continue;
    changed.add(path);
    const others = new Map<string, AgentIdentity>();
    for (const attribution of chain) {
      const other = agentOf(attribution);
      if (!sameAgent(other, agent) && !others.has(agentKey(other))) others.set(agentKey(other), other);
    }
    if (others.size === 0 || named.has(path)) paths.push(path);
    else conflicts.push({ path, changedBy: [...others.values()] });
  }
  for (const path of named) {
    if (!changed.has(path)) throw new InvalidArgumentError(`${path} was not changed by ${describeAgent(agent)} after the checkpoint ${messageId}; --paths with --agent names that agent's conflicting files only`);
  }
  return { agent, paths: paths.sort(), conflicts: conflicts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

/** The `skipped` entry a conflict becomes in a rewind's result or dry run. */
export function conflictSkip(conflict: AgentConflict): { path: string; reason: string } {
  return {
    path: conflict.path,
    reason: `also changed by ${conflict.changedBy.map(describeAgent).join(', ')} after the checkpoint; left alone (name it with --paths to rewind it anyway)`,
  };
}

/** Tracking path → every attribution after the checkpoint of `messageId`, in turn order. Empty when there is no such snapshot. */
function changesSince(state: Readonly<FileHistoryState>, messageId: string): Map<string, EditAttribution[]> {
  const chains = new Map<string, EditAttribution[]>();
  const snapshot = findSnapshot(state as FileHistoryState, messageId);
  if (snapshot === undefined) return chains;
  for (let index = state.snapshots.lastIndexOf(snapshot); index < state.snapshots.length; index += 1) {
    const backups = (state.snapshots[index] as FileHistorySnapshot).trackedFileBackups;
    for (const path in backups) {
      const changedBy = backups[path]?.changedBy;
      if (changedBy === undefined) continue;
      const chain = chains.get(path);
      if (chain === undefined) chains.set(path, [...changedBy]);
      else chain.push(...changedBy);
    }
  }
  return chains;
}
