export { FsBackupStore, nodeFileSystem } from './fs-backup-store.js';
export type { FsBackupStoreFileSystem, FsBackupStoreOptions, FsMetadataSync, FsReadSync } from './fs-backup-store-options.js';
export { FsSessionLog } from './fs-session-log.js';
export * from './claude-code.js';
export { TEMP_PREFIX, validateName } from './names.js';
export * from './claude-subagents.js';
