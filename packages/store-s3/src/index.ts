export { S3BackupStore } from './s3-backup-store.js';
export { S3_STORE_DEFAULTS, type S3BackupStoreOptions } from './options.js';
export { Layout, METADATA, normalisePrefix } from './layout.js';
export { S3SessionLog } from './s3-session-log.js';
export { translateS3Error, type RequestTarget } from './translate-error.js';
export { s3StoreOptionsFromEnvironment } from './environment.js';
