import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorsEnabled, Output, renderTable } from '../src/output.js';

function sink(isTTY: boolean): Writable & { isTTY: boolean; text: string } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Writable & { isTTY: boolean; text: string };
  stream.isTTY = isTTY;
  stream.text = '';
  return stream;
}

describe('output', () => {
  it('colours only a terminal, never with NO_COLOR, and with FORCE_COLOR on a pipe', () => {
    expect(colorsEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorsEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorsEnabled({ isTTY: false }, { CI: 'true' })).toBe(false);
    expect(colorsEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorsEnabled({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(colorsEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colorsEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorsEnabled({ isTTY: false }, { FORCE_COLOR: '0' })).toBe(false);
  });

  it('writes exactly one JSON document with --json (dates as ISO strings, sets as sorted arrays)', () => {
    const stdout = sink(false);
    const output = new Output({ json: true, stdout, stderr: sink(false), environment: {} });
    output.line('not shown');
    output.result({ at: new Date('2026-01-02T03:04:05.000Z'), paths: new Set(['b', 'a']), error: Object.assign(new Error('bad'), { code: 'FH_X' }) }, () => 'human');
    expect(stdout.text).toBe('{\n  "at": "2026-01-02T03:04:05.000Z",\n  "paths": [\n    "a",\n    "b"\n  ],\n  "error": {\n    "code": "FH_X",\n    "message": "bad"\n  }\n}\n');
  });

  it('writes the human text without --json', () => {
    const stdout = sink(false);
    const output = new Output({ json: false, stdout, stderr: sink(false), environment: {} });
    output.result({ ignored: true }, () => ['one', 'two']);
    expect(stdout.text).toBe('one\ntwo\n');
  });

  it('shows no progress bar when stderr is not a terminal', async () => {
    const stderr = sink(false);
    const output = new Output({ json: false, stdout: sink(false), stderr, environment: {} });
    const progress = output.progress('work', 3);
    progress.tick();
    progress.stop();
    expect(stderr.text).toBe('');
  });

  it('on a terminal, shows a bar only after about a second, with a total given later by update, and removes it', async () => {
    const stderr = sink(true);
    const output = new Output({ json: false, stdout: sink(false), stderr, environment: {} });
    const quick = output.progress('quick');
    quick.update(1, 1);
    quick.stop();
    const progress = output.progress('carrying');
    progress.update(0, 4);
    progress.update(1, 4);
    await new Promise((wake) => setTimeout(wake, 1300));
    expect(stderr.text).toContain('carrying [');
    expect(stderr.text).toContain('1/4');
    progress.update(3, 5);
    await new Promise((wake) => setTimeout(wake, 300));
    expect(stderr.text).toContain('3/5');
    progress.stop();
    expect(stderr.text).not.toContain('quick');
  });

  it('runs work with a bar fed by its onProgress, and shows none while the total is 0', async () => {
    const stderr = sink(true);
    const output = new Output({ json: false, stdout: sink(false), stderr, environment: {} });
    const result = await output.withProgress('empty', async (onProgress) => {
      onProgress(0, 0);
      await new Promise((wake) => setTimeout(wake, 1200));
      return 'done';
    });
    expect(result).toBe('done');
    expect(stderr.text).toBe('');
  });

  it('aligns table columns, right-aligns numbers and cuts long cells', () => {
    const lines = renderTable(
      [
        { name: 'alpha', count: 5 },
        { name: 'a much longer name than allowed', count: 1234 },
      ],
      [
        { header: 'name', value: (row) => row.name, maxWidth: 10 },
        { header: 'n', value: (row) => String(row.count), right: true },
      ],
    );
    expect(lines).toEqual(['name           n', 'alpha          5', 'a much lo…  1234']);
  });
});
