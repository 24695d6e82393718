/**
 * Who changed a tracked file (issue 14, seed 004 §8): the main agent or a sub-agent. Each backup
 * entry of a snapshot may carry `changedBy`, the agents that changed the file during that
 * entry's turn, each once, in the order of its first change. These helpers build, compare,
 * describe and parse those attributions; `agent-changes.ts` answers questions over a state.
 */
import type { EditAttribution, FileHistoryBackup } from '../types.js';

/** An agent without the time of a change: the main agent, or a sub-agent by id (and type). */
export type AgentIdentity = { by: 'main' } | { by: 'subagent'; agentId: string; agentType?: string };

/** The main agent (the conversation the user talks to). */
export const MAIN_AGENT: AgentIdentity = Object.freeze({ by: 'main' });

/**
 * The identity of a sub-agent from Claude Code's `agent_id` / `agent_type` (either may be absent):
 * the main agent when `agentId` is not a non-empty string.
 */
export function agentFromIds(agentId: unknown, agentType?: unknown): AgentIdentity {
  if (typeof agentId !== 'string' || agentId === '') return MAIN_AGENT;
  return typeof agentType === 'string' && agentType !== '' ? { by: 'subagent', agentId, agentType } : { by: 'subagent', agentId };
}

/** True when `a` and `b` are the same agent (sub-agents compare by id only). */
export function sameAgent(a: AgentIdentity, b: AgentIdentity): boolean {
  if (a.by === 'main' || b.by === 'main') return a.by === b.by;
  return a.agentId === b.agentId;
}

/** The identity part of an attribution (its time dropped). */
export function agentOf(attribution: EditAttribution): AgentIdentity {
  return attribution.by === 'main' ? MAIN_AGENT : agentFromIds(attribution.agentId, attribution.agentType);
}

/** The attribution of a change by `agent` at `at`. */
export function attributionFor(agent: AgentIdentity, at: Date): EditAttribution {
  if (agent.by === 'main') return { by: 'main', at };
  return agent.agentType === undefined ? { by: 'subagent', agentId: agent.agentId, at } : { by: 'subagent', agentId: agent.agentId, agentType: agent.agentType, at };
}

/** A stable key for maps: `main`, or `subagent:<agentId>`. */
export function agentKey(agent: AgentIdentity): string {
  return agent.by === 'main' ? 'main' : `subagent:${agent.agentId}`;
}

/** Words for messages: `the main agent`, or `sub-agent a96cf8a5 (general-purpose)`. */
export function describeAgent(agent: AgentIdentity): string {
  if (agent.by === 'main') return 'the main agent';
  return `sub-agent ${agent.agentId}${agent.agentType === undefined ? '' : ` (${agent.agentType})`}`;
}

/** True when `entry` records a change by `agent` in its turn. */
export function entryChangedBy(entry: FileHistoryBackup, agent: AgentIdentity): boolean {
  return entry.changedBy?.some((attribution) => sameAgent(agentOf(attribution), agent)) === true;
}

/**
 * `entry` with `attribution` added at the end of its `changedBy` (a new object), or `entry`
 * itself when that agent is already listed (only an agent's first change in a turn is kept).
 * A sub-agent first listed without a type gets the type when a later attribution has it.
 */
export function withAttribution(entry: FileHistoryBackup, attribution: EditAttribution): FileHistoryBackup {
  const agent = agentOf(attribution);
  const existing = entry.changedBy ?? [];
  const index = existing.findIndex((item) => sameAgent(agentOf(item), agent));
  if (index === -1) return { ...entry, changedBy: [...existing, attribution] };
  const found = existing[index] as EditAttribution;
  if (found.by === 'subagent' && found.agentType === undefined && attribution.by === 'subagent' && attribution.agentType !== undefined) {
    const changedBy = [...existing];
    changedBy[index] = { ...found, agentType: attribution.agentType };
    return { ...entry, changedBy };
  }
  return entry;
}

/** `entry` without `changedBy` (itself when it has none): a new turn's entry starts unattributed. */
export function withoutAttribution(entry: FileHistoryBackup): FileHistoryBackup {
  if (entry.changedBy === undefined) return entry;
  const { changedBy: _changedBy, ...rest } = entry;
  return rest;
}

/**
 * Parse a recorded `changedBy` value (an array of `{by, agentId?, agentType?, at}` with `at` as
 * an ISO-8601 string or a Date). Malformed items are dropped, each with one warning through
 * `warn` naming `where`; undefined when nothing valid remains. Never throws.
 */
export function parseChangedBy(value: unknown, where: string, warn: (message: string) => void): EditAttribution[] | undefined {
  if (!Array.isArray(value)) {
    warn(`${where}: changedBy is not an array; ignored`);
    return undefined;
  }
  const parsed: EditAttribution[] = [];
  for (const item of value) {
    const attribution = parseAttribution(item);
    if (attribution === undefined) warn(`${where}: changedBy item ${JSON.stringify(item)} is not an attribution; ignored`);
    else parsed.push(attribution);
  }
  return parsed.length === 0 ? undefined : parsed;
}

function parseAttribution(item: unknown): EditAttribution | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const record = item as Record<string, unknown>;
  const at = record.at instanceof Date ? new Date(record.at.getTime()) : typeof record.at === 'string' ? new Date(Date.parse(record.at)) : undefined;
  if (at === undefined || Number.isNaN(at.getTime())) return undefined;
  if (record.by === 'main') return { by: 'main', at };
  if (record.by !== 'subagent' || typeof record.agentId !== 'string' || record.agentId === '') return undefined;
  return typeof record.agentType === 'string' && record.agentType !== ''
    ? { by: 'subagent', agentId: record.agentId, agentType: record.agentType, at }
    : { by: 'subagent', agentId: record.agentId, at };
}
