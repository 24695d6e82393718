/**
 * The summariser behind the `summarize` / `summarize_up_to` restore options (seed 000 §2): a
 * command the person names with `--summarize-command <cmd>` or `FH_SUMMARIZE_COMMAND` — an agent's
 * print mode, say (`claude -p 'Summarize this conversation'`). It runs under `sh -c` in the
 * project folder, gets the conversation as text on stdin (`User:` / `Assistant:` paragraphs, then
 * any instructions) and prints the summary on stdout. A command that exits non-zero, or prints
 * nothing, fails the summary: the caller then changes nothing and says why.
 */
import { spawn } from 'node:child_process';
import { messageText, type SummarizeCallback, type TranscriptMessage } from '@fh/core';
import type { CommandContext } from './context.js';

/** The summarize command from `--summarize-command`, else `FH_SUMMARIZE_COMMAND`; undefined when neither is set. */
export function summarizeCommandFor(context: CommandContext, option: string | undefined): string | undefined {
  const command = option ?? context.environment.FH_SUMMARIZE_COMMAND;
  return command === undefined || command.trim() === '' ? undefined : command;
}

/** The conversation as the command reads it on stdin. */
export function conversationText(messages: readonly TranscriptMessage[], instructions: string | undefined): string {
  const parts = messages
    .filter((message) => message.type === 'user' || message.type === 'assistant')
    .map((message) => ({ role: message.type === 'user' ? 'User' : 'Assistant', text: messageText(message).trim() }))
    .filter((part) => part.text !== '')
    .map((part) => `${part.role}: ${part.text}`);
  return `${[...parts, ...(instructions === undefined ? [] : [`Instructions: ${instructions}`])].join('\n\n')}\n`;
}

/** A {@link SummarizeCallback} that runs `command` (see the module comment) in `cwd`. */
export function commandSummarizer(command: string, cwd: string, environment: NodeJS.ProcessEnv): SummarizeCallback {
  return (messages, summarizeContext) =>
    new Promise<string>((resolvePromise, reject) => {
      const child = spawn('sh', ['-c', command], { cwd, env: environment, stdio: ['pipe', 'pipe', 'pipe'] });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.stdin.on('error', () => undefined);
      child.on('error', (error) => reject(new Error(`the summarize command ${JSON.stringify(command)} could not start: ${error.message}`)));
      child.on('close', (code, signal) => {
        const text = Buffer.concat(stdout).toString('utf8').trim();
        const why = Buffer.concat(stderr).toString('utf8').trim().split('\n').at(-1) ?? '';
        if (code !== 0) {
          reject(new Error(`the summarize command ${JSON.stringify(command)} ${signal === null ? `exited with ${code}` : `was stopped by ${signal}`}${why === '' ? '' : `: ${why}`}`));
        } else if (text === '') {
          reject(new Error(`the summarize command ${JSON.stringify(command)} printed no summary on stdout`));
        } else {
          resolvePromise(text);
        }
      });
      child.stdin.end(conversationText(messages, summarizeContext.instructions));
    });
}
