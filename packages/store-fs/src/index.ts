export { FsBackupStore } from './fs-backup-store.js';
export type { FsBackupStoreFileSystem, FsBackupStoreOptions } from './fs-backup-store-options.js';
export { FsSessionLog } from './fs-session-log.js';
export * from './claude-code.js';
export { TEMP_PREFIX, validateName } from './names.js';
