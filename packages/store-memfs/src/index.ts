export { MemfsBackupStore, type MemfsBackupStoreOptions } from './memfs-backup-store.js';
export { MemfsSessionLog } from './memfs-session-log.js';
