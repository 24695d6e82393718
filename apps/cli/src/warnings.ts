/** Collapsing repeated warnings (issue 15). */
/**
 * Repeated warnings as one line each (issue 15: a log with 500 malformed records must not print
 * 500 lines): warnings that differ only in their numbers and quoted names are one kind; `flush`
 * prints each kind once, in first-seen order, as its first message plus `(and N more like it)`.
 * Used by `fh hook` and by `Output.warn`.
 */
export function warningCollector(write: (line: string) => void): { warn(message: string): void; flush(): void } {
  const kinds = new Map<string, { first: string; count: number }>();
  return {
    warn(message) {
      const key = message.replace(/"[^"]*"/g, '""').replace(/[0-9a-f]{8,}|\d+/g, '#');
      const kind = kinds.get(key);
      if (kind === undefined) kinds.set(key, { first: message, count: 1 });
      else kind.count += 1;
    },
    flush() {
      for (const { first, count } of kinds.values()) write(count === 1 ? first : `${first} (and ${count - 1} more like it)`);
      kinds.clear();
    },
  };
}
