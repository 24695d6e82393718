import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FsBackupStore } from '@fh/store-fs';
import { describe, expect, it } from 'vitest';
import { EventScanner, HookInputError, MAX_PARSED_EVENT_BYTES, readHookEvent } from '../src/hook-input.js';
import { baseEnvironment, cliPath, sandbox, writeFiles } from './helpers.js';

const SESSION = '7e1d5b63-2d2f-4d47-8e66-4c6a6c8c2f02';

/** Feed `text` to a scanner in chunks of `size` bytes (a small limit forces the reduced path). */
function scan(text: string, size: number, limit = MAX_PARSED_EVENT_BYTES) {
  const scanner = new EventScanner(limit);
  const bytes = Buffer.from(text);
  let used = 0;
  for (let offset = 0; offset < bytes.length && !scanner.done; offset += size) used += scanner.push(bytes.subarray(offset, offset + size));
  return { input: scanner.finish(), used };
}

describe('reading the hook event', () => {
  const event = {
    session_id: 's1',
    cwd: '/work/p',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_use_id: 'toolu_01',
    permission_mode: 'default',
    folder: 'C:\\dir\\',
    quotes: '\\"\\\\"\\\\\\"',
    tool_input: { file_path: '/work/p/dir "q"/é.txt', content: 'a "quoted" \\ line\n'.repeat(50), nested: { file_path: '/elsewhere' }, flag: true, count: -1.5e3 },
    extra: [1, { file_path: '/nope' }],
    empty: null,
  };
  const text = JSON.stringify(event);

  it('parses a small event whole, whatever the chunk size, and stops at the end of its object', () => {
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      const { input, used } = scan(`${text}\n{"next":1}`, size);
      expect(input).toEqual({ event, bytes: Buffer.byteLength(text), reduced: false, dropped: [] });
      expect(used).toBe(Buffer.byteLength(text));
    }
  });

  it('keeps only the scalar fields of a big event, at every chunk split', () => {
    for (const size of [1, 2, 3, 5, 16, 4096]) {
      const { input } = scan(text, size, 100);
      expect(input).toEqual({
        event: {
          session_id: 's1',
          cwd: '/work/p',
          hook_event_name: 'PreToolUse',
          tool_name: 'Write',
          tool_use_id: 'toolu_01',
          permission_mode: 'default',
          folder: 'C:\\dir\\',
          quotes: '\\"\\\\"\\\\\\"',
          tool_input: { file_path: '/work/p/dir "q"/é.txt', content: event.tool_input.content, flag: true, count: -1500 },
          empty: null,
        },
        bytes: Buffer.byteLength(text),
        reduced: true,
        dropped: ['tool_input.nested', 'extra'],
      });
    }
  });

  it('drops a field longer than 64 KiB from a big event and names it', () => {
    const big = JSON.stringify({ hook_event_name: 'PreToolUse', tool_input: { content: 'x'.repeat(70_000), file_path: '/p/a' }, session_id: 's' });
    expect(scan(big, 1000, 1000).input).toEqual({ event: { hook_event_name: 'PreToolUse', tool_input: { file_path: '/p/a' }, session_id: 's' }, bytes: big.length, reduced: true, dropped: ['tool_input.content'] });
  });

  it('refuses what is not one JSON object, with one clear message', () => {
    expect(scan('[1,2]', 2).input.event).toEqual([1, 2]);
    expect(() => scan('[1,2]', 2, 4)).toThrow(new HookInputError('stdin is not one JSON object: "[1,2"'));
    expect(() => scan('[1,2]', 8, 4)).toThrow(new HookInputError('the hook event is not a JSON object'));
    expect(() => scan('not json', 3)).toThrow(new HookInputError('stdin is not JSON: "not json"'));
    expect(() => scan('{"a":1', 2)).toThrow(new HookInputError('stdin is not JSON: "{\\"a\\":1"'));
    expect(() => scan('{"a":"b]', 2, 4)).toThrow(new HookInputError('stdin ended after 8 bytes, before the hook event\'s JSON object closed'));
    expect(() => scan('{"a":[1}', 2, 4)).toThrow(new HookInputError('stdin is not JSON: brackets do not match in the hook event'));
  });

  it('reads a 20 MB event streamed in 64 KiB chunks, keeping its path and dropping its content', async () => {
    const content = 'const s = "x\\ty";\n'.repeat(1_100_000);
    const whole = JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: '/p/big.ts', content } });
    const chunks = Array.from({ length: Math.ceil(whole.length / 65536) }, (_, index) => Buffer.from(whole.slice(index * 65536, (index + 1) * 65536)));
    const input = await readHookEvent(Readable.from(chunks));
    expect(input.event).toEqual({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: '/p/big.ts' } });
    expect([input.reduced, input.dropped, input.bytes]).toEqual([true, ['tool_input.content'], Buffer.byteLength(whole)]);
  });
});

describe('fh hook with a 100 MB Write event', () => {
  it('backs up the file the Write names before the tool writes it', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'src/big.ts': 'export const before = 1;\n' });
    const content = 'export const line = "a \\"quoted\\" value";\n'.repeat(2_400_000);
    const text = JSON.stringify({
      session_id: SESSION,
      transcript_path: join(box.home, 'transcript.jsonl'),
      cwd: box.project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_use_id: 'toolu_big',
      tool_input: { file_path: join(box.project, 'src/big.ts'), content },
    });
    expect(Buffer.byteLength(text)).toBeGreaterThan(100 * 1024 * 1024);
    const child = spawn(process.execPath, [cliPath, 'hook'], { cwd: box.project, env: { ...baseEnvironment(box.home), CLAUDE_PROJECT_DIR: box.project }, stdio: 'pipe' });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.on('error', () => {});
    child.stdin.end(text);
    expect([await exited, Buffer.concat(output).toString('utf8')]).toEqual([0, '']);
    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const backups = await store.listBackups(SESSION);
    expect(backups).toHaveLength(1);
    expect(await readFile(join(box.home, '.fh', 'file-history', SESSION, backups[0] as string), 'utf8')).toBe('export const before = 1;\n');
  });
});
