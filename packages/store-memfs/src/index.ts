export { MemfsBackupStore, type MemfsBackupStoreOptions } from './memfs-backup-store.js';
