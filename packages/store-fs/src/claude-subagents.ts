/**
 * Sub-agent transcripts of a Claude Code session, for attribution (issue 14). Claude Code writes
 * no backup for a sub-agent's edits (seed 004 §8); who changed which file is read from the
 * transcripts instead (see `attribution/transcript-edits.ts` in `@fh/core`).
 *
 * Layout, as public transcripts show it:
 * - Claude Code 2.1 and later: `projects/<key>/<sessionId>/subagents/agent-<agentId>.jsonl`, with
 *   an optional `agent-<agentId>.meta.json` (`{"agentType": …}`) beside it. Files named
 *   `agent-acompact-*.jsonl` are Claude Code's own compaction runs, not sub-agents: skipped.
 * - Older versions: `projects/<key>/agent-<agentId>.jsonl` beside the session's transcript, shared
 *   by every session of the project; a file belongs to this session when its records'
 *   `sessionId` is this session's.
 * Every record of a sub-agent transcript has `isSidechain: true`, `agentId` and the parent's
 * `sessionId`. The agent's type comes from the `.meta.json`, else the records' `attributionAgent`,
 * else the parent transcript's `toolUseResult.agentType` or the Task call's `subagent_type`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  agentFromIds,
  attributeEdits,
  editsFromTranscript,
  parseJsonl,
  subagentTypesFromTranscript,
  type AttributedState,
  type LogRecord,
  type TranscriptEdit,
} from '@fh/core';
import type { ClaudeCodeSession } from './claude-code.js';

/** One sub-agent transcript found for a session. */
export interface SubagentTranscript {
  agentId: string;
  /** The agent's type, when any source names it. */
  agentType: string | undefined;
  /** Absolute path of the transcript. */
  path: string;
  records: LogRecord[];
}

const AGENT_FILE = /^agent-(.+)\.jsonl$/;

/** Read a JSON file; undefined when it is missing or not JSON. */
async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

async function listOrEmpty(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder)).sort();
  } catch {
    return [];
  }
}

/**
 * The sub-agent transcripts of the session whose main transcript is `transcriptPath`, in both
 * layouts (see the module comment). `parentRecords` (the main transcript's) supply agent types the
 * sub-agent files do not. Unreadable files are skipped; corrupt lines are skipped as `parseJsonl`
 * does.
 */
export async function readSubagentTranscripts(transcriptPath: string, sessionId: string, parentRecords: readonly unknown[] = []): Promise<SubagentTranscript[]> {
  const folder = dirname(transcriptPath);
  const typesFromParent = subagentTypesFromTranscript(parentRecords);
  const found: SubagentTranscript[] = [];
  const nested = join(folder, sessionId, 'subagents');
  const candidates = [
    ...(await listOrEmpty(nested)).map((name) => ({ path: join(nested, name), shared: false })),
    ...(await listOrEmpty(folder)).map((name) => ({ path: join(folder, name), shared: true })),
  ];
  for (const candidate of candidates) {
    const match = AGENT_FILE.exec(basename(candidate.path));
    if (match === null || match[1] === undefined || match[1].startsWith('acompact-')) continue;
    let text: string;
    try {
      text = await readFile(candidate.path, 'utf8');
    } catch {
      continue;
    }
    const { records } = parseJsonl(text);
    if (candidate.shared && !records.some((record) => record.sessionId === sessionId)) continue;
    const recorded = records.find((record) => typeof record.agentId === 'string' && record.agentId !== '')?.agentId as string | undefined;
    const agentId = recorded ?? match[1];
    const meta = await readJson(candidate.path.replace(/\.jsonl$/, '.meta.json'));
    const metaType = typeof meta === 'object' && meta !== null && typeof (meta as { agentType?: unknown }).agentType === 'string' ? (meta as { agentType: string }).agentType : undefined;
    const recordType = records.find((record) => typeof record.attributionAgent === 'string')?.attributionAgent as string | undefined;
    found.push({ agentId, agentType: metaType ?? recordType ?? typesFromParent.get(agentId), path: candidate.path, records });
  }
  return found;
}

/** What {@link attributeClaudeSession} gives: the attributed state, the edits nothing can rewind, the sub-agents read. */
export interface ClaudeSessionAttribution extends AttributedState {
  subagents: Array<{ agentId: string; agentType: string | undefined; path: string; edits: number }>;
}

/**
 * `session`'s state with every change attributed (issue 14): the main agent's Edit/Write/
 * MultiEdit/NotebookEdit calls from the main transcript and each sub-agent's from its own
 * transcript, each to the turn it happened in (see `attributeEdits`). A session without a
 * transcript path comes back unchanged.
 */
export async function attributeClaudeSession(session: ClaudeCodeSession): Promise<ClaudeSessionAttribution> {
  if (session.transcriptPath === undefined) return { state: session.state, untracked: [], subagents: [] };
  const transcripts = await readSubagentTranscripts(session.transcriptPath, session.sessionId, session.records);
  const edits: TranscriptEdit[] = editsFromTranscript(session.records);
  const subagents: ClaudeSessionAttribution['subagents'] = [];
  for (const transcript of transcripts) {
    const own = editsFromTranscript(transcript.records, agentFromIds(transcript.agentId, transcript.agentType));
    edits.push(...own);
    subagents.push({ agentId: transcript.agentId, agentType: transcript.agentType, path: transcript.path, edits: own.length });
  }
  return { ...attributeEdits(session.state, edits, { projectRoot: session.projectRoot }), subagents };
}
