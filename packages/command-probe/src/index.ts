export { DEFAULT_MAX_SCAN_ENTRIES, DEFAULT_MAX_SCAN_MS, DEFAULT_RESCAN_AFTER_MS, NodeCommandProbe, walkProject, type FeedStatus, type NodeCommandProbeOptions, type WatchOptions } from './node-command-probe.js';
export type { ChangeFeedOptions } from './change-feed.js';
export { FsCommandJournal } from './fs-command-journal.js';
export { parseStatus, type StatusEntry } from './git.js';
export { ScanLimitError } from './tree-listing.js';
