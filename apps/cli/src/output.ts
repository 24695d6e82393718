/**
 * Everything `fh` prints goes through {@link Output}:
 * - with `--json`, exactly one JSON document on stdout (nothing else there); human text otherwise;
 * - colours only when the stream is a terminal (`TERM` not `dumb`), never when `NO_COLOR` is set
 *   (non-empty); `FORCE_COLOR` (non-empty) turns them on for a non-terminal;
 * - notes, warnings and progress bars on stderr, so stdout stays clean for pipes.
 */
import type { Writable } from 'node:stream';
import picocolors from 'picocolors';
import { formatBytes } from './format.js';
import { warningCollector } from './warnings.js';

/** picocolors' colour functions (plain `String` when colours are off). */
export type Colors = ReturnType<typeof picocolors.createColors>;

/** Where output goes and how it looks. Defaults: the process's streams and environment. */
export interface OutputOptions {
  json: boolean;
  stdout?: Writable & { isTTY?: boolean };
  stderr?: Writable & { isTTY?: boolean };
  environment?: NodeJS.ProcessEnv;
}

/** A progress bar handle; every method is a no-op when no bar is shown. */
export interface Progress {
  /** Advance by `count` (default 1). */
  tick(count?: number): void;
  /**
   * Set how much is done, and the total when given (a core call's `onProgress(done, total)`);
   * `bytes`, when given, is shown after the count (bars made with `showBytes`), with
   * `of <totalBytes>` when `totalBytes` is given and not 0.
   */
  update(done: number, total?: number, bytes?: number, totalBytes?: number): void;
  /** Remove the bar (if one is shown). */
  stop(): void;
}

/**
 * Delay before a progress bar appears, in ms: work shorter than this shows none.
 * `FH_PROGRESS_DELAY_MS` (a whole number of ms) changes it (0: at once; tests use it).
 */
const PROGRESS_DELAY_MS = 1000;

/** Options of {@link Output.progress}. */
export interface ProgressOptions {
  /** The unit counted, shown after the count (`12/40 files`). Default: none. */
  unit?: string;
  /** Show the bytes passed to `update` after the count (`· 1.2 GiB`). */
  showBytes?: boolean;
  /** Wait this long before showing the bar, in ms. Default: the output's delay (see {@link PROGRESS_DELAY_MS}). */
  delayMs?: number;
}

/** Decide whether to colour a stream (see the module comment). */
export function colorsEnabled(stream: { isTTY?: boolean }, environment: NodeJS.ProcessEnv): boolean {
  if (environment.NO_COLOR !== undefined && environment.NO_COLOR !== '') return false;
  if (environment.FORCE_COLOR !== undefined && environment.FORCE_COLOR !== '' && environment.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && environment.TERM !== 'dumb';
}

/** The printer every command uses. */
export class Output {
  readonly json: boolean;
  /** Colours for stdout text. */
  readonly colors: Colors;
  /** Colours for stderr text. */
  readonly errorColors: Colors;
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  /** How long a bar waits before it appears, in ms (see {@link PROGRESS_DELAY_MS}). */
  readonly progressDelayMs: number;
  private documentWritten = false;
  /** Bars shown or due: any text printed removes them first, so a bar never mixes with it. */
  private readonly bars = new Set<Progress>();
  /** Warnings held until the next text (or the end of the command), repeats collapsed. */
  private readonly warnings = warningCollector((line) => this.stderr.write(`${this.errorColors.yellow('fh: warning:')} ${line}\n`));

  constructor(options: OutputOptions) {
    const environment = options.environment ?? process.env;
    this.json = options.json;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    this.colors = picocolors.createColors(colorsEnabled(this.stdout, environment));
    this.errorColors = picocolors.createColors(colorsEnabled(this.stderr, environment));
    const delay = environment.FH_PROGRESS_DELAY_MS;
    this.progressDelayMs = delay !== undefined && /^\d+$/.test(delay) ? Number(delay) : PROGRESS_DELAY_MS;
  }

  /** Remove every progress bar and print the warnings held (before other text is printed). */
  clearProgress(): void {
    for (const bar of [...this.bars]) bar.stop();
    this.warnings.flush();
  }

  /** Whether the JSON document has been written (errors after that add none). */
  get wroteDocument(): boolean {
    return this.documentWritten;
  }

  /**
   * Print a command's result: `document` as JSON with `--json`, otherwise the lines `human` returns.
   * Call once per command.
   */
  result(document: unknown, human: () => string | readonly string[]): void {
    this.clearProgress();
    if (this.json) {
      this.writeDocument(document);
      return;
    }
    const text = human();
    const lines = typeof text === 'string' ? [text] : text;
    if (lines.length > 0) this.stdout.write(`${lines.join('\n')}\n`);
  }

  /** Write the JSON document (stdout). Dates become ISO strings, Sets arrays, Errors `{code, message}`. */
  writeDocument(document: unknown): void {
    this.clearProgress();
    this.documentWritten = true;
    this.stdout.write(`${JSON.stringify(document, jsonReplacer, 2)}\n`);
  }

  /** A human line on stdout; suppressed with `--json`. */
  line(text = ''): void {
    this.clearProgress();
    if (!this.json) this.stdout.write(`${text}\n`);
  }

  /** A note on stderr (kept out of stdout, so also shown with `--json`). */
  note(text: string): void {
    this.clearProgress();
    this.stderr.write(`${text}\n`);
  }

  /**
   * A warning on stderr, prefixed `fh: warning:`. Held until the next text this output prints
   * (or {@link clearProgress} at the end of the command): warnings that differ only in numbers
   * and quoted names are printed once, with how many more there were (`warningCollector`).
   */
  warn(text: string): void {
    this.warnings.warn(text);
  }

  /**
   * A progress bar on stderr that appears only if the work is still running after about a second,
   * only when stderr is a terminal, and never with `--json`. `total` may be left 0 and set later
   * with `update` (a core call reports it with its first progress call); no bar is shown while it
   * is 0. cli-progress is imported only for a bar on a terminal. Printing any text removes the bar.
   */
  progress(label: string, total = 0, options: ProgressOptions = {}): Progress {
    if (this.stderr.isTTY !== true || this.json) return { tick() {}, update() {}, stop() {} };
    let value = 0;
    let bytes = 0;
    let allBytes = 0;
    const unit = options.unit === undefined ? '' : ` ${options.unit}`;
    const bytesText = (): string => (options.showBytes === true ? ` · ${formatBytes(bytes)}${allBytes > 0 ? ` of ${formatBytes(allBytes)}` : ''}` : '');
    let max = total;
    let due = false;
    let stopped = false;
    let loading = false;
    let bar: { update(value: number, payload?: object): void; setTotal(total: number): void; stop(): void } | undefined;
    // Loaded while the delay runs, so a due bar is drawn at once.
    const library = import('cli-progress');
    library.catch(() => undefined);
    const show = (): void => {
      if (!due || stopped || loading || max <= 0) return;
      loading = true;
      void library.then((module) => {
        if (stopped) return;
        const cliProgress = module.default ?? module;
        const created = new cliProgress.SingleBar(
          { stream: this.stderr, format: `${label} [{bar}] {value}/{total}${unit}{bytes}`, hideCursor: true, clearOnComplete: true },
          cliProgress.Presets.shades_classic,
        );
        created.start(max, value, { bytes: bytesText() });
        bar = created;
      });
    };
    const timer = setTimeout(() => {
      due = true;
      show();
    }, options.delayMs ?? this.progressDelayMs);
    timer.unref();
    const progress: Progress = {
      tick(count = 1) {
        progress.update(value + count);
      },
      update(done, newTotal, newBytes, newTotalBytes) {
        value = done;
        if (newBytes !== undefined) bytes = newBytes;
        if (newTotalBytes !== undefined) allBytes = newTotalBytes;
        if (newTotal !== undefined && newTotal !== max) {
          max = newTotal;
          bar?.setTotal(max);
        }
        bar?.update(value, { bytes: bytesText() });
        show();
      },
      stop() {
        stopped = true;
        clearTimeout(timer);
        bar?.stop();
        bar = undefined;
        bars.delete(progress);
      },
    };
    const bars = this.bars;
    bars.add(progress);
    return progress;
  }

  /**
   * Run `work` with a {@link progress} bar fed by the `onProgress(done, total)` it is given (the
   * callback the core's long calls take); the bar is removed when `work` settles.
   */
  async withProgress<T>(
    label: string,
    work: (onProgress: (done: number, total: number, bytes?: number) => void) => Promise<T>,
    options: ProgressOptions = {},
  ): Promise<T> {
    const progress = this.progress(label, 0, options);
    try {
      return await work((done, total, bytes) => progress.update(done, total, bytes));
    } finally {
      progress.stop();
    }
  }
}

function jsonReplacer(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Date) return original.toISOString();
  if (value instanceof Set) return [...value].sort();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return typeof code === 'string' ? { code, message: value.message } : { message: value.message };
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** Visible width of a string (ANSI colour codes do not count). */
export function visibleWidth(text: string): number {
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** A column of {@link renderTable}. */
export interface TableColumn<Row> {
  header: string;
  value(row: Row): string;
  /** Right-align (numbers). */
  right?: boolean;
  /** Longest a cell may be; longer text is cut with `…`. */
  maxWidth?: number;
}

/** Render rows as aligned text columns with a header line, two spaces between columns. */
export function renderTable<Row>(rows: readonly Row[], columns: ReadonlyArray<TableColumn<Row>>, colors?: Colors): string[] {
  const cells = rows.map((row) =>
    columns.map((column) => {
      const text = column.value(row);
      const max = column.maxWidth;
      return max !== undefined && visibleWidth(text) > max ? `${text.slice(0, max - 1)}…` : text;
    }),
  );
  const widths = columns.map((column, index) =>
    Math.max(visibleWidth(column.header), ...cells.map((row) => visibleWidth(row[index] ?? ''))),
  );
  const pad = (text: string, index: number): string => {
    const gap = ' '.repeat(Math.max(0, (widths[index] ?? 0) - visibleWidth(text)));
    return columns[index]?.right === true ? gap + text : text + gap;
  };
  const header = columns.map((column, index) => pad(column.header, index)).join('  ').trimEnd();
  return [
    colors ? colors.bold(header) : header,
    ...cells.map((row) => row.map((cell, index) => pad(cell, index)).join('  ').trimEnd()),
  ];
}
