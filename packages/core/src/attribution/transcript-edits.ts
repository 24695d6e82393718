/**
 * Attribution for Claude Code's own sessions (issue 14): Claude Code backs up only the main
 * agent's first edit of a file per turn and nothing of sub-agents' (seed 004 §8), so who changed
 * what is read from the transcripts instead — the main transcript (`isSidechain: false` records)
 * and each sub-agent's transcript (`subagents/agent-<agentId>.jsonl`, records with
 * `isSidechain: true` and `agentId`). An edit is an `assistant` record's `tool_use` block named
 * `Edit`, `Write`, `MultiEdit` (`input.file_path`) or `NotebookEdit` (`input.notebook_path`),
 * at the record's `timestamp`, unless its `tool_result` says `is_error: true` (the tool changed
 * nothing). The files are read by `@fh/store-fs` (`claude-subagents.ts`); this module only parses.
 */
import { toTrackingPath } from '../paths.js';
import type { FileHistorySnapshot, FileHistoryState } from '../types.js';
import { agentFromIds, attributionFor, MAIN_AGENT, withAttribution, type AgentIdentity } from './agents.js';

/** Tools whose calls change one file, with the input field naming it. */
const EDIT_TOOLS: Readonly<Record<string, string>> = { Edit: 'file_path', Write: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' };

/** One file change read from a transcript. */
export interface TranscriptEdit {
  /** The path as the tool call gave it (absolute in Claude Code transcripts). */
  path: string;
  agent: AgentIdentity;
  /** The assistant record's timestamp. */
  at: Date;
  /** The tool (`Edit`, `Write`, `MultiEdit`, `NotebookEdit`). */
  tool: string;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contentBlocks(record: JsonObject): JsonObject[] {
  const message = record.message;
  if (!isObject(message) || !Array.isArray(message.content)) return [];
  return message.content.filter(isObject);
}

/**
 * The file edits in one transcript's records, in file order. In a sub-agent transcript every
 * record names its agent (`agentId`, and since about 2.1.248 `attributionAgent`, its type);
 * `agent` supplies what the records do not (a type from the `.meta.json` or the parent's
 * `toolUseResult`). Main-transcript records with `isSidechain: true` (older versions wrote
 * sidechains inline) count only when they carry an `agentId`. Never throws.
 */
export function editsFromTranscript(records: Iterable<unknown>, agent: AgentIdentity = MAIN_AGENT): TranscriptEdit[] {
  const failed = new Set<string>();
  const calls: Array<TranscriptEdit & { id: string | undefined }> = [];
  for (const record of records) {
    if (!isObject(record)) continue;
    if (record.type === 'user') {
      for (const block of contentBlocks(record)) {
        if (block.type === 'tool_result' && block.is_error === true && typeof block.tool_use_id === 'string') failed.add(block.tool_use_id);
      }
      continue;
    }
    if (record.type !== 'assistant') continue;
    const at = typeof record.timestamp === 'string' ? new Date(Date.parse(record.timestamp)) : undefined;
    if (at === undefined || Number.isNaN(at.getTime())) continue;
    let recordAgent = agent;
    if (typeof record.agentId === 'string' && record.agentId !== '') {
      const type = typeof record.attributionAgent === 'string' ? record.attributionAgent : agent.by === 'subagent' ? agent.agentType : undefined;
      recordAgent = agentFromIds(record.agentId, type);
    } else if (record.isSidechain === true && agent.by === 'main') {
      continue;
    }
    for (const block of contentBlocks(record)) {
      if (block.type !== 'tool_use' || typeof block.name !== 'string') continue;
      const field = EDIT_TOOLS[block.name];
      if (field === undefined || !isObject(block.input)) continue;
      const path = block.input[field];
      if (typeof path !== 'string' || path === '') continue;
      calls.push({ path, agent: recordAgent, at, tool: block.name, id: typeof block.id === 'string' ? block.id : undefined });
    }
  }
  return calls.filter((call) => call.id === undefined || !failed.has(call.id)).map(({ id: _id, ...edit }) => edit);
}

/**
 * Sub-agent types the main transcript names, by agent id: from each Task/Agent call's
 * `toolUseResult` (`{agentId, agentType}`), or, when the result has no type, the call's
 * `input.subagent_type` joined through `tool_use_id`. Never throws.
 */
export function subagentTypesFromTranscript(records: Iterable<unknown>): Map<string, string> {
  const requested = new Map<string, string>();
  const types = new Map<string, string>();
  for (const record of records) {
    if (!isObject(record)) continue;
    if (record.type === 'assistant') {
      for (const block of contentBlocks(record)) {
        if (block.type === 'tool_use' && typeof block.id === 'string' && isObject(block.input) && typeof block.input.subagent_type === 'string') {
          requested.set(block.id, block.input.subagent_type);
        }
      }
      continue;
    }
    if (record.type !== 'user' || !isObject(record.toolUseResult)) continue;
    const result = record.toolUseResult;
    if (typeof result.agentId !== 'string' || result.agentId === '') continue;
    if (typeof result.agentType === 'string' && result.agentType !== '') {
      types.set(result.agentId, result.agentType);
      continue;
    }
    for (const block of contentBlocks(record)) {
      const type = block.type === 'tool_result' && typeof block.tool_use_id === 'string' ? requested.get(block.tool_use_id) : undefined;
      if (type !== undefined) types.set(result.agentId, type);
    }
  }
  return types;
}

/** Options of {@link attributeEdits}. */
export interface AttributeEditsOptions {
  /** Absolute project root: edits outside it are ignored. */
  projectRoot: string;
}

/** What {@link attributeEdits} gives. */
export interface AttributedState {
  /** The state with each edit attributed to its turn's entry (a new state; the given one is not changed). */
  state: FileHistoryState;
  /**
   * Edits of files the turn's snapshot does not track (Claude Code made no backup of them:
   * a sub-agent's file no snapshot covers), or made before the first snapshot: nothing can
   * rewind them. Tracking paths, in time order.
   */
  untracked: Array<TranscriptEdit & { trackingPath: string }>;
}

/**
 * Attribute `edits` to `state` (a Claude Code session's): each edit, in time order, goes to the
 * turn it happened in — the newest snapshot taken at or before it — as `withAttribution` on that
 * snapshot's entry for the file. Edits outside the project root are dropped. Pure.
 */
export function attributeEdits(state: Readonly<FileHistoryState>, edits: readonly TranscriptEdit[], options: AttributeEditsOptions): AttributedState {
  const snapshots = [...state.snapshots];
  const copied = new Set<number>();
  const untracked: AttributedState['untracked'] = [];
  const ordered = edits.map((edit, index) => ({ edit, index })).sort((a, b) => a.edit.at.getTime() - b.edit.at.getTime() || a.index - b.index);
  for (const { edit } of ordered) {
    let trackingPath: string;
    try {
      trackingPath = toTrackingPath(options.projectRoot, edit.path);
    } catch {
      continue;
    }
    const turn = turnAt(snapshots, edit.at.getTime());
    const snapshot = turn === -1 ? undefined : snapshots[turn];
    const entry = snapshot?.trackedFileBackups[trackingPath];
    if (snapshot === undefined || entry === undefined) {
      untracked.push({ ...edit, trackingPath });
      continue;
    }
    const attributed = withAttribution(entry, attributionFor(edit.agent, edit.at));
    if (attributed === entry) continue;
    let target: FileHistorySnapshot = snapshot;
    if (!copied.has(turn)) {
      target = { ...snapshot, trackedFileBackups: { ...snapshot.trackedFileBackups } };
      snapshots[turn] = target;
      copied.add(turn);
    }
    target.trackedFileBackups[trackingPath] = attributed;
  }
  return { state: { ...state, snapshots }, untracked };
}

/** Index of the newest snapshot whose timestamp is at or before `time` (snapshots are in turn order), or -1. */
function turnAt(snapshots: readonly FileHistorySnapshot[], time: number): number {
  let low = 0;
  let high = snapshots.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((snapshots[middle] as FileHistorySnapshot).timestamp.getTime() <= time) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}
