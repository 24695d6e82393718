export { DEFAULT_MAX_SCAN_ENTRIES, DEFAULT_MAX_SCAN_MS, NodeCommandProbe, walkProject, type NodeCommandProbeOptions } from './node-command-probe.js';
export { FsCommandJournal } from './fs-command-journal.js';
export { parseStatus, type StatusEntry } from './git.js';
export { ScanLimitError } from './tree-listing.js';
