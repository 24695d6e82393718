/**
 * The interactive rewind menu (seed 000 §2, MessageSelector), drawn with Ink. Screens, each a step
 * back from the next (Esc):
 *
 * 1. The prompts a person typed, newest first, each with what a code rewind there would change
 *    (files, +/-). The cursor starts on the virtual "current prompt" entry, so a stray Enter does
 *    nothing. `/` filters the prompts by text (typing narrows; Enter keeps the filter; Esc clears
 *    it).
 * 2. Choosing a prompt shows the restore options — code and conversation (the default), the
 *    conversation only, the code only, summarize from here / up to here when a summarize command
 *    is set — with the files and +/- the code options would change, and "never mind". Code
 *    options appear only where the prompt has a checkpoint, conversation options only where the
 *    prompt was recorded. `f` (or →) lists the files. When sub-agents changed files in that turn,
 *    each gets "Restore code: only the changes of sub-agent …" (issue 14): a rewind of just the
 *    files that agent changed after the checkpoint, files other agents changed too left alone.
 * 3. The files the code rewind changes; Enter (or →) shows the selected file's patch (4), which
 *    scrolls.
 *
 * Keys everywhere: ↑/↓ (k/j), PgUp/PgDn, Home/End (g/G), Enter, Esc one screen back (on the
 * prompt list: never mind), `q` never mind, Ctrl-C interrupted (the caller exits 130). Every row
 * is cut to the terminal's width and the list scrolls so the selection is always on screen. The
 * menu only chooses; the caller runs the rewind.
 */
import { Box, render, Text, useApp, useInput, useStdout, type Key } from 'ink';
import { useEffect, useReducer, useState, type ReactNode } from 'react';
import type { RestoreOption, RewindPreview } from '@fh/core';
import { displayId, displayPath, excerpt, formatTime, plural } from '../format.js';
import { reasonText, refusalText, REWIND_ACTION } from '../render-stats.js';

/** What a rewind can restore, or summarize (seed 000 §2). */
export type RewindMode = 'both' | 'code' | 'conversation' | 'summarize' | 'summarize_up_to';

/** One entry of the menu's first screen. */
export interface MenuEntry {
  /** The message (or checkpoint) id; ignored for the current prompt. */
  messageId: string;
  /** The virtual "current prompt" entry (always first on screen). */
  isCurrent: boolean;
  /** The prompt text ('' when not recorded). */
  text: string;
  timestamp: Date | undefined;
  /** The prompt is a recorded message: the conversation can be rewound to it. */
  hasMessage: boolean;
  /** A checkpoint exists: the code can be rewound to it. */
  canRestore: boolean;
  /** Messages come before the prompt (summarize up to here has something to summarize). */
  hasEarlierMessages?: boolean;
  /** The dry run of a code rewind (when `canRestore`). */
  stats: RewindPreview | undefined;
  /** What the rewind would change outside the project (left unless `--include-outside`); absent when the session tracked nothing there. */
  outside?: RewindPreview;
  /**
   * The "only this sub-agent's changes" options of this turn (`RewindSession.subagentOptions`):
   * one per sub-agent that changed files in it, each offered after "Restore code".
   */
  subagentOptions?: readonly RestoreOption[];
}

/** What the person chose. */
export interface MenuChoice {
  messageId: string;
  mode: RewindMode;
  /** "Only this sub-agent's changes": the sub-agent's id (mode `code`). */
  agent?: string;
}

/** Options of {@link runRewindMenu}. */
export interface RewindMenuOptions {
  /** A summarize command is set: offer summarize / summarize up to here on recorded prompts. */
  canSummarize?: boolean;
  /** The git-style patch of one file of a code rewind to `messageId` (the patch preview). */
  loadPatch?: (messageId: string, path: string) => Promise<string>;
}

type OptionId = RewindMode | 'nevermind';

const OPTION_LABELS: Record<OptionId, string> = {
  both: 'Restore code and conversation',
  conversation: 'Restore conversation',
  code: 'Restore code',
  summarize: 'Summarize from here',
  summarize_up_to: 'Summarize up to here',
  nevermind: 'Never mind',
};

/** A restore option: a mode, or the code of one sub-agent only (issue 14). */
export type MenuOption = OptionId | { agentId: string; label: string };

/** The restore options an entry offers, default first (seed 000 §2). */
export function optionsFor(entry: MenuEntry, canSummarize = false): MenuOption[] {
  const options: MenuOption[] = [];
  if (entry.canRestore && entry.hasMessage) options.push('both');
  if (entry.hasMessage) options.push('conversation');
  if (entry.canRestore) {
    options.push('code');
    for (const option of entry.subagentOptions ?? []) {
      if (option.agent !== undefined) options.push({ agentId: option.agent.agentId, label: option.label });
    }
  }
  if (canSummarize && entry.hasMessage) {
    options.push('summarize');
    if (entry.hasEarlierMessages === true) options.push('summarize_up_to');
  }
  options.push('nevermind');
  return options;
}

function optionLabel(option: MenuOption): string {
  return typeof option === 'string' ? OPTION_LABELS[option] : option.label;
}

function optionKey(option: MenuOption): string {
  return typeof option === 'string' ? option : `agent-${option.agentId}`;
}

function statsSummary(entry: MenuEntry): string {
  if (entry.isCurrent) return '';
  if (!entry.canRestore) return 'no checkpoint (conversation only)';
  const stats = entry.stats;
  if (stats === undefined) return '';
  const refused = stats.refusals.length > 0 ? ' (refused)' : '';
  const outside = entry.outside === undefined || entry.outside.files.length === 0 ? '' : `; outside the project ${entry.outside.files.length} +${entry.outside.insertions} -${entry.outside.deletions}`;
  if (stats.files.length === 0) return `no file changes${outside}${refused}`;
  return `${plural(stats.files.length, 'file')} +${stats.insertions} -${stats.deletions}${outside}${refused}`;
}

/** The first visible row of a window of `size` rows over `count` rows that shows `cursor`, about centred. */
function windowStart(cursor: number, count: number, size: number): number {
  return Math.max(0, Math.min(cursor - Math.floor(size / 2), count - size));
}

/** The terminal's size (80×24 when unknown). */
function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  return { columns: Math.max(20, stdout.columns || 80), rows: Math.max(8, stdout.rows || 24) };
}

/** One row cut to the terminal's width. */
function Row(props: { width: number; children: ReactNode }) {
  return (
    <Box width={props.width} height={1} overflow="hidden">
      <Text wrap="truncate-end">{props.children}</Text>
    </Box>
  );
}

/** The menu's state: which screen, the cursors, the filter, and the outcome once chosen. */
interface MenuState {
  screen: 'list' | 'options' | 'files' | 'patch';
  /** Index into the filtered entries. */
  listCursor: number;
  optionCursor: number;
  fileCursor: number;
  /** First line of the patch shown. */
  patchTop: number;
  /** The prompt filter ('' = none). */
  filter: string;
  /** Typing the filter (after `/`). */
  typing: boolean;
  /** `undefined` while choosing; a choice, `null` for never mind, `'interrupted'` for Ctrl-C. */
  outcome: MenuChoice | null | 'interrupted' | undefined;
}

type MenuAction =
  | { type: 'key'; input: string; key: Key }
  | { type: 'move'; by: number }
  | { type: 'first' }
  | { type: 'last' }
  | { type: 'enter' }
  | { type: 'back' }
  | { type: 'files' }
  | { type: 'quit' }
  | { type: 'interrupt' }
  | { type: 'startFilter' }
  | { type: 'type'; text: string }
  | { type: 'erase' };

/** What the reducer needs besides the state. */
interface MenuContext {
  entries: readonly MenuEntry[];
  canSummarize: boolean;
  /** Lines of the patch on screen (for scrolling). */
  patchLines: number;
  /** Rows PgUp/PgDn move by. */
  page: number;
}

/** What a key does on the screen `state` shows (undefined: nothing). */
function keyAction(state: MenuState, input: string, key: Key, page: number): Exclude<MenuAction, { type: 'key' }> | undefined {
  if (key.ctrl && input === 'c') return { type: 'interrupt' };
  const moving = key.upArrow || key.downArrow || key.pageUp || key.pageDown;
  if (state.typing && !key.escape && !key.return && !moving) {
    if (key.backspace || key.delete) return { type: 'erase' };
    return input !== '' && !key.ctrl && !key.meta ? { type: 'type', text: input } : undefined;
  }
  if (key.escape || (key.leftArrow && state.screen !== 'list')) return { type: 'back' };
  if (key.upArrow || input === 'k') return { type: 'move', by: -1 };
  if (key.downArrow || input === 'j') return { type: 'move', by: 1 };
  if (key.pageUp) return { type: 'move', by: -page };
  if (key.pageDown) return { type: 'move', by: page };
  if (key.home || input === 'g') return { type: 'first' };
  if (key.end || input === 'G') return { type: 'last' };
  if (key.return) return { type: 'enter' };
  if (input === 'q') return { type: 'quit' };
  if (input === '/' && state.screen === 'list') return { type: 'startFilter' };
  if (input === 'f' || key.rightArrow) return { type: 'files' };
  return undefined;
}

/** The entries the filter lets through; the current prompt always stays. */
export function filterEntries(entries: readonly MenuEntry[], filter: string): MenuEntry[] {
  const needle = filter.toLowerCase();
  return needle === '' ? [...entries] : entries.filter((entry) => entry.isCurrent || entry.text.toLowerCase().includes(needle));
}

const clamp = (value: number, count: number): number => Math.max(0, Math.min(count - 1, value));

/**
 * One key's effect. A reducer, so keys that arrive together (typed fast, pasted) each act on the
 * state the previous key left.
 */
function reduceMenu(context: MenuContext, state: MenuState, given: MenuAction): MenuState {
  if (state.outcome !== undefined) return state;
  const action = given.type === 'key' ? keyAction(state, given.input, given.key, context.page) : given;
  if (action === undefined) return state;
  if (action.type === 'interrupt') return { ...state, outcome: 'interrupted' };
  const visible = filterEntries(context.entries, state.filter);
  const chosen = visible[state.listCursor] as MenuEntry;
  if (state.typing) {
    if (action.type === 'type') return { ...state, filter: state.filter + action.text, listCursor: firstMatch(context.entries, state.filter + action.text) };
    if (action.type === 'erase') return { ...state, filter: state.filter.slice(0, -1), listCursor: firstMatch(context.entries, state.filter.slice(0, -1)) };
    if (action.type === 'back') return { ...state, typing: false, filter: '', listCursor: 0 };
    if (action.type === 'enter') return { ...state, typing: false };
    if (action.type !== 'move' && action.type !== 'first' && action.type !== 'last') return state;
  }
  if (action.type === 'quit') return { ...state, outcome: null };
  const moveIn = (cursor: number, count: number): number =>
    action.type === 'move' ? clamp(cursor + action.by, count) : action.type === 'first' ? 0 : action.type === 'last' ? Math.max(0, count - 1) : cursor;
  switch (state.screen) {
    case 'list': {
      if (action.type === 'move' || action.type === 'first' || action.type === 'last') return { ...state, listCursor: moveIn(state.listCursor, visible.length) };
      if (action.type === 'startFilter') return { ...state, typing: true };
      if (action.type === 'back') return state.filter !== '' ? { ...state, filter: '', listCursor: 0 } : { ...state, outcome: null };
      if (action.type === 'enter') return chosen.isCurrent ? state : { ...state, screen: 'options', optionCursor: 0 };
      return state;
    }
    case 'options': {
      const options = optionsFor(chosen, context.canSummarize);
      if (action.type === 'move' || action.type === 'first' || action.type === 'last') return { ...state, optionCursor: moveIn(state.optionCursor, options.length) };
      if (action.type === 'back') return { ...state, screen: 'list' };
      if (action.type === 'files') return (chosen.stats?.files.length ?? 0) > 0 ? { ...state, screen: 'files', fileCursor: 0 } : state;
      if (action.type === 'enter') {
        const option = options[state.optionCursor] as MenuOption;
        if (typeof option !== 'string') return { ...state, outcome: { messageId: chosen.messageId, mode: 'code', agent: option.agentId } };
        return { ...state, outcome: option === 'nevermind' ? null : { messageId: chosen.messageId, mode: option } };
      }
      return state;
    }
    case 'files': {
      const count = chosen.stats?.files.length ?? 0;
      if (action.type === 'move' || action.type === 'first' || action.type === 'last') return { ...state, fileCursor: moveIn(state.fileCursor, count) };
      if (action.type === 'back') return { ...state, screen: 'options' };
      if (action.type === 'enter' || action.type === 'files') return { ...state, screen: 'patch', patchTop: 0 };
      return state;
    }
    case 'patch': {
      if (action.type === 'move' || action.type === 'first' || action.type === 'last') return { ...state, patchTop: moveIn(state.patchTop, context.patchLines) };
      if (action.type === 'back') return { ...state, screen: 'files' };
      return state;
    }
  }
}

/** The cursor after the filter changed: the first prompt that matches (0, the current prompt, when none does). */
function firstMatch(entries: readonly MenuEntry[], filter: string): number {
  const visible = filterEntries(entries, filter);
  return visible.length > 1 ? 1 : 0;
}

function PromptList(props: { entries: MenuEntry[]; total: number; state: MenuState; columns: number; rows: number }) {
  const { entries, state, columns } = props;
  const filterLine = state.typing || state.filter !== '';
  const size = Math.max(3, props.rows - (filterLine ? 5 : 4));
  const start = windowStart(state.listCursor, entries.length, size);
  const visible = entries.slice(start, start + size);
  return (
    <Box flexDirection="column">
      <Row width={columns}>
        <Text bold>Rewind to which prompt?</Text>
      </Row>
      <Row width={columns}>
        <Text dimColor>{state.typing ? 'type to filter · Enter keep · Esc clear' : '↑/↓ PgUp/PgDn Home/End move · Enter choose · / filter · Esc/q never mind'}</Text>
      </Row>
      {filterLine ? (
        <Row width={columns}>
          <Text color="yellow">{`/${state.filter}${state.typing ? '▏' : ''}`}</Text>
          <Text dimColor>{`  ${entries.length - 1} of ${props.total - 1} prompts`}</Text>
        </Row>
      ) : null}
      {visible.map((entry, offset) => {
        const selected = start + offset === state.listCursor;
        // The prompt gives way first: the time goes on narrow terminals, and the label is cut so
        // the +/- summary stays on the row.
        const time = entry.timestamp === undefined || columns < 60 ? '' : formatTime(entry.timestamp).slice(5, 16);
        const summary = statsSummary(entry);
        const room = Math.max(10, columns - 2 - (time === '' ? 0 : time.length + 2) - (summary === '' ? 0 : summary.length + 2) - 1);
        const label = entry.isCurrent ? '(current prompt)' : entry.text === '' ? '(prompt not recorded)' : excerpt(entry.text, room);
        return (
          <Row key={`${entry.messageId}-${start + offset}`} width={columns}>
            <Text color={selected ? 'cyan' : undefined}>{selected ? '❯ ' : '  '}</Text>
            <Text color={selected ? 'cyan' : undefined} bold={selected}>
              {label}
            </Text>
            <Text dimColor>{time === '' ? '' : `  ${time}`}</Text>
            <Text color="yellow">{summary === '' ? '' : `  ${summary}`}</Text>
          </Row>
        );
      })}
      {entries.length > size ? (
        <Row width={columns}>
          <Text dimColor>{`${state.listCursor + 1}/${entries.length}`}</Text>
        </Row>
      ) : null}
    </Box>
  );
}

function RestoreOptions(props: { entry: MenuEntry; cursor: number; canSummarize: boolean; columns: number; rows: number }) {
  const { entry, columns } = props;
  const options = optionsFor(entry, props.canSummarize);
  const stats = entry.stats;
  const refusal = stats === undefined ? undefined : refusalText(stats);
  const notes: Array<{ key: string; color: string | undefined; text: string }> = [];
  if (stats !== undefined && entry.canRestore) {
    if (stats.changedSinceLatestSnapshot.length > 0) {
      notes.push({ key: 'since', color: 'yellow', text: `Changed since the last checkpoint (saved first, so fh undo brings them back): ${stats.changedSinceLatestSnapshot.map(displayPath).join(', ')}` });
    }
    for (const failure of stats.failed ?? []) notes.push({ key: `failed-${failure.path}`, color: 'red', text: `  cannot restore ${displayPath(failure.path)}: ${reasonText(failure.path, failure.reason)}` });
    if (refusal !== undefined) notes.push({ key: 'refusal', color: 'red', text: `The code rewind: ${refusal}.` });
  }
  // Title, options, blank, summary, notes, help: the rest of the screen lists files.
  const outsideFiles = entry.canRestore ? entry.outside?.files ?? [] : [];
  const outsideRows = outsideFiles.length === 0 ? 0 : Math.min(outsideFiles.length + 1, Math.max(2, Math.floor((props.rows - options.length - notes.length - 6) / 2)));
  const fileRows = Math.max(0, props.rows - options.length - notes.length - 6 - outsideRows);
  const files = stats?.files ?? [];
  const shownFiles = files.length > fileRows ? files.slice(0, Math.max(0, fileRows - 1)) : files;
  const shownOutside = outsideFiles.length + 1 > outsideRows ? outsideFiles.slice(0, Math.max(0, outsideRows - 2)) : outsideFiles;
  return (
    <Box flexDirection="column">
      <Row width={columns}>
        <Text bold>{`Rewind to: ${entry.text === '' ? displayId(entry.messageId) : excerpt(entry.text, columns)}`}</Text>
      </Row>
      {options.map((option, index) => (
        <Row key={optionKey(option)} width={columns}>
          <Text color={index === props.cursor ? 'cyan' : undefined} bold={index === props.cursor}>
            {`${index === props.cursor ? '❯ ' : '  '}${optionLabel(option)}`}
          </Text>
        </Row>
      ))}
      {entry.canRestore && stats !== undefined ? (
        <Box flexDirection="column" marginTop={1}>
          <Row width={columns}>
            {stats.files.length === 0
              ? 'Restoring the code changes no files.'
              : `Restoring the code changes ${plural(stats.files.length, 'file')} (+${stats.insertions} -${stats.deletions}):`}
          </Row>
          {shownFiles.map((file) => (
            <Row key={file.path} width={columns}>
              {`  ${REWIND_ACTION[file.status].padEnd(7)} ${displayPath(file.path)}  `}
              <Text color="green">{file.binary ? '' : `+${file.insertions}`}</Text>
              <Text> </Text>
              <Text color="red">{file.binary ? 'binary' : `-${file.deletions}`}</Text>
            </Row>
          ))}
          {files.length > shownFiles.length ? (
            <Row width={columns}>
              <Text dimColor>{`  … and ${files.length - shownFiles.length} more (f lists them)`}</Text>
            </Row>
          ) : null}
          {outsideFiles.length > 0 && entry.outside !== undefined ? (
            <Row width={columns}>
              <Text color="yellow">{`Outside the project, left unless --include-outside: ${plural(outsideFiles.length, 'file')} (+${entry.outside.insertions} -${entry.outside.deletions}):`}</Text>
            </Row>
          ) : null}
          {shownOutside.map((file) => (
            <Row key={`outside-${file.path}`} width={columns}>
              {`  ${REWIND_ACTION[file.status].padEnd(7)} ${file.path}  `}
              <Text color="green">{file.binary ? '' : `+${file.insertions}`}</Text>
              <Text> </Text>
              <Text color="red">{file.binary ? 'binary' : `-${file.deletions}`}</Text>
            </Row>
          ))}
          {outsideFiles.length > shownOutside.length ? (
            <Row width={columns}>
              <Text dimColor>{`  … and ${outsideFiles.length - shownOutside.length} more outside the project (fh diff lists them)`}</Text>
            </Row>
          ) : null}
          {notes.map((note) => (
            <Row key={note.key} width={columns}>
              <Text color={note.color}>{note.text}</Text>
            </Row>
          ))}
        </Box>
      ) : null}
      <Row width={columns}>
        <Text dimColor>{`↑/↓ move · Enter choose${files.length > 0 ? ' · f files and patches' : ''} · Esc back · q never mind`}</Text>
      </Row>
    </Box>
  );
}

function FileList(props: { entry: MenuEntry; cursor: number; columns: number; rows: number }) {
  const { columns } = props;
  const files = props.entry.stats?.files ?? [];
  const size = Math.max(3, props.rows - 4);
  const start = windowStart(props.cursor, files.length, size);
  return (
    <Box flexDirection="column">
      <Row width={columns}>
        <Text bold>{`Files a code rewind to ${props.entry.text === '' ? displayId(props.entry.messageId) : excerpt(props.entry.text, columns)} changes`}</Text>
      </Row>
      {files.slice(start, start + size).map((file, offset) => {
        const selected = start + offset === props.cursor;
        return (
          <Row key={file.path} width={columns}>
            <Text color={selected ? 'cyan' : undefined}>{`${selected ? '❯ ' : '  '}${REWIND_ACTION[file.status].padEnd(7)} ${displayPath(file.path)}  `}</Text>
            <Text color="green">{file.binary ? '' : `+${file.insertions}`}</Text>
            <Text> </Text>
            <Text color="red">{file.binary ? 'binary' : `-${file.deletions}`}</Text>
          </Row>
        );
      })}
      <Row width={columns}>
        <Text dimColor>{`${props.cursor + 1}/${files.length} · ↑/↓ PgUp/PgDn move · Enter patch · Esc back · q never mind`}</Text>
      </Row>
    </Box>
  );
}

function PatchView(props: { path: string; lines: string[] | undefined; top: number; columns: number; rows: number }) {
  const { columns } = props;
  const size = Math.max(3, props.rows - 3);
  const lines = props.lines;
  const colour = (line: string): string | undefined =>
    line.startsWith('+++') || line.startsWith('---') ? undefined : line.startsWith('+') ? 'green' : line.startsWith('-') ? 'red' : line.startsWith('@@') ? 'cyan' : undefined;
  return (
    <Box flexDirection="column">
      <Row width={columns}>
        <Text bold>{`${displayPath(props.path)}: from now to the checkpoint`}</Text>
      </Row>
      {lines === undefined ? (
        <Row width={columns}>
          <Text dimColor>reading the file and its backup…</Text>
        </Row>
      ) : (
        lines.slice(props.top, props.top + size).map((line, offset) => (
          <Row key={props.top + offset} width={columns}>
            <Text color={colour(line)}>{line === '' ? ' ' : line}</Text>
          </Row>
        ))
      )}
      <Row width={columns}>
        <Text dimColor>{`${lines === undefined ? '' : `lines ${Math.min(lines.length, props.top + 1)}-${Math.min(lines.length, props.top + size)} of ${lines.length} · `}↑/↓ PgUp/PgDn scroll · Esc back · q never mind`}</Text>
      </Row>
    </Box>
  );
}

function Menu(props: { entries: MenuEntry[]; options: RewindMenuOptions; onDone(choice: MenuChoice | null | 'interrupted'): void }) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const canSummarize = props.options.canSummarize === true;
  const [patches, setPatches] = useState<Map<string, string[]>>(new Map());
  const [patchLines, setPatchLines] = useState(0);
  const [state, dispatch] = useReducer(
    (current: MenuState, action: MenuAction) => reduceMenu({ entries: props.entries, canSummarize, patchLines, page: Math.max(1, rows - 5) }, current, action),
    { screen: 'list', listCursor: 0, optionCursor: 0, fileCursor: 0, patchTop: 0, filter: '', typing: false, outcome: undefined },
  );
  const visible = filterEntries(props.entries, state.filter);
  const chosen = visible[state.listCursor] as MenuEntry;
  const file = chosen.stats?.files[state.fileCursor];
  const patchKey = file === undefined ? '' : `${chosen.messageId}\u0000${file.path}`;

  useEffect(() => {
    if (state.outcome === undefined) return;
    props.onDone(state.outcome);
    exit();
  }, [state.outcome]);

  useEffect(() => {
    if (state.screen !== 'patch' || file === undefined) return;
    const known = patches.get(patchKey);
    if (known !== undefined) {
      setPatchLines(known.length);
      return;
    }
    const load = props.options.loadPatch;
    const loaded = load === undefined ? Promise.resolve('(no patch preview here)') : load(chosen.messageId, file.path);
    void loaded
      .catch((error: unknown) => `cannot show the patch: ${error instanceof Error ? error.message : String(error)}`)
      .then((text) => {
        const lines = text.replace(/\n$/, '').split('\n');
        setPatches((current) => new Map(current).set(patchKey, lines));
        setPatchLines(lines.length);
      });
  }, [state.screen, patchKey]);

  // Keys typed fast or pasted arrive as one string: each character acts on its own (a carriage
  // return as Enter, DEL as Backspace). The reducer decides what a key does from the state it is
  // given, so keys in one chunk never act on a stale screen.
  useInput((input, key) => {
    if (input.length > 1 && !key.ctrl && !key.meta && !key.escape) {
      for (const character of input) {
        if (character === '\r' || character === '\n') dispatch({ type: 'key', input: '', key: { ...key, return: true } });
        else if (character === '\u007f' || character === '\b') dispatch({ type: 'key', input: '', key: { ...key, backspace: true } });
        else if (character >= ' ') dispatch({ type: 'key', input: character, key: { ...key, return: false } });
      }
      return;
    }
    dispatch({ type: 'key', input, key });
  });

  switch (state.screen) {
    case 'list':
      return <PromptList entries={visible} total={props.entries.length} state={state} columns={columns} rows={rows} />;
    case 'options':
      return <RestoreOptions entry={chosen} cursor={state.optionCursor} canSummarize={canSummarize} columns={columns} rows={rows} />;
    case 'files':
      return <FileList entry={chosen} cursor={state.fileCursor} columns={columns} rows={rows} />;
    case 'patch':
      return <PatchView path={file?.path ?? ''} lines={patches.get(patchKey)} top={state.patchTop} columns={columns} rows={rows} />;
  }
}

/**
 * Show the menu on the terminal and resolve with the choice, `null` for "never mind", or
 * `'interrupted'` for Ctrl-C (the caller exits 130). `entries` must start with the current-prompt
 * entry, then the prompts newest first.
 */
export async function runRewindMenu(entries: MenuEntry[], options: RewindMenuOptions = {}): Promise<MenuChoice | null | 'interrupted'> {
  let choice: MenuChoice | null | 'interrupted' = null;
  const instance = render(<Menu entries={entries} options={options} onDone={(value) => (choice = value)} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  instance.cleanup();
  return choice;
}
