/**
 * The interactive rewind menu (seed 000 §2, MessageSelector), drawn with Ink:
 *
 * 1. The prompts a person typed, newest first, each with what a code rewind there would change
 *    (files, +/-). The cursor starts on the virtual "current prompt" entry, so a stray Enter does
 *    nothing.
 * 2. Choosing a prompt shows the restore options — code and conversation (the default), the
 *    conversation only, the code only — with the files and +/- the code options would change, and
 *    "never mind". Code options appear only where the prompt has a checkpoint, conversation options
 *    only where the prompt was recorded.
 *
 * Keys: ↑/↓ (or k/j) move, Enter chooses, Esc (or Ctrl-C) is "never mind" and ends the menu.
 * The menu only chooses; the caller runs the rewind.
 */
import { Box, render, Text, useApp, useInput } from 'ink';
import { useEffect, useReducer } from 'react';
import type { RewindPreview } from '@fh/core';
import { displayId, displayPath, excerpt, formatTime, plural } from '../format.js';
import { reasonText, refusingPaths, REWIND_ACTION } from '../render-stats.js';

/** What a rewind can restore. */
export type RewindMode = 'both' | 'code' | 'conversation';

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
  /** The dry run of a code rewind (when `canRestore`). */
  stats: RewindPreview | undefined;
  /** What the rewind would change outside the project (left unless `--include-outside`); absent when the session tracked nothing there. */
  outside?: RewindPreview;
}

/** What the person chose. */
export interface MenuChoice {
  messageId: string;
  mode: RewindMode;
}

type OptionId = RewindMode | 'nevermind';

const OPTION_LABELS: Record<OptionId, string> = {
  both: 'Restore code and conversation',
  conversation: 'Restore conversation',
  code: 'Restore code',
  nevermind: 'Never mind',
};

/** The restore options an entry offers, default first (seed 000 §2). */
export function optionsFor(entry: MenuEntry): OptionId[] {
  const options: OptionId[] = [];
  if (entry.canRestore && entry.hasMessage) options.push('both');
  if (entry.hasMessage) options.push('conversation');
  if (entry.canRestore) options.push('code');
  options.push('nevermind');
  return options;
}

/** How many list rows are visible at once. */
const VISIBLE_ROWS = 10;

function statsSummary(entry: MenuEntry): string {
  if (entry.isCurrent) return '';
  if (!entry.canRestore) return 'no checkpoint (conversation only)';
  const stats = entry.stats;
  if (stats === undefined) return '';
  const outside = entry.outside === undefined || entry.outside.files.length === 0 ? '' : `; outside the project ${entry.outside.files.length} +${entry.outside.insertions} -${entry.outside.deletions}`;
  if (stats.files.length === 0) return `no file changes${outside}`;
  return `${stats.files.length} file${stats.files.length === 1 ? '' : 's'} +${stats.insertions} -${stats.deletions}${outside}`;
}

function PromptList(props: { entries: MenuEntry[]; cursor: number }) {
  const start = Math.max(0, Math.min(props.cursor - Math.floor(VISIBLE_ROWS / 2), props.entries.length - VISIBLE_ROWS));
  const visible = props.entries.slice(start, start + VISIBLE_ROWS);
  return (
    <Box flexDirection="column">
      <Text bold>Rewind to which prompt?</Text>
      <Text dimColor>↑/↓ move · Enter choose · Esc never mind</Text>
      {visible.map((entry, offset) => {
        const selected = start + offset === props.cursor;
        const label = entry.isCurrent ? '(current prompt)' : entry.text === '' ? '(prompt not recorded)' : excerpt(entry.text, 56);
        const time = entry.timestamp === undefined ? '' : formatTime(entry.timestamp).slice(5, 16);
        return (
          <Box key={`${entry.messageId}-${start + offset}`}>
            <Text color={selected ? 'cyan' : undefined}>{selected ? '❯ ' : '  '}</Text>
            <Text color={selected ? 'cyan' : undefined} bold={selected}>
              {label}
            </Text>
            <Text dimColor>{time === '' ? '' : `  ${time}`}</Text>
            <Text color="yellow">{statsSummary(entry) === '' ? '' : `  ${statsSummary(entry)}`}</Text>
          </Box>
        );
      })}
      {props.entries.length > VISIBLE_ROWS ? <Text dimColor>{`${props.cursor + 1}/${props.entries.length}`}</Text> : null}
    </Box>
  );
}

function RestoreOptions(props: { entry: MenuEntry; cursor: number }) {
  const options = optionsFor(props.entry);
  const stats = props.entry.stats;
  const refusing = stats === undefined ? 0 : refusingPaths(stats).length;
  return (
    <Box flexDirection="column">
      <Text bold>{`Rewind to: ${props.entry.text === '' ? displayId(props.entry.messageId) : excerpt(props.entry.text, 70)}`}</Text>
      {options.map((option, index) => (
        <Text key={option} color={index === props.cursor ? 'cyan' : undefined} bold={index === props.cursor}>
          {`${index === props.cursor ? '❯ ' : '  '}${OPTION_LABELS[option]}`}
        </Text>
      ))}
      {props.entry.canRestore && stats !== undefined ? (
        <Box flexDirection="column" marginTop={1}>
          <Text>
            {stats.files.length === 0
              ? 'Restoring the code changes no files.'
              : `Restoring the code changes ${stats.files.length} file${stats.files.length === 1 ? '' : 's'} (+${stats.insertions} -${stats.deletions}):`}
          </Text>
          {stats.files.slice(0, 12).map((file) => (
            <Text key={file.path}>
              {`  ${REWIND_ACTION[file.status].padEnd(7)} ${displayPath(file.path)}  `}
              <Text color="green">{file.binary ? '' : `+${file.insertions}`}</Text>
              <Text> </Text>
              <Text color="red">{file.binary ? 'binary' : `-${file.deletions}`}</Text>
            </Text>
          ))}
          {stats.files.length > 12 ? <Text dimColor>{`  … and ${stats.files.length - 12} more`}</Text> : null}
          {stats.changedSinceLatestSnapshot.length > 0 ? (
            <Text color="yellow">{`Changed since the last checkpoint (saved first, so fh undo brings them back): ${stats.changedSinceLatestSnapshot.map(displayPath).join(', ')}`}</Text>
          ) : null}
          {(stats.failed ?? []).map((failure) => (
            <Text key={`failed-${failure.path}`} color="red">{`  cannot restore ${displayPath(failure.path)}: ${reasonText(failure.path, failure.reason)}`}</Text>
          ))}
          {refusing > 0 ? (
            <Text color="red">{`The code rewind will be refused and change nothing: ${plural(refusing, 'backup')} ${refusing === 1 ? 'is' : 'are'} missing or damaged (fh rewind <id> --paths rewinds the other files).`}</Text>
          ) : null}
        </Box>
      ) : null}
      <Text dimColor>↑/↓ move · Enter choose · Esc never mind</Text>
    </Box>
  );
}

/** The menu's state: which screen, both cursors, and the outcome once chosen. */
interface MenuState {
  screen: 'list' | 'options';
  listCursor: number;
  optionCursor: number;
  /** `undefined` while choosing; a choice, or `null` for never mind, once done. */
  outcome: MenuChoice | null | undefined;
}

type MenuAction = 'up' | 'down' | 'enter' | 'cancel';

/**
 * One key's effect. A reducer, so keys that arrive together (typed fast, pasted) each act on the
 * state the previous key left.
 */
function reduceMenu(entries: readonly MenuEntry[], state: MenuState, action: MenuAction): MenuState {
  if (state.outcome !== undefined) return state;
  if (action === 'cancel') return { ...state, outcome: null };
  const chosen = entries[state.listCursor] as MenuEntry;
  if (state.screen === 'list') {
    if (action === 'up') return { ...state, listCursor: Math.max(0, state.listCursor - 1) };
    if (action === 'down') return { ...state, listCursor: Math.min(entries.length - 1, state.listCursor + 1) };
    return chosen.isCurrent ? state : { ...state, screen: 'options', optionCursor: 0 };
  }
  const options = optionsFor(chosen);
  if (action === 'up') return { ...state, optionCursor: Math.max(0, state.optionCursor - 1) };
  if (action === 'down') return { ...state, optionCursor: Math.min(options.length - 1, state.optionCursor + 1) };
  const option = options[state.optionCursor] as OptionId;
  return { ...state, outcome: option === 'nevermind' ? null : { messageId: chosen.messageId, mode: option } };
}

function Menu(props: { entries: MenuEntry[]; onDone(choice: MenuChoice | null): void }) {
  const { exit } = useApp();
  const [state, dispatch] = useReducer(
    (current: MenuState, action: MenuAction) => reduceMenu(props.entries, current, action),
    { screen: 'list', listCursor: 0, optionCursor: 0, outcome: undefined },
  );

  useEffect(() => {
    if (state.outcome === undefined) return;
    props.onDone(state.outcome);
    exit();
  }, [state.outcome]);

  useInput((input, key) => {
    if (key.escape || (key.ctrl && input === 'c')) dispatch('cancel');
    else if (key.upArrow || input === 'k') dispatch('up');
    else if (key.downArrow || input === 'j') dispatch('down');
    else if (key.return) dispatch('enter');
  });

  const chosen = props.entries[state.listCursor] as MenuEntry;
  return state.screen === 'list' ? (
    <PromptList entries={props.entries} cursor={state.listCursor} />
  ) : (
    <RestoreOptions entry={chosen} cursor={state.optionCursor} />
  );
}

/**
 * Show the menu on the terminal and resolve with the choice, or null for "never mind".
 * `entries` must start with the current-prompt entry, then the prompts newest first.
 */
export async function runRewindMenu(entries: MenuEntry[]): Promise<MenuChoice | null> {
  let choice: MenuChoice | null = null;
  const instance = render(<Menu entries={entries} onDone={(value) => (choice = value)} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  instance.cleanup();
  return choice;
}
