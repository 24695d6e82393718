// src/errors.ts
var MARKER = /* @__PURE__ */ Symbol.for("@fh/core.error");
var FhError = class extends Error {
  /** Stable code; match on this, not on the message. */
  code = "FH_ERROR";
  [MARKER] = true;
  constructor(message, options = {}) {
    super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
    this.name = new.target.name;
  }
  /** True when `error` is an FhError from any installed copy of `@fh/core`. */
  static isInstance(error) {
    return hasMarker(error);
  }
  /** True when `error` is an FhError with the given code (from any installed copy). */
  static hasCode(error, code) {
    return hasMarker(error) && error.code === code;
  }
};
function hasMarker(error) {
  return typeof error === "object" && error !== null && error[MARKER] === true;
}
var NotFoundError = class extends FhError {
  code = "FH_NOT_FOUND";
};
var ConflictError = class extends FhError {
  code = "FH_CONFLICT";
};
var UnsupportedError = class extends FhError {
  code = "FH_UNSUPPORTED";
};
var CorruptError = class extends FhError {
  code = "FH_CORRUPT";
};
var OutsideRootError = class extends FhError {
  code = "FH_OUTSIDE_ROOT";
};
var InvalidArgumentError = class extends FhError {
  code = "FH_INVALID_ARGUMENT";
};
var LockedError = class extends FhError {
  code = "FH_LOCKED";
};
var PermissionError = class extends FhError {
  code = "FH_PERMISSION";
};
var UnavailableError = class extends FhError {
  code = "FH_UNAVAILABLE";
};
var BackupMissingError = class extends FhError {
  code = "FH_BACKUP_MISSING";
  /** Each backup that failed validation: tracked path, backup file name and why. */
  missing;
  constructor(message, missing, options = {}) {
    super(message, options);
    this.missing = missing;
  }
};
function errnoCode(error) {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = error.code;
    return typeof code === "string" ? code : void 0;
  }
  return void 0;
}

// src/fs-errors.ts
function translateFsError(error, context) {
  if (FhError.isInstance(error)) return error;
  const code = errnoCode(error);
  const message = `${context}: ${code ?? (error instanceof Error ? error.message : String(error))}`;
  const options = { cause: error };
  switch (code) {
    case "ENOENT":
      return new NotFoundError(`${message} (does not exist)`, options);
    case "EEXIST":
      return new ConflictError(`${message} (already exists)`, options);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new PermissionError(`${message} (permission denied)`, options);
    case "EISDIR":
    case "ENOTDIR":
    case "ELOOP":
    case "ENAMETOOLONG":
      return new InvalidArgumentError(`${message} (not a usable file path)`, options);
    case "ENOTSUP":
    case "ENOSYS":
      return new UnsupportedError(`${message} (operation not supported by the file system)`, options);
    case "EMFILE":
    case "ENFILE":
    case "EBUSY":
    case "EAGAIN":
    case "EIO":
      return new UnavailableError(`${message} (file system temporarily unavailable)`, options);
    default:
      return new FhError(message, options);
  }
}
function translateSourceError(error, context) {
  if (errnoCode(error) === "ENOTDIR") return new NotFoundError(`${context}: ENOTDIR (does not exist: a parent is not a folder)`, { cause: error });
  return translateFsError(error, context);
}

// src/types.ts
var MAX_SNAPSHOTS = 100;
function emptyFileHistoryState() {
  return { snapshots: [], trackedFiles: /* @__PURE__ */ new Set(), snapshotSequence: 0 };
}
function setStateBookkeeping(state, fields) {
  for (const name of ["superseded", "heldSnapshots"]) {
    if (!(name in fields)) continue;
    const value = fields[name];
    if (value === void 0) delete state[name];
    else Object.defineProperty(state, name, { value, enumerable: false, writable: true, configurable: true });
  }
  return state;
}

// src/attribution/agents.ts
var MAIN_AGENT = Object.freeze({ by: "main" });
function agentFromIds(agentId, agentType) {
  if (typeof agentId !== "string" || agentId === "") return MAIN_AGENT;
  return typeof agentType === "string" && agentType !== "" ? { by: "subagent", agentId, agentType } : { by: "subagent", agentId };
}
function sameAgent(a, b) {
  if (a.by === "main" || b.by === "main") return a.by === b.by;
  return a.agentId === b.agentId;
}
function agentOf(attribution) {
  return attribution.by === "main" ? MAIN_AGENT : agentFromIds(attribution.agentId, attribution.agentType);
}
function attributionFor(agent, at) {
  if (agent.by === "main") return { by: "main", at };
  return agent.agentType === void 0 ? { by: "subagent", agentId: agent.agentId, at } : { by: "subagent", agentId: agent.agentId, agentType: agent.agentType, at };
}
function agentKey(agent) {
  return agent.by === "main" ? "main" : `subagent:${agent.agentId}`;
}
function describeAgent(agent) {
  if (agent.by === "main") return "the main agent";
  return `sub-agent ${agent.agentId}${agent.agentType === void 0 ? "" : ` (${agent.agentType})`}`;
}
function entryChangedBy(entry, agent) {
  return entry.changedBy?.some((attribution) => sameAgent(agentOf(attribution), agent)) === true;
}
function withAttribution(entry, attribution) {
  const agent = agentOf(attribution);
  const existing = entry.changedBy ?? [];
  const index = existing.findIndex((item) => sameAgent(agentOf(item), agent));
  if (index === -1) return { ...entry, changedBy: [...existing, attribution] };
  const found = existing[index];
  if (found.by === "subagent" && found.agentType === void 0 && attribution.by === "subagent" && attribution.agentType !== void 0) {
    const changedBy = [...existing];
    changedBy[index] = { ...found, agentType: attribution.agentType };
    return { ...entry, changedBy };
  }
  return entry;
}
function withoutAttribution(entry) {
  if (entry.changedBy === void 0) return entry;
  const { changedBy: _changedBy, ...rest } = entry;
  return rest;
}
function parseChangedBy(value, where, warn) {
  if (!Array.isArray(value)) {
    warn(`${where}: changedBy is not an array; ignored`);
    return void 0;
  }
  const parsed = [];
  for (const item of value) {
    const attribution = parseAttribution(item);
    if (attribution === void 0) warn(`${where}: changedBy item ${JSON.stringify(item)} is not an attribution; ignored`);
    else parsed.push(attribution);
  }
  return parsed.length === 0 ? void 0 : parsed;
}
function parseAttribution(item) {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return void 0;
  const record = item;
  const at = record.at instanceof Date ? new Date(record.at.getTime()) : typeof record.at === "string" ? new Date(Date.parse(record.at)) : void 0;
  if (at === void 0 || Number.isNaN(at.getTime())) return void 0;
  if (record.by === "main") return { by: "main", at };
  if (record.by !== "subagent" || typeof record.agentId !== "string" || record.agentId === "") return void 0;
  return typeof record.agentType === "string" && record.agentType !== "" ? { by: "subagent", agentId: record.agentId, agentType: record.agentType, at } : { by: "subagent", agentId: record.agentId, at };
}

// src/state/records.ts
function snapshotRecord(snapshot, isSnapshotUpdate) {
  return { type: "file-history-snapshot", messageId: snapshot.messageId, snapshot, isSnapshotUpdate };
}
var SNAPSHOT_UPDATE_MAX_FILES = 64;
function deltaRecord(snapshotMessageId, trackingPath, backup, timestamp = /* @__PURE__ */ new Date()) {
  return { type: "file-history-delta", messageId: snapshotMessageId, snapshotMessageId, trackingPath, backup, timestamp };
}
function attachmentRecords(snapshot, attachedPaths) {
  if (Object.keys(snapshot.trackedFileBackups).length <= SNAPSHOT_UPDATE_MAX_FILES) return [snapshotRecord(snapshot, true)];
  const timestamp = /* @__PURE__ */ new Date();
  return attachedPaths.map((path) => deltaRecord(snapshot.messageId, path, snapshot.trackedFileBackups[path], timestamp));
}
var BACKUP_FILE_NAME_PATTERN = /^[0-9a-f]{16}@v[0-9]{1,15}$/;
var LOWER_HEX = (() => {
  const table = new Uint8Array(128);
  for (const digit of "0123456789abcdef") table[digit.charCodeAt(0)] = 1;
  return table;
})();
function isBackupFileName(name) {
  const length = name.length;
  if (length < 19 || length > 33 || name.charCodeAt(16) !== 64 || name.charCodeAt(17) !== 118) return false;
  for (let index = 0; index < 16; index += 1) if (LOWER_HEX[name.charCodeAt(index)] !== 1) return false;
  for (let index = 18; index < length; index += 1) {
    const code = name.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  return true;
}
function twoDigits(text, at) {
  const high = text.charCodeAt(at) - 48;
  const low = text.charCodeAt(at + 1) - 48;
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : -1;
}
function parseRecordTime(text) {
  if (text.length === 24 && text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(10) === 84 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58 && text.charCodeAt(19) === 46 && text.charCodeAt(23) === 90) {
    const century = twoDigits(text, 0);
    const yearLow = twoDigits(text, 2);
    const month = twoDigits(text, 5);
    const day = twoDigits(text, 8);
    const hour = twoDigits(text, 11);
    const minute = twoDigits(text, 14);
    const second = twoDigits(text, 17);
    const tenths = twoDigits(text, 20);
    const thousandths = text.charCodeAt(22) - 48;
    if (century >= 1 && yearLow >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && tenths >= 0 && thousandths >= 0 && thousandths <= 9) {
      const year = century * 100 + yearLow - (month <= 2 ? 1 : 0);
      const era = Math.floor(year / 400);
      const yearOfEra = year - era * 400;
      const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
      const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
      const days = era * 146097 + dayOfEra - 719468;
      return days * 864e5 + hour * 36e5 + minute * 6e4 + second * 1e3 + tenths * 10 + thousandths;
    }
  }
  return Date.parse(text);
}
var RecordTimes = class {
  dates = /* @__PURE__ */ new Map();
  /** The Date of `text` (as {@link parseRecordTime} reads it), or undefined when it is not one. */
  date(text) {
    let date = this.dates.get(text);
    if (date === void 0) {
      const time = parseRecordTime(text);
      date = Number.isNaN(time) ? null : new Date(time);
      this.dates.set(text, date);
    }
    return date ?? void 0;
  }
};
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function nonEmptyString(value) {
  return typeof value === "string" && value.length > 0 ? value : void 0;
}
function toDate(value) {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? void 0 : new Date(value.getTime());
  if (typeof value !== "string") return void 0;
  const time = parseRecordTime(value);
  return Number.isNaN(time) ? void 0 : new Date(time);
}
var UNKNOWN_TIME = 0;
function parseBackupEntry(value, label, path, warn, cache) {
  return parseBackup(value, label, path, warn, cache);
}
function adoptBackupEntry(value, times) {
  if (!isObject(value)) return void 0;
  const name = value.backupFileName;
  if (name !== null && (typeof name !== "string" || !isBackupFileName(name))) return void 0;
  const version = value.version;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) return void 0;
  if (typeof value.backupTime !== "string") return void 0;
  const backupTime = timeOf(value.backupTime, times);
  if (backupTime === void 0) return void 0;
  let fields = 3;
  const { size, mode, sha256, error, changedBy } = value;
  if (size !== void 0) {
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) return void 0;
    fields += 1;
  }
  if (mode !== void 0) {
    if (typeof mode !== "number" || !Number.isInteger(mode) || mode < 0 || mode > 4095) return void 0;
    fields += 1;
  }
  if (sha256 !== void 0) {
    if (typeof sha256 !== "string" || !isSha256Hex(sha256)) return void 0;
    fields += 1;
  }
  if (error !== void 0) {
    if (typeof error !== "string") return void 0;
    fields += 1;
  }
  let changedAt;
  if (changedBy !== void 0) {
    if (!Array.isArray(changedBy) || changedBy.length === 0) return void 0;
    changedAt = [];
    for (const item of changedBy) {
      const at = adoptableAttributionTime(item, times);
      if (at === void 0) return void 0;
      changedAt.push(at);
    }
    fields += 1;
  }
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count += 1;
  if (count !== fields) return void 0;
  value.backupTime = backupTime;
  if (changedAt !== void 0) {
    const dates = changedAt;
    changedBy.forEach((item, index) => item.at = dates[index]);
  }
  return value;
}
function timeOf(text, times) {
  if (times !== void 0) return times.date(text);
  const time = parseRecordTime(text);
  return Number.isNaN(time) ? void 0 : new Date(time);
}
function isSha256Hex(text) {
  if (text.length !== 64) return false;
  for (let index = 0; index < 64; index += 1) if (LOWER_HEX[text.charCodeAt(index)] !== 1) return false;
  return true;
}
function adoptableAttributionTime(item, times) {
  if (!isObject(item) || typeof item.at !== "string") return void 0;
  let fields = 2;
  if (item.by === "subagent") {
    if (typeof item.agentId !== "string" || item.agentId === "") return void 0;
    fields += 1;
    if (item.agentType !== void 0) {
      if (typeof item.agentType !== "string" || item.agentType === "") return void 0;
      fields += 1;
    }
  } else if (item.by !== "main") {
    return void 0;
  }
  let count = 0;
  for (const key in item) if (Object.hasOwn(item, key)) count += 1;
  if (count !== fields) return void 0;
  return timeOf(item.at, times);
}
function parseBackup(value, label, path, warn, cache) {
  const describe = () => `${label} ${JSON.stringify(path)}`;
  if (!isObject(value)) {
    warn(`${describe()}: backup is not an object; marked unavailable`);
    return { backupFileName: null, version: 0, backupTime: new Date(UNKNOWN_TIME), error: `unreadable backup record at ${describe()}` };
  }
  const cacheable = cache !== void 0 && isCacheable(value);
  if (cacheable) {
    const cached = findCached(cache, value);
    if (cached !== void 0) return cached;
  }
  let warned = false;
  const where = () => {
    warned = true;
    return describe();
  };
  const problems = [];
  const rawName = value.backupFileName;
  let backupFileName2 = null;
  if (rawName === null) {
    backupFileName2 = null;
  } else if (typeof rawName === "string" && isBackupFileName(rawName)) {
    backupFileName2 = rawName;
  } else {
    problems.push(`backupFileName ${JSON.stringify(rawName) ?? "undefined"} is not a backup name`);
  }
  const rawVersion = value.version;
  let version = 0;
  if (typeof rawVersion === "number" && Number.isSafeInteger(rawVersion) && rawVersion >= 1) {
    version = rawVersion;
  } else {
    problems.push(`version ${JSON.stringify(rawVersion) ?? "undefined"} is not a positive integer`);
  }
  let backupTime = toDate(value.backupTime);
  if (backupTime === void 0) {
    warn(`${where()}: backupTime ${JSON.stringify(value.backupTime) ?? "undefined"} is not a date; using the epoch`);
    backupTime = new Date(UNKNOWN_TIME);
  }
  const backup = { backupFileName: backupFileName2, version, backupTime };
  if (value.size !== void 0) {
    if (typeof value.size === "number" && Number.isSafeInteger(value.size) && value.size >= 0) backup.size = value.size;
    else warn(`${where()}: size ${JSON.stringify(value.size)} ignored`);
  }
  if (value.mode !== void 0) {
    if (typeof value.mode === "number" && Number.isInteger(value.mode) && value.mode >= 0 && value.mode <= 4095) backup.mode = value.mode;
    else warn(`${where()}: mode ${JSON.stringify(value.mode)} ignored`);
  }
  if (value.sha256 !== void 0) {
    if (typeof value.sha256 === "string" && /^[0-9a-f]{64}$/.test(value.sha256)) backup.sha256 = value.sha256;
    else warn(`${where()}: sha256 ${JSON.stringify(value.sha256)} ignored`);
  }
  if (typeof value.error === "string") backup.error = value.error;
  if (value.changedBy !== void 0) {
    const changedBy = parseChangedBy(value.changedBy, describe(), (message) => {
      warned = true;
      warn(message);
    });
    if (changedBy !== void 0) backup.changedBy = changedBy;
  }
  if (problems.length > 0) {
    const reason = problems.join("; ");
    warn(`${where()}: ${reason}; marked unavailable`);
    backup.backupFileName = null;
    backup.error = backup.error ?? `unreadable backup record at ${describe()}: ${reason}`;
  }
  if (cacheable && !warned) remember(cache, value, backup);
  return backup;
}
function isCacheable(value) {
  const { backupFileName: backupFileName2, version, backupTime, size, mode, error, sha256, changedBy } = value;
  return changedBy === void 0 && typeof backupTime === "string" && typeof version === "number" && (backupFileName2 === null || typeof backupFileName2 === "string") && (size === void 0 || typeof size === "number") && (mode === void 0 || typeof mode === "number") && (sha256 === void 0 || typeof sha256 === "string") && (error === void 0 || typeof error === "string");
}
function bucketKey(value) {
  return typeof value.backupFileName === "string" ? value.backupFileName : `\0${String(value.backupTime)}`;
}
function findCached(cache, value) {
  const bucket = cache.get(bucketKey(value));
  if (bucket === void 0) return void 0;
  for (const entry of bucket) {
    const raw = entry.raw;
    if (raw.backupFileName === value.backupFileName && raw.version === value.version && raw.backupTime === value.backupTime && raw.size === value.size && raw.mode === value.mode && raw.sha256 === value.sha256 && raw.error === value.error) {
      return entry.parsed;
    }
  }
  return void 0;
}
function remember(cache, value, parsed) {
  const key = bucketKey(value);
  const raw = { backupFileName: value.backupFileName, version: value.version, backupTime: value.backupTime, size: value.size, mode: value.mode, sha256: value.sha256, error: value.error };
  const bucket = cache.get(key);
  if (bucket === void 0) cache.set(key, [{ raw, parsed }]);
  else bucket.push({ raw, parsed });
}
function parseSnapshotRecord(record, warn, cache) {
  const snapshot = record.snapshot;
  if (!isObject(snapshot)) {
    warn("file-history-snapshot record without a snapshot object skipped");
    return void 0;
  }
  const messageId = nonEmptyString(snapshot.messageId) ?? nonEmptyString(record.messageId);
  if (messageId === void 0) {
    warn("file-history-snapshot record without a messageId skipped");
    return void 0;
  }
  const backups = snapshot.trackedFileBackups;
  if (!isObject(backups)) {
    warn(`file-history-snapshot ${messageId}: trackedFileBackups is not an object; record skipped`);
    return void 0;
  }
  let timestamp = toDate(snapshot.timestamp);
  if (timestamp === void 0) {
    warn(`file-history-snapshot ${messageId}: timestamp ${JSON.stringify(snapshot.timestamp) ?? "undefined"} is not a date; using the epoch`);
    timestamp = new Date(UNKNOWN_TIME);
  }
  const trackedFileBackups = {};
  const label = `file-history-snapshot ${messageId}`;
  for (const trackingPath in backups) {
    if (!Object.hasOwn(backups, trackingPath)) continue;
    if (trackingPath.length === 0) {
      warn(`${label}: entry with an empty path skipped`);
      continue;
    }
    trackedFileBackups[trackingPath] = parseBackup(backups[trackingPath], label, trackingPath, warn, cache);
  }
  return {
    type: "file-history-snapshot",
    messageId,
    snapshot: { messageId, trackedFileBackups, timestamp },
    isSnapshotUpdate: record.isSnapshotUpdate === true
  };
}
function parseDeltaRecord(record, warn, cache) {
  const snapshotMessageId = nonEmptyString(record.snapshotMessageId) ?? nonEmptyString(record.messageId);
  if (snapshotMessageId === void 0) {
    warn("file-history-delta record without a snapshotMessageId skipped");
    return void 0;
  }
  const trackingPath = nonEmptyString(record.trackingPath);
  if (trackingPath === void 0) {
    warn(`file-history-delta for ${snapshotMessageId} without a trackingPath skipped`);
    return void 0;
  }
  let timestamp = toDate(record.timestamp);
  if (timestamp === void 0) {
    warn(`file-history-delta for ${snapshotMessageId}: timestamp ${JSON.stringify(record.timestamp) ?? "undefined"} is not a date; using the epoch`);
    timestamp = new Date(UNKNOWN_TIME);
  }
  return {
    type: "file-history-delta",
    messageId: nonEmptyString(record.messageId) ?? snapshotMessageId,
    snapshotMessageId,
    trackingPath,
    backup: parseBackup(record.backup, `file-history-delta for ${snapshotMessageId}`, trackingPath, warn, cache),
    timestamp
  };
}
function parseFileHistoryRecord(record, onWarning = () => {
}, cache) {
  if (!isObject(record)) return void 0;
  if (record.type === "file-history-snapshot") return parseSnapshotRecord(record, onWarning, cache);
  if (record.type === "file-history-delta") return parseDeltaRecord(record, onWarning, cache);
  return void 0;
}
function fileHistoryRecordHead(record) {
  if (!isObject(record)) return void 0;
  if (record.type === "file-history-snapshot") {
    const snapshot = record.snapshot;
    if (!isObject(snapshot) || !isObject(snapshot.trackedFileBackups)) return void 0;
    const messageId = nonEmptyString(snapshot.messageId) ?? nonEmptyString(record.messageId);
    return messageId === void 0 ? void 0 : { type: "file-history-snapshot", messageId, isSnapshotUpdate: record.isSnapshotUpdate === true };
  }
  if (record.type === "file-history-delta") {
    const snapshotMessageId = nonEmptyString(record.snapshotMessageId) ?? nonEmptyString(record.messageId);
    if (snapshotMessageId === void 0 || nonEmptyString(record.trackingPath) === void 0) return void 0;
    return { type: "file-history-delta", snapshotMessageId };
  }
  return void 0;
}
function userMessageRecord(options) {
  return {
    parentUuid: options.parentUuid,
    isSidechain: false,
    userType: "external",
    ...options.cwd === void 0 ? {} : { cwd: options.cwd },
    sessionId: options.sessionId,
    type: "user",
    message: { role: "user", content: options.text },
    uuid: options.uuid,
    timestamp: options.timestamp.toISOString()
  };
}
var FH_SESSION_RECORD_TYPE = "fh-session";
function fhSessionRecord(options) {
  return {
    type: FH_SESSION_RECORD_TYPE,
    sessionId: options.sessionId,
    projectRoot: options.projectRoot,
    createdAt: options.createdAt.toISOString(),
    ...options.resumedFrom === void 0 ? {} : { resumedFrom: options.resumedFrom },
    ...options.snapshotSequenceOffset === void 0 ? {} : { snapshotSequenceOffset: options.snapshotSequenceOffset }
  };
}
function parseFhSessionRecord(record, onWarning = () => {
}) {
  if (!isObject(record) || record.type !== FH_SESSION_RECORD_TYPE) return void 0;
  const sessionId = nonEmptyString(record.sessionId);
  const projectRoot = nonEmptyString(record.projectRoot);
  if (sessionId === void 0 || projectRoot === void 0) {
    onWarning("fh-session record without a sessionId or projectRoot skipped");
    return void 0;
  }
  const parsed = { type: FH_SESSION_RECORD_TYPE, sessionId, projectRoot, createdAt: toDate(record.createdAt) ?? new Date(UNKNOWN_TIME) };
  const resumedFrom = nonEmptyString(record.resumedFrom);
  if (resumedFrom !== void 0) parsed.resumedFrom = resumedFrom;
  const offset = record.snapshotSequenceOffset;
  if (typeof offset === "number" && Number.isSafeInteger(offset) && offset >= 0) parsed.snapshotSequenceOffset = offset;
  return parsed;
}

// src/progress.ts
function startPhase(callback, phase, totalFiles, totalBytes = 0) {
  if (callback === void 0 || totalFiles === 0) return { file() {
  } };
  let files = 0;
  let bytes = 0;
  const report = () => {
    try {
      callback({ phase, files, totalFiles, bytes, totalBytes });
    } catch {
    }
  };
  report();
  return {
    file(size = 0) {
      files += 1;
      bytes += size;
      report();
    }
  };
}

// src/state/jsonl.ts
function formatJsonl(records) {
  let text = "";
  for (const record of records) text += `${JSON.stringify(record)}
`;
  return text;
}
function parseJsonl(text) {
  const records = [];
  const skipped = [];
  const lines = text.split("\n");
  const lastIndex = lines.length - 1;
  lines.forEach((rawLine, index) => {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === "") return;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      skipped.push({ line: index + 1, reason: index === lastIndex ? "torn last line" : "invalid JSON" });
      return;
    }
    if (isRecord(value)) records.push(value);
    else skipped.push({ line: index + 1, reason: "not an object with a type" });
  });
  return { records, skipped };
}
function parseJsonlLine(text, terminated = true) {
  const line = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (line.trim() === "") return void 0;
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return { reason: terminated ? "invalid JSON" : "torn last line" };
  }
  return isRecord(value) ? { record: value } : { reason: "not an object with a type" };
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof value.type === "string";
}

// src/conversation/messages.ts
var CHAIN_MESSAGE_TYPES = /* @__PURE__ */ new Set(["user", "assistant", "system", "attachment", "progress"]);
var SYNTHETIC_MESSAGE_TEXTS = /* @__PURE__ */ new Set([
  "[Request interrupted by user]",
  "[Request interrupted by user for tool use]",
  "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.",
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
  "No response requested."
]);
var NON_PROMPT_TAGS = [
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<bash-stdout>",
  "<bash-stderr>",
  "<task-notification>",
  "<tick>",
  "<teammate-message"
];
var COMPACT_CONTINUATION_PREFIX = "This session is being continued from a previous conversation";
function isTranscriptMessage(record) {
  return CHAIN_MESSAGE_TYPES.has(record.type) && typeof record["uuid"] === "string";
}
function isTextBlock(block) {
  return block.type === "text" && typeof block.text === "string";
}
function isBase64ImageBlock(block) {
  if (block.type !== "image") return false;
  const source = block.source;
  return typeof source === "object" && source !== null && source.type === "base64" && typeof source["data"] === "string";
}
function isToolUseBlock(block) {
  return block.type === "tool_use";
}
function isToolResultBlock(block) {
  return block.type === "tool_result";
}
function contentBlocks(message) {
  const content = message.message?.content;
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}
function messageText(message) {
  const content = message.message?.content;
  if (typeof content === "string") return content;
  return contentBlocks(message).filter(isTextBlock).map((block) => block.text).join("\n").trim();
}
function isToolResultMessage(message) {
  if (message.type !== "user") return false;
  if (message["toolUseResult"] !== void 0) return true;
  return contentBlocks(message).some(isToolResultBlock);
}
function isSyntheticMessage(message) {
  if (message.type !== "user" && message.type !== "assistant") return false;
  const first = contentBlocks(message)[0];
  return first !== void 0 && isTextBlock(first) && SYNTHETIC_MESSAGE_TEXTS.has(first.text.trim());
}
function isCommandOrOutputMessage(message) {
  return contentBlocks(message).filter(isTextBlock).some((block) => block.text.trimStart().startsWith(COMPACT_CONTINUATION_PREFIX) || NON_PROMPT_TAGS.some((tag) => block.text.includes(tag)));
}

// src/conversation/prompt.ts
var IDE_CONTEXT_TAGS = /<(ide_opened_file|ide_selection)(?:\s[^>]*)?>[\s\S]*?<\/\1>\n?/g;
function extractTag(text, tag) {
  const match = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`).exec(text);
  const inner = match?.[1]?.trim();
  return inner === void 0 || inner === "" ? void 0 : inner;
}
function promptForResubmit(message) {
  const text = messageText(message);
  const images = contentBlocks(message).filter((block) => block.type === "image").flatMap(
    (block, index) => isBase64ImageBlock(block) ? [{ id: message.imagePasteIds?.[index] ?? index + 1, mediaType: block.source.media_type, data: block.source.data }] : []
  );
  const permissionMode = message.permissionMode;
  const bash = extractTag(text, "bash-input");
  if (bash !== void 0) return { text: bash, mode: "bash", images, permissionMode };
  const command = extractTag(text, "command-name");
  if (command !== void 0) {
    const args = extractTag(text, "command-args");
    return { text: args === void 0 ? command : `${command} ${args}`, mode: "prompt", images, permissionMode };
  }
  return { text: text.replace(IDE_CONTEXT_TAGS, "").trim(), mode: "prompt", images, permissionMode };
}

// src/conversation/chain.ts
function currentBranch(records) {
  const byUuid = /* @__PURE__ */ new Map();
  let leaf;
  for (const record of records) {
    if (!isTranscriptMessage(record)) continue;
    byUuid.set(record.uuid, record);
    if (record.isSidechain !== true) leaf = record;
  }
  const branch = [];
  const seen = /* @__PURE__ */ new Set();
  for (let message = leaf; message !== void 0 && !seen.has(message.uuid); ) {
    seen.add(message.uuid);
    branch.push(message);
    const logicalParent = message["logicalParentUuid"];
    const parent = message.parentUuid ?? (typeof logicalParent === "string" ? logicalParent : null);
    message = parent === null ? void 0 : byUuid.get(parent);
  }
  return branch.reverse();
}
function currentBranchRecords(records) {
  const onBranch = new Set(currentBranch(records));
  return records.filter((record) => !isTranscriptMessage(record) || onBranch.has(record));
}

// src/conversation/selectable.ts
var CURRENT_PROMPT_ID = "<current-prompt>";
function isSelectableUserMessage(record) {
  if (!isTranscriptMessage(record) || record.type !== "user" || record.message === void 0) return false;
  if (record.isMeta === true || record.isSidechain === true) return false;
  if (record.isCompactSummary === true || record.isVisibleInTranscriptOnly === true) return false;
  if (isToolResultMessage(record) || isSyntheticMessage(record)) return false;
  return !isCommandOrOutputMessage(record);
}
function selectablePromptIds(records) {
  return currentBranch(records).filter(isSelectableUserMessage).map((message) => message.uuid);
}
function selectableUserMessages(records) {
  const entries = [];
  records.forEach((record, index) => {
    if (!isSelectableUserMessage(record)) return;
    const prompt = promptForResubmit(record);
    entries.push({
      messageId: record.uuid,
      index,
      message: record,
      isCurrentPrompt: false,
      text: prompt.text,
      imageCount: prompt.images.length,
      timestamp: record.timestamp
    });
  });
  entries.push({
    messageId: CURRENT_PROMPT_ID,
    index: records.length,
    message: null,
    isCurrentPrompt: true,
    text: "",
    imageCount: 0,
    timestamp: void 0
  });
  return entries;
}
function messagesAfterAreOnlySynthetic(records, index) {
  for (const record of records.slice(index + 1)) {
    if (!isTranscriptMessage(record)) continue;
    if (isSyntheticMessage(record) || isToolResultMessage(record)) continue;
    if (record.type === "system" || record.type === "progress" || record.type === "attachment") continue;
    if (record.type === "user") {
      if (record.isMeta === true) continue;
      return false;
    }
    if (record.type === "assistant") {
      const meaningful = contentBlocks(record).some(
        (block) => isTextBlock(block) && block.text.trim() !== "" || isToolUseBlock(block)
      );
      if (meaningful) return false;
    }
  }
  return true;
}
function offeredCheckpointIds(records, snapshotMessageIds, options = {}) {
  const prompts = new Set(selectablePromptIds(records));
  const recorded = /* @__PURE__ */ new Set();
  if (options.unrecordedMessages === true) {
    for (const record of records) if (isTranscriptMessage(record)) recorded.add(record.uuid);
  }
  const offered = /* @__PURE__ */ new Set();
  for (const id of snapshotMessageIds) {
    if (prompts.has(id) || options.unrecordedMessages === true && !recorded.has(id)) offered.add(id);
  }
  return [...offered];
}

// src/conversation/rewind-conversation.ts
import { randomUUID } from "crypto";
function findSelectableMessageIndex(records, messageId) {
  if (messageId === CURRENT_PROMPT_ID) {
    throw new NotFoundError(`The current prompt ${CURRENT_PROMPT_ID} is not a message; there is nothing to rewind to`);
  }
  const index = records.findLastIndex((record2) => isTranscriptMessage(record2) && record2.uuid === messageId);
  if (index === -1) throw new NotFoundError(`No message with id ${messageId} in the conversation`);
  const record = records[index];
  if (!isSelectableUserMessage(record)) {
    throw new InvalidArgumentError(
      `Message ${messageId} is a ${record.type} record that is not a prompt a person typed; only those can be rewound to`
    );
  }
  return index;
}
function rewindConversation(records, messageId, options = {}) {
  const index = findSelectableMessageIndex(records, messageId);
  const target = records[index];
  const removedMessageIds = messageIds(records.slice(index));
  const prompt = promptForResubmit(target);
  const rewind = {
    messages: records.slice(0, index),
    conversationId: (options.generateId ?? randomUUID)(),
    target,
    permissionMode: target.permissionMode,
    prompt,
    removedMessageIds
  };
  options.onMessagesRemoved?.({ reason: "rewind", messageId, removedMessageIds });
  return rewind;
}
function messageIds(records) {
  return records.filter(isTranscriptMessage).map((record) => record.uuid);
}
function isLosslessConversationRewind(records, messageId) {
  return messagesAfterAreOnlySynthetic(records, findSelectableMessageIndex(records, messageId));
}

// src/conversation/compact.ts
import { randomUUID as randomUUID2 } from "crypto";
var ENVELOPE_FIELDS = ["sessionId", "cwd", "version", "gitBranch", "userType"];
async function partialCompact(records, messageId, options) {
  const index = findSelectableMessageIndex(records, messageId);
  const chosen = records[index];
  const isReplaced = (position) => options.direction === "summarize" ? position >= index : position < index;
  const replaced = records.filter(
    (record, position) => isReplaced(position) && isTranscriptMessage(record)
  );
  const first = replaced[0];
  if (first === void 0) {
    throw new InvalidArgumentError(`Nothing to summarize: message ${messageId} is the first message of the conversation`);
  }
  const text = await options.summarize(replaced, {
    direction: options.direction,
    messageId,
    instructions: options.instructions
  });
  if (typeof text !== "string" || text.trim() === "") {
    throw new InvalidArgumentError(`The summarize callback returned ${JSON.stringify(text)}; expected a non-empty string`);
  }
  const summaryMessage = {
    type: "user",
    uuid: (options.generateId ?? randomUUID2)(),
    parentUuid: first.parentUuid ?? null,
    isSidechain: false,
    ...Object.fromEntries(ENVELOPE_FIELDS.filter((field) => chosen[field] !== void 0).map((field) => [field, chosen[field]])),
    timestamp: (options.now?.() ?? /* @__PURE__ */ new Date()).toISOString(),
    isCompactSummary: true,
    message: { role: "user", content: text }
  };
  const removedMessageIds = replaced.map((record) => record.uuid);
  const removed = new Set(removedMessageIds);
  const messages = [];
  records.forEach((record, position) => {
    if (record === first) messages.push(summaryMessage);
    if (isReplaced(position) && isTranscriptMessage(record)) return;
    if (isTranscriptMessage(record) && record.parentUuid !== null && removed.has(record.parentUuid)) {
      messages.push({ ...record, parentUuid: summaryMessage.uuid });
      return;
    }
    messages.push(record);
  });
  options.onMessagesRemoved?.({ reason: options.direction, messageId, removedMessageIds });
  return { messages, summaryMessage, removedMessageIds };
}

// src/conversation/fork-records.ts
import { randomUUID as randomUUID3 } from "crypto";
var FORK_CARRIED_TYPES = /* @__PURE__ */ new Set(["custom-title", "ai-title", "tag", "permission-mode", "mode", "worktree-state"]);
var TITLE_TYPES = /* @__PURE__ */ new Set(["custom-title", "ai-title", "tag"]);
function apiMessageId(record) {
  const id = record.message?.id;
  return record.type === "assistant" && typeof id === "string" ? id : void 0;
}
function toolUseIds(record) {
  return record.type === "assistant" ? contentBlocks(record).filter(isToolUseBlock).map((block) => block.id) : [];
}
function toolResultIds(record) {
  return record.type === "user" ? contentBlocks(record).filter(isToolResultBlock).map((block) => block.tool_use_id) : [];
}
function addParallelSiblings(records, kept, keptUuids) {
  const replies = /* @__PURE__ */ new Set();
  const toolUses = /* @__PURE__ */ new Set();
  const note = (record) => {
    const id = apiMessageId(record);
    if (id !== void 0) replies.add(id);
    for (const use of toolUseIds(record)) toolUses.add(use);
  };
  for (const record of kept) note(record);
  for (let changed = true; changed; ) {
    changed = false;
    for (const record of records) {
      if (kept.has(record) || !isTranscriptMessage(record) || record.isSidechain === true) continue;
      if (record.parentUuid === null || !keptUuids.has(record.parentUuid) || keptUuids.has(record.uuid)) continue;
      const reply = apiMessageId(record);
      const progressOf = record.type === "progress" ? record["parentToolUseID"] : void 0;
      const belongs = reply !== void 0 && replies.has(reply) || toolResultIds(record).length > 0 && toolResultIds(record).every((id) => toolUses.has(id)) || typeof progressOf === "string" && toolUses.has(progressOf);
      if (!belongs) continue;
      kept.add(record);
      keptUuids.add(record.uuid);
      note(record);
      changed = true;
    }
  }
}
function branchWithParallelParts(records) {
  const branch = currentBranch(records);
  const kept = new Set(branch);
  addParallelSiblings(records, kept, new Set(branch.map((message) => message.uuid)));
  return records.filter((record) => kept.has(record));
}
function unansweredToolUses(kept) {
  const answered = /* @__PURE__ */ new Set();
  for (const record of kept) for (const id of toolResultIds(record)) answered.add(id);
  const dropped = /* @__PURE__ */ new Map();
  const stripped = /* @__PURE__ */ new Map();
  const unanswered = /* @__PURE__ */ new Set();
  for (const record of kept) {
    const message = record;
    const open = toolUseIds(message).filter((id) => !answered.has(id));
    if (open.length === 0) continue;
    for (const id of open) unanswered.add(id);
    const rest = contentBlocks(message).filter((block) => !(isToolUseBlock(block) && open.includes(block.id)));
    if (rest.length === 0) dropped.set(message.uuid, message.parentUuid);
    else stripped.set(message, { ...message, message: { ...message.message, content: rest } });
  }
  for (const record of kept) {
    const message = record;
    const progressOf = message.type === "progress" ? message["parentToolUseID"] : void 0;
    if (typeof progressOf === "string" && unanswered.has(progressOf)) dropped.set(message.uuid, message.parentUuid);
  }
  return { dropped, stripped };
}
function planFork(records, messageId, options = {}) {
  const sessionId = options.sessionId ?? randomUUID3();
  const branch = currentBranch(records);
  const rewind = messageId === CURRENT_PROMPT_ID ? null : rewindConversation(branch, messageId, { generateId: () => sessionId });
  const chain = rewind === null ? branch : rewind.messages;
  const kept = new Set(chain);
  const keptUuids = new Set(chain.map((message) => message.uuid));
  addParallelSiblings(records, kept, keptUuids);
  const forkPoint = rewind === null ? records.length : records.indexOf(rewind.target);
  const { dropped, stripped } = unansweredToolUses(kept);
  const resolveParent = (parentUuid) => {
    let parent = parentUuid;
    for (let hops = 0; parent !== null && dropped.has(parent) && hops <= dropped.size; hops++) parent = dropped.get(parent) ?? null;
    return parent;
  };
  const messages = [];
  const written = [];
  records.forEach((record, index) => {
    if (kept.has(record)) {
      const message = record;
      if (dropped.has(message.uuid)) return;
      const copy = { ...stripped.get(message) ?? message, sessionId };
      if (dropped.has(copy.parentUuid ?? "")) copy.parentUuid = resolveParent(copy.parentUuid);
      messages.push(copy);
      written.push(copy);
    } else if (FORK_CARRIED_TYPES.has(record.type) && (TITLE_TYPES.has(record.type) || index < forkPoint)) {
      written.push(typeof record["sessionId"] === "string" ? { ...record, sessionId } : { ...record });
    }
  });
  const keptMessageIds = messages.map((message) => message.uuid);
  const keptIds = new Set(keptMessageIds);
  const fileHistoryRecords = records.filter((record) => {
    const owner = snapshotOwner(record);
    return owner !== void 0 && keptIds.has(owner);
  });
  return { sessionId, messages, keptMessageIds, records: written, fileHistoryRecords, rewind };
}
function snapshotOwner(record) {
  if (record.type === "file-history-snapshot") {
    const snapshot = record["snapshot"];
    const inner = typeof snapshot === "object" && snapshot !== null ? snapshot.messageId : void 0;
    if (typeof inner === "string") return inner;
    return typeof record["messageId"] === "string" ? record["messageId"] : void 0;
  }
  if (record.type === "file-history-delta") {
    return typeof record["snapshotMessageId"] === "string" ? record["snapshotMessageId"] : void 0;
  }
  if (record.type === "fh-snapshot") {
    return typeof record["messageId"] === "string" ? record["messageId"] : void 0;
  }
  return void 0;
}

// src/conversation/turn-reply.ts
function turnReplyText(records, messageId) {
  const start = records.findIndex((record) => isTranscriptMessage(record) && record.uuid === messageId);
  if (start === -1) return void 0;
  const texts = [];
  for (const record of records.slice(start + 1)) {
    if (!isTranscriptMessage(record)) continue;
    if (record.type === "assistant") {
      const text = messageText(record).trim();
      if (text !== "") texts.push(text);
    } else if (isSelectableUserMessage(record)) {
      break;
    }
  }
  return texts.length === 0 ? void 0 : texts.join("\n\n");
}

// src/state/rebuild.ts
import { posix, win32 } from "path";

// src/state/log-lines.ts
var MAX_LOG_LINE_BYTES = 256 * 1024 * 1024;
async function* readLogLines(log, options = {}) {
  const maxLineBytes = options.maxLineBytes ?? MAX_LOG_LINE_BYTES;
  if (log.readStream === void 0) {
    const { records, skipped } = await log.read();
    for (const line2 of skipped) yield { line: line2.line, skipped: line2.reason };
    let index = 0;
    for (const record of records) {
      index += 1;
      yield { line: index, record };
    }
    return;
  }
  let line = 0;
  let pending = [];
  let pendingBytes = 0;
  let tooLong = false;
  const take = (chunk, start, end) => {
    line += 1;
    if (tooLong || pendingBytes + (end - start) > maxLineBytes) {
      pending = [];
      pendingBytes = 0;
      tooLong = false;
      return { line, skipped: "line too long" };
    }
    const text = pending.length === 0 ? chunk.toString("utf8", start, end) : Buffer.concat([...pending, chunk.subarray(start, end)]).toString("utf8");
    pending = [];
    pendingBytes = 0;
    return text.length === 0 || text === "\r" ? void 0 : { line, text, terminated: true };
  };
  for await (const raw of log.readStream()) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let start = 0;
    for (let end = chunk.indexOf(10, start); end >= 0; end = chunk.indexOf(10, start)) {
      const taken = take(chunk, start, end);
      if (taken !== void 0) yield taken;
      start = end + 1;
    }
    if (start < chunk.length) {
      if (tooLong || pendingBytes + chunk.length - start > maxLineBytes) {
        pending = [];
        pendingBytes = 0;
        tooLong = true;
      } else {
        pending.push(Buffer.from(chunk.subarray(start)));
        pendingBytes += chunk.length - start;
      }
    }
  }
  if (tooLong) {
    yield { line: line + 1, skipped: "line too long" };
  } else if (pendingBytes > 0) {
    const text = Buffer.concat(pending).toString("utf8");
    if (text.trim() !== "") yield { line: line + 1, text, terminated: false };
  }
}

// src/state/snapshot-chain.ts
var links = /* @__PURE__ */ new WeakMap();
var built = /* @__PURE__ */ new WeakMap();
function chainedSnapshot(messageId, timestamp, previous, changes, materialized) {
  const snapshot = {};
  Object.defineProperty(snapshot, "messageId", { value: messageId, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(snapshot, "trackedFileBackups", {
    enumerable: true,
    configurable: true,
    get: () => mapOf(snapshot),
    set: (value) => {
      links.delete(snapshot);
      built.set(snapshot, value);
    }
  });
  Object.defineProperty(snapshot, "timestamp", { value: timestamp, enumerable: true, writable: true, configurable: true });
  if (materialized === void 0) links.set(snapshot, { previous, changes });
  else built.set(snapshot, materialized);
  return snapshot;
}
function isDeferred(snapshot) {
  return links.has(snapshot);
}
function chainLink(snapshot) {
  return links.get(snapshot);
}
function entryOf(snapshot, path) {
  let current = snapshot;
  for (let link = links.get(current); link !== void 0; link = links.get(current)) {
    if (link.changes.has(path)) return link.changes.get(path);
    current = link.previous;
  }
  return Object.hasOwn(current.trackedFileBackups, path) ? current.trackedFileBackups[path] : void 0;
}
function detach(snapshot) {
  if (links.has(snapshot)) mapOf(snapshot);
}
function copyBackupMap(map) {
  const copy = { a: void 0, b: void 0 };
  delete copy.a;
  delete copy.b;
  const keys = Object.keys(map);
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index];
    if (key === "__proto__") Object.defineProperty(copy, key, { value: map[key], enumerable: true, writable: true, configurable: true });
    else copy[key] = map[key];
  }
  return copy;
}
function mapOf(snapshot) {
  const done = built.get(snapshot);
  if (done !== void 0) return done;
  const pending = [];
  let current = snapshot;
  for (let link = links.get(current); link !== void 0; link = links.get(current)) {
    pending.push(link);
    current = link.previous;
  }
  const map = copyBackupMap(current.trackedFileBackups);
  for (let index = pending.length - 1; index >= 0; index -= 1) {
    for (const [path, entry] of pending[index].changes) {
      if (entry === void 0) delete map[path];
      else map[path] = entry;
    }
  }
  links.delete(snapshot);
  built.set(snapshot, map);
  return map;
}
var diffs = /* @__PURE__ */ new WeakMap();
function noteChanges(snapshot, previous, diff) {
  diffs.set(snapshot, { previous, diff });
}
function notedDiff(snapshot, previous) {
  const noted = diffs.get(snapshot);
  return noted !== void 0 && noted.previous === previous ? noted.diff : void 0;
}
var covered = /* @__PURE__ */ new WeakSet();
function markKeysTracked(snapshot) {
  covered.add(snapshot);
}
function keysTracked(snapshot) {
  return covered.has(snapshot);
}

// src/state/snapshot-records.ts
var FH_SNAPSHOT_RECORD_TYPE = "fh-snapshot";
var FH_SNAPSHOT_RECORD_VERSION = 2;
var HEAD_PATTERN = /^\{"type":"fh-snapshot","version":2,"kind":"(full|diff|attach)","sequence":(\d{1,15}),(?:"base":(\d{1,15}),)?"messageId":("(?:[^"\\]|\\.)*")/;
function sniffFhSnapshotLine(text) {
  const match = HEAD_PATTERN.exec(text.length > 4096 ? text.slice(0, 4096) : text);
  if (match === null) return void 0;
  let messageId;
  try {
    messageId = JSON.parse(match[4]);
  } catch {
    return void 0;
  }
  if (typeof messageId !== "string" || messageId === "") return void 0;
  const kind = match[1];
  if (kind === "diff" !== (match[3] !== void 0)) return void 0;
  return { kind, sequence: Number(match[2]), ...match[3] === void 0 ? {} : { base: Number(match[3]) }, messageId };
}
function fhSnapshotRecordHead(record) {
  if (typeof record !== "object" || record === null) return void 0;
  const value = record;
  if (value.type !== FH_SNAPSHOT_RECORD_TYPE || value.version !== FH_SNAPSHOT_RECORD_VERSION) return void 0;
  if (value.kind !== "full" && value.kind !== "diff" && value.kind !== "attach") return void 0;
  if (!isSequence(value.sequence) || typeof value.messageId !== "string" || value.messageId === "") return void 0;
  if (value.kind === "diff") return isSequence(value.base) ? { kind: "diff", sequence: value.sequence, base: value.base, messageId: value.messageId } : void 0;
  return { kind: value.kind, sequence: value.sequence, messageId: value.messageId };
}
function fullSnapshotRecord(snapshot, sequence, pending = /* @__PURE__ */ new Map()) {
  const pendingObject = {};
  for (const [at, backups] of pending) if (Object.keys(backups).length > 0) pendingObject[String(at)] = backups;
  return {
    type: FH_SNAPSHOT_RECORD_TYPE,
    version: FH_SNAPSHOT_RECORD_VERSION,
    kind: "full",
    sequence,
    messageId: snapshot.messageId,
    timestamp: snapshot.timestamp,
    entries: snapshot.trackedFileBackups,
    ...Object.keys(pendingObject).length === 0 ? {} : { pending: pendingObject }
  };
}
function diffSnapshotRecord(messageId, timestamp, sequence, base, entries, removed = []) {
  return {
    type: FH_SNAPSHOT_RECORD_TYPE,
    version: FH_SNAPSHOT_RECORD_VERSION,
    kind: "diff",
    sequence,
    base,
    messageId,
    timestamp,
    entries,
    ...removed.length === 0 ? {} : { removed }
  };
}
function attachSnapshotRecord(messageId, sequence, entries) {
  return { type: FH_SNAPSHOT_RECORD_TYPE, version: FH_SNAPSHOT_RECORD_VERSION, kind: "attach", sequence, messageId, timestamp: /* @__PURE__ */ new Date(), entries };
}
function parseFhSnapshotRecord(record, warn = () => {
}, cache, owned = false, times) {
  if (typeof record !== "object" || record === null || Array.isArray(record)) return void 0;
  const value = record;
  if (value.type !== FH_SNAPSHOT_RECORD_TYPE) return void 0;
  if (value.version !== FH_SNAPSHOT_RECORD_VERSION) {
    warn(`fh-snapshot record of format version ${JSON.stringify(value.version)} skipped (this fh reads version ${FH_SNAPSHOT_RECORD_VERSION}; a newer fh wrote it?)`);
    return void 0;
  }
  const head = fhSnapshotRecordHead(value);
  if (head === void 0) {
    warn("fh-snapshot record without a kind, sequence, base or messageId skipped");
    return void 0;
  }
  const label = `fh-snapshot ${head.messageId}`;
  const time = typeof value.timestamp === "string" ? parseRecordTime(value.timestamp) : Number.NaN;
  if (Number.isNaN(time)) warn(`${label}: timestamp ${JSON.stringify(value.timestamp) ?? "undefined"} is not a date; using the epoch`);
  const rawEntries = value.entries;
  if (typeof rawEntries !== "object" || rawEntries === null || Array.isArray(rawEntries)) {
    warn(`${label}: entries is not an object; record skipped`);
    return void 0;
  }
  const base = head.base;
  const entries = owned ? rawEntries : {};
  for (const path in rawEntries) {
    if (!Object.hasOwn(rawEntries, path)) continue;
    if (path === "") {
      warn(`${label}: entry with an empty path skipped`);
      if (owned) delete entries[path];
      continue;
    }
    const raw = rawEntries[path];
    if (owned && adoptBackupEntry(raw, times) !== void 0) continue;
    entries[path] = parseBackupEntry(raw, label, path, warn, cache);
  }
  const removed = [];
  if (head.kind === "diff" && value.removed !== void 0) {
    if (Array.isArray(value.removed)) {
      for (const path of value.removed) {
        if (typeof path === "string" && path !== "") removed.push(path);
        else warn(`${label}: removed path ${JSON.stringify(path)} ignored`);
      }
    } else {
      warn(`${label}: removed is not a list; ignored`);
    }
  }
  const pending = /* @__PURE__ */ new Map();
  if (head.kind === "full" && typeof value.pending === "object" && value.pending !== null) {
    for (const [at, backups] of Object.entries(value.pending)) {
      const sequence = Number(at);
      if (!isSequence(sequence) || typeof backups !== "object" || backups === null) {
        warn(`${label}: pending retention entry ${JSON.stringify(at)} ignored`);
        continue;
      }
      const kept = {};
      for (const [path, name] of Object.entries(backups)) {
        if (path !== "" && typeof name === "string" && isBackupFileName(name)) kept[path] = name;
        else warn(`${label}: pending retention of ${JSON.stringify(path)} ignored (not a backup name)`);
      }
      pending.set(sequence, kept);
    }
  }
  return {
    type: FH_SNAPSHOT_RECORD_TYPE,
    kind: head.kind,
    sequence: head.sequence,
    messageId: head.messageId,
    timestamp: new Date(Number.isNaN(time) ? 0 : time),
    ...base === void 0 ? {} : { base },
    entries,
    removed,
    pending
  };
}
function isSequence(value) {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

// src/state/rebuild.ts
function pathApiFor(projectRoot) {
  return /^[A-Za-z]:[\\/]/.test(projectRoot) || projectRoot.startsWith("\\\\") ? win32 : posix;
}
function isCleanKey(key) {
  const length = key.length;
  if (length === 0) return false;
  if (length >= 2 && key.charCodeAt(1) === 58) {
    const first = key.charCodeAt(0) | 32;
    if (first >= 97 && first <= 122) return false;
  }
  let segmentStart = 0;
  for (let index = 0; index <= length; index += 1) {
    const code = index === length ? 47 : key.charCodeAt(index);
    if (code === 0 || code === 92) return false;
    if (code !== 47) continue;
    const segment = index - segmentStart;
    if (segment === 0) return false;
    if (segment <= 2 && key.charCodeAt(segmentStart) === 46 && (segment === 1 || key.charCodeAt(segmentStart + 1) === 46)) return false;
    segmentStart = index + 1;
  }
  return true;
}
function toTrackingKey(key, root, path, base = root) {
  if (base === root && isCleanKey(key)) return { key };
  if (key.includes("\0")) return { reason: "contains a NUL character" };
  let relative7;
  if (path.isAbsolute(key) || base !== root) {
    relative7 = path.relative(root, path.resolve(base, key));
    if (path.isAbsolute(relative7)) return { reason: `is outside the project root ${root}` };
  } else {
    relative7 = path.normalize(key);
  }
  if (path === win32) relative7 = relative7.replaceAll("\\", "/");
  relative7 = relative7.replace(/\/+$/, "");
  if (relative7 === "" || relative7 === ".") return { reason: "names the project root itself" };
  if (relative7 === ".." || relative7.startsWith("../")) return { reason: `is outside the project root ${root}` };
  return { key: relative7.startsWith("./") ? relative7.slice(2) : relative7 };
}
function isRetainable(backup) {
  return backup !== void 0 && backup.backupFileName !== null && backup.error === void 0 && backup.version > 1;
}
var StateRebuilder = class {
  path;
  root;
  baseFolder;
  /** The folder relative keys of the current record resolve against. */
  base;
  maxSnapshots;
  warn;
  trackingKeys = /* @__PURE__ */ new Map();
  cache = /* @__PURE__ */ new Map();
  /** Dates of the times read, one per distinct time (entries taken over share them). */
  times = new RecordTimes();
  nodes = [];
  latestIndex = /* @__PURE__ */ new Map();
  keys = /* @__PURE__ */ new Set();
  running;
  /** `running` is the newest node's own map (copied before a diff changes it). */
  runningShared = false;
  nodesBefore;
  messageIdsBefore;
  snapshotRecordCount;
  /** Sequence of the last snapshot before the records given. */
  sequenceBefore;
  sequenceOffset = 0;
  sessions = [];
  constructor(options, before = { nodes: 0, snapshotRecords: 0, messageIds: /* @__PURE__ */ new Set() }) {
    this.path = pathApiFor(options.projectRoot);
    if (!this.path.isAbsolute(options.projectRoot)) {
      throw new InvalidArgumentError(`projectRoot must be an absolute path, got ${JSON.stringify(options.projectRoot)}`);
    }
    this.root = this.path.resolve(options.projectRoot);
    this.base = this.root;
    this.baseFolder = options.baseFolder;
    this.maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
    this.warn = options.onWarning ?? (() => {
    });
    this.nodesBefore = before.nodes;
    this.snapshotRecordCount = before.snapshotRecords;
    this.messageIdsBefore = before.messageIds;
    this.sequenceBefore = before.lastSequence ?? 0;
  }
  /**
   * Apply one record (any type; only file-history, `fh-snapshot` and `fh-session` ones count).
   * `owned`: the record was parsed from a log line for this rebuild alone, so its entries may be
   * taken over in place (`adoptBackupEntry`); the caller must not use it afterwards.
   */
  push(record, owned = false) {
    if (this.baseFolder !== void 0) this.base = this.path.resolve(this.baseFolder(record));
    if (typeof record !== "object" || record === null) return;
    const type = record.type;
    if (type === FH_SESSION_RECORD_TYPE) {
      const session = parseFhSessionRecord(record, this.warn);
      if (session === void 0) return;
      this.sessions.push(session);
      if (session.snapshotSequenceOffset !== void 0) this.sequenceOffset = Math.max(this.sequenceOffset, session.snapshotSequenceOffset);
      return;
    }
    if (type === FH_SNAPSHOT_RECORD_TYPE) {
      this.pushCompact(record, owned);
      return;
    }
    if (type === "file-history-delta") {
      this.pushDelta(record, owned);
      return;
    }
    const parsed = parseFileHistoryRecord(record, this.warn, type === "file-history-snapshot" ? this.cache : void 0);
    if (parsed === void 0) return;
    if (parsed.type === "file-history-snapshot") {
      if (!parsed.isSnapshotUpdate) this.snapshotRecordCount += 1;
      const map = this.rekeyed(parsed.snapshot.trackedFileBackups, `file-history-snapshot ${parsed.messageId}`);
      const target = parsed.isSnapshotUpdate ? this.latestIndex.get(parsed.messageId) : void 0;
      if (target === void 0) {
        if (parsed.isSnapshotUpdate && this.messageIdsBefore.has(parsed.messageId)) return;
        this.appendFull(parsed.messageId, parsed.snapshot.timestamp, map, this.nextSequence(), false, void 0);
      } else {
        this.replace(target, map, parsed.snapshot.timestamp);
      }
      return;
    }
    const targetIndex = this.latestIndex.get(parsed.snapshotMessageId);
    if (targetIndex === void 0) {
      if (!this.messageIdsBefore.has(parsed.snapshotMessageId)) {
        this.warn(`file-history-delta for ${parsed.snapshotMessageId}: no snapshot with that messageId precedes it; skipped`);
      }
      return;
    }
    const key = this.migrate(parsed.trackingPath, `file-history-delta for ${parsed.snapshotMessageId}`);
    if (key === void 0) return;
    this.keys.add(key);
    this.setEntry(targetIndex, key, parsed.backup);
  }
  /** The rebuilt state and what else was found (see {@link RebuildResult}). */
  finish() {
    const kept = this.nodes.slice(Math.max(0, this.nodes.length - this.maxSnapshots));
    const first = kept[0];
    if (first !== void 0) this.build(this.nodes.length - kept.length);
    const snapshots = [];
    const superseded = /* @__PURE__ */ new Map();
    kept.forEach((node, index) => {
      const previous = snapshots[index - 1];
      const last = index === kept.length - 1;
      if (node.map !== void 0) {
        snapshots.push({ messageId: node.messageId, trackedFileBackups: node.map, timestamp: node.timestamp });
      } else {
        snapshots.push(chainedSnapshot(node.messageId, node.timestamp, previous, node.changes ?? /* @__PURE__ */ new Map(), last ? this.running : void 0));
      }
    });
    for (const snapshot of snapshots) markKeysTracked(snapshot);
    const totalNodes = this.nodesBefore + this.nodes.length;
    const newest = kept.at(-1);
    const snapshotSequence = Math.max(totalNodes, this.sequenceOffset + this.snapshotRecordCount, newest?.sequence ?? 0);
    const lowest = snapshotSequence - this.maxSnapshots + 2;
    kept.forEach((node, index) => {
      if (index > 0 && node.sequence >= lowest && node.superseded !== void 0 && Object.keys(node.superseded).length > 0) superseded.set(node.sequence, node.superseded);
    });
    for (const node of kept) {
      for (const [at, backups] of node.pending ?? []) {
        if (at >= lowest && at <= node.sequence && !superseded.has(at) && Object.keys(backups).length > 0) superseded.set(at, backups);
      }
    }
    return {
      // The rebuilder is done with its key set: it becomes the state's (no copy of every key).
      state: setStateBookkeeping({ snapshots, trackedFiles: this.keys, snapshotSequence }, { superseded: superseded.size === 0 ? void 0 : superseded }),
      diffBase: newest !== void 0 && newest.compact && newest.sequence === snapshotSequence ? newest.sequence : void 0
    };
  }
  /**
   * A `file-history-delta`: checked like `parseFileHistoryRecord` checks it (same warnings), but
   * only the fields a rebuild uses are read (the record's own timestamp is not).
   */
  pushDelta(record, owned) {
    const text = (value) => typeof value === "string" && value.length > 0 ? value : void 0;
    const snapshotMessageId = text(record.snapshotMessageId) ?? text(record.messageId);
    if (snapshotMessageId === void 0) {
      this.warn("file-history-delta record without a snapshotMessageId skipped");
      return;
    }
    const trackingPath = text(record.trackingPath);
    if (trackingPath === void 0) {
      this.warn(`file-history-delta for ${snapshotMessageId} without a trackingPath skipped`);
      return;
    }
    const targetIndex = this.latestIndex.get(snapshotMessageId);
    if (targetIndex === void 0) {
      if (!this.messageIdsBefore.has(snapshotMessageId)) this.warn(`file-history-delta for ${snapshotMessageId}: no snapshot with that messageId precedes it; skipped`);
      return;
    }
    const context = `file-history-delta for ${snapshotMessageId}`;
    const backup = (owned ? adoptBackupEntry(record.backup, this.times) : void 0) ?? parseBackupEntry(record.backup, context, trackingPath, this.warn);
    const key = this.migrate(trackingPath, context);
    if (key === void 0) return;
    this.keys.add(key);
    this.setEntry(targetIndex, key, backup);
  }
  pushCompact(record, owned) {
    const parsed = parseFhSnapshotRecord(record, this.warn, void 0, owned, this.times);
    if (parsed === void 0) return;
    const label = `fh-snapshot ${parsed.messageId}`;
    const entries = this.rekeyed(parsed.entries, label);
    if (parsed.kind === "attach") {
      const index = this.nodes.length - 1;
      const newest = this.nodes[index];
      if (newest === void 0 || newest.sequence !== parsed.sequence || newest.messageId !== parsed.messageId) {
        this.warn(`${label}: backups attached to snapshot ${parsed.sequence}, which is not the newest snapshot in the log; skipped`);
        return;
      }
      for (const key in entries) {
        this.keys.add(key);
        this.setEntry(index, key, entries[key]);
      }
      return;
    }
    if (parsed.kind === "full") {
      const pending = /* @__PURE__ */ new Map();
      for (const [at, backups] of parsed.pending) pending.set(at, this.rekeyedNames(backups, label));
      this.appendFull(parsed.messageId, parsed.timestamp, entries, parsed.sequence, true, pending);
      return;
    }
    const previous = this.nodes.at(-1);
    if (previous === void 0 || previous.sequence !== parsed.base || this.running === void 0) {
      this.warn(`${label}: a diff against snapshot ${String(parsed.base)}, which is not the snapshot before it in the log; skipped`);
      return;
    }
    if (this.runningShared) {
      this.running = copyBackupMap(this.running);
      this.runningShared = false;
    }
    const running = this.running;
    const changes = /* @__PURE__ */ new Map();
    const superseded = {};
    for (const key in entries) {
      const entry = entries[key];
      const before = running[key];
      if (isRetainable(before) && before.backupFileName !== entry.backupFileName) superseded[key] = before.backupFileName;
      running[key] = entry;
      changes.set(key, entry);
      if (before === void 0) this.keys.add(key);
    }
    for (const rawKey of parsed.removed) {
      const key = this.migrate(rawKey, label);
      if (key === void 0) continue;
      const before = running[key];
      if (isRetainable(before)) superseded[key] = before.backupFileName;
      delete running[key];
      changes.set(key, void 0);
    }
    this.latestIndex.set(parsed.messageId, this.nodes.length);
    this.nodes.push({ messageId: parsed.messageId, timestamp: parsed.timestamp, sequence: parsed.sequence, map: void 0, changes, superseded, pending: void 0, compact: true });
    this.snapshotRecordCount += 1;
  }
  nextSequence() {
    return Math.max(this.nodesBefore + this.nodes.length + 1, this.sequenceOffset + this.snapshotRecordCount, (this.nodes.at(-1)?.sequence ?? this.sequenceBefore) + 1);
  }
  appendFull(messageId, timestamp, map, sequence, compact, pending) {
    let superseded;
    if (this.running !== void 0) {
      superseded = {};
      for (const key in this.running) {
        const before = this.running[key];
        if (isRetainable(before) && map[key]?.backupFileName !== before.backupFileName) superseded[key] = before.backupFileName;
      }
    }
    for (const key in map) this.keys.add(key);
    if (compact) this.snapshotRecordCount += 1;
    this.latestIndex.set(messageId, this.nodes.length);
    this.nodes.push({ messageId, timestamp, sequence, map, changes: void 0, superseded, pending, compact });
    this.running = map;
    this.runningShared = true;
  }
  /** An update record: the node's whole map becomes `map` (only that snapshot changes). */
  replace(index, map, timestamp) {
    const node = this.nodes[index];
    for (const key in map) this.keys.add(key);
    if (index === this.nodes.length - 1) {
      node.map = map;
      node.changes = void 0;
      node.timestamp = timestamp;
      node.compact = false;
      this.running = map;
      this.runningShared = true;
      return;
    }
    this.build(index + 1);
    node.map = map;
    node.changes = void 0;
    node.timestamp = timestamp;
    node.compact = false;
  }
  /** A delta: one entry added to node `index` (the newest, as fh and Claude Code write them). */
  setEntry(index, key, backup) {
    const node = this.nodes[index];
    if (index === this.nodes.length - 1 && this.running !== void 0) {
      if (node.map !== void 0) node.map[key] = backup;
      else node.changes?.set(key, backup);
      if (node.map !== this.running) this.running[key] = backup;
      return;
    }
    this.build(index + 1);
    this.build(index);
    node.map[key] = backup;
    node.changes = void 0;
  }
  /** Give node `index` its own map (a diff node: the nearest full one before it plus the changes between). */
  build(index) {
    const node = this.nodes[index];
    if (node === void 0 || node.map !== void 0) return;
    if (index === this.nodes.length - 1 && this.running !== void 0) {
      node.map = this.running;
      this.runningShared = true;
      node.changes = void 0;
      return;
    }
    let start = index;
    while (start > 0 && this.nodes[start]?.map === void 0) start -= 1;
    const map = copyBackupMap(this.nodes[start]?.map ?? {});
    for (let at = start + 1; at <= index; at += 1) {
      for (const [key, entry] of this.nodes[at]?.changes ?? []) {
        if (entry === void 0) delete map[key];
        else map[key] = entry;
      }
    }
    node.map = map;
  }
  rekeyed(parsed, context) {
    let rekey = false;
    const atRoot = this.base === this.root;
    for (const rawKey in parsed) {
      if (atRoot && isCleanKey(rawKey)) continue;
      const result = this.lookup(rawKey);
      if ("reason" in result || result.key !== rawKey) {
        rekey = true;
        break;
      }
    }
    if (!rekey) return parsed;
    const map = {};
    for (const [rawKey, backup] of Object.entries(parsed)) {
      const key = this.migrate(rawKey, context);
      if (key === void 0) continue;
      const existing = map[key];
      if (existing !== void 0 && existing.version >= backup.version) continue;
      map[key] = backup;
    }
    return map;
  }
  rekeyedNames(backups, context) {
    const kept = {};
    for (const [rawKey, name] of Object.entries(backups)) {
      const key = this.migrate(rawKey, context);
      if (key !== void 0) kept[key] = name;
    }
    return kept;
  }
  lookup(key) {
    const cacheKey = this.base === this.root || this.path.isAbsolute(key) ? key : `${this.base}\0${key}`;
    let result = this.trackingKeys.get(cacheKey);
    if (result === void 0) {
      result = toTrackingKey(key, this.root, this.path, this.base);
      this.trackingKeys.set(cacheKey, result);
    }
    return result;
  }
  migrate(key, context) {
    if (this.base === this.root && isCleanKey(key)) return key;
    const result = this.lookup(key);
    if ("reason" in result) {
      this.warn(`${context}: path ${JSON.stringify(key)} ${result.reason}; dropped`);
      return void 0;
    }
    return result.key;
  }
};
function lineText(line) {
  return line.bytes.toString("utf8", line.start, line.end);
}
var HEAD_WINDOW_BYTES = 512;
function sniffByteLine(line) {
  if (!line.terminated) return void 0;
  const length = line.end - line.start;
  if (length > HEAD_WINDOW_BYTES) {
    const head = sniffFhSnapshotLine(line.bytes.toString("utf8", line.start, line.start + HEAD_WINDOW_BYTES));
    if (head !== void 0) return head;
  }
  return sniffFhSnapshotLine(line.bytes.toString("utf8", line.start, Math.min(line.end, line.start + 4096)));
}
var DELTA_PREFIX = Buffer.from('{"type":"file-history-delta"');
function isDeltaByteLine(line) {
  return line.end - line.start >= DELTA_PREFIX.length && line.bytes.compare(DELTA_PREFIX, 0, DELTA_PREFIX.length, line.start, line.start + DELTA_PREFIX.length) === 0;
}
function* byteLines(bytes) {
  let line = 0;
  let start = 0;
  for (let end = bytes.indexOf(10, start); end >= 0; end = bytes.indexOf(10, start)) {
    line += 1;
    if (end > start && !(end - start === 1 && bytes[start] === 13)) yield { line, bytes, start, end, terminated: true };
    start = end + 1;
  }
  if (start < bytes.length && bytes.toString("utf8", start).trim() !== "") yield { line: line + 1, bytes, start, end: bytes.length, terminated: false };
}
var LINE_BATCH_BYTES = 256 * 1024;
function parseLines(lines, each) {
  let start = 0;
  while (start < lines.length) {
    let end = start;
    let bytes = 0;
    while (end < lines.length && bytes < LINE_BATCH_BYTES) {
      const line = lines[end];
      if (!line.terminated) break;
      bytes += "bytes" in line ? line.end - line.start : line.text.length;
      end += 1;
    }
    if (end - start >= 2) {
      const batch = lines.slice(start, end);
      const records = parseBatch(batch);
      if (records !== void 0) {
        batch.forEach((line, index) => each(isRecordValue(records[index]) ? { record: records[index] } : { reason: "not an object with a type" }, line));
        start = end;
        continue;
      }
    }
    const last = Math.max(end, start + 1);
    for (let index = start; index < last; index += 1) {
      const line = lines[index];
      each(parseJsonlLine("bytes" in line ? lineText(line) : line.text, line.terminated), line);
    }
    start = last;
  }
}
function parseBatch(lines) {
  let text;
  if (lines.every((line) => "bytes" in line)) {
    const byteLines2 = lines;
    let length = 1;
    for (const line of byteLines2) length += line.end - line.start + 2;
    const joined = Buffer.allocUnsafe(length);
    joined[0] = 91;
    let at = 1;
    for (const line of byteLines2) {
      at += line.bytes.copy(joined, at, line.start, line.end);
      joined[at] = 10;
      joined[at + 1] = 44;
      at += 2;
    }
    joined[length - 1] = 93;
    text = joined.toString("utf8");
  } else {
    text = `[${lines.map((line) => "bytes" in line ? lineText(line) : line.text).join("\n,")}
]`;
  }
  let values;
  try {
    values = JSON.parse(text);
  } catch {
    return void 0;
  }
  return Array.isArray(values) && values.length === lines.length ? values : void 0;
}
function isRecordValue(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof value.type === "string";
}
function mayMatter(text) {
  return text.includes('"file-history-') || text.includes('"fh-snapshot"') || text.includes('"fh-session"');
}
async function rebuildStateFromLog(log, options) {
  return rebuildFromLines(() => readLogLines(log), options);
}
async function rebuildStateFromBytes(bytes, options) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return rebuildFromLines(() => byteLines(buffer), options);
}
async function rebuildFromLines(lines, options) {
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  const first = await replayLog(lines, options, maxSnapshots, true);
  if (first.dropped && first.state.snapshots.length < maxSnapshots) return replayLog(lines, options, maxSnapshots, false);
  return first;
}
async function replayLog(lines, options, maxSnapshots, dropUnneeded) {
  const skippedLines = /* @__PURE__ */ new Map();
  const skip = (line, reason) => {
    const seen = skippedLines.get(reason);
    if (seen === void 0) skippedLines.set(reason, { count: 1, firstLine: line });
    else seen.count += 1;
  };
  const sessions = [];
  const messageIds2 = /* @__PURE__ */ new Set();
  const nodeMessageIds = [];
  let nodes = 0;
  let snapshotRecords = 0;
  let lastSequence = 0;
  let sequenceOffset = 0;
  let hasRecords = false;
  let dropped = false;
  const segments = [{ startNode: 0, snapshotRecordsBefore: 0, lastSequenceBefore: 0, held: [] }];
  const hold = (held) => segments.at(-1).held.push(held);
  const startNode = (messageId, full, countsAsRecord, sequence, held) => {
    if (full) segments.push({ startNode: nodes, snapshotRecordsBefore: snapshotRecords, lastSequenceBefore: lastSequence, held: [] });
    hold(held);
    messageIds2.add(messageId);
    nodeMessageIds.push(messageId);
    nodes += 1;
    if (countsAsRecord) snapshotRecords += 1;
    lastSequence = sequence;
    while (dropUnneeded && segments.length >= 2 && segments[1].startNode <= nodes - maxSnapshots) {
      segments.shift();
      dropped = true;
    }
  };
  const compact = (head, held) => {
    if (head.kind === "attach") hold(held);
    else if (head.kind === "full" || nodes > 0 && head.base === lastSequence) startNode(head.messageId, head.kind === "full", true, head.sequence, held);
    else hold(held);
  };
  const classify = (record, held) => {
    if (record.type === FH_SESSION_RECORD_TYPE) {
      sessions.push(record);
      const offset = parseFhSessionRecord(record)?.snapshotSequenceOffset;
      if (offset !== void 0) sequenceOffset = Math.max(sequenceOffset, offset);
      return;
    }
    if (record.type === FH_SNAPSHOT_RECORD_TYPE) {
      const head2 = fhSnapshotRecordHead(record);
      if (head2 === void 0) hold(held);
      else compact(head2, held);
      return;
    }
    const head = fileHistoryRecordHead(record);
    if (head === void 0) {
      if (record.type === "file-history-snapshot" || record.type === "file-history-delta") hold(held);
      return;
    }
    if (head.type === "file-history-snapshot" && (!head.isSnapshotUpdate || !messageIds2.has(head.messageId))) {
      const records = snapshotRecords + (head.isSnapshotUpdate ? 0 : 1);
      startNode(head.messageId, true, !head.isSnapshotUpdate, Math.max(nodes + 1, sequenceOffset + records, lastSequence + 1), held);
      return;
    }
    hold(held);
  };
  for await (const line of lines()) {
    if ("skipped" in line) {
      skip(line.line, line.skipped);
      continue;
    }
    if ("record" in line) {
      hasRecords = true;
      classify(line.record, { record: line.record });
      continue;
    }
    let text;
    if ("bytes" in line) {
      const head = sniffByteLine(line);
      hasRecords = true;
      if (head !== void 0) {
        compact(head, line);
        continue;
      }
      if (line.terminated && isDeltaByteLine(line)) {
        hold(line);
        continue;
      }
      text = lineText(line);
    } else {
      hasRecords = true;
      text = line.text;
      const head = line.terminated ? sniffFhSnapshotLine(text) : void 0;
      if (head !== void 0) {
        compact(head, { text, terminated: true, line: line.line });
        continue;
      }
      if (line.terminated && text.startsWith('{"type":"file-history-delta"')) {
        hold({ text, terminated: true, line: line.line });
        continue;
      }
    }
    const parsed = parseJsonlLine(text, line.terminated);
    if (parsed === void 0) continue;
    if ("reason" in parsed) {
      skip(line.line, parsed.reason);
      continue;
    }
    if (mayMatter(text)) classify(parsed.record, { record: parsed.record });
  }
  const first = segments[0];
  const rebuilder = new StateRebuilder(
    { ...options, maxSnapshots },
    { nodes: first.startNode, snapshotRecords: first.snapshotRecordsBefore, messageIds: new Set(nodeMessageIds.slice(0, first.startNode)), lastSequence: first.lastSequenceBefore }
  );
  for (const session of sessions) rebuilder.push(session);
  const pushLine = (parsed, line) => {
    if (parsed === void 0) return;
    if ("reason" in parsed) skip(line.line, parsed.reason);
    else rebuilder.push(parsed.record, true);
  };
  for (const segment of segments) {
    let lines2 = [];
    for (const held of segment.held) {
      if (!("record" in held)) {
        lines2.push(held);
        continue;
      }
      parseLines(lines2, pushLine);
      lines2 = [];
      rebuilder.push(held.record);
    }
    parseLines(lines2, pushLine);
  }
  const finished = rebuilder.finish();
  return { ...finished, sessions: rebuilder.sessions, hasRecords, skippedLines, dropped };
}

// src/state/restore-state.ts
function restoreStateFromLog(records, options) {
  const rebuilder = new StateRebuilder(options);
  for (const record of records) rebuilder.push(record);
  return rebuilder.finish().state;
}
function findAnchor(records) {
  const seen = /* @__PURE__ */ new Set();
  let anchor;
  let nodes = 0;
  let snapshotRecords = 0;
  const order = [];
  records.forEach((record, index) => {
    const compact = fhSnapshotRecordHead(record);
    if (compact?.kind === "attach") return;
    if (compact !== void 0) {
      if (compact.kind === "full") anchor = { index, nodesBefore: nodes, snapshotRecordsBefore: snapshotRecords, messageIdsBefore: /* @__PURE__ */ new Set(), compact: true };
      seen.add(compact.messageId);
      order.push(compact.messageId);
      nodes += 1;
      snapshotRecords += 1;
      return;
    }
    const head = fileHistoryRecordHead(record);
    if (head?.type !== "file-history-snapshot") return;
    if (!head.isSnapshotUpdate || !seen.has(head.messageId)) {
      anchor = { index, nodesBefore: nodes, snapshotRecordsBefore: snapshotRecords, messageIdsBefore: /* @__PURE__ */ new Set(), compact: false };
      seen.add(head.messageId);
      order.push(head.messageId);
      nodes += 1;
    }
    if (!head.isSnapshotUpdate) snapshotRecords += 1;
  });
  if (anchor !== void 0) anchor.messageIdsBefore = new Set(order.slice(0, anchor.nodesBefore));
  return anchor;
}
function latestSnapshotFromLog(records, options) {
  const anchor = findAnchor(records);
  if (anchor === void 0) return restoreStateFromLog([], options).snapshots.at(-1);
  const rebuilder = new StateRebuilder(
    { ...options, maxSnapshots: 1 },
    { nodes: anchor.nodesBefore, snapshotRecords: anchor.snapshotRecordsBefore, messageIds: anchor.messageIdsBefore }
  );
  for (let index = anchor.index; index < records.length; index += 1) rebuilder.push(records[index]);
  return rebuilder.finish().state.snapshots.at(-1);
}
function latestSnapshotFromTail(tail, options) {
  const anchor = tailAnchor(tail);
  return anchor === void 0 ? void 0 : latestSnapshotFromLog(tail.slice(anchor), options);
}
function latestStateFromTail(tail, options) {
  const index = tailAnchor(tail);
  if (index === void 0) return void 0;
  const rebuilder = new StateRebuilder(options);
  for (let at = index; at < tail.length; at += 1) rebuilder.push(tail[at]);
  const { state, diffBase } = rebuilder.finish();
  const exact = fhSnapshotRecordHead(tail[index])?.kind === "full";
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  if (exact) setStateBookkeeping(state, { heldSnapshots: Math.min(maxSnapshots, state.snapshotSequence) });
  return { state, exact, diffBase };
}
function tailAnchor(tail) {
  let anchor = -1;
  tail.forEach((record, index) => {
    const compact = fhSnapshotRecordHead(record);
    if (compact?.kind === "full") anchor = index;
    const head = fileHistoryRecordHead(record);
    if (head?.type === "file-history-snapshot" && !head.isSnapshotUpdate) anchor = index;
  });
  if (anchor < 0) return void 0;
  const added = /* @__PURE__ */ new Set();
  for (const record of tail.slice(anchor)) {
    const compact = fhSnapshotRecordHead(record);
    if (compact !== void 0) {
      added.add(compact.messageId);
      continue;
    }
    const head = fileHistoryRecordHead(record);
    if (head?.type !== "file-history-snapshot") continue;
    if (head.isSnapshotUpdate && !added.has(head.messageId)) return void 0;
    added.add(head.messageId);
  }
  return anchor;
}

// src/session/resume.ts
import pLimit from "p-limit";
var ResumeBackupsMissingError = class extends NotFoundError {
  missing;
  result;
  constructor(message, result) {
    super(message);
    this.missing = result.missing;
    this.result = result;
  }
};
var FILE_HISTORY_RECORD_TYPES = /* @__PURE__ */ new Set(["file-history-snapshot", "file-history-delta", FH_SNAPSHOT_RECORD_TYPE, FH_SESSION_RECORD_TYPE]);
function markUnavailable(state, reasons) {
  const snapshots = state.snapshots.map((snapshot) => {
    const trackedFileBackups = {};
    for (const [path, backup] of Object.entries(snapshot.trackedFileBackups)) {
      const reason = backup.backupFileName === null ? void 0 : reasons.get(backup.backupFileName);
      trackedFileBackups[path] = reason === void 0 || backup.error !== void 0 ? { ...backup } : { ...backup, error: reason };
    }
    return { messageId: snapshot.messageId, timestamp: snapshot.timestamp, trackedFileBackups };
  });
  return { snapshots, trackedFiles: new Set(state.trackedFiles), snapshotSequence: state.snapshotSequence };
}
async function copyFileHistoryForResume(options) {
  const { store, fromSessionId, toSessionId } = options;
  if (fromSessionId === toSessionId) {
    throw new InvalidArgumentError(`cannot resume session ${fromSessionId} into itself; give a new session id`);
  }
  const targetLog = store.sessionLog(toSessionId);
  const existing = await targetLog.read();
  if (existing.records.some((record) => parseFileHistoryRecord(record) !== void 0 || fhSnapshotRecordHead(record) !== void 0)) {
    throw new ConflictError(`session ${toSessionId} already has file history; resume into a new session id`);
  }
  const carryRecords = options.carryRecords ?? "all";
  let otherRecords = [];
  let state = options.state;
  if (state === void 0 || carryRecords === "all") {
    const source = await store.sessionLog(fromSessionId).read();
    if (options.state === void 0 && source.records.length === 0) {
      throw new NotFoundError(`session ${fromSessionId} has no records in the ${store.kind} store: nothing to resume (is the session id right?)`);
    }
    if (carryRecords === "all") otherRecords = source.records.filter((record) => !FILE_HISTORY_RECORD_TYPES.has(record.type));
    state ??= restoreStateFromLog(source.records, {
      projectRoot: options.projectRoot,
      ...options.onWarning === void 0 ? {} : { onWarning: options.onWarning }
    });
  }
  const references = /* @__PURE__ */ new Map();
  for (const snapshot of state.snapshots) {
    for (const [path, backup] of Object.entries(snapshot.trackedFileBackups)) {
      if (backup.backupFileName === null || backup.error !== void 0) continue;
      const list = references.get(backup.backupFileName) ?? [];
      list.push({ messageId: snapshot.messageId, path });
      references.set(backup.backupFileName, list);
    }
  }
  const result = { state, linked: [], copied: [], existed: [], missing: [], recordsWritten: 0 };
  const failures = [];
  const limit = pLimit(options.concurrency ?? 16);
  const names = [...references.keys()].sort();
  let carried = 0;
  options.onProgress?.(0, names.length);
  await Promise.all(
    names.map(
      (name) => limit(async () => {
        try {
          const outcome = await store.carryBackup(fromSessionId, toSessionId, name);
          if (outcome === "linked") result.linked.push(name);
          else if (outcome === "copied") result.copied.push(name);
          else result.existed.push(name);
        } catch (error) {
          if (FhError.hasCode(error, "FH_NOT_FOUND")) result.missing.push({ backupFileName: name, references: references.get(name) ?? [] });
          else failures.push(error);
        }
        carried += 1;
        options.onProgress?.(carried, names.length);
      })
    )
  );
  if (failures.length > 0) throw failures[0];
  for (const list of [result.linked, result.copied, result.existed]) list.sort();
  result.missing.sort((a, b) => a.backupFileName.localeCompare(b.backupFileName));
  const reasons = new Map(result.missing.map((missing) => [missing.backupFileName, `backup ${missing.backupFileName} missing from session ${fromSessionId}`]));
  result.state = markUnavailable(state, reasons);
  const records = [
    ...otherRecords,
    fhSessionRecord({
      sessionId: toSessionId,
      projectRoot: options.projectRoot,
      createdAt: options.now ?? /* @__PURE__ */ new Date(),
      resumedFrom: fromSessionId,
      snapshotSequenceOffset: Math.max(0, result.state.snapshotSequence - result.state.snapshots.length)
    }),
    ...result.state.snapshots.map((snapshot) => snapshotRecord(snapshot, false))
  ];
  await targetLog.append(records);
  result.recordsWritten = records.length;
  if (result.missing.length > 0 && options.throwOnMissing !== false) {
    const list = result.missing.map((missing) => `${missing.backupFileName} (${missing.references.map((reference) => reference.path).filter((path, index, all) => all.indexOf(path) === index).join(", ")})`);
    throw new ResumeBackupsMissingError(
      `${result.missing.length} backup${result.missing.length === 1 ? "" : "s"} missing from session ${fromSessionId}; the snapshot entries that need them are marked unavailable in session ${toSessionId}: ${list.join("; ")}`,
      result
    );
  }
  return result;
}

// src/snapshot/retention.ts
function backupsToDelete(input) {
  const referenced = /* @__PURE__ */ new Set();
  for (const snapshot of input.kept) {
    for (const backup of Object.values(snapshot.trackedFileBackups)) {
      if (backup.backupFileName !== null) referenced.add(backup.backupFileName);
    }
  }
  const deletable = /* @__PURE__ */ new Set();
  for (const snapshot of input.dropped) {
    for (const backup of Object.values(snapshot.trackedFileBackups)) {
      const name = backup.backupFileName;
      if (name === null || backup.error !== void 0 || backup.version <= 1 || referenced.has(name)) continue;
      deletable.add(name);
    }
  }
  return [...deletable].sort();
}

// src/session/cleanup.ts
var DAY_MS = 24 * 60 * 60 * 1e3;
async function cleanup(options) {
  const olderThanDays = options.olderThanDays ?? 30;
  if (!Number.isFinite(olderThanDays) || olderThanDays < 0) {
    throw new InvalidArgumentError(`olderThanDays must be a non-negative number, got ${String(olderThanDays)}`);
  }
  const { store } = options;
  const cutoff = (options.now ?? /* @__PURE__ */ new Date()).getTime() - olderThanDays * DAY_MS;
  const sessions = [...await store.listSessions()].sort((a, b) => a.lastModified.getTime() - b.lastModified.getTime());
  const result = { removed: [], kept: [] };
  options.onProgress?.(0, sessions.length);
  for (const [index, session] of sessions.entries()) {
    await examineSession(options, session, cutoff, result);
    options.onProgress?.(index + 1, sessions.length);
  }
  return result;
}
async function examineSession(options, session, cutoff, result) {
  const { store } = options;
  if (session.lastModified.getTime() >= cutoff) {
    result.kept.push({ session, reason: "recent" });
    return;
  }
  if (options.dryRun === true || store.lockSession === void 0) {
    if (store.isSessionLocked !== void 0 && await store.isSessionLocked(session.sessionId)) {
      result.kept.push({ session, reason: "locked" });
      return;
    }
    if (options.dryRun !== true) await store.deleteSession(session.sessionId);
    result.removed.push(session);
    return;
  }
  let lock;
  try {
    lock = await store.lockSession(session.sessionId);
  } catch (error) {
    if (FhError.hasCode(error, "FH_LOCKED")) {
      result.kept.push({ session, reason: "locked" });
      return;
    }
    throw error;
  }
  try {
    await store.deleteSession(session.sessionId);
  } finally {
    await lock.release();
  }
  result.removed.push(session);
}

// src/paths.ts
import { createHash } from "crypto";
import { isAbsolute, relative, resolve, sep } from "path";
function normalizeProjectRoot(projectRoot) {
  if (typeof projectRoot !== "string" || projectRoot === "" || !isAbsolute(projectRoot)) {
    throw new InvalidArgumentError(`projectRoot must be an absolute path, got ${JSON.stringify(projectRoot)}`);
  }
  return resolve(projectRoot);
}
function toTrackingPath(projectRoot, path) {
  if (typeof path !== "string" || path === "" || path.includes("\0")) {
    throw new InvalidArgumentError(`path must be a non-empty string without NUL bytes, got ${JSON.stringify(path)}`);
  }
  const absolutePath = resolve(projectRoot, path);
  const relativePath = relative(projectRoot, absolutePath);
  if (relativePath === "") throw new OutsideRootError(`${path} is the project root itself, not a file in it`);
  if (!isInsideRelative(relativePath)) {
    throw new OutsideRootError(`${path} is outside the project root ${projectRoot}`);
  }
  return sep === "/" ? relativePath : relativePath.split(sep).join("/");
}
function toAbsolutePath(projectRoot, trackingPath) {
  if (sep === "/" && isNormalizedRelative(trackingPath) && (projectRoot === "/" || isAbsolute(projectRoot) && !projectRoot.endsWith("/"))) {
    return projectRoot === "/" ? `/${trackingPath}` : `${projectRoot}/${trackingPath}`;
  }
  const absolutePath = resolve(projectRoot, sep === "/" ? trackingPath : trackingPath.split("/").join(sep));
  if (trackingPath === "" || trackingPath.includes("\0") || !isInsideRelative(relative(projectRoot, absolutePath))) {
    throw new OutsideRootError(`tracked path ${JSON.stringify(trackingPath)} is outside the project root ${projectRoot}`);
  }
  return absolutePath;
}
function backupFileName(absolutePath, version) {
  return `${createHash("sha256").update(absolutePath).digest("hex").slice(0, 16)}@v${version}`;
}
function isNormalizedRelative(trackingPath) {
  if (trackingPath === "" || trackingPath.startsWith("/") || trackingPath.includes("\0") || trackingPath.includes("//")) return false;
  if (!trackingPath.startsWith(".") && !trackingPath.includes("/.") && !trackingPath.endsWith("/")) return true;
  for (const segment of trackingPath.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return false;
  }
  return true;
}
function isInsideRelative(relativePath) {
  return relativePath !== "" && relativePath !== ".." && !relativePath.startsWith(`..${sep}`) && !isAbsolute(relativePath);
}

// src/file-history-context.ts
import pLimit2 from "p-limit";
var DEFAULT_CONCURRENCY = 16;
var METADATA_CONCURRENCY_FACTOR = 16;
var DEFAULT_DIFF_SIZE_CAP_BYTES = 8 * 1024 * 1024;
var DEFAULT_TIMESTAMP_GRANULARITY_MS = 2e3;
function createFileHistoryContext(options) {
  const projectRoot = normalizeProjectRoot(options.projectRoot);
  if (typeof options.sessionId !== "string" || options.sessionId === "") {
    throw new InvalidArgumentError(`sessionId must be a non-empty string, got ${JSON.stringify(options.sessionId)}`);
  }
  if (typeof options.store !== "object" || options.store === null || typeof options.store.putBackup !== "function") {
    throw new InvalidArgumentError(`store must be a BackupStore (for example an FsBackupStore), got ${String(options.store)}`);
  }
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new InvalidArgumentError(`concurrency must be a positive integer, got ${describeValue(concurrency)}`);
  }
  const timestampGranularityMs = nonNegative("timestampGranularityMs", options.timestampGranularityMs, DEFAULT_TIMESTAMP_GRANULARITY_MS);
  const diffSizeCapBytes = nonNegative("diffSizeCapBytes", options.diffSizeCapBytes, DEFAULT_DIFF_SIZE_CAP_BYTES);
  return {
    projectRoot,
    sessionId: options.sessionId,
    store: options.store,
    fs: options.fs ?? options.store.workspaceFs,
    concurrency,
    limit: pLimit2(concurrency),
    metadataLimit: pLimit2(concurrency * METADATA_CONCURRENCY_FACTOR),
    timestampGranularityMs,
    diffSizeCapBytes,
    ...options.recordSnapshot === void 0 ? {} : { recordSnapshot: options.recordSnapshot },
    ...options.onWarning === void 0 ? {} : { onWarning: options.onWarning }
  };
}
function captureState(updateState) {
  let captured;
  updateState((state) => {
    captured = state;
    return state;
  });
  return captured;
}
function nonNegative(name, value, fallback) {
  if (value === void 0) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(`${name} must be a finite number >= 0, got ${describeValue(value)}`);
  }
  return value;
}
function describeValue(value) {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

// src/snapshot/change-detection.ts
import { createHash as createHash2 } from "crypto";
var HASH_CHUNK_BYTES = 1024 * 1024;
async function checkFileChanged(context, absolutePath, stats, backup, info) {
  let backupInfo = info;
  if (backup.size === void 0 || backup.mode === void 0) {
    backupInfo ??= await context.store.statBackup(context.sessionId, backup.backupFileName);
    if (backupInfo === null) return { changed: true, reason: "backup-missing" };
  }
  const size = backup.size ?? backupInfo.size;
  const mode = backup.mode ?? backupInfo.mode;
  const quick = compareMetadata(stats, size, mode, backupTimeMs(backup), context.timestampGranularityMs);
  if (quick !== void 0) return quick;
  const verifiedAt = /* @__PURE__ */ new Date();
  if (context.store.capabilities.sha256) {
    backupInfo ??= await context.store.statBackup(context.sessionId, backup.backupFileName);
    if (backupInfo === null) return { changed: true, reason: "backup-missing" };
    if (backupInfo.sha256 !== void 0) {
      const digest = await hashWorkspaceFile(context.fs, absolutePath);
      return digest === backupInfo.sha256.toLowerCase() ? { changed: false, by: "content", verifiedAt } : { changed: true, reason: "content" };
    }
  }
  try {
    const equal = await workspaceFileEquals(
      context.fs,
      absolutePath,
      () => context.store.openBackup(context.sessionId, backup.backupFileName)
    );
    return equal ? { changed: false, by: "content", verifiedAt } : { changed: true, reason: "content" };
  } catch (error) {
    if (FhError.hasCode(error, "FH_NOT_FOUND")) return { changed: true, reason: "backup-missing" };
    throw error;
  }
}
function compareMetadata(stats, size, mode, backupTimeMs2, granularityMs) {
  if (Number(stats.size) !== size) return CHANGED_SIZE;
  if ((Number(stats.mode) & 4095) !== (mode & 4095)) return CHANGED_MODE;
  if (Math.max(Number(stats.ctimeMs), Number(stats.mtimeMs)) < backupTimeMs2 - granularityMs) return UNCHANGED_BY_TIMESTAMPS;
  return void 0;
}
var CHANGED_SIZE = Object.freeze({ changed: true, reason: "size" });
var CHANGED_MODE = Object.freeze({ changed: true, reason: "mode" });
var UNCHANGED_BY_TIMESTAMPS = Object.freeze({ changed: false, by: "timestamps" });
function backupTimeMs(backup) {
  const value = backup.backupTime;
  if (value instanceof Date) return value.getTime();
  return typeof value === "string" || typeof value === "number" ? new Date(value).getTime() : Number.NaN;
}
async function workspaceFileEquals(fs, absolutePath, openChunks) {
  let handle;
  try {
    handle = await fs.open(absolutePath, "r");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return false;
    throw error;
  }
  try {
    const chunks = await openChunks();
    let buffer = Buffer.allocUnsafe(64 * 1024);
    let position = 0;
    for await (const chunk of chunks) {
      if (chunk.length === 0) continue;
      if (buffer.length < chunk.length) buffer = Buffer.allocUnsafe(chunk.length);
      const bytesRead2 = await readFully(handle, buffer, chunk.length, position);
      if (bytesRead2 !== chunk.length) return false;
      if (Buffer.compare(buffer.subarray(0, bytesRead2), chunk) !== 0) return false;
      position += bytesRead2;
    }
    const { bytesRead } = await handle.read(buffer, 0, 1, position);
    return bytesRead === 0;
  } finally {
    await handle.close();
  }
}
async function hashWorkspaceFile(fs, absolutePath, expectedSize) {
  const handle = await fs.open(absolutePath, "r");
  try {
    const hash = createHash2("sha256");
    const buffer = Buffer.allocUnsafe(expectedSize === void 0 ? HASH_CHUNK_BYTES : Math.min(HASH_CHUNK_BYTES, expectedSize + 1));
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}
async function readFully(handle, buffer, length, position) {
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

// src/track/track-edit.ts
import { resolve as resolve2 } from "path";

// src/track/attach-backups.ts
var pendingBatches = /* @__PURE__ */ new WeakMap();
function attachBackup(updateState, context, trackingPath, backup, attribution) {
  let batch = pendingBatches.get(updateState);
  if (batch === void 0) {
    batch = { context, items: [] };
    pendingBatches.set(updateState, batch);
    setImmediate(() => flush(updateState));
  }
  const items = batch.items;
  return new Promise((settle) => items.push({ trackingPath, backup, attribution, settle }));
}
function flush(updateState) {
  const batch = pendingBatches.get(updateState);
  pendingBatches.delete(updateState);
  if (batch === void 0) return;
  const won = /* @__PURE__ */ new Set();
  const attributed = /* @__PURE__ */ new Set();
  let committed;
  let finalState;
  try {
    updateState((state) => {
      finalState = state;
      const latest = state.snapshots.at(-1);
      if (latest === void 0) return state;
      const backups = latest.trackedFileBackups;
      for (const item of batch.items) {
        const existing = backups[item.trackingPath];
        if (existing !== void 0 || item.backup === void 0) {
          if (existing === void 0 || item.attribution === void 0) continue;
          const entry = withAttribution(existing, item.attribution);
          if (entry === existing) continue;
          backups[item.trackingPath] = entry;
          attributed.add(item);
          continue;
        }
        backups[item.trackingPath] = item.attribution === void 0 ? item.backup : withAttribution(item.backup, item.attribution);
        state.trackedFiles.add(item.trackingPath);
        won.add(item);
      }
      if (won.size === 0 && attributed.size === 0) return state;
      committed = latest;
      finalState = setStateBookkeeping({ ...state }, { superseded: state.superseded, heldSnapshots: state.heldSnapshots });
      return finalState;
    });
  } catch (error) {
    const failed = Promise.reject(error);
    failed.catch(() => void 0);
    for (const item of batch.items) item.settle({ attached: true, recorded: failed });
    return;
  }
  const changedPaths = [...new Set([...won, ...attributed].map((item) => item.trackingPath))];
  const recorded = committed === void 0 ? Promise.resolve() : batch.context.recordSnapshot?.(committed, true, changedPaths) ?? Promise.resolve();
  recorded.catch(() => void 0);
  for (const item of batch.items) {
    item.settle(won.has(item) ? { attached: true, recorded } : attributed.has(item) ? { attached: false, state: finalState, recorded } : { attached: false, state: finalState });
  }
}

// src/metadata.ts
var SYNC_SLICE_MS = 4;
var SLOW_SYNC_CALL_MS = 1;
var SLOW_SYNC_CALLS_ALLOWED = 3;
var SLOW_SYNC_CALL_SHARE = 50;
function createMetadataReader(fs, now = () => performance.now()) {
  const statSync = fs.statSync;
  const lstatSync = fs.lstatSync;
  if (typeof statSync !== "function" || typeof lstatSync !== "function") {
    return { stat: (path) => fs.stat(path), lstat: (path) => fs.lstat(path), statNow: () => void 0, pause: () => void 0 };
  }
  let calls = 0;
  let slowCalls = 0;
  let async = false;
  let sliceStarted = now();
  let lastEnded = sliceStarted;
  const pause = () => {
    if (lastEnded - sliceStarted <= SYNC_SLICE_MS) return void 0;
    return new Promise((resolve6) => setImmediate(resolve6)).then(() => {
      sliceStarted = lastEnded = now();
    });
  };
  const syncCall = (call, path, started) => {
    calls += 1;
    try {
      return call.call(fs, path);
    } finally {
      lastEnded = now();
      if (lastEnded - started > SLOW_SYNC_CALL_MS) {
        slowCalls += 1;
        if (slowCalls >= SLOW_SYNC_CALLS_ALLOWED && slowCalls * SLOW_SYNC_CALL_SHARE >= calls) async = true;
      }
    }
  };
  const timed = async (call, path, fallback) => {
    if (async) return fallback(path);
    await pause();
    if (async) return fallback(path);
    return syncCall(call, path, now());
  };
  return {
    stat: (path) => timed(statSync, path, (target) => fs.stat(target)),
    lstat: (path) => timed(lstatSync, path, (target) => fs.lstat(target)),
    statNow: (path) => async ? void 0 : syncCall(statSync, path, lastEnded),
    pause
  };
}

// src/track/create-backup.ts
var MAX_TAKEN_NAMES_SKIPPED = 16;
var inFlightPuts = /* @__PURE__ */ new WeakMap();
async function createBackup(context, absolutePath, version) {
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    const put = sharedPut(context, name, absolutePath);
    try {
      const info = await put.result;
      return { backupFileName: name, version: version + skipped, backupTime: put.startedAt, size: info.size, mode: info.mode, ...info.sha256 === void 0 ? {} : { sha256: info.sha256 } };
    } catch (error) {
      if (FhError.hasCode(error, "FH_NOT_FOUND")) {
        await assertAbsent(context, absolutePath, error);
        return { backupFileName: null, version: version + skipped, backupTime: put.startedAt };
      }
      if (!FhError.hasCode(error, "FH_CONFLICT") || skipped >= MAX_TAKEN_NAMES_SKIPPED) throw error;
    }
  }
}
async function commitPrepared(prepared, absolutePath, version) {
  const { info } = prepared.backup;
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    try {
      await prepared.backup.commit(name);
      return { backupFileName: name, version: version + skipped, backupTime: prepared.startedAt, size: info.size, mode: info.mode, ...info.sha256 === void 0 ? {} : { sha256: info.sha256 } };
    } catch (error) {
      if (!FhError.hasCode(error, "FH_CONFLICT") || skipped >= MAX_TAKEN_NAMES_SKIPPED) throw error;
    }
  }
}
async function assertAbsent(context, absolutePath, notFound) {
  let stats;
  try {
    stats = await createMetadataReader(context.fs).lstat(absolutePath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return;
    throw error;
  }
  if (stats.isSymbolicLink()) {
    throw new InvalidArgumentError(`${absolutePath} is a symbolic link that leads nowhere (its target does not exist), so it has no content to back up`, { cause: notFound });
  }
  throw new InvalidArgumentError(
    `${absolutePath} exists in the workspace file system but the store cannot read it: the history's fs must be the file system the store reads (store.workspaceFs)`,
    { cause: notFound }
  );
}
function sharedPut(context, name, absolutePath) {
  let puts = inFlightPuts.get(context.store);
  if (puts === void 0) {
    puts = /* @__PURE__ */ new Map();
    inFlightPuts.set(context.store, puts);
  }
  const key = `${context.sessionId}\0${name}`;
  const running = puts.get(key);
  if (running !== void 0) return running;
  const startedAt = /* @__PURE__ */ new Date();
  const table = puts;
  const result = context.store.putBackup(context.sessionId, name, absolutePath).finally(() => table.delete(key));
  const put = { startedAt, result };
  table.set(key, put);
  return put;
}

// src/track/resolve-links.ts
import { basename, dirname, isAbsolute as isAbsolute2, join, relative as relative2, sep as sep2 } from "path";
var realRoots = /* @__PURE__ */ new WeakMap();
async function resolveLinks(context, path) {
  const found = realPathOf(context, path.absolutePath);
  const real = found instanceof Promise ? await found : found;
  if (real === void 0 || real === path.absolutePath) return path;
  const trackingPath = await trackingPathInRealRoot(context, real);
  if (trackingPath === void 0 || trackingPath === path.trackingPath) return path;
  return { trackingPath, absolutePath: toAbsolutePath(context.projectRoot, trackingPath) };
}
async function realTrackingPath(context, absolutePath) {
  const real = await realPathOf(context, absolutePath);
  return real === void 0 ? void 0 : trackingPathInRealRoot(context, real);
}
async function trackingPathInRealRoot(context, real) {
  let root = realRoots.get(context);
  if (root === void 0) {
    root = Promise.resolve(realPathOf(context, context.projectRoot));
    realRoots.set(context, root);
  }
  const realRoot = await root;
  if (realRoot === void 0) return void 0;
  const rest = relative2(realRoot, real);
  if (rest === "" || rest === ".." || rest.startsWith(`..${sep2}`) || isAbsolute2(rest)) return void 0;
  return sep2 === "/" ? rest : rest.split(sep2).join("/");
}
function realPathOf(context, absolutePath) {
  const realpathSync = context.fs.realpathSync;
  if (realpathSync !== void 0) return realPathOrNearest(absolutePath, (path) => realpathSync.call(context.fs, path));
  return walkUpAsync(absolutePath, (path) => context.fs.realpath(path));
}
function realPathOrNearest(absolutePath, realpath) {
  const missing = [];
  for (let current = absolutePath; ; current = dirname(current)) {
    try {
      const real = realpath(current);
      return missing.length === 0 ? real : join(real, ...missing);
    } catch (error) {
      if (!isMissing(error) || dirname(current) === current) return rethrowUnlessMissing(error);
      missing.unshift(basename(current));
    }
  }
}
async function walkUpAsync(absolutePath, realpath) {
  const missing = [];
  for (let current = absolutePath; ; current = dirname(current)) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing);
    } catch (error) {
      if (!isMissing(error) || dirname(current) === current) return rethrowUnlessMissing(error);
      missing.unshift(basename(current));
    }
  }
}
function isMissing(error) {
  const code = errnoCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}
function rethrowUnlessMissing(error) {
  if (isMissing(error)) return void 0;
  throw error;
}

// src/state/state-queries.ts
function findSnapshot(state, messageId) {
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const snapshot = state.snapshots[index];
    if (snapshot !== void 0 && snapshot.messageId === messageId) return snapshot;
  }
  return void 0;
}
function latestBackup(state, trackingPath) {
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const snapshot = state.snapshots[index];
    const backup = snapshot === void 0 ? void 0 : entryOf(snapshot, trackingPath);
    if (backup !== void 0) return backup;
  }
  return void 0;
}
function nextVersion(state, trackingPath) {
  let highest = 0;
  state.snapshots.forEach((snapshot, index) => {
    const link = isDeferred(snapshot) ? chainLink(snapshot) : void 0;
    const backup = link !== void 0 && link.previous === state.snapshots[index - 1] ? link.changes.get(trackingPath) : entryOf(snapshot, trackingPath);
    if (backup !== void 0 && backup.version > highest) highest = backup.version;
  });
  return highest + 1;
}
function isBackupReferenced(state, name, trackingPath) {
  return state.snapshots.some((snapshot) => entryOf(snapshot, trackingPath)?.backupFileName === name);
}

// src/track/track-edit.ts
async function fileHistoryTrackEdit(updateState, path, context, agent = MAIN_AGENT, options = {}) {
  const { prepared } = options;
  try {
    await trackEdit(updateState, path, context, agent, prepared);
  } finally {
    await prepared?.backup.discard();
  }
}
async function trackEdit(updateState, path, context, agent, prepared) {
  const givenTrackingPath = await trackingPathOf(context, path);
  const givenAbsolutePath = toAbsolutePath(context.projectRoot, givenTrackingPath);
  if (context.store.containsPath(givenAbsolutePath)) {
    throw new OutsideRootError(`${path} is inside fh's own storage and is never tracked`);
  }
  const captured = captureState(updateState);
  if (captured === void 0) return;
  const mostRecent = captured.snapshots.at(-1);
  if (mostRecent === void 0) {
    throw new NotFoundError(
      `session "${context.sessionId}" has no snapshot yet, so ${givenTrackingPath} cannot be backed up: make the turn's snapshot (makeSnapshot) before tracking edits`
    );
  }
  const { trackingPath, absolutePath } = await resolveLinks(context, { trackingPath: givenTrackingPath, absolutePath: givenAbsolutePath });
  if (absolutePath !== givenAbsolutePath && context.store.containsPath(absolutePath)) {
    throw new OutsideRootError(`${path} leads to ${absolutePath}, inside fh's own storage, which is never tracked`);
  }
  const attribution = attributionFor(agent, /* @__PURE__ */ new Date());
  const tracked = mostRecent.trackedFileBackups[trackingPath];
  if (tracked !== void 0) {
    if (entryChangedBy(tracked, agent)) return;
    const outcome2 = await attachBackup(updateState, context, trackingPath, void 0, attribution);
    await outcome2.recorded;
    return;
  }
  const version = nextVersion(captured, trackingPath);
  const backup = prepared !== void 0 && prepared.backup.sourcePath === absolutePath ? await commitPrepared(prepared, absolutePath, version) : await context.limit(() => createBackup(context, absolutePath, version));
  const outcome = await attachBackup(updateState, context, trackingPath, backup, attribution);
  if (outcome.attached) {
    await outcome.recorded;
    return;
  }
  await outcome.recorded;
  if (backup.backupFileName !== null && (outcome.state === void 0 || !isBackupReferenced(outcome.state, backup.backupFileName, trackingPath))) {
    await context.store.deleteBackup(context.sessionId, backup.backupFileName);
  }
}
async function trackingPathOf(context, path) {
  try {
    return toTrackingPath(context.projectRoot, path);
  } catch (error) {
    if (!FhError.hasCode(error, "FH_OUTSIDE_ROOT")) throw error;
    const mapped = await realTrackingPath(context, resolve2(context.projectRoot, path));
    if (mapped === void 0) throw error;
    return mapped;
  }
}

// src/track/prepare-edit.ts
async function prepareTrackEdit(store, sessionId, absolutePath) {
  if (typeof store.prepareBackup !== "function") return void 0;
  const startedAt = /* @__PURE__ */ new Date();
  try {
    return { backup: await store.prepareBackup(sessionId, absolutePath), startedAt };
  } catch (error) {
    if (FhError.hasCode(error, "FH_NOT_FOUND") || FhError.hasCode(error, "FH_INVALID_ARGUMENT")) return void 0;
    throw error;
  }
}

// src/worker-pool.ts
async function mapWithWorkers(limit, items, width, fn, stopWhen) {
  const results = new Array(items.length);
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < items.length) {
      const index = next;
      next += 1;
      const result = await fn(items[index]);
      results[index] = result;
      if (stopWhen?.(result)) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, () => limit(worker)));
  return results;
}

// src/snapshot/make-snapshot.ts
async function fileHistoryMakeSnapshot(updateState, messageId, context) {
  if (typeof messageId !== "string" || messageId === "") {
    throw new InvalidArgumentError(`messageId must be a non-empty string, got ${JSON.stringify(messageId)}`);
  }
  const captured = captureState(updateState);
  if (captured === void 0) return void 0;
  const trackingPaths = sortedPaths(captured.trackedFiles);
  const metadata = createMetadataReader(context.fs);
  const entries = new Array(trackingPaths.length);
  const same = new Uint8Array(trackingPaths.length);
  const rest = await unchangedByTimestamps(context, metadata, captured, trackingPaths, entries, same);
  const checked = await mapWithWorkers(context.metadataLimit, rest, context.concurrency, async (index) => {
    const trackingPath = trackingPaths[index];
    return withoutAttribution(await snapshotEntry(context, metadata, captured, trackingPath, latestBackup(captured, trackingPath)));
  });
  rest.forEach((index, at) => {
    entries[index] = checked[at];
  });
  const trackedFileBackups = {};
  trackingPaths.forEach((trackingPath, index) => {
    trackedFileBackups[trackingPath] = entries[index];
  });
  let committed;
  let released = [];
  let changes;
  updateState((state) => {
    const latest = state.snapshots.at(-1);
    const latestBackups = latest?.trackedFileBackups;
    const superseded = {};
    const unchangedState = state === captured && latest !== void 0 && latestBackups !== void 0 && keysTracked(latest);
    if (unchangedState) {
      const changed = [];
      trackingPaths.forEach((trackingPath, index2) => {
        if (same[index2] === 1) return;
        const before = latestBackups[trackingPath];
        const now = trackedFileBackups[trackingPath];
        if (now === before) return;
        changed.push(trackingPath);
        if (isRetainable(before) && before.backupFileName !== now.backupFileName) superseded[trackingPath] = before.backupFileName;
      });
      changes = { changed, removed: [], size: trackingPaths.length };
    } else if (latestBackups !== void 0) {
      for (const trackingPath in latestBackups) {
        const before = latestBackups[trackingPath];
        const now = trackedFileBackups[trackingPath];
        if (now === void 0) {
          if (before !== void 0 && state.trackedFiles.has(trackingPath)) trackedFileBackups[trackingPath] = withoutAttribution(before);
          else if (isRetainable(before)) superseded[trackingPath] = before.backupFileName;
        } else if (now !== before && isRetainable(before) && before.backupFileName !== now.backupFileName) {
          superseded[trackingPath] = before.backupFileName;
        }
      }
    }
    committed = { messageId, trackedFileBackups, timestamp: /* @__PURE__ */ new Date() };
    const sequence = state.snapshotSequence + 1;
    const held = (state.heldSnapshots ?? state.snapshots.length) + 1;
    const droppedCount = Math.max(0, held - MAX_SNAPSHOTS);
    const snapshots = [...state.snapshots, committed];
    const droppedInMemory = snapshots.length > MAX_SNAPSHOTS ? snapshots.splice(0, snapshots.length - MAX_SNAPSHOTS) : [];
    const index = /* @__PURE__ */ new Map();
    const lowest = sequence - MAX_SNAPSHOTS + 2;
    for (const [at, backups] of state.superseded ?? []) if (at >= lowest) index.set(at, backups);
    if (Object.keys(superseded).length > 0) index.set(sequence, superseded);
    released = releasedBackups(state, sequence, droppedCount, droppedInMemory, snapshots, committed);
    return setStateBookkeeping(
      { ...state, snapshots, snapshotSequence: sequence },
      { superseded: index.size > 0 ? index : void 0, heldSnapshots: state.heldSnapshots === void 0 ? void 0 : Math.min(MAX_SNAPSHOTS, held) }
    );
  });
  if (committed !== void 0) {
    markKeysTracked(committed);
    if (changes !== void 0) noteChanges(committed, captured.snapshots.at(-1), changes);
  }
  if (committed !== void 0) await context.recordSnapshot?.(committed, false);
  if (released.length > 0) await deleteReleasedBackups(updateState, released, context);
  return committed;
}
var sortedSets = /* @__PURE__ */ new WeakMap();
function sortedPaths(tracked) {
  const cached = sortedSets.get(tracked);
  let sorted;
  if (cached === void 0 || cached.length > tracked.size) {
    return sortAfresh(tracked);
  } else if (cached.length === tracked.size) {
    sorted = cached.slice();
  } else {
    const added = [];
    let index = 0;
    for (const path of tracked) if (index++ >= cached.length) added.push(path);
    added.sort();
    sorted = new Array(tracked.size);
    let from = 0;
    let next = 0;
    let at = 0;
    while (from < cached.length || next < added.length) {
      const old = cached[from];
      const fresh = added[next];
      if (old === fresh) return sortAfresh(tracked);
      if (fresh === void 0 || old !== void 0 && old < fresh) {
        sorted[at++] = old;
        from += 1;
      } else {
        sorted[at++] = fresh;
        next += 1;
      }
    }
  }
  sortedSets.set(tracked, sorted.slice());
  return sorted;
}
function sortAfresh(tracked) {
  const sorted = [...tracked].sort();
  sortedSets.set(tracked, sorted.slice());
  return sorted;
}
function releasedBackups(state, sequence, droppedCount, droppedInMemory, kept, newest) {
  if (droppedCount === 0) return [];
  const oldestKept = kept[0];
  if (oldestKept !== void 0) detach(oldestKept);
  const candidates = /* @__PURE__ */ new Map();
  for (let offset = 0; offset < droppedCount; offset += 1) {
    const dropped = sequence - MAX_SNAPSHOTS - droppedCount + 1 + offset;
    const indexed = state.superseded?.get(dropped + 1);
    if (indexed !== void 0) {
      for (const [path, name] of Object.entries(indexed)) candidates.set(`${path}\0${name}`, path);
      continue;
    }
    const snapshot = droppedInMemory[droppedInMemory.length - droppedCount + offset];
    const after = droppedInMemory[droppedInMemory.length - droppedCount + offset + 1] ?? oldestKept;
    if (snapshot === void 0 || after === void 0) continue;
    const afterBackups = after.trackedFileBackups;
    for (const [path, backup] of Object.entries(snapshot.trackedFileBackups)) {
      if (isRetainable(backup) && afterBackups[path]?.backupFileName !== backup.backupFileName) candidates.set(`${path}\0${backup.backupFileName}`, path);
    }
  }
  const released = [];
  for (const [key, path] of candidates) {
    const name = key.slice(path.length + 1);
    if (!isLaterVersionName(name)) continue;
    if (oldestKept !== void 0 && oldestKept.trackedFileBackups[path]?.backupFileName === name) continue;
    if (newest.trackedFileBackups[path]?.backupFileName === name) continue;
    released.push([path, name]);
  }
  return released;
}
function isLaterVersionName(name) {
  return isBackupFileName(name) && Number(name.slice(name.lastIndexOf("@v") + 2)) > 1;
}
async function deleteReleasedBackups(updateState, released, context) {
  const newest = captureState(updateState)?.snapshots.at(-1);
  await Promise.all(
    released.map(
      ([path, name]) => context.limit(async () => {
        if (newest !== void 0 && entryOf(newest, path)?.backupFileName === name) return;
        try {
          await context.store.deleteBackup(context.sessionId, name);
        } catch (error) {
          context.onWarning?.(`retention could not delete backup ${name} of session ${context.sessionId}: ${messageOf(error)}`);
        }
      })
    )
  );
}
async function unchangedByTimestamps(context, metadata, state, trackingPaths, entries, same) {
  const rest = [];
  const granularity = context.timestampGranularityMs;
  const newest = state.snapshots.at(-1);
  const newestMap = newest === void 0 || isDeferred(newest) ? void 0 : newest.trackedFileBackups;
  for (let index = 0; index < trackingPaths.length; index += 1) {
    const pause = metadata.pause();
    if (pause !== void 0) await pause;
    const trackingPath = trackingPaths[index];
    const held = newestMap !== void 0 ? Object.hasOwn(newestMap, trackingPath) ? newestMap[trackingPath] : void 0 : newest === void 0 ? void 0 : entryOf(newest, trackingPath);
    const previous = held ?? latestBackup(state, trackingPath);
    if (previous === void 0 || previous.backupFileName === null || previous.error !== void 0 || previous.size === void 0 || previous.mode === void 0) {
      rest.push(index);
      continue;
    }
    let stats;
    try {
      stats = metadata.statNow(toAbsolutePath(context.projectRoot, trackingPath));
    } catch {
      stats = void 0;
    }
    if (stats === void 0 || !stats.isFile() || compareMetadata(stats, previous.size, previous.mode, backupTimeMs(previous), granularity)?.changed !== false) {
      rest.push(index);
      continue;
    }
    const entry = withoutAttribution(previous);
    entries[index] = entry;
    if (entry === held) same[index] = 1;
  }
  return rest;
}
async function snapshotEntry(context, metadata, state, trackingPath, previous) {
  const version = () => nextVersion(state, trackingPath);
  let absolutePath;
  try {
    absolutePath = toAbsolutePath(context.projectRoot, trackingPath);
  } catch (error) {
    return { backupFileName: null, version: version(), backupTime: /* @__PURE__ */ new Date(), error: messageOf(error) };
  }
  const absent = () => previous !== void 0 && previous.backupFileName === null && previous.error === void 0 ? previous : { backupFileName: null, version: version(), backupTime: /* @__PURE__ */ new Date() };
  try {
    let stats;
    try {
      stats = await metadata.stat(absolutePath);
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      if (code === "ENOENT" && await isSymlink(metadata, absolutePath)) {
        return failedEntry(absolutePath, version(), `${trackingPath} is a symbolic link that leads nowhere (its target does not exist), so it has no content to back up`);
      }
      return absent();
    }
    if (stats.isDirectory() && !(await metadata.lstat(absolutePath)).isSymbolicLink()) return absent();
    if (!stats.isFile()) {
      return failedEntry(absolutePath, version(), `${trackingPath} is not a regular file (a device, socket, pipe or link to a folder)`);
    }
    if (previous !== void 0 && previous.backupFileName !== null && previous.error === void 0) {
      const name = previous.backupFileName;
      const check = (previous.size !== void 0 && previous.mode !== void 0 ? compareMetadata(stats, previous.size, previous.mode, backupTimeMs(previous), context.timestampGranularityMs) : void 0) ?? await context.limit(() => checkFileChanged(context, absolutePath, stats, { ...previous, backupFileName: name }));
      if (!check.changed) return check.by === "content" ? { ...previous, backupTime: check.verifiedAt } : previous;
    }
    return await context.limit(() => createBackup(context, absolutePath, version()));
  } catch (error) {
    return failedEntry(absolutePath, version(), messageOf(error));
  }
}
async function isSymlink(metadata, absolutePath) {
  try {
    return (await metadata.lstat(absolutePath)).isSymbolicLink();
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
}
function failedEntry(absolutePath, version, error) {
  return { backupFileName: backupFileName(absolutePath, version), version, backupTime: /* @__PURE__ */ new Date(), error };
}
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

// src/rewind/rewind-plan.ts
import { dirname as dirname3, join as join2 } from "path";

// src/rewind/parent-folders.ts
import { dirname as dirname2, isAbsolute as isAbsolute3, relative as relative3, sep as sep3 } from "path";
function createFolderChecker(fs, projectRoot) {
  const pending = /* @__PURE__ */ new Map();
  const known = /* @__PURE__ */ new Map();
  const check = (folder) => {
    const state = known.get(folder);
    if (state !== void 0) return state;
    let inspecting = pending.get(folder);
    if (inspecting === void 0) {
      inspecting = inspect(folder).then((result) => {
        known.set(folder, result);
        return result;
      });
      pending.set(folder, inspecting);
    }
    return inspecting;
  };
  const inspect = async (folder) => {
    const rest = relative3(projectRoot, folder);
    if (rest === "") return { kind: "ok" };
    if (rest === ".." || rest.startsWith(`..${sep3}`) || isAbsolute3(rest)) return { kind: "outside", at: folder };
    const above = await check(dirname2(folder));
    if (above.kind !== "ok") return above;
    try {
      const stats = await fs.lstat(folder);
      if (stats.isSymbolicLink()) return { kind: "symlink", at: folder };
      if (!stats.isDirectory()) return { kind: "not-a-folder", at: folder };
      return { kind: "ok" };
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return { kind: "missing" };
      throw error;
    }
  };
  return check;
}

// src/rewind/snapshot-targets.ts
function snapshotFileBackups(state, messageId) {
  const snapshot = findSnapshot(state, messageId);
  if (snapshot === void 0) return void 0;
  const index = state.snapshots.lastIndexOf(snapshot);
  const paths = [.../* @__PURE__ */ new Set([...state.trackedFiles, ...Object.keys(snapshot.trackedFileBackups)])].sort();
  return new Map(paths.map((path) => [path, snapshot.trackedFileBackups[path] ?? firstBackupAfter(state, index, path)]));
}
function firstBackupAfter(state, index, path) {
  for (let later = index + 1; later < state.snapshots.length; later += 1) {
    const backup = state.snapshots[later]?.trackedFileBackups[path];
    if (backup !== void 0) return backup;
  }
  return void 0;
}

// src/rewind/rewind-plan.ts
function rewindTargets(state, messageId, context, paths) {
  const backups = snapshotFileBackups(state, messageId);
  if (backups === void 0) {
    const dropped = state.snapshots.length >= MAX_SNAPSHOTS ? ` (a session keeps its newest ${MAX_SNAPSHOTS} snapshots; older ones are dropped)` : "";
    throw new NotFoundError(`no snapshot for message ${JSON.stringify(messageId)}${dropped}`);
  }
  if (paths === void 0) return [...backups].map(([path, backup]) => ({ path, backup }));
  if (!Array.isArray(paths)) throw new InvalidArgumentError(`paths must be an array of paths, got ${JSON.stringify(paths)}`);
  const selected = /* @__PURE__ */ new Set();
  for (const path of paths) {
    const trackingPath = toTrackingPath(context.projectRoot, path);
    if (!backups.has(trackingPath)) throw new InvalidArgumentError(`${path} is not a tracked file`);
    selected.add(trackingPath);
  }
  return [...selected].sort().map((path) => ({ path, backup: backups.get(path) }));
}
async function planRewind(context, targets, options = {}) {
  const { stopWhen, deferContent = false } = options;
  const progress = startPhase(options.onProgress, "checking", targets.length);
  const metadata = createMetadataReader(context.fs);
  const folderState = createFolderChecker(metadata, context.projectRoot);
  const entries = new Map(targets.map((target) => [target.path, target.backup]));
  const deletedByThisRewind = (path) => isDeletion(entries.get(path));
  return mapWithWorkers(
    context.metadataLimit,
    targets,
    context.concurrency,
    (target) => planFile(context, metadata, target, folderState, deletedByThisRewind, deferContent).catch((error) => ({ kind: "fail", path: target.path, error: asError(error) })).finally(() => progress.file()),
    stopWhen
  );
}
async function planFile(context, metadata, target, folderState, deletedByThisRewind, deferContent) {
  const { path, backup } = target;
  if (backup === void 0) return { kind: "skip", path, reason: "no backup of this file at or after the snapshot" };
  let absolutePath;
  try {
    absolutePath = toAbsolutePath(context.projectRoot, path);
  } catch (error) {
    return { kind: "skip", path, reason: error.message };
  }
  if (backup.error !== void 0) {
    return { kind: "fail", path, error: new FhError(`${path}: its backup at this snapshot failed: ${backup.error}`) };
  }
  const stored = backup.backupFileName === null ? void 0 : { ...backup, backupFileName: backup.backupFileName };
  const known = folderState(dirname3(absolutePath));
  const folder = known instanceof Promise ? await known : known;
  if (folder.kind === "symlink") return { kind: "skip", path, reason: `reached through the symbolic link ${folder.at}` };
  if (folder.kind === "not-a-folder") {
    if (stored === void 0) return { kind: "same", path };
    if (await isDeletedRegularFile(context, folder.at, deletedByThisRewind)) return restorePlan(context, path, absolutePath, stored, "missing", void 0, true);
    return { kind: "skip", path, reason: `${folder.at} is not a folder` };
  }
  if (folder.kind === "outside") return { kind: "skip", path, reason: `${folder.at} is outside the project root` };
  if (folder.kind === "missing") {
    if (stored === void 0) return { kind: "same", path };
    return restorePlan(context, path, absolutePath, stored, "missing", void 0, true);
  }
  let stats;
  try {
    stats = await metadata.lstat(absolutePath);
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw error;
    if (stored === void 0) return { kind: "same", path };
    return restorePlan(context, path, absolutePath, stored, "missing", void 0, false);
  }
  if (stats.isDirectory()) {
    if (stored === void 0) return { kind: "skip", path, reason: "a folder is at this path" };
    const kept = await entriesKept(context, path, absolutePath, deletedByThisRewind);
    if (kept.length > 0) return { kind: "skip", path, reason: `a folder is at this path and holds what this rewind does not delete: ${listNames(kept)}` };
    return restorePlan(context, path, absolutePath, stored, "folder", void 0, false);
  }
  if (stats.isSymbolicLink()) {
    if (stored === void 0) return { kind: "delete", path, absolutePath, current: "symlink", currentStats: stats };
    const followed = await statOrUndefined(context, absolutePath);
    if (followed === void 0 || !followed.isFile()) return restorePlan(context, path, absolutePath, stored, "symlink", void 0, false);
    return compareAndPlan(context, path, absolutePath, stored, followed, "symlink", deferContent);
  }
  if (!stats.isFile()) return { kind: "skip", path, reason: "not a regular file (a device, socket or pipe)" };
  if (stored === void 0) return { kind: "delete", path, absolutePath, current: "file", currentStats: stats };
  return compareAndPlan(context, path, absolutePath, stored, stats, "file", deferContent);
}
async function compareAndPlan(context, path, absolutePath, backup, stats, current, deferContent) {
  const quick = backup.size !== void 0 && backup.mode !== void 0 ? compareMetadata(stats, backup.size, backup.mode, backupTimeMs(backup), context.timestampGranularityMs) : void 0;
  if (quick === void 0 && deferContent && backup.size !== void 0 && backup.mode !== void 0) {
    const plan = await restorePlan(context, path, absolutePath, backup, current, stats, false);
    return plan.kind === "restore" ? { ...plan, contentUnchecked: true } : plan;
  }
  let check;
  try {
    check = quick ?? await context.limit(() => checkFileChanged(context, absolutePath, stats, backup));
  } catch (error) {
    const damaged = damagedBackupPlan(path, backup, error);
    if (damaged !== void 0) return damaged;
    throw error;
  }
  if (!check.changed) return { kind: "same", path };
  if (check.reason === "backup-missing") {
    return { kind: "missing", path, backupFileName: backup.backupFileName, reason: "the backup does not exist in the store" };
  }
  return restorePlan(context, path, absolutePath, backup, current, stats, false);
}
async function restorePlan(context, path, absolutePath, backup, current, currentStats, createParents) {
  let info;
  try {
    info = await context.limit(() => context.store.statBackup(context.sessionId, backup.backupFileName));
  } catch (error) {
    const damaged = damagedBackupPlan(path, backup, error);
    if (damaged !== void 0) return damaged;
    throw error;
  }
  if (info === null) return { kind: "missing", path, backupFileName: backup.backupFileName, reason: "the backup does not exist in the store" };
  if (backup.size !== void 0 && info.size !== backup.size) {
    return { kind: "missing", path, backupFileName: backup.backupFileName, reason: `the backup has ${info.size} bytes, the snapshot recorded ${backup.size}` };
  }
  return { kind: "restore", path, absolutePath, backup, info, current, currentStats, createParents };
}
function damagedBackupPlan(path, backup, error) {
  if (!FhError.hasCode(error, "FH_CORRUPT")) return void 0;
  return { kind: "missing", path, backupFileName: backup.backupFileName, reason: error.message };
}
async function statOrUndefined(context, absolutePath) {
  try {
    return await context.fs.stat(absolutePath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR") return void 0;
    throw error;
  }
}
function isDeletion(backup) {
  return backup !== void 0 && backup.error === void 0 && backup.backupFileName === null;
}
async function isDeletedRegularFile(context, absolutePath, deletedByThisRewind) {
  let trackingPath;
  try {
    trackingPath = toTrackingPath(context.projectRoot, absolutePath);
  } catch {
    return false;
  }
  if (!deletedByThisRewind(trackingPath)) return false;
  const stats = await lstatOrUndefined(context, absolutePath);
  return stats?.isFile() === true;
}
async function entriesKept(context, path, absolutePath, deletedByThisRewind) {
  const names = (await context.fs.readdir(absolutePath)).map(String).sort();
  const kept = [];
  for (const name of names) {
    if (deletedByThisRewind(`${path}/${name}`)) {
      const stats = await lstatOrUndefined(context, join2(absolutePath, name));
      if (stats === void 0 || stats.isFile() || stats.isSymbolicLink()) continue;
    }
    kept.push(name);
  }
  return kept;
}
function listNames(names) {
  const shown = names.slice(0, 3).join(", ");
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}
async function lstatOrUndefined(context, absolutePath) {
  try {
    return await context.fs.lstat(absolutePath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return void 0;
    throw error;
  }
}
function asError(error) {
  return error instanceof Error ? error : new Error(String(error));
}

// src/rewind/temporary-files.ts
import { randomBytes } from "crypto";
import { basename as basename2, dirname as dirname4, join as join3 } from "path";
var TEMPORARY_NAME = /^\..+\.fh-[0-9a-f]{12}\.tmp$/;
var STALE_TEMPORARY_MS = 6e4;
function temporaryNameFor(name) {
  return `.${name.slice(0, 100)}.fh-${randomBytes(6).toString("hex")}.tmp`;
}
function isTemporaryName(name) {
  return TEMPORARY_NAME.test(name);
}

// src/rewind/project-writer.ts
import { basename as basename3, join as join4 } from "path";
var PROC_FD = "/proc/self/fd";
async function openProjectWriter(fs, projectRoot, options = {}) {
  const flags = directoryFlags(fs);
  if (options.mode !== "checked-paths" && flags !== void 0) {
    let root;
    try {
      root = await fs.open(projectRoot, flags.directory);
      if (typeof root.fd === "number") {
        await fs.lstat(`${PROC_FD}/${root.fd}`);
        return new DirfdWriter(fs, projectRoot, flags, root);
      }
    } catch (error) {
      if (errnoCode(error) === "ENOENT" && root === void 0) throw new NotFoundError(`the project folder ${projectRoot} does not exist`, { cause: error });
    }
    await root?.close().catch(() => void 0);
  }
  return new CheckedPathsWriter(fs, projectRoot);
}
function directoryFlags(fs) {
  const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants ?? {};
  if (typeof O_RDONLY !== "number" || typeof O_DIRECTORY !== "number" || typeof O_NOFOLLOW !== "number" || O_DIRECTORY === 0 || O_NOFOLLOW === 0) return void 0;
  return { directory: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, noFollowFile: O_RDONLY | O_NOFOLLOW };
}
function components(relativeFolder) {
  if (relativeFolder === "" || relativeFolder === ".") return [];
  const parts = relativeFolder.split("/");
  for (const part of parts) {
    if (part === "" || part === "." || part === ".." || part.includes("\\") || part.includes("\0")) {
      throw new OutsideRootError(`${relativeFolder} is not a folder path inside the project (component ${JSON.stringify(part)}); nothing was written`);
    }
  }
  return parts;
}
function checkName(name) {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new OutsideRootError(`${JSON.stringify(name)} is not a file name inside a project folder; nothing was written`);
  }
}
function linkRefusal(absolutePath, cause) {
  return new OutsideRootError(
    `${absolutePath} is a symbolic link (or was swapped for one while fh ran): fh never writes through a link, so nothing was written there; replace the link by the folder it should be and run the command again`,
    cause === void 0 ? void 0 : { cause }
  );
}
function notAFolder(absolutePath, cause) {
  return new ConflictError(`${absolutePath} is not a folder, so nothing could be written inside it`, cause === void 0 ? void 0 : { cause });
}
async function lstatOrUndefined2(fs, path) {
  try {
    return await fs.lstat(path);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return void 0;
    throw error;
  }
}
var BaseFolder = class {
  constructor(writer, relativePath, absolutePath) {
    this.writer = writer;
    this.relativePath = relativePath;
    this.absolutePath = absolutePath;
  }
  writer;
  relativePath;
  absolutePath;
  async lstat(name) {
    checkName(name);
    return lstatOrUndefined2(this.writer.fs, await this.entry(name));
  }
  async readdir() {
    return (await this.writer.fs.readdir(await this.entry("."))).map(String);
  }
  async unlink(name) {
    checkName(name);
    await this.writer.fs.unlink(await this.entry(name));
    this.writer.changed(this);
  }
  async rmdir(name) {
    checkName(name);
    await this.writer.fs.rmdir(await this.entry(name));
    this.writer.forget(this.child(name));
    this.writer.changed(this);
  }
  async mkdir(name) {
    checkName(name);
    await this.writer.mkdirAt(await this.entry(name));
    this.writer.changed(this);
  }
  async replaceFile(name, write, mode) {
    await (await this.stageFile(name, write, mode)).commit();
  }
  async stageFile(name, write, mode) {
    checkName(name);
    const temporary = await this.entry(temporaryNameFor(name));
    const remove = () => this.writer.fs.unlink(temporary).catch(() => void 0);
    try {
      await write(temporary);
      await this.finishFile(temporary, mode);
    } catch (error) {
      await remove();
      throw error;
    }
    let settled = false;
    return {
      commit: async () => {
        if (settled) return;
        settled = true;
        try {
          await this.writer.fs.rename(temporary, await this.entry(name));
        } catch (error) {
          await remove();
          throw error;
        }
        this.writer.changed(this);
      },
      discard: async () => {
        if (settled) return;
        settled = true;
        await remove();
      }
    };
  }
  async replaceWithSymlink(name, target) {
    checkName(name);
    const fs = this.writer.fs;
    if (typeof fs.symlink !== "function") throw new FhError(`restoring the symbolic link ${join4(this.absolutePath, name)} needs a workspace fs with symlink`);
    const temporary = await this.entry(temporaryNameFor(name));
    try {
      await fs.symlink(target, temporary);
      await fs.rename(temporary, await this.entry(name));
    } catch (error) {
      await fs.unlink(temporary).catch(() => void 0);
      throw error;
    }
    this.writer.changed(this);
  }
  async removeTemporaryFiles(olderThanMs) {
    let names;
    try {
      names = await this.readdir();
    } catch {
      return [];
    }
    const removed = [];
    for (const name of names) {
      if (!isTemporaryName(name)) continue;
      try {
        const path = await this.entry(name);
        const stats = await this.writer.fs.lstat(path);
        if (!stats.isFile() || olderThanMs !== void 0 && Number(stats.mtimeMs) >= olderThanMs) continue;
        await this.writer.fs.unlink(path);
        removed.push(name);
      } catch {
      }
    }
    if (removed.length > 0) this.writer.changed(this);
    return removed;
  }
  /** Tracking path of `name` in this folder. */
  child(name) {
    return this.relativePath === "" ? name : `${this.relativePath}/${name}`;
  }
};
var BaseWriter = class {
  constructor(fs, projectRoot) {
    this.fs = fs;
    this.projectRoot = projectRoot;
  }
  fs;
  projectRoot;
  folders = /* @__PURE__ */ new Map();
  dirty = /* @__PURE__ */ new Set();
  closed = false;
  async folder(relativeFolder, options = {}) {
    return this.open(components(relativeFolder), options.create === true);
  }
  /** The folder of `parts`, opened once per writer (concurrent callers share the open). */
  open(parts, create) {
    const key = parts.join("/");
    const known = this.folders.get(key);
    if (known !== void 0) return known;
    const opening = this.openUncached(parts, create);
    this.folders.set(key, opening);
    opening.catch(() => {
      if (this.folders.get(key) === opening) this.folders.delete(key);
    });
    return opening;
  }
  /** A plain (never recursive) mkdir: `EEXIST` when anything, a link included, is at `path`. */
  async mkdirAt(path) {
    await this.fs.mkdir(path);
  }
  /** Note that `folder`'s entries changed (fsynced by the next flush). */
  changed(folder) {
    this.dirty.add(folder);
  }
  /** Drop the cached folder at tracking path `relativePath` and everything under it (removed). */
  forget(relativePath) {
    for (const [key, opening] of this.folders) {
      if (key !== relativePath && !key.startsWith(`${relativePath}/`)) continue;
      this.folders.delete(key);
      opening.then((folder) => {
        this.dirty.delete(folder);
        return folder.close();
      }).catch(() => void 0);
    }
  }
  async flush() {
    const folders = [...this.dirty];
    this.dirty.clear();
    await Promise.all(
      folders.map(
        (folder) => folder.sync().catch((error) => {
          const where = folder.relativePath === "" ? "the project folder" : `folder ${folder.relativePath}`;
          throw translateFsError(error, `make the files written in ${where} of ${this.projectRoot} durable (fsync)`);
        })
      )
    );
  }
  async close() {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.flush();
    } finally {
      const opened = await Promise.allSettled(this.folders.values());
      this.folders.clear();
      await Promise.all(opened.map((outcome) => outcome.status === "fulfilled" ? outcome.value.close().catch(() => void 0) : void 0));
      await this.closeRoot();
    }
  }
};
var DirfdFolder = class extends BaseFolder {
  constructor(writer, relativePath, absolutePath, handle, owned) {
    super(writer, relativePath, absolutePath);
    this.handle = handle;
    this.owned = owned;
  }
  handle;
  owned;
  get fd() {
    return this.handle.fd;
  }
  async entry(name) {
    return name === "." ? `${PROC_FD}/${this.fd}` : `${PROC_FD}/${this.fd}/${name}`;
  }
  async finishFile(path, mode) {
    const writer = this.writer;
    const handle = await writer.fs.open(path, writer.flags.noFollowFile);
    try {
      if (((await handle.stat()).mode & 4095) !== mode) {
        if (typeof handle.chmod === "function") await handle.chmod(mode);
        else await writer.fs.chmod(path, mode);
      }
      await handle.sync?.();
    } finally {
      await handle.close();
    }
  }
  async sync() {
    await this.handle.sync?.();
  }
  async close() {
    if (this.owned) await this.handle.close();
  }
};
var DirfdWriter = class extends BaseWriter {
  constructor(fs, projectRoot, flags, rootHandle) {
    super(fs, projectRoot);
    this.flags = flags;
    this.root = new DirfdFolder(this, "", projectRoot, rootHandle, false);
    this.folders.set("", Promise.resolve(this.root));
  }
  flags;
  mode = "dirfd";
  root;
  async openUncached(parts, create) {
    const parent = await this.open(parts.slice(0, -1), create);
    const name = parts[parts.length - 1];
    const relativePath = parts.join("/");
    const absolutePath = join4(this.projectRoot, ...parts);
    const path = `${PROC_FD}/${parent.fd}/${name}`;
    const openIt = async () => await this.fs.open(path, this.flags.directory);
    let handle;
    try {
      handle = await openIt();
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOENT" && create) {
        try {
          await this.mkdirAt(path);
        } catch (mkdirError) {
          if (errnoCode(mkdirError) !== "EEXIST") throw mkdirError;
        }
        this.changed(parent);
        handle = await openIt().catch(async (again) => {
          throw await this.explain(again, path, absolutePath);
        });
      } else {
        throw await this.explain(error, path, absolutePath);
      }
    }
    return new DirfdFolder(this, relativePath, absolutePath, handle, true);
  }
  /** Turn an open failure into the error a caller reports. */
  async explain(error, path, absolutePath) {
    const code = errnoCode(error);
    if (code === "ELOOP") return linkRefusal(absolutePath, error);
    if (code === "ENOTDIR") {
      const stats = await lstatOrUndefined2(this.fs, path).catch(() => void 0);
      return stats?.isSymbolicLink() === true ? linkRefusal(absolutePath, error) : notAFolder(absolutePath, error);
    }
    if (code === "ENOENT") return new NotFoundError(`the folder ${absolutePath} does not exist`, { cause: error });
    return error;
  }
  async closeRoot() {
    await this.root.handle.close();
  }
};
var CheckedFolder = class extends BaseFolder {
  async entry(name) {
    await this.writer.verify(this.relativePath);
    return name === "." ? this.absolutePath : join4(this.absolutePath, name);
  }
  async finishFile(path, mode) {
    const fs = this.writer.fs;
    const stats = await fs.lstat(path);
    if (!stats.isFile()) throw new FhError(`${path} is not the file fh just wrote; nothing was renamed into place`);
    if ((stats.mode & 4095) !== mode) await fs.chmod(path, mode);
    await syncPath(fs, path);
  }
  async sync() {
    await syncPath(this.writer.fs, this.absolutePath);
  }
  async close() {
  }
};
async function syncPath(fs, path) {
  let handle;
  try {
    handle = await fs.open(path, "r");
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EISDIR" || code === "EPERM" || code === "EACCES") return;
    throw error;
  }
  try {
    await handle.sync?.();
  } finally {
    await handle.close();
  }
}
var CheckedPathsWriter = class extends BaseWriter {
  mode = "checked-paths";
  constructor(fs, projectRoot) {
    super(fs, projectRoot);
    this.folders.set("", Promise.resolve(new CheckedFolder(this, "", projectRoot)));
  }
  async openUncached(parts, create) {
    const parent = await this.open(parts.slice(0, -1), create);
    const absolutePath = join4(this.projectRoot, ...parts);
    const stats = await parent.lstat(parts[parts.length - 1]);
    if (stats === void 0) {
      if (!create) throw new NotFoundError(`the folder ${absolutePath} does not exist`);
      await parent.mkdir(parts[parts.length - 1]).catch((error) => {
        if (errnoCode(error) !== "EEXIST") throw error;
      });
    }
    const folder = new CheckedFolder(this, parts.join("/"), absolutePath);
    await this.verify(folder.relativePath);
    return folder;
  }
  /** Check every folder from the root down to `relativePath` is a folder, not a link. */
  async verify(relativePath) {
    let path = this.projectRoot;
    for (const part of components(relativePath)) {
      path = join4(path, part);
      const stats = await lstatOrUndefined2(this.fs, path);
      if (stats === void 0) throw new NotFoundError(`the folder ${path} does not exist`);
      if (stats.isSymbolicLink()) throw linkRefusal(path);
      if (!stats.isDirectory()) throw notAFolder(path);
    }
  }
  async closeRoot() {
  }
};
function splitTrackingPath(trackingPath) {
  const index = trackingPath.lastIndexOf("/");
  return index < 0 ? { folder: "", name: trackingPath } : { folder: trackingPath.slice(0, index), name: basename3(trackingPath) };
}
function symlinkTargetInside(projectRoot, linkPath, target) {
  if (target === "" || target.includes("\0")) return false;
  if (target.startsWith("/")) {
    const resolved = normalizeParts(target.split("/"));
    const root = normalizeParts(projectRoot.split("/"));
    return resolved !== void 0 && root !== void 0 && root.length <= resolved.length && root.every((part, index) => resolved[index] === part);
  }
  const { folder } = splitTrackingPath(linkPath);
  return normalizeParts([...folder === "" ? [] : folder.split("/"), ...target.split("/")]) !== void 0;
}
function normalizeParts(parts) {
  const out = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length === 0) return void 0;
      out.pop();
    } else out.push(part);
  }
  return out;
}

// src/rewind/restored-mode.ts
var SET_ID_BITS = 3072;
function restoredMode(recordedMode, storedMode) {
  const confirmedSetId = storedMode === void 0 ? 0 : recordedMode & storedMode & SET_ID_BITS;
  return recordedMode & 4095 & ~SET_ID_BITS | confirmedSetId;
}

// src/verify/backup-check.ts
import { createHash as createHash3 } from "crypto";
function isDamaged(check) {
  return check.status !== "ok" && check.status !== "unverifiable";
}
async function checkBackup(store, sessionId, recorded) {
  let info;
  try {
    info = await store.statBackup(sessionId, recorded.backupFileName);
  } catch (error) {
    if (FhError.hasCode(error, "FH_CORRUPT")) return { status: "refused", reason: error.message };
    throw error;
  }
  if (info === null) return { status: "missing" };
  if (recorded.size !== void 0 && info.size !== recorded.size) return { status: "size", size: info.size, recordedSize: recorded.size };
  if (recorded.sha256 === void 0) return { status: "unverifiable", size: info.size };
  return checkBackupBytes(store, sessionId, recorded.backupFileName, recorded.sha256, info.size);
}
async function checkBackupBytes(store, sessionId, backupFileName2, recordedSha256, size) {
  const hash = createHash3("sha256");
  let length = 0;
  try {
    for await (const chunk of await store.openBackup(sessionId, backupFileName2)) {
      hash.update(chunk);
      length += chunk.length;
    }
  } catch (error) {
    if (FhError.hasCode(error, "FH_NOT_FOUND")) return { status: "missing" };
    if (!FhError.hasCode(error, "FH_CORRUPT")) throw error;
  }
  if (length !== size) return { status: "size", size: length, recordedSize: size };
  const actual = hash.digest("hex");
  const expected = recordedSha256.toLowerCase();
  return actual === expected ? { status: "ok", size } : { status: "hash", sha256: actual, recordedSha256: expected };
}
function describeDamage(check) {
  if (check.status === "missing") return "the backup does not exist in the store";
  if (check.status === "refused") return check.reason;
  if (check.status === "size") return `the backup has ${check.size} bytes, not the ${check.recordedSize} recorded when it was made`;
  return `its bytes do not match the content hash recorded when it was made (sha256 ${check.recordedSha256.slice(0, 12)}\u2026, now ${check.sha256.slice(0, 12)}\u2026)`;
}

// src/rewind/empty-folders.ts
async function removeFoldersLeftEmpty(writer, deletedPaths, createdAfter) {
  const since = createdAfter.getTime();
  const folders = /* @__PURE__ */ new Set();
  for (const path of deletedPaths) {
    for (let folder = splitTrackingPath(path).folder; folder !== "" && !folders.has(folder); folder = splitTrackingPath(folder).folder) folders.add(folder);
  }
  const depth = (path) => path.split("/").length;
  const ordered = [...folders].sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : a > b ? 1 : 0));
  const removed = [];
  for (const folder of ordered) {
    const { folder: parentPath, name } = splitTrackingPath(folder);
    try {
      const parent = await writer.folder(parentPath);
      const stats = await parent.lstat(name);
      if (stats === void 0 || !stats.isDirectory() || !((stats.birthtimeMs ?? 0) > since)) continue;
      await parent.rmdir(name);
      removed.push(folder);
    } catch {
    }
  }
  return removed;
}

// src/rewind/rewind.ts
async function fileHistoryRewind(updateState, messageId, context, options = {}) {
  const result = { messageId, restored: [], deleted: [], skipped: [], failed: [] };
  const state = captureState(updateState);
  if (state === void 0) return result;
  const plans = await planRewind(context, rewindTargets(state, messageId, context, options.paths), options.onProgress === void 0 ? {} : { onProgress: options.onProgress });
  const writes = [];
  for (const plan of plans) {
    if (plan === void 0) continue;
    if (plan.kind === "skip") result.skipped.push({ path: plan.path, reason: plan.reason });
    else if (plan.kind === "fail") result.failed.push({ path: plan.path, error: plan.error });
    else if (plan.kind === "restore" || plan.kind === "delete") writes.push(plan);
  }
  const late = (plan) => plan.kind === "restore" && (plan.createParents || plan.current === "folder");
  refuseIfBackupsMissing(plans, await damagedBackups(context, writes.filter(late)));
  if (writes.length > 0) {
    await options.beforeWrite?.(
      writes.map((plan) => plan.path),
      writes.map(
        (plan) => plan.kind === "delete" ? { path: plan.path, backupFileName: null, mode: null } : { path: plan.path, backupFileName: plan.backup.backupFileName, mode: restoredMode(plan.backup.mode ?? plan.info.mode, plan.info.mode), size: plan.info.size }
      )
    );
  }
  const deletions = writes.filter((plan) => plan.kind === "delete");
  const restores = writes.filter((plan) => plan.kind === "restore");
  const size = (plan) => plan.kind === "restore" ? plan.info.size : 0;
  const progress = startPhase(options.onProgress, "writing", writes.length, restores.reduce((sum, plan) => sum + size(plan), 0));
  const writer = await openProjectWriter(context.fs, context.projectRoot);
  try {
    await removeLeftoverTemporaryFiles(writer, restores.map((plan) => splitTrackingPath(plan.path).folder), options.sessionLocked === true);
    const early = restores.filter((plan) => !late(plan));
    const staged = await stageRestores(context, writer, early);
    const stagedOutcome = new Map(early.map((plan, index) => [plan, staged[index]]));
    const apply = (plan) => {
      const stage = stagedOutcome.get(plan);
      if (stage === void 0) return applyPlan(context, writer, plan);
      if (stage instanceof Error) return Promise.resolve(stage);
      return stage.commit().then(
        () => "restored",
        (error) => error instanceof Error ? error : new Error(String(error))
      );
    };
    for (const phase of [deletions, restores]) {
      const outcomes = await Promise.all(phase.map((plan) => context.limit(() => apply(plan).finally(() => progress.file(size(plan))))));
      phase.forEach((plan, index) => {
        const outcome = outcomes[index];
        if (outcome instanceof Error) result.failed.push({ path: plan.path, error: outcome });
        else if (outcome === "restored") result.restored.push(plan.path);
        else if (outcome === "deleted") result.deleted.push(plan.path);
        else if (typeof outcome === "object") result.skipped.push({ path: plan.path, reason: outcome.skipped });
      });
    }
    const snapshot = findSnapshot(state, messageId);
    if (snapshot !== void 0 && result.deleted.length > 0) await removeFoldersLeftEmpty(writer, result.deleted, new Date(snapshot.timestamp));
  } finally {
    await writer.close();
  }
  result.skipped.sort((a, b) => compare(a.path, b.path));
  result.failed.sort((a, b) => compare(a.path, b.path));
  return result;
}
function fileHistoryCanRestore(state, messageId) {
  return findSnapshot(state, messageId) !== void 0;
}
async function stageRestores(context, writer, plans) {
  const staged = await Promise.all(
    plans.map(
      (plan) => context.limit(async () => {
        try {
          const { folder: relativeFolder, name } = splitTrackingPath(plan.path);
          const folder = await writer.folder(relativeFolder);
          const mode = restoredMode(plan.backup.mode ?? plan.info.mode, plan.info.mode);
          return await folder.stageFile(name, (destination) => restoreChecked(context, plan.path, plan.backup, destination), mode);
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      })
    )
  );
  const refused = plans.filter((_, index) => {
    const outcome = staged[index];
    return outcome instanceof Error && (FhError.hasCode(outcome, "FH_CORRUPT") || FhError.hasCode(outcome, "FH_NOT_FOUND"));
  });
  const damaged = (await damagedBackups(context, refused)).concat(
    refused.filter((plan) => plan.backup.sha256 === void 0).map((plan) => ({ path: plan.path, backupFileName: plan.backup.backupFileName, reason: staged[plans.indexOf(plan)].message }))
  );
  if (damaged.length > 0) {
    await Promise.all(staged.map((outcome) => outcome instanceof Error ? void 0 : outcome.discard()));
    refuseIfBackupsMissing([], damaged);
  }
  return staged;
}
async function damagedBackups(context, writes) {
  const restores = writes.filter((plan) => plan.kind === "restore" && plan.backup.sha256 !== void 0);
  const checks = await Promise.all(
    restores.map((plan) => context.limit(() => checkBackupBytes(context.store, context.sessionId, plan.backup.backupFileName, plan.backup.sha256, plan.info.size)))
  );
  return restores.flatMap((plan, index) => {
    const check = checks[index];
    return isDamaged(check) ? [{ path: plan.path, backupFileName: plan.backup.backupFileName, reason: describeDamage(check) }] : [];
  });
}
function refuseIfBackupsMissing(plans, damaged) {
  const missing = [];
  for (const plan of plans) {
    if (plan?.kind === "missing") missing.push({ path: plan.path, backupFileName: plan.backupFileName, reason: plan.reason });
  }
  missing.push(...damaged);
  if (missing.length === 0) return;
  missing.sort((a, b) => compare(a.path, b.path));
  const list = missing.map((entry) => `${entry.path} (${entry.backupFileName}: ${entry.reason})`).join("; ");
  const count = missing.length === 1 ? "1 backup is" : `${missing.length} backups are`;
  const advice = damaged.length === 0 ? "" : ". Rewind the other files by naming them (the paths option, fh rewind --paths), and run fh verify to see which checkpoints and undo points the damage breaks";
  throw new BackupMissingError(`rewind refused, nothing was changed: ${count} missing or damaged: ${list}${advice}`, missing);
}
async function removeLeftoverTemporaryFiles(writer, folders, sessionLocked) {
  const olderThan = sessionLocked ? void 0 : Date.now() - STALE_TEMPORARY_MS;
  await Promise.all(
    [...new Set(folders)].map(async (relativeFolder) => {
      const folder = await writer.folder(relativeFolder).catch(() => void 0);
      await folder?.removeTemporaryFiles(olderThan);
    })
  );
}
async function applyPlan(context, writer, plan) {
  try {
    const { folder: relativeFolder, name } = splitTrackingPath(plan.path);
    if (plan.kind === "delete") {
      const folder2 = await writer.folder(relativeFolder);
      try {
        await folder2.unlink(name);
        return "deleted";
      } catch (error) {
        if (errnoCode(error) === "ENOENT") return "none";
        throw error;
      }
    }
    const folder = await writer.folder(relativeFolder, { create: plan.createParents });
    if (plan.current === "folder") {
      try {
        await folder.rmdir(name);
      } catch (error) {
        const code = errnoCode(error);
        if (code === "ENOTEMPTY" || code === "EEXIST") return { skipped: "a folder is at this path and is not empty" };
        if (code !== "ENOENT") throw error;
      }
    }
    const mode = restoredMode(plan.backup.mode ?? plan.info.mode, plan.info.mode);
    await folder.replaceFile(name, (destination) => restoreChecked(context, plan.path, plan.backup, destination), mode);
    return "restored";
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
async function restoreChecked(context, path, backup, destination) {
  await context.store.restoreBackup(context.sessionId, backup.backupFileName, destination);
  if (backup.sha256 === void 0) return;
  const digest = await hashWorkspaceFile(context.fs, destination, backup.size);
  if (digest !== backup.sha256) {
    throw new CorruptError(
      `${path}: backup ${backup.backupFileName} does not match the content hash recorded when it was made (sha256 ${backup.sha256.slice(0, 12)}\u2026, now ${digest.slice(0, 12)}\u2026), so the file was left as it is; run fh verify to list damaged backups`
    );
  }
}
function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// src/rewind/diff-stats.ts
import { createHash as createHash4 } from "crypto";
import { diffLines } from "diff";

// src/rewind/backup-content.ts
async function readBackupBytes(context, backupFileName2) {
  const chunks = [];
  let length = 0;
  for await (const chunk of await context.store.openBackup(context.sessionId, backupFileName2)) {
    chunks.push(chunk);
    length += chunk.length;
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

// src/rewind/diff-stats.ts
var DAMAGED_REASON = "its bytes do not match the content hash recorded when it was made; run fh verify";
var BINARY_SNIFF_BYTES = 8 * 1024;
async function fileHistoryGetDiffStats(state, messageId, context, options = {}) {
  const plans = await planRewind(context, rewindTargets(state, messageId, context, options.paths), {
    deferContent: true,
    ...options.onPhaseProgress === void 0 ? {} : { onProgress: options.onPhaseProgress }
  });
  const stats = { filesChanged: [], insertions: 0, deletions: 0, files: [], skipped: [], failed: [], missing: [] };
  const missing = (path, backupFileName2, reason) => {
    stats.failed?.push({ path, reason: `backup ${backupFileName2} ${/does not exist/.test(reason) ? "missing" : "damaged"}: ${reason}` });
    stats.missing?.push({ path, backupFileName: backupFileName2, reason });
  };
  const deadline = Date.now() + DIFF_BUDGET_MS;
  const timeoutMs = () => Math.max(MIN_DIFF_TIMEOUT_MS, Math.min(DIFF_TIMEOUT_MS, deadline - Date.now()));
  const total = plans.length;
  let done = plans.filter((plan) => plan?.kind !== "restore" && plan?.kind !== "delete").length;
  options.onProgress?.(done, total);
  const counting = startPhase(options.onPhaseProgress, "counting", total - done);
  const counted = await Promise.all(
    plans.map(
      (plan) => plan?.kind === "restore" || plan?.kind === "delete" ? context.limit(
        () => countPlan(context, plan, timeoutMs).catch((error) => error instanceof Error ? error.message : String(error)).finally(() => {
          options.onProgress?.(done += 1, total);
          counting.file((plan.kind === "restore" ? plan.info.size : 0) + Number(plan.currentStats?.size ?? 0));
        })
      ) : void 0
    )
  );
  plans.forEach((plan, index) => {
    if (plan === void 0) return;
    if (plan.kind === "skip") stats.skipped?.push({ path: plan.path, reason: plan.reason });
    else if (plan.kind === "fail") stats.failed?.push({ path: plan.path, reason: plan.error.message });
    else if (plan.kind === "missing") missing(plan.path, plan.backupFileName, plan.reason);
    const file = counted[index];
    if (file === void 0) return;
    if (typeof file === "string") {
      stats.failed?.push({ path: plan.path, reason: file });
      return;
    }
    if ("same" in file) return;
    if ("missingBackup" in file) {
      missing(plan.path, file.missingBackup, file.reason);
      return;
    }
    stats.files.push(file);
    stats.filesChanged.push(file.path);
    stats.insertions += file.insertions;
    stats.deletions += file.deletions;
  });
  return stats;
}
async function fileHistoryHasAnyChanges(state, messageId, context) {
  const isChange = (plan) => plan.kind === "restore" || plan.kind === "delete" || plan.kind === "missing";
  const plans = await planRewind(context, rewindTargets(state, messageId, context), { stopWhen: isChange });
  return plans.some((plan) => plan !== void 0 && isChange(plan));
}
async function countPlan(context, plan, timeoutMs) {
  const cap = context.diffSizeCapBytes;
  const stat = {
    path: plan.path,
    status: plan.kind === "delete" ? "created" : plan.current === "missing" || plan.current === "folder" ? "deleted" : "modified",
    insertions: 0,
    deletions: 0,
    binary: false
  };
  let currentBytes = null;
  let backupBytes = null;
  if (plan.kind === "restore") {
    const size = plan.info.size;
    const currentSize = plan.currentStats?.size;
    if (size > cap || currentSize !== void 0 && Number(currentSize) > cap) return { ...stat, tooLarge: true };
    try {
      backupBytes = await readBackupBytes(context, plan.backup.backupFileName);
    } catch (error) {
      if (FhError.hasCode(error, "FH_NOT_FOUND")) return { missingBackup: plan.backup.backupFileName, reason: "the backup does not exist in the store" };
      if (FhError.hasCode(error, "FH_CORRUPT")) return { missingBackup: plan.backup.backupFileName, reason: DAMAGED_REASON };
      throw error;
    }
    const recorded = plan.backup.sha256;
    if (recorded !== void 0) {
      const digest = createHash4("sha256").update(backupBytes).digest("hex");
      if (digest !== recorded.toLowerCase()) return { missingBackup: plan.backup.backupFileName, reason: DAMAGED_REASON };
    }
    if (plan.currentStats !== void 0) currentBytes = await context.fs.readFile(plan.absolutePath);
  } else {
    if (plan.current === "symlink") return stat;
    if (Number(plan.currentStats.size) > cap) return { ...stat, tooLarge: true };
    currentBytes = await context.fs.readFile(plan.absolutePath);
  }
  if (currentBytes !== null && backupBytes !== null && Buffer.compare(currentBytes, backupBytes) === 0) {
    if (plan.kind === "restore" && plan.contentUnchecked === true) return { same: true };
    return { ...stat, modeOnly: true };
  }
  const lines = countLineChanges(currentBytes, backupBytes, timeoutMs());
  return lines === void 0 ? { ...stat, tooManyChanges: true } : { ...stat, ...lines };
}
var DIFF_TIMEOUT_MS = 1e3;
var DIFF_BUDGET_MS = 3e3;
var MIN_DIFF_TIMEOUT_MS = 50;
function countLineChanges(current, target, timeoutMs = DIFF_TIMEOUT_MS) {
  if (hasNulByte(current) || hasNulByte(target)) return { insertions: 0, deletions: 0, binary: true };
  const decoder = new TextDecoder("utf-8");
  const changes = diffLines(current === null ? "" : decoder.decode(current), target === null ? "" : decoder.decode(target), { timeout: timeoutMs });
  if (changes === void 0) return void 0;
  let insertions = 0;
  let deletions = 0;
  for (const change of changes) {
    if (change.added) insertions += change.count;
    else if (change.removed) deletions += change.count;
  }
  return { insertions, deletions, binary: false };
}
function hasNulByte(bytes) {
  return bytes !== null && bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

// src/snapshot/snapshot-events.ts
function changedTrackingPaths(previous, next) {
  const changed = [];
  for (const [path, backup] of Object.entries(next.trackedFileBackups)) {
    const before = previous?.trackedFileBackups[path];
    if (backup.error !== void 0 || before?.error !== void 0) continue;
    if (before === void 0 ? backup.backupFileName !== null : before.backupFileName !== backup.backupFileName) changed.push(path);
  }
  return changed.sort();
}
async function snapshotFilesChangedEvent(context, previous, next) {
  const paths = changedTrackingPaths(previous, next);
  if (paths.length === 0) return void 0;
  const content = (backup) => backup === void 0 || backup.backupFileName === null ? Promise.resolve(null) : readBackupBytes(context, backup.backupFileName);
  const files = await Promise.all(
    paths.map(
      (path) => context.limit(async () => ({
        path,
        oldContent: await content(previous?.trackedFileBackups[path]),
        newContent: await content(next.trackedFileBackups[path])
      }))
    )
  );
  return { messageId: next.messageId, previousMessageId: previous?.messageId ?? null, files };
}

// src/state/record-queue.ts
var RecordQueue = class {
  /**
   * `coalesce` maps a batch to the records actually written (same order, superseded ones left
   * out); the promises of dropped records resolve with the batch. Default: write all.
   */
  constructor(log, coalesce = (batch) => batch) {
    this.log = log;
    this.coalesce = coalesce;
  }
  log;
  coalesce;
  pending = [];
  draining;
  /**
   * Queue `record` behind every record queued before it. Resolves once it is durable in the log;
   * rejects with the log's error (`PermissionError`, `UnavailableError`) if its batch failed.
   */
  append(record) {
    const written = new Promise((resolve6, reject) => {
      this.pending.push({ record, resolve: resolve6, reject });
    });
    this.draining ??= this.drain();
    return written;
  }
  /** Resolves when every record queued so far has been written (or has failed). Never rejects. */
  async flush() {
    while (this.draining !== void 0) await this.draining;
  }
  async drain() {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.log.append(this.coalesce(batch.map((entry) => entry.record)));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.draining = void 0;
  }
};
function coalesceSnapshotUpdates(batch) {
  const kept = [];
  const updated = /* @__PURE__ */ new Set();
  for (let index = batch.length - 1; index >= 0; index -= 1) {
    const record = batch[index];
    if (record.type === "file-history-snapshot") {
      if (record.isSnapshotUpdate === true) {
        if (updated.has(record.messageId)) continue;
        updated.add(record.messageId);
      } else {
        updated.delete(record.messageId);
      }
    }
    kept.push(record);
  }
  return kept.reverse();
}

// src/state/log-ends.ts
var LOG_HEAD_BYTES = 64 * 1024;
var LOG_TAIL_BYTES_STEPS = [1024 * 1024, 16 * 1024 * 1024];
async function readLogEnds(log) {
  if (log.readEnds === void 0) return void 0;
  let ends;
  for (const tailBytes of LOG_TAIL_BYTES_STEPS) {
    ends = await log.readEnds(LOG_HEAD_BYTES, tailBytes);
    if (ends.whole || tailAnchor(ends.tail) !== void 0) return ends;
  }
  return ends;
}

// src/state/tail-rebuild.ts
var TAIL_REBUILD_BYTES_STEPS = [1024 * 1024, 4 * 1024 * 1024, 16 * 1024 * 1024, 64 * 1024 * 1024];
var TAIL_REBUILD_MAX_BYTES = 64 * 1024 * 1024;
async function rebuildFromTail(log, options) {
  if (log.readTail === void 0) return void 0;
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  const steps = options.tailBytesSteps ?? TAIL_REBUILD_BYTES_STEPS;
  const headBytes = options.headBytes ?? LOG_HEAD_BYTES;
  for (let step = 0, tailBytes = steps[0]; tailBytes !== void 0 && tailBytes <= TAIL_REBUILD_MAX_BYTES; step += 1, tailBytes = steps[step]) {
    const ends = await log.readTail(headBytes, tailBytes);
    const bytes = Buffer.from(ends.tail.buffer, ends.tail.byteOffset, ends.tail.byteLength);
    if (ends.whole) return rebuildStateFromBytes(bytes, options);
    const lines = splitTail(bytes);
    const { start, snapshots } = startLine(lines, maxSnapshots);
    if (start === "unsupported") return void 0;
    if (start === void 0) {
      if (snapshots === 0 && ends.size !== void 0 && ends.size <= TAIL_REBUILD_MAX_BYTES) {
        const whole = await log.readTail(headBytes, ends.size);
        if (whole.whole) return rebuildStateFromBytes(Buffer.from(whole.tail.buffer, whole.tail.byteOffset, whole.tail.byteLength), options);
      }
      continue;
    }
    const sessions = ends.head.filter((record) => record.type === FH_SESSION_RECORD_TYPE);
    if (sessions.length === 0) return void 0;
    return replayFrom(lines, start, sessions, options, maxSnapshots);
  }
  return void 0;
}
function splitTail(bytes) {
  const lines = [];
  const first = bytes.indexOf(10) + 1;
  if (first === 0) return lines;
  for (const line of byteLines(bytes.subarray(first))) lines.push(line);
  return lines;
}
function mayMatter2(text) {
  return text.includes('"file-history-') || text.includes('"fh-snapshot"') || text.includes('"fh-session"');
}
function startLine(lines, maxSnapshots) {
  const fulls = [];
  const nodesAt = [];
  let nodes = 0;
  let snapshots = 0;
  let lastSequence;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    const head = sniffByteLine(line);
    if (head !== void 0) {
      if (head.kind !== "attach") snapshots += 1;
      if (head.kind === "full") {
        fulls.push(index);
        nodesAt.push(nodes);
        nodes += 1;
        lastSequence = head.sequence;
      } else if (head.kind === "diff" && lastSequence !== void 0 && head.base === lastSequence) {
        nodes += 1;
        lastSequence = head.sequence;
      }
      continue;
    }
    if (fulls.length === 0 || isDeltaByteLine(line)) continue;
    const text = lineText(line);
    if (!mayMatter2(text)) continue;
    const parsed = parseJsonlLine(text, line.terminated);
    if (parsed === void 0 || "reason" in parsed) continue;
    const type = parsed.record.type;
    if (type === "file-history-snapshot" || type === FH_SNAPSHOT_RECORD_TYPE) return { start: "unsupported", snapshots };
  }
  for (let at = fulls.length - 1; at >= 0; at -= 1) {
    if (nodes - nodesAt[at] >= maxSnapshots) return { start: fulls[at], snapshots };
  }
  return { start: void 0, snapshots };
}
function replayFrom(lines, start, sessions, options, maxSnapshots) {
  const skippedLines = /* @__PURE__ */ new Map();
  const rebuilder = new StateRebuilder({ ...options, maxSnapshots });
  for (const session of sessions) rebuilder.push(session);
  parseLines(lines.slice(start), (parsed) => {
    if (parsed === void 0) return;
    if ("reason" in parsed) {
      const seen = skippedLines.get(parsed.reason);
      if (seen === void 0) skippedLines.set(parsed.reason, { count: 1, firstLine: 0 });
      else seen.count += 1;
      return;
    }
    rebuilder.push(parsed.record, true);
  });
  return { ...rebuilder.finish(), sessions: rebuilder.sessions, hasRecords: true, skippedLines };
}

// src/command/begin-command.ts
import { randomUUID as randomUUID4 } from "crypto";

// src/command/command-journal.ts
var COMMAND_WINDOW_RECORD_VERSION = 1;
var MemoryCommandJournal = class {
  windows = /* @__PURE__ */ new Map();
  cache = {};
  async saveWindow(record) {
    this.windows.set(record.windowId, structuredClone(record));
  }
  async loadWindow(windowId) {
    const record = this.windows.get(windowId);
    return record === void 0 ? void 0 : structuredClone(record);
  }
  async listWindows() {
    return [...this.windows.values()].map((record) => structuredClone(record));
  }
  async removeWindow(windowId) {
    this.windows.delete(windowId);
  }
  async loadPreImages() {
    return structuredClone(this.cache);
  }
  async savePreImages(cache) {
    this.cache = structuredClone(cache);
  }
};

// src/command/command-limits.ts
var DEFAULT_COMMAND_MAX_FILE_BYTES = 32 * 1024 * 1024;
var DEFAULT_COMMAND_MAX_COMMAND_BYTES = 256 * 1024 * 1024;
var DEFAULT_COMMAND_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
function resolveCommandLimits(limits = {}) {
  const pick = (name, fallback) => {
    const value = limits[name];
    if (value === void 0) return fallback;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new InvalidArgumentError(`command limit ${name} must be a number of bytes >= 0, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  return {
    maxFileBytes: pick("maxFileBytes", DEFAULT_COMMAND_MAX_FILE_BYTES),
    maxCommandBytes: pick("maxCommandBytes", DEFAULT_COMMAND_MAX_COMMAND_BYTES),
    maxTotalBytes: pick("maxTotalBytes", DEFAULT_COMMAND_MAX_TOTAL_BYTES)
  };
}

// src/command/facts.ts
function factsOf(stats) {
  const type = stats.isSymbolicLink() ? "symlink" : stats.isFile() ? "file" : stats.isDirectory() ? "folder" : "other";
  return { type, size: stats.size, mode: stats.mode, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: Number(stats.ino) };
}
var MISSING_FACTS = Object.freeze({ type: "missing", size: 0, mode: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 });
function sameFacts(a, b) {
  return a.type === b.type && a.size === b.size && a.mode === b.mode && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}
function permissionBits(mode) {
  return mode & 4095;
}

// src/command/begin-command.ts
var MAX_TAKEN_NAMES_SKIPPED2 = 16;
var WINDOW_ID_PATTERN = /^[A-Za-z0-9._-]{1,200}$/;
async function beginCommand(updateState, context, options) {
  const limits = resolveCommandLimits(options.limits);
  const windowId = options.windowId ?? randomUUID4();
  if (!WINDOW_ID_PATTERN.test(windowId) || windowId === "." || windowId === "..") {
    throw new InvalidArgumentError(`command window id ${JSON.stringify(windowId)} is not a single path segment of letters, digits, '.', '_' or '-'`);
  }
  const state = captureState(updateState);
  const latest = state?.snapshots.at(-1);
  if (state === void 0 || latest === void 0) {
    throw new NotFoundError(`session "${context.sessionId}" has no snapshot yet, so a command cannot be captured: make the turn's snapshot (makeSnapshot) first`);
  }
  if (await options.journal.loadWindow(windowId) !== void 0) {
    throw new InvalidArgumentError(
      `command window ${windowId} is already open in session ${context.sessionId}: a command with this id was started and has not ended yet, so nothing was changed (the open window still captures it). Give each command its own id`
    );
  }
  const startedAt = /* @__PURE__ */ new Date();
  const listing = await options.probe.begin(context.projectRoot, windowId);
  try {
    const [cache, openWindows] = await Promise.all([options.journal.loadPreImages(), options.journal.listWindows()]);
    const entries = {};
    const notCaptured = [];
    const toCopy = [];
    let plannedBytes = 0;
    let reused = 0;
    let tracked = 0;
    for (const [path, facts] of listing.own) {
      if (context.store.containsPath(toAbsolutePath(context.projectRoot, path))) continue;
      if (latest.trackedFileBackups[path] !== void 0) {
        entries[path] = { facts, preImage: { kind: "tracked" } };
        tracked += 1;
        continue;
      }
      if (facts.type === "missing") {
        entries[path] = { facts, preImage: { kind: "backup", backup: { backupFileName: null, version: nextVersion(state, path), backupTime: startedAt } } };
        continue;
      }
      const none = (reason) => {
        entries[path] = { facts, preImage: { kind: "none", reason } };
        notCaptured.push({ path, reason });
      };
      if (facts.type !== "file") {
        none(facts.type === "symlink" ? "a symbolic link (fh backs up regular files only)" : "not a regular file");
        continue;
      }
      if (facts.size > limits.maxFileBytes) {
        none(`${facts.size} bytes, over the per-file cap of ${limits.maxFileBytes} bytes (maxFileBytes)`);
        continue;
      }
      const reusable = reusableBackup(state, cache, path, facts, context.timestampGranularityMs);
      if (reusable !== void 0) {
        entries[path] = { facts, preImage: { kind: "backup", backup: reusable } };
        reused += 1;
        continue;
      }
      if (plannedBytes + facts.size > limits.maxCommandBytes) {
        none(`not backed up: the command's copies would pass the per-command cap of ${limits.maxCommandBytes} bytes (maxCommandBytes)`);
        continue;
      }
      plannedBytes += facts.size;
      toCopy.push({ path, facts });
    }
    const replaced = [];
    let copiedBytes = 0;
    const metadata = createMetadataReader(context.fs);
    const progress = startPhase(options.onProgress, "backing-up", toCopy.length, plannedBytes);
    await Promise.all(
      toCopy.map(
        ({ path, facts }) => context.limit(async () => {
          const version = Math.max(nextVersion(state, path), (cache[path]?.backup.version ?? 0) + 1);
          const preImage = await copyPreImage(context, metadata, path, facts, version);
          progress.file(facts.size);
          entries[path] = { facts, preImage };
          if (preImage.kind === "none") {
            notCaptured.push({ path, reason: preImage.reason });
            return;
          }
          copiedBytes += preImage.backup.size ?? 0;
          const previous = cache[path];
          if (previous !== void 0 && !previous.attached) replaced.push(previous.backup);
          cache[path] = { backup: preImage.backup, facts, attached: false };
        })
      )
    );
    const copied = toCopy.length - toCopy.filter(({ path }) => entries[path]?.preImage.kind === "none").length;
    const inUse = namesInUse(openWindows, entries);
    const evicted = evictOverTotal(cache, limits.maxTotalBytes, inUse);
    await deleteUnused(context, [...replaced, ...evicted], inUse);
    if (copied > 0 || replaced.length > 0 || evicted.length > 0) await options.journal.savePreImages(cache);
    const record = {
      version: COMMAND_WINDOW_RECORD_VERSION,
      windowId,
      sessionId: context.sessionId,
      ...options.command === void 0 ? {} : { command: options.command },
      startedAt: startedAt.toISOString(),
      kind: listing.kind,
      probeState: listing.state,
      entries,
      ignored: Object.fromEntries(listing.ignored),
      notCaptured
    };
    await options.journal.saveWindow(record);
    notCaptured.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    return { windowId, startedAt, kind: listing.kind, files: Object.keys(entries).length, copied, copiedBytes, reused, tracked, notCaptured, ignored: listing.ignored.size };
  } catch (error) {
    await options.probe.release(context.projectRoot, windowId, listing.state).catch(() => void 0);
    throw error;
  }
}
function reusableBackup(state, cache, path, facts, granularityMs) {
  const settled = (backup) => Math.max(facts.mtimeMs, facts.ctimeMs) < new Date(backup.backupTime).getTime() - granularityMs;
  const cached = cache[path];
  if (cached !== void 0 && sameFacts(cached.facts, facts) && settled(cached.backup)) return cached.backup;
  const newest = latestBackup(state, path);
  if (newest !== void 0 && newest.backupFileName !== null && newest.error === void 0 && newest.size === facts.size && newest.mode === permissionBits(facts.mode) && settled(newest)) {
    return newest;
  }
  return void 0;
}
async function copyPreImage(context, metadata, path, facts, version) {
  const absolutePath = toAbsolutePath(context.projectRoot, path);
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    const backupTime = /* @__PURE__ */ new Date();
    try {
      const info = await context.store.putBackup(context.sessionId, name, absolutePath);
      let after;
      try {
        after = factsOf(await metadata.lstat(absolutePath));
      } catch {
        after = void 0;
      }
      if (after === void 0 || !sameFacts(after, facts)) {
        await context.store.deleteBackup(context.sessionId, name).catch(() => void 0);
        return { kind: "none", reason: "it changed while fh was backing it up, before the command ran" };
      }
      return { kind: "backup", backup: { backupFileName: name, version: version + skipped, backupTime, size: info.size, mode: info.mode, ...info.sha256 === void 0 ? {} : { sha256: info.sha256 } } };
    } catch (error) {
      if (FhError.hasCode(error, "FH_CONFLICT") && skipped < MAX_TAKEN_NAMES_SKIPPED2) continue;
      if (FhError.hasCode(error, "FH_NOT_FOUND") || errnoCode(error) === "ENOENT") return { kind: "none", reason: "it disappeared before fh could back it up" };
      return { kind: "none", reason: `the backup failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}
function namesInUse(openWindows, entries) {
  const names = /* @__PURE__ */ new Set();
  const add = (entry) => {
    if (entry.preImage.kind === "backup" && entry.preImage.backup.backupFileName !== null) names.add(entry.preImage.backup.backupFileName);
  };
  for (const window of openWindows) for (const entry of Object.values(window.entries)) add(entry);
  for (const entry of Object.values(entries)) add(entry);
  return names;
}
function evictOverTotal(cache, maxTotalBytes, inUse) {
  const unattached = Object.entries(cache).filter(([, entry]) => !entry.attached);
  let total = unattached.reduce((sum, [, entry]) => sum + (entry.backup.size ?? 0), 0);
  if (total <= maxTotalBytes) return [];
  unattached.sort(([, a], [, b]) => new Date(a.backup.backupTime).getTime() - new Date(b.backup.backupTime).getTime());
  const dropped = [];
  for (const [path, entry] of unattached) {
    if (total <= maxTotalBytes) break;
    if (entry.backup.backupFileName !== null && inUse.has(entry.backup.backupFileName)) continue;
    delete cache[path];
    total -= entry.backup.size ?? 0;
    dropped.push(entry.backup);
  }
  return dropped;
}
async function deleteUnused(context, backups, inUse) {
  await Promise.all(
    backups.map(
      (backup) => backup.backupFileName === null || inUse.has(backup.backupFileName) ? void 0 : context.store.deleteBackup(context.sessionId, backup.backupFileName).catch((error) => {
        context.onWarning?.(`command window: unused pre-image ${backup.backupFileName} could not be deleted (${error instanceof Error ? error.message : String(error)})`);
      })
    )
  );
}

// src/command/command-probe.ts
var SCAN_LIMIT_CODE = "FH_SCAN_LIMIT";

// src/command/end-command.ts
var IGNORED_NAMES_SHOWN = 10;
async function endCommand(updateState, context, windowId, options) {
  const limits = resolveCommandLimits(options.limits);
  const record = await options.journal.loadWindow(windowId);
  if (record === void 0) {
    throw new NotFoundError(`no open command window ${JSON.stringify(windowId)} in session ${context.sessionId}: it was never begun or has already ended`);
  }
  const empty = { windowId, messageId: void 0, captured: [], notCaptured: [], ignored: { count: 0, paths: [] }, copiedBytes: 0 };
  const earlier = (await options.journal.listWindows()).filter((window) => window.windowId !== windowId && isEarlier(window, record)).sort(compareWindows)[0];
  if (earlier !== void 0) {
    await options.journal.removeWindow(windowId);
    await options.probe.release(context.projectRoot, windowId, record.probeState).catch(() => void 0);
    return { ...empty, coveredBy: earlier.windowId };
  }
  const state = captureState(updateState);
  const latest = state?.snapshots.at(-1);
  if (state === void 0 || latest === void 0) {
    throw new NotFoundError(`session "${context.sessionId}" has no snapshot, so command window ${windowId} has no checkpoint to attach to`);
  }
  let probeEnd;
  try {
    probeEnd = await options.probe.end(context.projectRoot, windowId, record.probeState);
  } catch (error) {
    if (error?.code !== SCAN_LIMIT_CODE) throw error;
    await options.journal.removeWindow(windowId);
    await options.probe.release(context.projectRoot, windowId, record.probeState).catch(() => void 0);
    return { ...empty, messageId: latest.messageId, scanLimit: error instanceof Error ? error.message : String(error) };
  }
  const changes = await findChanges(context, record, probeEnd, options.onProgress);
  const captured = [];
  const notCaptured = [];
  const attachments = [];
  const blobs = [];
  const cache = await options.journal.loadPreImages();
  const startedAt = new Date(record.startedAt);
  const versionOf = (path) => Math.max(nextVersion(state, path), (cache[path]?.backup.version ?? 0) + 1);
  for (const change of changes) {
    const { path } = change;
    const preImage = change.preImage;
    if (latest.trackedFileBackups[path] !== void 0 || preImage.kind === "tracked") {
      captured.push({ path, change: change.change, source: "tracked" });
    } else if (preImage.kind === "none") {
      notCaptured.push({ path, change: change.change, reason: preImage.reason });
    } else if (preImage.kind === "backup") {
      attachments.push({ path, change: change.change, source: preImage.backup.backupFileName === null ? "created" : "backup", backup: preImage.backup, made: false });
    } else if (preImage.kind === "created") {
      attachments.push({ path, change: change.change, source: "created", backup: { backupFileName: null, version: versionOf(path), backupTime: startedAt }, made: false });
    } else if (preImage.entry.gitMode === 40960) {
      notCaptured.push({ path, change: change.change, reason: "a symbolic link in git (fh backs up regular files only)" });
    } else if (preImage.entry.gitMode === 57344) {
      notCaptured.push({ path, change: change.change, reason: "a git submodule (its files are another repository)" });
    } else {
      const executable = (preImage.entry.gitMode & 73) !== 0;
      const now = preImage.now;
      const mode = preImage.entry.mode ?? (now !== void 0 && now.type === "file" && (now.mode & 64) !== 0 === executable ? permissionBits(now.mode) : options.probe.checkoutMode(preImage.entry.gitMode));
      blobs.push({ change, request: { blobId: preImage.entry.blobId, mode }, entry: preImage.entry });
    }
  }
  let copiedBytes = 0;
  if (blobs.length > 0) {
    const written = await options.probe.materializeBlobs(context.projectRoot, windowId, record.probeState, blobs.map((blob) => blob.request), limits.maxFileBytes);
    const progress = startPhase(options.onProgress, "backing-up", blobs.length);
    await Promise.all(
      blobs.map(
        ({ change }, index) => context.limit(async () => {
          const blob = written[index];
          if (blob === void 0) {
            notCaptured.push({ path: change.path, change: change.change, reason: `over the per-file cap of ${limits.maxFileBytes} bytes (maxFileBytes)` });
            return;
          }
          const backup = await putFromBlob(context, change.path, blob.path, versionOf(change.path), startedAt);
          progress.file(backup.size ?? 0);
          copiedBytes += backup.size ?? 0;
          attachments.push({ path: change.path, change: change.change, source: "git", backup, made: true });
        })
      )
    );
  }
  await verifyReused(context, attachments, notCaptured);
  const attribution = attributionFor(options.agent ?? MAIN_AGENT, startedAt);
  const attributed = captured.map((item) => attachBackup(updateState, context, item.path, void 0, attribution));
  const outcomes = await Promise.all(attachments.map((item) => attachBackup(updateState, context, item.path, item.backup, attribution)));
  await Promise.all([...outcomes, ...await Promise.all(attributed)].map((outcome) => outcome.recorded));
  let cacheChanged = false;
  await Promise.all(
    attachments.map(async (item, index) => {
      const outcome = outcomes[index];
      if (outcome?.attached === true) {
        captured.push({ path: item.path, change: item.change, source: item.source });
        cacheChanged = markAttached(cache, item.path, item.backup) || cacheChanged;
        return;
      }
      captured.push({ path: item.path, change: item.change, source: "tracked" });
      if (item.made && item.backup.backupFileName !== null) await context.store.deleteBackup(context.sessionId, item.backup.backupFileName).catch(() => void 0);
    })
  );
  if (cacheChanged) await options.journal.savePreImages(cache);
  await options.journal.removeWindow(windowId);
  await options.probe.release(context.projectRoot, windowId, record.probeState).catch(() => void 0);
  const byPath = (a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  return { windowId, messageId: latest.messageId, captured: captured.sort(byPath), notCaptured: notCaptured.sort(byPath), ignored: ignoredChanges(record, probeEnd), copiedBytes };
}
function isEarlier(a, b) {
  return compareWindows(a, b) < 0;
}
function compareWindows(a, b) {
  const at = Date.parse(a.startedAt);
  const bt = Date.parse(b.startedAt);
  if (at !== bt) return at - bt;
  return a.windowId < b.windowId ? -1 : a.windowId > b.windowId ? 1 : 0;
}
async function findChanges(context, record, probeEnd, onProgress) {
  const metadata = createMetadataReader(context.fs);
  const factsNow = async (path) => {
    const listed = probeEnd.own.get(path);
    if (listed !== void 0) return listed;
    try {
      return factsOf(await metadata.lstat(toAbsolutePath(context.projectRoot, path)));
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOENT" || code === "ENOTDIR") return void 0;
      throw error;
    }
  };
  const paths = /* @__PURE__ */ new Set([...Object.keys(record.entries), ...probeEnd.own.keys(), ...probeEnd.indexChanged.keys()]);
  const changes = [];
  const progress = startPhase(onProgress, "checking", paths.size);
  await Promise.all(
    [...paths].map(
      (path) => context.metadataLimit(async () => {
        if (context.store.containsPath(toAbsolutePath(context.projectRoot, path))) return;
        const before = record.entries[path];
        if (before !== void 0) {
          const now2 = await factsNow(path);
          if (before.facts.type === "missing") {
            if (now2 !== void 0 && now2.type !== "folder") changes.push({ path, change: "created", preImage: before.preImage });
            return;
          }
          if (now2 !== void 0 && now2.type === "folder" && before.facts.type !== "folder") {
            changes.push({ path, change: "deleted", preImage: before.preImage });
            return;
          }
          if (now2 !== void 0 && sameFacts(now2, before.facts)) return;
          changes.push({ path, change: changeKind(before.facts, now2), preImage: before.preImage });
          return;
        }
        const entry = probeEnd.indexChanged.get(path);
        if (entry !== void 0) {
          const now2 = await factsNow(path);
          const present = now2 !== void 0 && now2.type !== "folder";
          const modeOnly = present && now2.type === "file" && entry.gitMode !== 40960 && (entry.contentChanged === void 0 ? (now2.mode & 64) !== 0 !== ((entry.gitMode & 64) !== 0) : !entry.contentChanged);
          changes.push({ path, change: !present ? "deleted" : modeOnly ? "mode" : "modified", preImage: { kind: "git", entry, now: present ? now2 : void 0 } });
          return;
        }
        const now = probeEnd.own.get(path);
        if (now === void 0) return;
        const ignoredAtBegin = ignoredBy(record, path);
        if (ignoredAtBegin !== void 0) {
          changes.push({ path, change: "created", preImage: { kind: "none", reason: `it was ignored (${ignoredAtBegin}) when the command began, so fh kept no before-bytes` } });
          return;
        }
        changes.push({ path, change: "created", preImage: { kind: "created" } });
      }).finally(() => progress.file())
    )
  );
  return changes;
}
function changeKind(before, now) {
  if (now === void 0) return "deleted";
  if (now.type === before.type && now.size === before.size && now.mtimeMs === before.mtimeMs && now.ino === before.ino && permissionBits(now.mode) !== permissionBits(before.mode)) return "mode";
  return "modified";
}
function ignoredBy(record, path) {
  if (record.ignored[path] !== void 0) return path;
  let slash = path.indexOf("/");
  while (slash !== -1) {
    const folder = `${path.slice(0, slash)}/`;
    if (record.ignored[folder] !== void 0) return folder;
    slash = path.indexOf("/", slash + 1);
  }
  return void 0;
}
function ignoredChanges(record, probeEnd) {
  const touched = /* @__PURE__ */ new Set();
  for (const [path, facts] of Object.entries(record.ignored)) {
    const now = probeEnd.ignored.get(path);
    if (now === void 0 || !sameFacts(now, facts)) touched.add(path);
  }
  for (const path of probeEnd.ignored.keys()) if (record.ignored[path] === void 0) touched.add(path);
  const paths = [...touched].sort();
  return { count: paths.length, paths: paths.slice(0, IGNORED_NAMES_SHOWN) };
}
async function putFromBlob(context, trackingPath, blobPath, version, backupTime) {
  const absolutePath = toAbsolutePath(context.projectRoot, trackingPath);
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    try {
      const info = await context.store.putBackup(context.sessionId, name, blobPath);
      return { backupFileName: name, version: version + skipped, backupTime, size: info.size, mode: info.mode, ...info.sha256 === void 0 ? {} : { sha256: info.sha256 } };
    } catch (error) {
      if (!FhError.hasCode(error, "FH_CONFLICT") || skipped >= 16) throw error;
    }
  }
}
async function verifyReused(context, attachments, notCaptured) {
  const checks = await Promise.all(
    attachments.map(
      (item) => item.source !== "backup" || item.backup.backupFileName === null ? true : context.limit(async () => await context.store.statBackup(context.sessionId, item.backup.backupFileName) !== null)
    )
  );
  for (let index = checks.length - 1; index >= 0; index -= 1) {
    if (checks[index] === true) continue;
    const [item] = attachments.splice(index, 1);
    if (item !== void 0) notCaptured.push({ path: item.path, change: item.change, reason: `its backup ${item.backup.backupFileName} is no longer in the store` });
  }
}
function markAttached(cache, path, backup) {
  const entry = cache[path];
  if (entry === void 0 || entry.attached || entry.backup.backupFileName !== backup.backupFileName) return false;
  entry.attached = true;
  return true;
}
async function endOpenCommands(updateState, context, options) {
  const before = options.startedBefore?.getTime() ?? Number.POSITIVE_INFINITY;
  const open = (await options.journal.listWindows()).filter((window) => Date.parse(window.startedAt) < before).sort(compareWindows).reverse();
  const captures = [];
  for (const window of open) captures.push(await endCommand(updateState, context, window.windowId, options));
  return captures;
}

// src/session/undo.ts
import { createHash as createHash5, randomUUID as randomUUID5 } from "crypto";
import { isAbsolute as isAbsolute4, relative as relative4, resolve as resolve3, sep as sep4 } from "path";
import pLimit3 from "p-limit";

// src/session/timeline.ts
function buildTimeline(points) {
  const steps = [];
  let cursor = 0;
  for (const point of points) {
    if (point.status !== "done") continue;
    if (point.operation === "rewind" || point.operation === "undo-to") {
      steps.splice(cursor, steps.length - cursor, point.undoId);
      cursor = steps.length;
    } else if (point.operation === "undo" && cursor > 0 && steps[cursor - 1] === point.target) {
      cursor -= 1;
    } else if (point.operation === "redo" && steps[cursor] === point.target) {
      cursor += 1;
    }
  }
  return { points: [...points], steps, cursor, pending: points.filter((point) => point.status === "pending") };
}
function findPoint(timeline, id, sessionId) {
  const exact = timeline.points.find((point) => point.undoId === id);
  if (exact !== void 0) return exact;
  const matches = id.length >= 4 ? timeline.points.filter((point) => point.undoId.startsWith(id)) : [];
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    throw new InvalidArgumentError(`point id ${JSON.stringify(id)} of session ${sessionId} is ambiguous: ${matches.map((point) => point.undoId).join(", ")}; give more of it`);
  }
  const short = id.length < 4 ? " (a prefix needs at least 4 characters)" : "";
  throw new NotFoundError(`session ${sessionId} has no timeline point ${JSON.stringify(id)}${short}; fh undo --list shows them`);
}
function stateBefore(timeline, pointId) {
  const index = timeline.points.findIndex((point) => point.undoId === pointId);
  if (index < 0) throw new NotFoundError(`no timeline point ${pointId}`);
  const state = /* @__PURE__ */ new Map();
  for (const point of timeline.points.slice(index)) {
    if (point.status === "abandoned") continue;
    for (const entry of point.entries) if (!state.has(entry.path)) state.set(entry.path, entry);
  }
  return new Map([...state.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}
function undoStep(timeline) {
  const id = timeline.steps[timeline.cursor - 1];
  return id === void 0 ? void 0 : timeline.points.find((point) => point.undoId === id);
}
function redoStep(timeline) {
  const id = timeline.steps[timeline.cursor];
  if (id === void 0) return void 0;
  const step = timeline.points.find((point) => point.undoId === id);
  const undo = [...timeline.points].reverse().find((point) => point.operation === "undo" && point.status === "done" && point.target === id);
  return step === void 0 || undo === void 0 ? void 0 : { step, undo };
}
function timelineRows(timeline) {
  const current = timeline.steps[timeline.cursor - 1];
  const steps = new Set(timeline.steps);
  return timeline.points.map((point) => ({
    point,
    step: steps.has(point.undoId),
    current: point.undoId === current,
    files: point.summary?.files ?? point.entries.length,
    insertions: point.summary?.insertions ?? null,
    deletions: point.summary?.deletions ?? null,
    uncounted: point.summary?.uncounted ?? null
  }));
}

// src/session/point-summary.ts
var SUMMARY_LINE_CAP_BYTES = 1024 * 1024;
var SUMMARY_BUDGET_MS = 2e3;
async function storeBytes(source, name) {
  const chunks = [];
  for await (const chunk of await source.store.openBackup(source.sessionId, name)) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
async function summarizePoint(input) {
  const plan = new Map(input.plan.map((entry) => [entry.path, entry]));
  const summary = { files: input.entries.length, bytesBefore: 0, bytesAfter: 0, insertions: 0, deletions: 0, uncounted: 0 };
  for (const entry of input.entries) if (entry.kind === "file") summary.bytesBefore += entry.size ?? 0;
  for (const entry of input.plan) if (entry.kind === "file") summary.bytesAfter += entry.size ?? 0;
  const deadline = Date.now() + SUMMARY_BUDGET_MS;
  const sideBytes = async (entry, before) => {
    if (entry === void 0) return void 0;
    if (entry.kind === "missing") return null;
    if (entry.kind !== "file" || entry.size === void 0 || entry.size > SUMMARY_LINE_CAP_BYTES) return void 0;
    if (before) return input.fs.readFile(toAbsolutePath(input.projectRoot, entry.path));
    const name = entry.backupFileName;
    const source = input.isUndoBackup(name) ? input.undo : input.checkpoints;
    return source === void 0 ? void 0 : storeBytes(source, name);
  };
  const counts = await Promise.all(
    input.entries.map(
      (entry) => input.limit(async () => {
        const left = deadline - Date.now();
        if (left <= 0) return void 0;
        try {
          const before = await sideBytes(entry, true);
          const after = before === void 0 ? void 0 : await sideBytes(plan.get(entry.path), false);
          if (before === void 0 || after === void 0) return void 0;
          if (before !== null && before.length !== entry.size) return void 0;
          const lines = countLineChanges(before, after, Math.max(MIN_DIFF_TIMEOUT_MS, deadline - Date.now()));
          return lines === void 0 || lines.binary ? void 0 : lines;
        } catch {
          return void 0;
        }
      })
    )
  );
  for (const lines of counts) {
    if (lines === void 0) summary.uncounted += 1;
    else {
      summary.insertions += lines.insertions;
      summary.deletions += lines.deletions;
    }
  }
  return summary;
}
var SUMMARY_FIELDS = ["files", "bytesBefore", "bytesAfter", "insertions", "deletions", "uncounted"];
function parsePointSummary(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return void 0;
  const record = value;
  const summary = {};
  for (const field of SUMMARY_FIELDS) {
    const number = record[field];
    if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 0) return void 0;
    summary[field] = number;
  }
  return summary;
}

// src/session/undo-records.ts
var UNDO_POINT_RECORD_TYPE = "fh-undo-point";
var UNDO_POINT_REMOVED_RECORD_TYPE = "fh-undo-point-removed";
function undoPointRecord(point) {
  return {
    type: UNDO_POINT_RECORD_TYPE,
    undoId: point.undoId,
    sessionId: point.sessionId,
    createdAt: point.createdAt.toISOString(),
    operation: point.operation,
    messageId: point.messageId,
    entries: point.entries.map((entry) => ({ ...entry }))
  };
}
function undoPointRemovedRecord(undoId, reason, timestamp) {
  return { type: UNDO_POINT_REMOVED_RECORD_TYPE, undoId, reason, timestamp: timestamp.toISOString() };
}
function isObject2(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
var SHA256 = /^[0-9a-f]{64}$/;
function parseUndoEntry(value) {
  if (!isObject2(value) || typeof value.path !== "string" || value.path === "") return void 0;
  const { path, kind } = value;
  if (kind === "file") {
    if (typeof value.backupFileName !== "string" || typeof value.mode !== "number") return void 0;
    return {
      path,
      kind,
      backupFileName: value.backupFileName,
      mode: value.mode,
      ...typeof value.size === "number" ? { size: value.size } : {},
      ...typeof value.sha256 === "string" && SHA256.test(value.sha256) ? { sha256: value.sha256 } : {}
    };
  }
  if (kind === "missing" || kind === "folder") return { path, kind, backupFileName: null, mode: null };
  if (kind === "symlink" && typeof value.symlinkTarget === "string") {
    return { path, kind, backupFileName: null, mode: null, symlinkTarget: value.symlinkTarget };
  }
  return void 0;
}
function parseUndoPointRecord(record, onWarning = () => {
}) {
  const createdAt = typeof record.createdAt === "string" ? new Date(record.createdAt) : void 0;
  const entries = Array.isArray(record.entries) ? record.entries.map(parseUndoEntry) : void 0;
  if (typeof record.undoId !== "string" || typeof record.sessionId !== "string" || createdAt === void 0 || Number.isNaN(createdAt.getTime()) || record.operation !== "rewind" && record.operation !== "undo" || record.messageId !== null && typeof record.messageId !== "string" || entries === void 0 || entries.some((entry) => entry === void 0)) {
    onWarning(`skipped a malformed ${UNDO_POINT_RECORD_TYPE} record ${JSON.stringify(record.undoId ?? null)}`);
    return void 0;
  }
  return {
    undoId: record.undoId,
    sessionId: record.sessionId,
    createdAt,
    operation: record.operation,
    messageId: record.messageId,
    entries
  };
}
function liveUndoPoints(records, onWarning = () => {
}) {
  const live = /* @__PURE__ */ new Map();
  for (const record of records) {
    if (record.type === UNDO_POINT_RECORD_TYPE) {
      const point = parseUndoPointRecord(record, onWarning);
      if (point !== void 0) live.set(point.undoId, point);
    } else if (record.type === UNDO_POINT_REMOVED_RECORD_TYPE && typeof record.undoId === "string") {
      live.delete(record.undoId);
    }
  }
  return [...live.values()];
}

// src/session/timeline-records.ts
var TIMELINE_FORMAT_VERSION = 1;
var POINT_RECORD_TYPE = "fh-point";
var POINT_DONE_RECORD_TYPE = "fh-point-done";
var POINTS_PRUNED_RECORD_TYPE = "fh-points-pruned";
function pointRecord(point) {
  return {
    type: POINT_RECORD_TYPE,
    v: TIMELINE_FORMAT_VERSION,
    pointId: point.undoId,
    sessionId: point.sessionId,
    createdAt: point.createdAt.toISOString(),
    operation: point.operation,
    messageId: point.messageId,
    target: point.target,
    entries: point.entries.map((entry) => ({ ...entry })),
    plan: point.plan.map((entry) => ({ ...entry })),
    ...point.summary === void 0 ? {} : { summary: { ...point.summary } }
  };
}
function pointDoneRecord(pointId, outcome, timestamp, by = null) {
  return { type: POINT_DONE_RECORD_TYPE, v: TIMELINE_FORMAT_VERSION, pointId, outcome, by, timestamp: timestamp.toISOString() };
}
function pointsPrunedRecord(pointIds, timestamp) {
  return { type: POINTS_PRUNED_RECORD_TYPE, v: TIMELINE_FORMAT_VERSION, pointIds: [...pointIds], timestamp: timestamp.toISOString() };
}
var OPERATIONS = /* @__PURE__ */ new Set(["rewind", "undo", "redo", "undo-to", "recover"]);
var OUTCOMES = /* @__PURE__ */ new Set(["done", "rolled-back", "abandoned"]);
function parseEntries(value) {
  if (!Array.isArray(value)) return void 0;
  const entries = value.map(parseUndoEntry);
  return entries.some((entry) => entry === void 0) ? void 0 : entries;
}
function parsePointRecord(record, onWarning = () => {
}) {
  const createdAt = typeof record.createdAt === "string" ? new Date(record.createdAt) : void 0;
  const entries = parseEntries(record.entries);
  const plan = parseEntries(record.plan ?? []);
  if (typeof record.v === "number" && record.v > TIMELINE_FORMAT_VERSION) {
    onWarning(`skipped ${POINT_RECORD_TYPE} record ${JSON.stringify(record.pointId ?? null)} of format version ${record.v} (this fh reads version ${TIMELINE_FORMAT_VERSION}); upgrade fh`);
    return void 0;
  }
  if (typeof record.pointId !== "string" || record.pointId === "" || typeof record.sessionId !== "string" || createdAt === void 0 || Number.isNaN(createdAt.getTime()) || typeof record.operation !== "string" || !OPERATIONS.has(record.operation) || record.messageId !== null && typeof record.messageId !== "string" || record.target !== null && typeof record.target !== "string" || entries === void 0 || plan === void 0) {
    onWarning(`skipped a malformed ${POINT_RECORD_TYPE} record ${JSON.stringify(record.pointId ?? null)}`);
    return void 0;
  }
  return {
    undoId: record.pointId,
    sessionId: record.sessionId,
    createdAt,
    operation: record.operation,
    messageId: record.messageId,
    target: record.target,
    entries,
    plan,
    status: "pending",
    ...summaryOf(record.summary)
  };
}
function summaryOf(value) {
  const summary = parsePointSummary(value);
  return summary === void 0 ? {} : { summary };
}
function readTimelinePoints(records, onWarning = () => {
}) {
  const points = /* @__PURE__ */ new Map();
  for (const record of records) {
    if (record.type === POINT_RECORD_TYPE) {
      const point = parsePointRecord(record, onWarning);
      if (point !== void 0 && !points.has(point.undoId)) points.set(point.undoId, point);
    } else if (record.type === POINT_DONE_RECORD_TYPE) {
      const point = typeof record.pointId === "string" ? points.get(record.pointId) : void 0;
      if (point === void 0 || point.status !== "pending" || typeof record.outcome !== "string" || !OUTCOMES.has(record.outcome)) continue;
      point.status = record.outcome;
      const closedAt = typeof record.timestamp === "string" ? new Date(record.timestamp) : void 0;
      if (closedAt !== void 0 && !Number.isNaN(closedAt.getTime())) point.closedAt = closedAt;
    } else if (record.type === POINTS_PRUNED_RECORD_TYPE && Array.isArray(record.pointIds)) {
      for (const id of record.pointIds) if (typeof id === "string") points.delete(id);
    } else if (record.type === UNDO_POINT_RECORD_TYPE) {
      const legacy = parseUndoPointRecord(record, onWarning);
      if (legacy !== void 0 && !points.has(legacy.undoId)) {
        points.set(legacy.undoId, { ...legacy, operation: "rewind", target: null, plan: [], status: "done", legacy: true });
      }
    } else if (record.type === UNDO_POINT_REMOVED_RECORD_TYPE && typeof record.undoId === "string") {
      if (points.get(record.undoId)?.legacy === true) points.delete(record.undoId);
    }
  }
  return [...points.values()];
}

// src/session/undo.ts
var UNDO_BACKUP_NAME = /^[0-9a-f]{16}@undo-[0-9a-f]{12}$/;
function isUndoBackupName(name) {
  return UNDO_BACKUP_NAME.test(name);
}
function logOf(undo) {
  return undo.log ?? undo.store.sessionLog(undo.sessionId);
}
function nowOf(options) {
  return (options.now ?? (() => /* @__PURE__ */ new Date()))();
}
function undoBackupFileName(absolutePath, undoId) {
  const hash = createHash5("sha256").update(absolutePath).digest("hex").slice(0, 16);
  const suffix = createHash5("sha256").update(undoId).digest("hex").slice(0, 12);
  return `${hash}@undo-${suffix}`;
}
var POINT_MARKS = [Buffer.from(POINT_RECORD_TYPE), Buffer.from(UNDO_POINT_RECORD_TYPE)];
async function mayHoldPoints(log) {
  if (typeof log.readStream !== "function") return true;
  const keep = Math.max(...POINT_MARKS.map((mark) => mark.length)) - 1;
  let carry = Buffer.alloc(0);
  for await (const chunk of log.readStream()) {
    const bytes = carry.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([carry, chunk]);
    if (POINT_MARKS.some((mark) => bytes.includes(mark))) return true;
    carry = Buffer.from(bytes.subarray(Math.max(0, bytes.length - keep)));
  }
  return false;
}
async function readTimeline(undo, options = {}) {
  const { records } = await logOf(undo).read();
  return buildTimeline(readTimelinePoints(records, options.onWarning));
}
async function listUndoPoints(undo, options = {}) {
  return (await readTimeline(undo, options)).points;
}
async function timelineSize(undo, options = {}) {
  const points = await listUndoPoints(undo, options);
  const sizes = /* @__PURE__ */ new Map();
  for (const point of points) for (const entry of point.entries) if (entry.backupFileName !== null) sizes.set(entry.backupFileName, entry.size ?? 0);
  return { points: points.length, backups: sizes.size, bytes: [...sizes.values()].reduce((sum, size) => sum + size, 0) };
}
async function lstatOrUndefined3(fs, path) {
  try {
    return await fs.lstat(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return void 0;
    throw error;
  }
}
async function capturePoint(workspace, undo, input, options = {}) {
  const fs = workspace.fs;
  const undoId = (options.generateId ?? randomUUID5)();
  const limit = pLimit3(options.concurrency ?? 16);
  const made = [];
  let appending = false;
  const paths = [...new Set(input.paths)].sort();
  const progress = startPhase(options.onProgress, "saving", paths.length);
  const savePreImage = async (path) => {
    const absolutePath = toAbsolutePath(workspace.projectRoot, path);
    const stats = await lstatOrUndefined3(fs, absolutePath);
    if (stats === void 0) return { path, kind: "missing", backupFileName: null, mode: null };
    if (stats.isDirectory()) return { path, kind: "folder", backupFileName: null, mode: null };
    if (stats.isSymbolicLink()) {
      if (typeof fs.readlink !== "function") {
        throw new UnsupportedError(`saving the symbolic link ${path} for undo needs a workspace fs with readlink`);
      }
      return { path, kind: "symlink", backupFileName: null, mode: null, symlinkTarget: await fs.readlink(absolutePath) };
    }
    const backupFileName2 = undoBackupFileName(absolutePath, undoId);
    const info = await putUndoBackup(undo, backupFileName2, absolutePath);
    made.push(backupFileName2);
    return { path, kind: "file", backupFileName: backupFileName2, mode: info.mode & 4095, size: info.size, ...info.sha256 === void 0 ? {} : { sha256: info.sha256 } };
  };
  try {
    const settled = await Promise.allSettled(
      paths.map(
        (path) => limit(async () => {
          const entry = await savePreImage(path);
          progress.file(entry.size ?? 0);
          return entry;
        })
      )
    );
    const failure = settled.find((outcome) => outcome.status === "rejected");
    if (failure !== void 0) throw failure.reason;
    const entries = settled.map((outcome) => outcome.value);
    const planned = new Map((input.plan ?? []).map((entry) => [entry.path, entry]));
    const plan = paths.flatMap((path) => {
      const entry = planned.get(path);
      return entry === void 0 ? [] : [entry];
    });
    const summary = await summarizePoint({
      projectRoot: workspace.projectRoot,
      fs,
      entries,
      plan,
      undo: { store: undo.store, sessionId: undo.sessionId },
      ...input.checkpoints === void 0 ? {} : { checkpoints: input.checkpoints },
      limit,
      isUndoBackup: isUndoBackupName
    });
    const point = {
      undoId,
      sessionId: undo.sessionId,
      createdAt: nowOf(options),
      operation: input.operation,
      messageId: input.messageId,
      target: input.target ?? null,
      entries,
      plan,
      status: "pending",
      summary
    };
    appending = true;
    await logOf(undo).append([pointRecord(point)]);
    const { records } = await logOf(undo).read();
    if (!records.some((record) => record.type === POINT_RECORD_TYPE && record.pointId === undoId)) {
      throw new UnsupportedError(
        `the log of session ${undo.sessionId} in the ${undo.store.kind} store does not keep ${POINT_RECORD_TYPE} records; give an fh store as the undo store, or turn undo off`
      );
    }
    if (options.deleteOrphans === true) await deleteOrphanUndoBackups(undo, readTimelinePoints(records));
    return point;
  } catch (error) {
    const closed = !appending || await logOf(undo).append([pointDoneRecord(undoId, "abandoned", nowOf(options))]).then(() => true, () => false);
    if (closed) await Promise.all(made.map((name) => undo.store.deleteBackup(undo.sessionId, name).catch(() => void 0)));
    throw error;
  }
}
async function completePoint(undo, point, options = {}) {
  await logOf(undo).append([pointDoneRecord(point.undoId, "done", nowOf(options))]);
}
async function abandonPoint(undo, point, options = {}) {
  await logOf(undo).append([pointDoneRecord(point.undoId, "abandoned", nowOf(options))]);
  const suffix = `@undo-${createHash5("sha256").update(point.undoId).digest("hex").slice(0, 12)}`;
  const own = point.entries.flatMap((entry) => entry.backupFileName !== null && entry.backupFileName.endsWith(suffix) ? [entry.backupFileName] : []);
  await Promise.all(own.map((name) => undo.store.deleteBackup(undo.sessionId, name).catch(() => void 0)));
}
async function putUndoBackup(undo, backupFileName2, absolutePath) {
  try {
    return await undo.store.putBackup(undo.sessionId, backupFileName2, absolutePath);
  } catch (error) {
    if (!FhError.hasCode(error, "FH_UNSUPPORTED")) throw error;
    throw new UnsupportedError(
      `cannot save files for undo in session ${undo.sessionId} of the ${undo.store.kind} store (${error.message}); give an fh store as the undo store, or turn undo off`,
      { cause: error }
    );
  }
}
async function deleteOrphanUndoBackups(undo, points) {
  const referenced = new Set(points.flatMap((point) => point.entries.map((entry) => entry.backupFileName)));
  let names;
  try {
    names = await undo.store.listBackups(undo.sessionId);
  } catch {
    return;
  }
  const orphans = names.filter((name) => name.includes("@undo-") && !referenced.has(name));
  await Promise.all(orphans.map((name) => undo.store.deleteBackup(undo.sessionId, name).catch(() => void 0)));
}
async function validateEntries(workspace, undo, entries, what) {
  const infos = /* @__PURE__ */ new Map();
  const missing = [];
  const root = resolve3(workspace.projectRoot);
  const inside = (path) => {
    const rel = relative4(root, path);
    return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep4}`) && !isAbsolute4(rel);
  };
  for (const entry of entries) {
    const absolutePath = resolve3(root, entry.path);
    if (!inside(absolutePath)) throw new CorruptError(`${what} refused, nothing was changed: its entry ${JSON.stringify(entry.path)} is outside the project root`);
    if (entry.kind !== "file") continue;
    const name = entry.backupFileName;
    if (!UNDO_BACKUP_NAME.test(name)) {
      throw new CorruptError(`${what} refused, nothing was changed: its entry ${entry.path} names ${name}, which is not an undo backup (\u2026@undo-\u2026)`);
    }
    const info = await undo.store.statBackup(undo.sessionId, name);
    if (info === null) missing.push({ path: entry.path, backupFileName: name, reason: "the backup does not exist in the store" });
    else if (entry.size !== void 0 && info.size !== entry.size) {
      missing.push({ path: entry.path, backupFileName: name, reason: `the backup has ${info.size} bytes, the point recorded ${entry.size}` });
    } else infos.set(name, info);
  }
  if (missing.length > 0) {
    const list = missing.map((entry) => `${entry.path} (${entry.backupFileName}: ${entry.reason})`).join("; ");
    const count = missing.length === 1 ? "1 backup" : `${missing.length} backups`;
    throw new BackupMissingError(`${what} refused, nothing was changed: ${count} missing or damaged: ${list}`, missing);
  }
  return infos;
}
async function refuseDamagedPreImages(undo, writes, infos, what) {
  const limit = pLimit3(8);
  const hashed = writes.filter((entry) => entry.kind === "file" && entry.sha256 !== void 0 && infos.has(entry.backupFileName));
  const checks = await Promise.all(
    hashed.map(
      (entry) => limit(() => checkBackupBytes(undo.store, undo.sessionId, entry.backupFileName, entry.sha256, infos.get(entry.backupFileName).size))
    )
  );
  const damaged = hashed.flatMap((entry, index) => {
    const check = checks[index];
    return isDamaged(check) ? [{ path: entry.path, backupFileName: entry.backupFileName, reason: describeDamage(check) }] : [];
  });
  if (damaged.length === 0) return;
  const list = damaged.map((entry) => `${entry.path} (${entry.backupFileName}: ${entry.reason})`).join("; ");
  const count = damaged.length === 1 ? "1 backup is" : `${damaged.length} backups are`;
  throw new BackupMissingError(
    `${what} refused, nothing was changed: ${count} damaged: ${list}. Run fh verify to see which undo points the damage breaks`,
    damaged
  );
}
async function sameBytes(fs, absolutePath, undo, backupFileName2) {
  const handle = await fs.open(absolutePath, "r");
  try {
    let position = 0;
    for await (const chunk of await undo.store.openBackup(undo.sessionId, backupFileName2)) {
      const buffer = new Uint8Array(chunk.length);
      let filled = 0;
      while (filled < chunk.length) {
        const { bytesRead } = await handle.read(buffer, filled, chunk.length - filled, position + filled);
        if (bytesRead === 0) return false;
        filled += bytesRead;
      }
      if (Buffer.compare(buffer, chunk) !== 0) return false;
      position += chunk.length;
    }
    const probe = new Uint8Array(1);
    return (await handle.read(probe, 0, 1, position)).bytesRead === 0;
  } finally {
    await handle.close();
  }
}
async function alreadyAs(workspace, undo, entry, info) {
  const fs = workspace.fs;
  const absolutePath = toAbsolutePath(workspace.projectRoot, entry.path);
  const current = await lstatOrUndefined3(fs, absolutePath).catch(() => void 0);
  if (entry.kind === "missing") return current === void 0;
  if (entry.kind === "folder") return current?.isDirectory() === true;
  if (entry.kind === "symlink") {
    if (current?.isSymbolicLink() !== true || typeof fs.readlink !== "function") return false;
    return await fs.readlink(absolutePath).catch(() => void 0) === entry.symlinkTarget;
  }
  if (current?.isFile() !== true || info === void 0) return false;
  if (current.size !== info.size || (current.mode & 4095) !== restoredMode(entry.mode, info.mode)) return false;
  return sameBytes(fs, absolutePath, undo, entry.backupFileName).catch(() => false);
}
async function entryFolder(writer, entry) {
  const { folder } = splitTrackingPath(entry.path);
  try {
    return { folder: await writer.folder(folder) };
  } catch (error) {
    if (FhError.hasCode(error, "FH_NOT_FOUND")) return { folder: void 0 };
    if (FhError.hasCode(error, "FH_OUTSIDE_ROOT") || FhError.hasCode(error, "FH_CONFLICT")) return { skipped: error.message };
    throw error;
  }
}
async function applyEntry(undo, entry, info, writer, projectRoot) {
  if (entry.kind === "symlink" && !symlinkTargetInside(projectRoot, entry.path, entry.symlinkTarget ?? "")) {
    const target = entry.symlinkTarget ?? "";
    return {
      skipped: `it was a symbolic link to ${target}, outside the project: fh does not create links that lead outside the project; if you trust it, recreate it with: ln -sfn ${JSON.stringify(target)} ${JSON.stringify(entry.path)}`
    };
  }
  const { folder: folderPath, name } = splitTrackingPath(entry.path);
  const opened = await entryFolder(writer, entry);
  if ("skipped" in opened) return opened;
  const current = opened.folder === void 0 ? void 0 : await opened.folder.lstat(name);
  if (entry.kind === "folder") {
    if (current?.isDirectory()) return "none";
    const folder2 = opened.folder ?? await writer.folder(folderPath, { create: true });
    if (current !== void 0) await folder2.unlink(name);
    await folder2.mkdir(name);
    return "restored";
  }
  if (entry.kind === "missing") {
    if (current === void 0 || opened.folder === void 0) return "none";
    if (current.isDirectory()) return { skipped: "a folder is at this path" };
    await opened.folder.unlink(name);
    return "deleted";
  }
  const folder = opened.folder ?? await writer.folder(folderPath, { create: true });
  if (current?.isDirectory()) {
    try {
      await folder.rmdir(name);
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOTEMPTY" || code === "EEXIST") {
        throw new FhError(`${entry.path}: a folder that is not empty is at this path; move its files away and undo again`, { cause: error });
      }
      if (code !== "ENOENT") throw error;
    }
  }
  if (entry.kind === "symlink") {
    await folder.replaceWithSymlink(name, entry.symlinkTarget);
  } else {
    await folder.replaceFile(
      name,
      (destination) => undo.store.restoreBackup(undo.sessionId, entry.backupFileName, destination),
      restoredMode(entry.mode, info?.mode)
    );
  }
  return "restored";
}
async function applyState(workspace, undo, desired, request, options) {
  const entries = [...desired.values()];
  const infos = await validateEntries(workspace, undo, entries, request.what);
  const info = (entry) => entry.backupFileName === null ? void 0 : infos.get(entry.backupFileName);
  const limit = pLimit3(options.concurrency ?? 16);
  const checking = startPhase(options.onProgress, "checking", entries.length);
  const same = await Promise.all(entries.map((entry) => limit(() => alreadyAs(workspace, undo, entry, info(entry)).finally(() => checking.file()))));
  const changes = entries.filter((_, index) => same[index] !== true);
  await refuseDamagedPreImages(undo, changes, infos, request.what);
  const result = { operation: request.operation, target: request.target, pointId: null, restored: [], deleted: [], skipped: [], failed: [] };
  if (changes.length === 0 && !request.alwaysRecord) return result;
  const point = await capturePoint(
    workspace,
    undo,
    { paths: changes.map((entry) => entry.path), operation: request.operation, messageId: null, target: request.target, plan: changes },
    options
  );
  result.pointId = point.undoId;
  const size = (entry) => info(entry)?.size ?? 0;
  const writing = startPhase(options.onProgress, "writing", changes.length, changes.reduce((sum, entry) => sum + size(entry), 0));
  const apply = (entry, writer2) => applyEntry(undo, entry, info(entry), writer2, workspace.projectRoot).catch((error) => error instanceof Error ? error : new Error(String(error))).finally(() => writing.file(size(entry)));
  const outcomes = /* @__PURE__ */ new Map();
  const removals = changes.filter((entry) => entry.kind === "missing");
  const files = changes.filter((entry) => entry.kind === "file" || entry.kind === "symlink");
  const writer = await openProjectWriter(workspace.fs, workspace.projectRoot);
  try {
    const removed = await Promise.all(removals.map((entry) => limit(() => apply(entry, writer))));
    removals.forEach((entry, index) => outcomes.set(entry, removed[index]));
    for (const entry of changes.filter((candidate) => candidate.kind === "folder")) outcomes.set(entry, await apply(entry, writer));
    await removeLeftoverTemporaryFiles(writer, files.map((entry) => splitTrackingPath(entry.path).folder), options.sessionLocked === true);
    const written = await Promise.all(files.map((entry) => limit(() => apply(entry, writer))));
    files.forEach((entry, index) => outcomes.set(entry, written[index]));
    const deleted = removals.filter((entry) => outcomes.get(entry) === "deleted").map((entry) => entry.path);
    if (deleted.length > 0) await removeFoldersLeftEmpty(writer, deleted, request.stateTime);
    await writer.flush();
  } finally {
    await writer.close();
  }
  for (const entry of changes) {
    const outcome = outcomes.get(entry);
    if (outcome instanceof Error) result.failed.push({ path: entry.path, error: outcome });
    else if (outcome === "restored") result.restored.push(entry.path);
    else if (outcome === "deleted") result.deleted.push(entry.path);
    else if (typeof outcome === "object") result.skipped.push({ path: entry.path, reason: outcome.skipped });
  }
  if (result.failed.length === 0) await completePoint(undo, point, options);
  return result;
}
async function recoverPending(workspace, undo, options = {}) {
  const timeline = await readTimeline(undo, options);
  const results = [];
  for (const point of [...timeline.pending].reverse()) {
    if (point.operation === "recover") {
      await logOf(undo).append([pointDoneRecord(point.undoId, "abandoned", nowOf(options))]);
      results.push({ pointId: point.undoId, operation: point.operation, outcome: "abandoned", recoverPointId: null, restored: [], deleted: [] });
      continue;
    }
    const desired = new Map(point.entries.map((entry) => [entry.path, entry]));
    const what = `rolling back the interrupted ${point.operation} ${point.undoId}`;
    const applied = await applyState(workspace, undo, desired, { operation: "recover", target: point.undoId, alwaysRecord: false, what, stateTime: point.createdAt }, options);
    if (applied.failed.length > 0) {
      throw new FhError(
        `${what} failed for ${applied.failed.map((failure) => `${failure.path} (${failure.error.message})`).join("; ")}; nothing else was changed by this command. Fix that and run it again`
      );
    }
    const writer = await openProjectWriter(workspace.fs, workspace.projectRoot);
    try {
      await removeLeftoverTemporaryFiles(writer, point.entries.map((entry) => splitTrackingPath(entry.path).folder), options.sessionLocked === true);
    } finally {
      await writer.close();
    }
    await logOf(undo).append([pointDoneRecord(point.undoId, "rolled-back", nowOf(options), applied.pointId)]);
    results.push({ pointId: point.undoId, operation: point.operation, outcome: "rolled-back", recoverPointId: applied.pointId, restored: applied.restored, deleted: applied.deleted });
  }
  return results;
}
async function undoRewind(workspace, undo, options = {}) {
  const recovered = await recoverPending(workspace, undo, options);
  const rolledBack = recovered.find((recovery) => recovery.outcome === "rolled-back");
  if (options.pointId === void 0 && rolledBack !== void 0 && rolledBack.operation !== "undo") {
    return { operation: "recover", target: rolledBack.pointId, pointId: rolledBack.recoverPointId, restored: rolledBack.restored, deleted: rolledBack.deleted, skipped: [], failed: [], recovered };
  }
  const timeline = await readTimeline(undo, options);
  const step = undoStep(timeline);
  const chosen = options.pointId === void 0 ? step : findPoint(timeline, options.pointId, undo.sessionId);
  if (chosen === void 0) throw new NotFoundError(`session ${undo.sessionId} has no rewind to undo`);
  refuseAbandoned(chosen);
  const plain = chosen.undoId === step?.undoId;
  const applied = await applyState(
    workspace,
    undo,
    stateBefore(timeline, chosen.undoId),
    { operation: plain ? "undo" : "undo-to", target: chosen.undoId, alwaysRecord: true, what: plain ? "undo" : `undo to ${chosen.undoId}`, stateTime: chosen.createdAt },
    options
  );
  return { ...applied, recovered };
}
function refuseAbandoned(point) {
  if (point.status !== "abandoned") return;
  const why = point.operation === "recover" ? `its rollback of ${point.target ?? "an interrupted operation"} was interrupted and done again by a later recover point` : `its ${point.operation} was refused before any file changed`;
  throw new NotFoundError(`timeline point ${point.undoId} of session ${point.sessionId} was abandoned: ${why}, so there is nothing to undo (fh undo --list shows the points)`);
}
async function redoRewind(workspace, undo, options = {}) {
  const recovered = await recoverPending(workspace, undo, options);
  const timeline = await readTimeline(undo, options);
  const next = redoStep(timeline);
  if (next === void 0) throw new NotFoundError(`session ${undo.sessionId} has nothing to redo`);
  const applied = await applyState(workspace, undo, stateBefore(timeline, next.undo.undoId), { operation: "redo", target: next.step.undoId, alwaysRecord: true, what: "redo", stateTime: next.undo.createdAt }, options);
  return { ...applied, recovered };
}
async function previewUndo(workspace, undo, pointId, options = {}) {
  const timeline = await readTimeline(undo, options);
  const point = findPoint(timeline, pointId, undo.sessionId);
  refuseAbandoned(point);
  const entries = [...stateBefore(timeline, point.undoId).values()];
  const infos = await validateEntries(workspace, undo, entries, `undo to ${point.undoId}`);
  const checking = startPhase(options.onProgress, "checking", entries.length);
  const same = await Promise.all(
    entries.map((entry) => alreadyAs(workspace, undo, entry, entry.backupFileName === null ? void 0 : infos.get(entry.backupFileName)).finally(() => checking.file()))
  );
  return entries.filter((_, index) => same[index] !== true);
}
async function prunePoints(undo, olderThan, options = {}) {
  const points = await listUndoPoints(undo, options);
  const removed = points.filter((point) => point.status !== "pending" && point.createdAt.getTime() < olderThan.getTime());
  if (removed.length === 0) return [];
  await logOf(undo).append([pointsPrunedRecord(removed.map((point) => point.undoId), nowOf(options))]);
  const kept = new Set(points.filter((point) => !removed.includes(point)).flatMap((point) => point.entries.map((entry) => entry.backupFileName)));
  for (const point of removed) {
    for (const entry of point.entries) {
      if (entry.backupFileName !== null && !kept.has(entry.backupFileName)) await undo.store.deleteBackup(undo.sessionId, entry.backupFileName);
    }
  }
  return removed.map((point) => point.undoId);
}

// src/file-history.ts
var DISABLE_ENV_VARIABLE = "FH_DISABLE_FILE_CHECKPOINTING";
async function acquireLock(store, sessionId) {
  return store.capabilities.locking && typeof store.lockSession === "function" ? store.lockSession(sessionId) : void 0;
}
function isEnabled(options) {
  const env = options.env ?? process.env;
  const disabledByEnv = ["1", "true"].includes((env[DISABLE_ENV_VARIABLE] ?? "").trim().toLowerCase());
  return options.enabled !== false && !disabledByEnv;
}
async function readSessionLog(log, context, options) {
  const warn = options.onWarning ?? (() => {
  });
  if (options.rebuild === "latest" && options.initialState === void 0) {
    const latest = await readLatestOnly(log, context, warn, options.sessionLock === void 0 ? void 0 : options.logEnds);
    if (latest !== void 0) return latest;
  }
  return readWholeLog(log, context, options, warn);
}
function wholeFromEnds(records, context, warn) {
  const recordWarnings = [];
  const rebuilder = new StateRebuilder({ projectRoot: context.projectRoot, onWarning: (message) => recordWarnings.push(message) });
  for (const record of records) rebuilder.push(record);
  const recordedRoot = rebuilder.sessions.map((session) => session.projectRoot).find((root) => root !== void 0);
  if (rebuilder.sessions.length === 0) return void 0;
  if (recordedRoot !== void 0 && recordedRoot !== context.projectRoot) {
    warn(`session ${context.sessionId} was recorded for project ${recordedRoot} and is opened for ${context.projectRoot}`);
  }
  for (const message of recordWarnings) warn(message);
  const { state, diffBase } = rebuilder.finish();
  return { state, partial: false, diffBase };
}
async function readLatestOnly(log, context, warn, given) {
  const ends = given ?? await readLogEnds(log);
  if (ends === void 0) return void 0;
  if (ends.whole) return wholeFromEnds(ends.head, context, warn);
  const recordedRoot = ends.head.map((record) => parseFhSessionRecord(record, warn)?.projectRoot).find((root) => root !== void 0);
  if (recordedRoot === void 0) return void 0;
  const tail = latestStateFromTail(ends.tail, { projectRoot: context.projectRoot, onWarning: warn });
  if (tail === void 0 || tail.state.snapshots.length === 0) return void 0;
  if (recordedRoot !== context.projectRoot) {
    warn(`session ${context.sessionId} was recorded for project ${recordedRoot} and is opened for ${context.projectRoot}`);
  }
  const latest = tail.state.snapshots.at(-1);
  if (!tail.exact) {
    return { state: { snapshots: [latest], trackedFiles: new Set(Object.keys(latest.trackedFileBackups)), snapshotSequence: 1 }, partial: true, diffBase: void 0 };
  }
  return { state: tail.state, partial: true, diffBase: tail.diffBase };
}
async function readWholeLog(log, context, options, warn) {
  const recordWarnings = [];
  const rebuildOptions = { projectRoot: context.projectRoot, onWarning: (message) => recordWarnings.push(message) };
  const rebuilt = (options.initialState === void 0 ? await rebuildFromTail(log, rebuildOptions) : void 0) ?? await rebuildStateFromLog(log, rebuildOptions);
  for (const [reason, { count, firstLine }] of rebuilt.skippedLines) {
    if (firstLine === 0) {
      warn(`session ${context.sessionId}: ${count === 1 ? "a log line" : `${count} log lines`} near the end of the log skipped (${reason})`);
      continue;
    }
    warn(count === 1 ? `session ${context.sessionId}: log line ${firstLine} skipped (${reason})` : `session ${context.sessionId}: ${count} log lines skipped (${reason}), the first at line ${firstLine}`);
  }
  const recordedRoot = rebuilt.sessions.map((session) => session.projectRoot).find((root) => root !== void 0);
  if (recordedRoot !== void 0 && recordedRoot !== context.projectRoot) {
    warn(`session ${context.sessionId} was recorded for project ${recordedRoot} and is opened for ${context.projectRoot}`);
  }
  for (const message of recordWarnings) warn(message);
  if (rebuilt.sessions.length === 0) {
    await log.append([fhSessionRecord({ sessionId: context.sessionId, projectRoot: context.projectRoot, createdAt: /* @__PURE__ */ new Date() })]);
  }
  if (options.initialState !== void 0) return { state: options.initialState, partial: false, diffBase: void 0 };
  if (!rebuilt.hasRecords) return { state: void 0, partial: false, diffBase: void 0 };
  return { state: rebuilt.state, partial: false, diffBase: rebuilt.diffBase };
}
var FULL_SNAPSHOT_RECORD_EVERY = 1e3;
var SnapshotRecorder = class {
  constructor(queue, form, state) {
    this.queue = queue;
    this.form = form;
    this.state = state;
  }
  queue;
  form;
  state;
  /** The newest snapshot the log holds exactly, with its sequence. */
  base;
  entriesSinceFull = 0;
  diffsSinceFull = 0;
  /** Start from what the log held when it was read (`diffBase`: the newest snapshot's sequence, when exact). */
  startFrom(state, diffBase) {
    const newest = state.snapshots.at(-1);
    this.base = newest !== void 0 && diffBase !== void 0 && diffBase === state.snapshotSequence ? { snapshot: newest, sequence: diffBase } : void 0;
  }
  record(snapshot, isUpdate, attachedPaths) {
    if (this.form === "claude-code") {
      const written = isUpdate && attachedPaths !== void 0 ? attachmentRecords(snapshot, attachedPaths) : [snapshotRecord(snapshot, isUpdate)];
      return Promise.all(written.map((record2) => this.queue.append(record2))).then(() => void 0);
    }
    if (isUpdate) {
      const paths = attachedPaths ?? Object.keys(snapshot.trackedFileBackups);
      const timestamp = /* @__PURE__ */ new Date();
      this.entriesSinceFull += paths.length;
      const state2 = this.state();
      if (paths.length > 1 && state2.snapshots.at(-1) === snapshot && this.base?.snapshot === snapshot && this.base.sequence === state2.snapshotSequence) {
        const entries = {};
        for (const path of paths) entries[path] = snapshot.trackedFileBackups[path];
        return this.settle(this.queue.append(attachSnapshotRecord(snapshot.messageId, state2.snapshotSequence, entries)), void 0);
      }
      const written = paths.map((path) => this.queue.append(deltaRecord(snapshot.messageId, path, snapshot.trackedFileBackups[path], timestamp)));
      return this.settle(Promise.all(written), void 0);
    }
    const state = this.state();
    const sequence = state.snapshotSequence;
    const index = state.snapshots.lastIndexOf(snapshot);
    const previous = index > 0 ? state.snapshots[index - 1] : void 0;
    const backups = snapshot.trackedFileBackups;
    let record;
    if (previous !== void 0 && this.base?.snapshot === previous && this.base.sequence === sequence - 1 && this.diffsSinceFull < FULL_SNAPSHOT_RECORD_EVERY) {
      const noted = notedDiff(snapshot, previous);
      const entries = {};
      let changed = 0;
      let removed = [];
      let tracked;
      if (noted !== void 0) {
        for (const path of noted.changed) entries[path] = backups[path];
        changed = noted.changed.length;
        removed = [...noted.removed];
        tracked = noted.size;
      } else {
        const before = previous.trackedFileBackups;
        for (const path in backups) {
          const entry = backups[path];
          if (before[path] !== entry) {
            entries[path] = entry;
            changed += 1;
          }
        }
        for (const path in before) if (backups[path] === void 0) removed.push(path);
        tracked = Object.keys(backups).length;
      }
      if (this.entriesSinceFull + changed + removed.length < Math.max(tracked, SNAPSHOT_UPDATE_MAX_FILES)) {
        record = diffSnapshotRecord(snapshot.messageId, snapshot.timestamp, sequence, sequence - 1, entries, removed);
        this.entriesSinceFull += changed + removed.length;
        this.diffsSinceFull += 1;
      }
    }
    if (record === void 0) {
      record = fullSnapshotRecord(snapshot, sequence, state.superseded);
      this.entriesSinceFull = 0;
      this.diffsSinceFull = 0;
    }
    this.base = void 0;
    return this.settle(this.queue.append(record), { snapshot, sequence });
  }
  /** After the write: the log holds `next` exactly (or, for an attachment, still the same base); on failure nothing is trusted. */
  settle(written, next) {
    return written.then(
      () => {
        if (next !== void 0) this.base = next;
      },
      (error) => {
        this.base = void 0;
        throw error;
      }
    );
  }
};
var FileHistory = class _FileHistory {
  projectRoot;
  sessionId;
  store;
  fs;
  enabled;
  /** What {@link FileHistory.resume} carried into this session; undefined for {@link FileHistory.open}. */
  resumeResult;
  current;
  context;
  records;
  partial;
  log;
  recorder;
  options;
  closeLog;
  lock;
  listeners = /* @__PURE__ */ new Set();
  /** trackEdit calls still running; close waits for them. */
  tracking = /* @__PURE__ */ new Set();
  /** makeSnapshot and rewind run one at a time, in call order. */
  serial = Promise.resolve();
  closed = false;
  updateState = (update) => {
    this.current = update(this.current);
  };
  constructor(parts) {
    this.context = parts.context;
    this.projectRoot = parts.context.projectRoot;
    this.sessionId = parts.context.sessionId;
    this.store = parts.context.store;
    this.fs = parts.context.fs;
    this.enabled = parts.enabled;
    this.current = parts.state;
    this.records = parts.records;
    this.partial = parts.partial;
    this.log = parts.log;
    this.recorder = parts.recorder;
    this.options = parts.options;
    this.closeLog = parts.closeLog;
    this.lock = parts.lock;
    this.resumeResult = parts.resumeResult;
  }
  /**
   * Open the file history of `options.sessionId` (issue 3 "Rebuild and resume"):
   * 1. take the session's lock (see {@link FileHistoryOptions.lock}); `LockedError` naming the
   *    session if another process or handle has it open;
   * 2. read the session log and rebuild the state from it with `restoreStateFromLog` (unless
   *    `initialState` is given), so a restart continues where the last process stopped;
   * 3. on the session's first open, append an `fh-session` record naming the project root.
   * Throws `InvalidArgumentError` naming the option for a relative project root, an empty session
   * id or a bad knob (see {@link FileHistoryOptions}), and the store's errors; on any error the
   * lock is released. Does no I/O when tracking is off.
   */
  static async open(options) {
    if (typeof options !== "object" || options === null) {
      throw new InvalidArgumentError(`FileHistory.open takes an options object ({ projectRoot, sessionId, store }), got ${String(options)}`);
    }
    if (options.rebuild !== void 0 && options.rebuild !== "all" && options.rebuild !== "latest") {
      throw new InvalidArgumentError(`rebuild must be 'all' or 'latest', got ${JSON.stringify(options.rebuild)}`);
    }
    return _FileHistory.create(options, options.sessionLock, void 0);
  }
  /**
   * Resume session `fromSessionId` into the new session `sessionId` (seed 000 §8): carry every
   * backup its history references into the new session (hard links where the store can, copies
   * otherwise, see `copyFileHistoryForResume`), record the carried history there, and open it.
   * The old session is only read. The new session's later backups continue the version numbers.
   *
   * Throws `ResumeBackupsMissingError` listing every backup missing from the old session (unless
   * `allowMissingBackups`): the carried history is recorded anyway, with those entries marked
   * unavailable, so `FileHistory.open` of the new session works afterwards. Throws `ConflictError`
   * if the new session already has file history, `InvalidArgumentError` for equal ids or a `log`
   * option (a resumed session's records go to `store.sessionLog(sessionId)`), `LockedError` if the
   * new session is open elsewhere. When tracking is off it opens the new session and carries nothing.
   */
  static async resume(options) {
    const { fromSessionId, allowMissingBackups, carryRecords, onProgress, ...openOptions } = options;
    if (!isEnabled(openOptions)) return _FileHistory.open(openOptions);
    if (openOptions.log !== void 0) {
      throw new InvalidArgumentError("log cannot be given to FileHistory.resume: the resumed session is recorded in store.sessionLog(sessionId)");
    }
    const context = createFileHistoryContext({ projectRoot: openOptions.projectRoot, sessionId: openOptions.sessionId, store: openOptions.store });
    const lock = openOptions.lock === false ? void 0 : await acquireLock(context.store, context.sessionId);
    let result;
    try {
      result = await copyFileHistoryForResume({
        store: context.store,
        fromSessionId,
        toSessionId: context.sessionId,
        projectRoot: context.projectRoot,
        throwOnMissing: allowMissingBackups !== true,
        ...openOptions.initialState === void 0 ? {} : { state: openOptions.initialState },
        ...carryRecords === void 0 ? {} : { carryRecords },
        ...onProgress === void 0 ? {} : { onProgress },
        ...openOptions.concurrency === void 0 ? {} : { concurrency: openOptions.concurrency },
        ...openOptions.onWarning === void 0 ? {} : { onWarning: openOptions.onWarning }
      });
    } catch (error) {
      await lock?.release();
      throw error;
    }
    const { initialState: _carried, ...rest } = openOptions;
    return _FileHistory.create(rest, lock, result);
  }
  /** Build a history; `heldLock` is a lock already taken for it (released if opening fails). */
  static async create(options, heldLock, resumeResult) {
    const enabled = isEnabled(options);
    let records;
    let recorder;
    let history;
    let context;
    try {
      context = createFileHistoryContext({
        projectRoot: options.projectRoot,
        sessionId: options.sessionId,
        store: options.store,
        ...options.fs === void 0 ? {} : { fs: options.fs },
        ...options.concurrency === void 0 ? {} : { concurrency: options.concurrency },
        ...options.timestampGranularityMs === void 0 ? {} : { timestampGranularityMs: options.timestampGranularityMs },
        ...options.diffSizeCapBytes === void 0 ? {} : { diffSizeCapBytes: options.diffSizeCapBytes },
        ...options.onWarning === void 0 ? {} : { onWarning: options.onWarning },
        recordSnapshot: (snapshot, isUpdate, attachedPaths) => recorder === void 0 ? Promise.resolve() : recorder.record(snapshot, isUpdate, attachedPaths)
      });
    } catch (error) {
      await heldLock?.release();
      throw error;
    }
    if (!enabled) return new _FileHistory({ context, enabled, state: emptyFileHistoryState(), partial: false, records: void 0, closeLog: void 0, lock: heldLock, resumeResult });
    const ownLog = options.log === void 0 ? context.store.sessionLog(context.sessionId, { holdOpen: true }) : void 0;
    const log = options.log === false ? void 0 : options.log ?? ownLog;
    records = log === void 0 ? void 0 : new RecordQueue(log, coalesceSnapshotUpdates);
    if (log !== void 0 && records !== void 0) recorder = new SnapshotRecorder(records, log.recordForm ?? "fh", () => history?.current ?? emptyFileHistoryState());
    const closeLog = ownLog?.close === void 0 ? void 0 : () => ownLog.close?.() ?? Promise.resolve();
    let lock = heldLock;
    try {
      if (lock === void 0 && options.lock !== false) lock = await acquireLock(context.store, context.sessionId);
      const read = log === void 0 ? { state: options.initialState, partial: false, diffBase: void 0 } : await readSessionLog(log, context, options);
      const state = read.state ?? emptyFileHistoryState();
      recorder?.startFrom(state, read.diffBase);
      history = new _FileHistory({ context, enabled, state, partial: read.partial, records, closeLog, lock, resumeResult, log, recorder, options });
      return history;
    } catch (error) {
      await closeLog?.().catch(() => void 0);
      await lock?.release();
      throw error;
    }
  }
  /** True while this history holds its session's lock: opened with `lock` (the default) and not closed. */
  get holdsLock() {
    return this.lock !== void 0 && !this.closed;
  }
  /** The current state (snapshots oldest first, tracked files, sequence); see {@link FileHistoryReader.state}. */
  get state() {
    return this.current;
  }
  /**
   * Back `path` up before the main agent writes it (seed 000 §5), recording the main agent in
   * the entry's `changedBy` (issue 14). See `fileHistoryTrackEdit`: resolves once the backup and
   * its record are durable; throws `OutsideRootError` for a path outside the project root. A
   * no-op when tracking is off. Sub-agents use {@link forSubagent}. `options.prepared`: the
   * file's bytes already copied into the store (`prepareTrackEdit`, before the session's lock), used
   * as its backup when one is needed and removed otherwise.
   */
  async trackEdit(path, options = {}) {
    return this.trackEditBy(path, MAIN_AGENT, options);
  }
  /** {@link trackEdit} attributed to `agent` (issue 14). */
  async trackEditBy(path, agent, options = {}) {
    this.assertOpen();
    if (!this.enabled) {
      await options.prepared?.backup.discard();
      return;
    }
    const tracking = fileHistoryTrackEdit(this.updateState, path, this.context, agent, options);
    this.tracking.add(tracking);
    try {
      await tracking;
    } finally {
      this.tracking.delete(tracking);
    }
  }
  /**
   * Snapshot every tracked file under `messageId` (a user turn). See `fileHistoryMakeSnapshot`.
   * Resolves with the snapshot once it is durable in the log, after `snapshotFilesChanged`
   * listeners ran (a listener's error rejects this call; the snapshot stays made). Undefined when
   * tracking is off. Throws `ConflictError` when the session already has a snapshot for
   * `messageId` (a second one would hide the first from rewinds).
   */
  async makeSnapshot(messageId) {
    this.assertOpen();
    if (!this.enabled) return void 0;
    return this.runSerially(async () => {
      if (this.partial && this.current.heldSnapshots === void 0) await this.readWholeLog();
      if (findSnapshot(this.current, messageId) !== void 0) {
        throw new ConflictError(`session ${JSON.stringify(this.sessionId)} already has a snapshot for message ${JSON.stringify(messageId)}: each user turn needs its own message id`);
      }
      const snapshot = await fileHistoryMakeSnapshot(this.updateState, messageId, this.context);
      if (snapshot !== void 0 && this.listeners.size > 0) await this.emitFilesChanged(snapshot);
      return snapshot;
    });
  }
  /** What a rewind to `messageId` would change (dry run). See `fileHistoryGetDiffStats`. */
  async getDiffStats(messageId, options = {}) {
    this.assertOpen();
    this.assertWhole("getDiffStats");
    if (!this.enabled) return { filesChanged: [], insertions: 0, deletions: 0, files: [], skipped: [], failed: [], missing: [] };
    return fileHistoryGetDiffStats(this.current, messageId, this.context, options);
  }
  /** Whether a rewind to `messageId` would change any file. See `fileHistoryHasAnyChanges`. */
  async hasAnyChanges(messageId) {
    this.assertOpen();
    this.assertWhole("hasAnyChanges");
    if (!this.enabled) return false;
    return fileHistoryHasAnyChanges(this.current, messageId, this.context);
  }
  /** Whether a snapshot exists for `messageId` (false when tracking is off). */
  canRestore(messageId) {
    this.assertWhole("canRestore");
    return this.enabled && fileHistoryCanRestore(this.current, messageId);
  }
  /**
   * Put every tracked file (or `options.paths`) back as it was at the snapshot of `messageId`.
   * See `fileHistoryRewind` for the result and the errors (`NotFoundError`, `BackupMissingError`).
   * An empty result when tracking is off.
   *
   * The bare operation: it saves no timeline point, so it cannot be undone (`RewindSession.restore`
   * is the safe path). It does first roll back an operation an interrupted `RewindSession` left
   * pending in this session's log (unless `options.recoverFirst` is false), so it never writes
   * over a half-done rewind or undo; those are listed in the result's `recovered`. Throws
   * `ConflictError` (nothing changed) when one is pending and this history does not hold the lock.
   */
  async rewind(messageId, options = {}) {
    this.assertOpen();
    this.assertWhole("rewind");
    if (!this.enabled) return { messageId, restored: [], deleted: [], skipped: [], failed: [] };
    return this.runSerially(async () => {
      const recovered = options.recoverFirst === false ? [] : await this.recoverInterrupted();
      const result = await fileHistoryRewind(this.updateState, messageId, this.context, { ...options, sessionLocked: options.sessionLocked ?? this.holdsLock });
      return recovered.length === 0 ? result : { ...result, recovered };
    });
  }
  /**
   * Roll back the operations an interrupted rewind, undo or redo left pending in this session's
   * log (issue 10's journal, `recoverPending`), before a bare rewind writes the project. Reads the
   * log once; nothing to do when it has no pending point (or the history has no log). Throws
   * `ConflictError`, writing nothing, when there is one and this history does not hold the
   * session's lock (a recovery must not race another process).
   */
  async recoverInterrupted() {
    if (this.log === void 0) return [];
    if (!await mayHoldPoints(this.log)) return [];
    const undo = { store: this.store, sessionId: this.sessionId, log: this.log };
    const { pending } = await readTimeline(undo, this.options?.onWarning === void 0 ? {} : { onWarning: this.options.onWarning });
    if (pending.length === 0) return [];
    if (!this.holdsLock) {
      throw new ConflictError(
        `session ${JSON.stringify(this.sessionId)} has an interrupted ${pending[0]?.operation} (timeline point ${pending[0]?.undoId}) to roll back first, and this history does not hold the session's lock: open it with lock (the default) and rewind again; nothing was changed`
      );
    }
    return recoverPending(this, undo, { sessionLocked: true, deleteOrphans: true });
  }
  /**
   * Begin a command window before a shell command runs (issue 12): keep what is needed to put back
   * every file the command may change. See `beginCommand` (core/src/command) for the pre-images
   * and the errors. Works on a history opened with `rebuild: 'latest'`. Throws
   * `InvalidArgumentError` when tracking is off (there is nothing to attach to).
   */
  async beginCommand(options) {
    this.assertOpen();
    this.assertEnabled("beginCommand");
    return this.whileTracking(beginCommand(this.updateState, this.context, options));
  }
  /**
   * End command window `windowId` after the command ran: attach every file it changed to the
   * newest checkpoint as if `trackEdit` had run before the change. See `endCommand`.
   */
  async endCommand(windowId, options) {
    this.assertOpen();
    this.assertEnabled("endCommand");
    return this.whileTracking(endCommand(this.updateState, this.context, windowId, options));
  }
  /** End the session's open command windows (all, or those begun before a moment). See `endOpenCommands`. */
  async endOpenCommands(options) {
    this.assertOpen();
    this.assertEnabled("endOpenCommands");
    return this.whileTracking(endOpenCommands(this.updateState, this.context, options));
  }
  /**
   * A handle for the sub-agent `agent` (seed 004 §8, issue 14): the same reads; its `trackEdit`
   * backs up into the current main turn and attributes the change to the sub-agent; its
   * `makeSnapshot` does nothing. Throws `InvalidArgumentError` when `agent.agentId` is not a
   * non-empty string or `agent.agentType` is given and is not one.
   */
  forSubagent(agent) {
    if (typeof agent !== "object" || agent === null || typeof agent.agentId !== "string" || agent.agentId === "") {
      throw new InvalidArgumentError(`forSubagent takes { agentId, agentType? } with a non-empty agentId, got ${JSON.stringify(agent)}`);
    }
    if (agent.agentType !== void 0 && (typeof agent.agentType !== "string" || agent.agentType === "")) {
      throw new InvalidArgumentError(`forSubagent: agentType must be a non-empty string when given, got ${JSON.stringify(agent.agentType)}`);
    }
    const identity = agent.agentType === void 0 ? { agentId: agent.agentId } : { agentId: agent.agentId, agentType: agent.agentType };
    const attributed = agentFromIds(identity.agentId, identity.agentType);
    const history = this;
    return {
      agent: Object.freeze(identity),
      get projectRoot() {
        return history.projectRoot;
      },
      get sessionId() {
        return history.sessionId;
      },
      get store() {
        return history.store;
      },
      get fs() {
        return history.fs;
      },
      get enabled() {
        return history.enabled;
      },
      get state() {
        return history.state;
      },
      trackEdit: (path, options) => history.trackEditBy(path, attributed, options),
      makeSnapshot: async () => void 0,
      beginCommand: (options) => history.beginCommand(options),
      endCommand: (windowId, options) => history.endCommand(windowId, { ...options, agent: attributed }),
      getDiffStats: (messageId, options) => history.getDiffStats(messageId, options),
      hasAnyChanges: (messageId) => history.hasAnyChanges(messageId),
      canRestore: (messageId) => history.canRestore(messageId)
    };
  }
  /**
   * Listen for `snapshotFilesChanged` (seed 004 §11). Contents are read only while someone
   * listens. Returns a function that removes the listener.
   */
  on(event, listener) {
    if (event !== "snapshotFilesChanged") throw new FhError(`unknown FileHistory event ${JSON.stringify(event)}`);
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
  /**
   * Wait for running operations and pending records, then release the session lock. Idempotent;
   * other calls made after it throw.
   */
  async close() {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.tracking]);
    await this.serial.catch(() => void 0);
    await this.records?.flush();
    await this.closeLog?.().catch(() => void 0);
    await this.lock?.release();
  }
  assertEnabled(operation) {
    if (!this.enabled) throw new InvalidArgumentError(`${operation}: file checkpointing is off for session ${JSON.stringify(this.sessionId)}`);
  }
  /** Run `task` as a tracking operation: `close` waits for it. */
  async whileTracking(task) {
    const settled = task.then(() => void 0, () => void 0);
    this.tracking.add(settled);
    try {
      return await task;
    } finally {
      this.tracking.delete(settled);
    }
  }
  /**
   * Replace a partial state that cannot make the next snapshot (its tail did not start at an
   * `fh-snapshot` full record, so the snapshot count is unknown) with the whole log's.
   */
  async readWholeLog() {
    if (this.log === void 0 || this.options === void 0) return;
    const warn = this.options.onWarning ?? (() => {
    });
    const read = await readWholeLog(this.log, this.context, { ...this.options, initialState: void 0 }, warn);
    await this.records?.flush();
    this.current = read.state ?? emptyFileHistoryState();
    this.partial = false;
    this.recorder?.startFrom(this.current, read.diffBase);
  }
  assertWhole(operation) {
    if (this.partial) {
      throw new InvalidArgumentError(`${operation} needs the whole session: this history of session ${JSON.stringify(this.sessionId)} was opened with rebuild: 'latest', for trackEdit and makeSnapshot only`);
    }
  }
  assertOpen() {
    if (this.closed) throw new FhError(`the file history of session ${JSON.stringify(this.sessionId)} is closed`);
  }
  runSerially(task) {
    const run = this.serial.then(task, task);
    this.serial = run.catch(() => void 0);
    return run;
  }
  async emitFilesChanged(snapshot) {
    const snapshots = this.current.snapshots;
    const made = findSnapshot(this.current, snapshot.messageId) ?? snapshot;
    const index = snapshots.lastIndexOf(made);
    const previous = index > 0 ? snapshots[index - 1] : void 0;
    const event = await snapshotFilesChangedEvent(this.context, previous, snapshot);
    if (event === void 0) return;
    for (const listener of [...this.listeners]) await listener(event);
  }
};

// src/session/worktree-state.ts
import { dirname as dirname5, isAbsolute as isAbsolute5, relative as relative5, resolve as resolve4, sep as sep5 } from "path";
var WORKTREE_STATE_RECORD_TYPE = "worktree-state";
function isObject3(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function worktreeStateRecord(sessionId, worktreeSession) {
  return { type: WORKTREE_STATE_RECORD_TYPE, sessionId, worktreeSession: worktreeSession === null ? null : { ...worktreeSession } };
}
function normalisedAbsolutePath(value, field) {
  if (typeof value !== "string" || value === "") throw new InvalidArgumentError(`${field} must be a non-empty string, got ${JSON.stringify(value) ?? "undefined"}`);
  if (value.includes("\0")) throw new InvalidArgumentError(`${field} must not contain a NUL byte: ${JSON.stringify(value)}`);
  if (!isAbsolute5(value)) throw new InvalidArgumentError(`${field} must be an absolute path, got ${JSON.stringify(value)}`);
  if (resolve4(value) !== value) throw new InvalidArgumentError(`${field} must be a normalised absolute path (no ".", "..", doubled or trailing separators), got ${JSON.stringify(value)}`);
  return value;
}
var FORBIDDEN_REF_CHARACTERS = /[\u0000-\u0020\u007f~^:?*[\\]/;
function isValidBranchName(name) {
  if (name === "" || name === "@" || name === "HEAD" || name.startsWith("-")) return false;
  if (FORBIDDEN_REF_CHARACTERS.test(name) || name.includes("..") || name.includes("@{")) return false;
  if (name.startsWith("/") || name.endsWith("/") || name.endsWith(".") || name.includes("//")) return false;
  return name.split("/").every((component) => !component.startsWith(".") && !component.endsWith(".lock"));
}
function branchName(value, field) {
  if (typeof value !== "string" || !isValidBranchName(value)) {
    throw new InvalidArgumentError(`${field} must be a valid git branch name, got ${JSON.stringify(value) ?? "undefined"}`);
  }
  return value;
}
var WORKTREE_NAME_SEGMENT = /^[A-Za-z0-9._-]+$/;
function worktreeName(value, field) {
  const valid = typeof value === "string" && value.length > 0 && value.length <= 255 && !value.startsWith("-") && value.split("/").every((segment) => WORKTREE_NAME_SEGMENT.test(segment) && segment !== "." && segment !== "..");
  if (!valid) {
    throw new InvalidArgumentError(`${field} must be a name of letters, digits, ".", "_", "-" (segments separated by "/"), got ${JSON.stringify(value) ?? "undefined"}`);
  }
  return value;
}
var OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
function parseWorktreeSession(value, field = "worktreeSession") {
  if (!isObject3(value)) throw new InvalidArgumentError(`${field} must be an object, got ${JSON.stringify(value) ?? "undefined"}`);
  const originalCwd = normalisedAbsolutePath(value.originalCwd, `${field}.originalCwd`);
  const worktreePath = normalisedAbsolutePath(value.worktreePath, `${field}.worktreePath`);
  if (worktreePath === originalCwd) {
    throw new InvalidArgumentError(`${field}.worktreePath must differ from originalCwd, both are ${JSON.stringify(worktreePath)}`);
  }
  const session = {
    originalCwd,
    worktreePath,
    worktreeName: worktreeName(value.worktreeName, `${field}.worktreeName`),
    worktreeBranch: branchName(value.worktreeBranch, `${field}.worktreeBranch`)
  };
  if (value.originalBranch !== void 0 && value.originalBranch !== null) {
    session.originalBranch = branchName(value.originalBranch, `${field}.originalBranch`);
  }
  if (value.originalHeadCommit !== void 0 && value.originalHeadCommit !== null) {
    if (typeof value.originalHeadCommit !== "string" || !OBJECT_ID.test(value.originalHeadCommit)) {
      throw new InvalidArgumentError(
        `${field}.originalHeadCommit must be a full lower-case hex commit id, got ${JSON.stringify(value.originalHeadCommit)}`
      );
    }
    session.originalHeadCommit = value.originalHeadCommit;
  }
  if (value.hookBased !== void 0 && value.hookBased !== null) {
    if (typeof value.hookBased !== "boolean") throw new InvalidArgumentError(`${field}.hookBased must be a boolean, got ${JSON.stringify(value.hookBased)}`);
    if (value.hookBased) session.hookBased = true;
  }
  return session;
}
function findWorktreeState(records) {
  let last;
  for (const record of records) {
    if (isObject3(record) && record.type === WORKTREE_STATE_RECORD_TYPE) last = record;
  }
  if (last === void 0) return void 0;
  const field = "the last worktree-state record: worktreeSession";
  if (last.sessionId !== void 0 && typeof last.sessionId !== "string") {
    throw new InvalidArgumentError(`the last worktree-state record: sessionId must be a string, got ${JSON.stringify(last.sessionId)}`);
  }
  if (!("worktreeSession" in last)) throw new InvalidArgumentError(`${field} is missing (it must be an object or null)`);
  const sessionId = last.sessionId;
  if (last.worktreeSession === null) return { type: WORKTREE_STATE_RECORD_TYPE, sessionId, worktreeSession: null };
  return { type: WORKTREE_STATE_RECORD_TYPE, sessionId, worktreeSession: parseWorktreeSession(last.worktreeSession, field) };
}
function isInside(folder, path) {
  const between = relative5(folder, path);
  return between !== "" && between !== ".." && !between.startsWith(`..${sep5}`) && !isAbsolute5(between);
}
function assertWorktreePlacement(session, repositoryRoot = session.originalCwd) {
  const root = normalisedAbsolutePath(repositoryRoot, "repositoryRoot");
  const path = session.worktreePath;
  const inside = isInside(root, path) && relative5(root, path).split(sep5)[0] !== ".git";
  const sibling = path !== root && dirname5(path) === dirname5(root) && dirname5(root) !== root;
  if (!inside && !sibling) {
    throw new InvalidArgumentError(
      `worktreeSession.worktreePath ${JSON.stringify(path)} is neither inside the repository ${JSON.stringify(root)} nor next to it`
    );
  }
}
function describeBranch(branch) {
  return branch === null ? "a detached HEAD" : `branch ${branch}`;
}
function planWorktreeRestore(input) {
  const session = input.worktreeState;
  const facts = input.exists;
  assertWorktreePlacement(session, facts.repositoryRoot);
  const worktreePath = session.worktreePath;
  const branch = session.worktreeBranch;
  const refuse = (reason) => ({ kind: "refuse", worktreePath, branch, reason, actions: [] });
  if (session.hookBased === true) {
    return refuse(`the worktree ${worktreePath} was made by a WorktreeCreate hook, not by git worktree; recreate it with that hook`);
  }
  const registered = facts.registered;
  if (registered !== null && !registered.prunable && facts.dir === "present") {
    if (registered.branch === branch) return { kind: "reuse", worktreePath, branch, actions: [] };
    return refuse(`${worktreePath} is a worktree on ${describeBranch(registered.branch)}, not on branch ${branch}`);
  }
  if (facts.dir === "present") {
    return refuse(`${worktreePath} is occupied by something that is not the session's worktree; move it away first`);
  }
  if (registered !== null && registered.locked) {
    return refuse(`git keeps a locked registration of the missing worktree ${worktreePath}; run git worktree unlock ${worktreePath} first`);
  }
  const holder = facts.branchCheckedOutAt ?? null;
  if (facts.branchExists && holder !== null && !holder.prunable) {
    return refuse(`branch ${branch} is checked out in another worktree at ${holder.path}`);
  }
  const actions = registered !== null || holder !== null ? [{ type: "prune" }] : [];
  if (facts.branchExists) {
    actions.push({ type: "add", worktreePath, branch });
    return { kind: "recreate", worktreePath, branch, actions };
  }
  const commit = session.originalHeadCommit;
  if (commit === void 0) {
    return refuse(`branch ${branch} is gone and the session recorded no originalHeadCommit to recreate it from`);
  }
  if (facts.commitExists === false) {
    return refuse(`branch ${branch} is gone and its originalHeadCommit ${commit} is not in the repository`);
  }
  actions.push({ type: "add", worktreePath, branch, newBranchAt: commit });
  return { kind: "recreate-from-commit", worktreePath, branch, commit, actions };
}
function planWorktreeExit(input) {
  const session = input.worktreeState;
  assertWorktreePlacement(session, input.exists.repositoryRoot);
  const { dir, registered, changedFiles } = input.exists;
  const worktreePath = session.worktreePath;
  const branch = session.worktreeBranch;
  const refuse = (reason, changed = []) => ({
    kind: "refuse",
    worktreePath,
    branch,
    reason,
    changedFiles: [...changed]
  });
  if (dir === "missing" && (registered === null || registered.prunable)) return { kind: "absent", worktreePath, branch };
  if (registered === null || registered.prunable) {
    return refuse(`${worktreePath} is not a worktree git knows; it is left alone`);
  }
  if (dir !== "present") {
    return refuse(`git registers the worktree ${worktreePath} but its folder is ${dir}; run git worktree prune to clear the registration`);
  }
  if (registered.branch !== branch) {
    return refuse(`${worktreePath} is a worktree on ${describeBranch(registered.branch)}, not on branch ${branch}; it is left alone`);
  }
  if (registered.locked) return refuse(`the worktree ${worktreePath} is locked; run git worktree unlock ${worktreePath} first`);
  if (changedFiles.length > 0) {
    const count = changedFiles.length;
    return refuse(
      `the worktree ${worktreePath} has ${count} uncommitted change${count === 1 ? "" : "s"}: ${changedFiles.join(", ")}; commit or discard ${count === 1 ? "it" : "them"} first`,
      changedFiles
    );
  }
  return { kind: "remove", worktreePath, branch };
}
function planWorktreeRewind(input) {
  const projectRoot = normalisedAbsolutePath(input.projectRoot, "projectRoot");
  const worktreePath = input.worktreeState.worktreePath;
  const snapshots = input.state.snapshots;
  const eligible = input.eligibleMessageIds;
  let messageId;
  if (input.messageId !== void 0) {
    if (!snapshots.some((snapshot) => snapshot.messageId === input.messageId)) {
      throw new NotFoundError(`no snapshot for message ${JSON.stringify(input.messageId)} in the session`);
    }
    if (eligible !== void 0 && !eligible.has(input.messageId)) {
      throw new InvalidArgumentError(
        `the snapshot of message ${JSON.stringify(input.messageId)} was taken before the session entered the worktree ${worktreePath}; its paths belong to another folder`
      );
    }
    messageId = input.messageId;
  } else {
    messageId = snapshots.findLast((snapshot) => eligible === void 0 || eligible.has(snapshot.messageId))?.messageId;
  }
  const worktreePrefix = projectRoot === worktreePath ? "" : relative5(projectRoot, worktreePath).split(sep5).join("/");
  const rootIsAround = worktreePrefix === "" || isInside(projectRoot, worktreePath);
  const target = messageId === void 0 ? void 0 : snapshots.findLast((snapshot) => snapshot.messageId === messageId);
  const tracked = /* @__PURE__ */ new Set([...input.state.trackedFiles, ...Object.keys(target?.trackedFileBackups ?? {})]);
  const paths = [];
  const outside = [];
  for (const path of [...tracked].sort()) {
    const inWorktree = rootIsAround && (worktreePrefix === "" || path.startsWith(`${worktreePrefix}/`));
    (inWorktree ? paths : outside).push(path);
  }
  return { messageId, paths: messageId === void 0 ? [] : paths, outside, worktreePrefix };
}
function worktreeSnapshotMessageIds(records, worktreePath) {
  const list = [...records];
  const inWorktree = (path) => typeof path === "string" && (path === worktreePath || isInside(worktreePath, path));
  const firstCwd = list.find((record) => isObject3(record) && typeof record.cwd === "string" && record.cwd !== "");
  let inside = firstCwd !== void 0 && inWorktree(firstCwd.cwd);
  const messageIds2 = /* @__PURE__ */ new Set();
  for (const record of list) {
    if (!isObject3(record)) continue;
    if (record.type === WORKTREE_STATE_RECORD_TYPE) {
      const session = record.worktreeSession;
      inside = isObject3(session) && session.worktreePath === worktreePath;
    } else if (record.type === "file-history-snapshot" && record.isSnapshotUpdate !== true || record.type === FH_SNAPSHOT_RECORD_TYPE) {
      const snapshot = record.snapshot;
      const messageId = isObject3(snapshot) && typeof snapshot.messageId === "string" ? snapshot.messageId : record.messageId;
      if (typeof messageId !== "string" || messageId === "") continue;
      if (inside) messageIds2.add(messageId);
      else messageIds2.delete(messageId);
    }
  }
  return messageIds2;
}

// src/attribution/agent-changes.ts
function turnAgentChanges(snapshot) {
  const byAgent = /* @__PURE__ */ new Map();
  for (const path of Object.keys(snapshot.trackedFileBackups).sort()) {
    for (const attribution of snapshot.trackedFileBackups[path]?.changedBy ?? []) {
      const agent = agentOf(attribution);
      const key = agentKey(agent);
      const found = byAgent.get(key);
      if (found === void 0) byAgent.set(key, { agent, first: agent.by === "main" ? -Infinity : attribution.at.getTime(), paths: [path] });
      else {
        found.paths.push(path);
        if (agent.by !== "main" && attribution.at.getTime() < found.first) found.first = attribution.at.getTime();
        if (found.agent.by === "subagent" && found.agent.agentType === void 0 && agent.by === "subagent" && agent.agentType !== void 0) found.agent = agent;
      }
    }
  }
  return [...byAgent.values()].sort((a, b) => a.first - b.first).map(({ agent, paths }) => ({ agent, paths }));
}
function agentsSince(state, messageId) {
  const found = /* @__PURE__ */ new Map();
  for (const [, chain] of changesSince(state, messageId)) {
    for (const attribution of chain) {
      const agent = agentOf(attribution);
      const key = agentKey(agent);
      const time = agent.by === "main" ? -Infinity : attribution.at.getTime();
      const known = found.get(key);
      if (known === void 0) {
        found.set(key, { agent, first: time });
        continue;
      }
      if (time < known.first) known.first = time;
      if (known.agent.by === "subagent" && known.agent.agentType === void 0 && agent.by === "subagent" && agent.agentType !== void 0) known.agent = agent;
    }
  }
  return [...found.values()].sort((a, b) => a.first - b.first).map((entry) => entry.agent);
}
function resolveAgent(state, messageId, query) {
  if (typeof query !== "string" || query.trim() === "") throw new InvalidArgumentError(`an agent id must be a non-empty string, got ${JSON.stringify(query)}`);
  if (findSnapshot(state, messageId) === void 0) throw new NotFoundError(`no snapshot for message ${messageId}`);
  const agents = agentsSince(state, messageId);
  const subagents = agents.filter((agent) => agent.by === "subagent");
  const exact = subagents.find((agent) => agent.agentId === query);
  if (exact !== void 0) return exact;
  if (query === "main") {
    if (agents.some((agent) => agent.by === "main")) return MAIN_AGENT;
  }
  const matches = subagents.filter((agent) => agent.agentId.startsWith(query));
  if (matches.length === 1) return matches[0];
  const known = agents.length === 0 ? "no agent changed a tracked file after it" : `agents that did: ${agents.map(shortName).join(", ")}`;
  if (matches.length === 0) throw new NotFoundError(`no agent ${JSON.stringify(query)} changed a tracked file after the checkpoint ${messageId} (${known})`);
  throw new InvalidArgumentError(`agent id ${JSON.stringify(query)} is ambiguous: it starts ${matches.map(shortName).join(", ")}; give more of the id`);
}
function shortName(agent) {
  return agent.by === "main" ? "main" : `${agent.agentId}${agent.agentType === void 0 ? "" : ` (${agent.agentType})`}`;
}
function selectAgentChanges(state, messageId, query, options) {
  const agent = resolveAgent(state, messageId, query);
  const named = new Set((options.paths ?? []).map((path) => toTrackingPath(options.projectRoot, path)));
  const paths = [];
  const conflicts = [];
  const changed = /* @__PURE__ */ new Set();
  for (const [path, chain] of changesSince(state, messageId)) {
    if (!chain.some((attribution) => sameAgent(agentOf(attribution), agent))) continue;
    changed.add(path);
    const others = /* @__PURE__ */ new Map();
    for (const attribution of chain) {
      const other = agentOf(attribution);
      if (!sameAgent(other, agent) && !others.has(agentKey(other))) others.set(agentKey(other), other);
    }
    if (others.size === 0 || named.has(path)) paths.push(path);
    else conflicts.push({ path, changedBy: [...others.values()] });
  }
  for (const path of named) {
    if (!changed.has(path)) throw new InvalidArgumentError(`${path} was not changed by ${describeAgent(agent)} after the checkpoint ${messageId}; --paths with --agent names that agent's conflicting files only`);
  }
  return { agent, paths: paths.sort(), conflicts: conflicts.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0) };
}
function conflictSkip(conflict) {
  return {
    path: conflict.path,
    reason: `also changed by ${conflict.changedBy.map(describeAgent).join(", ")} after the checkpoint; left alone (name it with --paths to rewind it anyway)`
  };
}
function changesSince(state, messageId) {
  const chains = /* @__PURE__ */ new Map();
  const snapshot = findSnapshot(state, messageId);
  if (snapshot === void 0) return chains;
  for (let index = state.snapshots.lastIndexOf(snapshot); index < state.snapshots.length; index += 1) {
    const backups = state.snapshots[index].trackedFileBackups;
    for (const path in backups) {
      const changedBy = backups[path]?.changedBy;
      if (changedBy === void 0) continue;
      const chain = chains.get(path);
      if (chain === void 0) chains.set(path, [...changedBy]);
      else chain.push(...changedBy);
    }
  }
  return chains;
}

// src/session/rewind-preview.ts
function rewindRefusals(state, messageId, stats, withUndo = true) {
  const refusals = (stats.missing ?? []).map((entry) => ({ path: entry.path, kind: "backup-missing", reason: entry.reason }));
  if (!withUndo) return refusals;
  const missing = new Set(refusals.map((refusal) => refusal.path));
  const entries = snapshotFileBackups(state, messageId);
  for (const failure of stats.failed ?? []) {
    if (missing.has(failure.path) || entries?.get(failure.path)?.error !== void 0) continue;
    refusals.push({ path: failure.path, kind: "unreadable", reason: failure.reason });
  }
  return refusals;
}
async function rewindPreview(history, messageId, previewOptions = {}) {
  const { agent: agentQuery, ...options } = previewOptions;
  if (agentQuery !== void 0) {
    const selection = selectAgentChanges(history.state, messageId, agentQuery, { projectRoot: history.projectRoot, ...options.paths === void 0 ? {} : { paths: options.paths } });
    const preview = await rewindPreview(history, messageId, { ...options, paths: selection.paths });
    return { ...preview, skipped: [...preview.skipped ?? [], ...selection.conflicts.map(conflictSkip)], agent: selection };
  }
  const stats = await history.getDiffStats(messageId, options);
  const latest = history.state.snapshots.at(-1);
  let sinceLatest = [];
  if (latest !== void 0 && stats.filesChanged.length > 0) {
    sinceLatest = latest.messageId === messageId ? stats.filesChanged : (await history.getDiffStats(latest.messageId, options)).filesChanged;
  }
  const changed = new Set(sinceLatest);
  return {
    ...stats,
    changedSinceLatestSnapshot: stats.filesChanged.filter((path) => changed.has(path)),
    refusals: rewindRefusals(history.state, messageId, stats)
  };
}

// src/session/restore-options.ts
function subagentOptionLabel(agent) {
  return `Restore code: only the changes of sub-agent ${agent.agentId}${agent.agentType === void 0 ? "" : ` (${agent.agentType})`}`;
}
var RESTORE_MODE_LABELS = {
  both: "Restore code and conversation",
  conversation: "Restore conversation",
  code: "Restore code",
  summarize: "Summarize from here",
  summarize_up_to: "Summarize up to here",
  nevermind: "Never mind"
};
function emptyDiffStats() {
  return { filesChanged: [], insertions: 0, deletions: 0, files: [], changedSinceLatestSnapshot: [], refusals: [] };
}

// src/session/fork-session.ts
function keptSnapshotRecords(state, keptMessageIds) {
  const kept = new Set(keptMessageIds);
  return state.snapshots.filter((snapshot) => kept.has(snapshot.messageId)).map((snapshot) => JSON.parse(JSON.stringify(snapshotRecord(snapshot, false))));
}
async function forkSession(options) {
  const { store, projectRoot } = options;
  const records = options.records ?? (await store.sessionLog(options.sessionId).read()).records;
  const plan = planFork(records, options.messageId, options.newSessionId === void 0 ? {} : { sessionId: options.newSessionId });
  const fileHistoryRecords = options.state === void 0 ? plan.fileHistoryRecords : keptSnapshotRecords(options.state, plan.keptMessageIds);
  const state = restoreStateFromLog(fileHistoryRecords, {
    projectRoot,
    ...options.onWarning === void 0 ? {} : { onWarning: options.onWarning }
  });
  const targetLog = store.sessionLog(plan.sessionId);
  if ((await targetLog.read()).records.length > 0 || (await store.listBackups(plan.sessionId)).length > 0) {
    throw new ConflictError(`cannot fork into session ${plan.sessionId}: it already exists; give a new session id`);
  }
  try {
    const worktreeStates = plan.records.filter((record) => record.type === WORKTREE_STATE_RECORD_TYPE);
    const head = plan.records.filter((record) => record.type !== WORKTREE_STATE_RECORD_TYPE);
    if (head.length > 0) await targetLog.append(head);
    const resume = await copyFileHistoryForResume({
      store,
      fromSessionId: options.sessionId,
      toSessionId: plan.sessionId,
      projectRoot,
      state,
      carryRecords: "none",
      throwOnMissing: false,
      ...options.now === void 0 ? {} : { now: options.now },
      ...options.onProgress === void 0 ? {} : { onProgress: options.onProgress }
    });
    if (worktreeStates.length > 0) await targetLog.append(worktreeStates);
    return { sessionId: plan.sessionId, plan, resume };
  } catch (error) {
    await store.deleteSession(plan.sessionId).catch(() => void 0);
    throw error;
  }
}

// src/session/message-reference.ts
var MIN_PREFIX_LENGTH = 4;
var MAX_LISTED_CANDIDATES = 10;
function isTurnNumber(reference) {
  return /^-?\d+$/.test(reference);
}
function resolveMessageReference(reference, candidates) {
  const { sessionId, checkpointIds } = candidates;
  const otherIds = candidates.otherIds ?? [];
  const listCommand = candidates.listCommand ?? "fh list";
  const session = `session ${JSON.stringify(sessionId)}`;
  if (reference.trim() === "") {
    throw new InvalidArgumentError(
      `an empty message id names no checkpoint or prompt of ${session}: give a message id, a unique prefix of ${MIN_PREFIX_LENGTH} or more characters, or a turn number (${listCommand} shows them)`
    );
  }
  if (checkpointIds.includes(reference) || otherIds.includes(reference)) return reference;
  if (isTurnNumber(reference)) {
    const turn = Number(reference);
    const count = checkpointIds.length;
    const index = turn > 0 ? turn - 1 : count + turn;
    if (turn !== 0 && index >= 0 && index < count) return checkpointIds[index];
    if (reference.length < MIN_PREFIX_LENGTH || reference.startsWith("-")) {
      throw new NotFoundError(
        count === 0 ? `turn ${reference} does not exist: ${session} has no checkpoints yet` : `turn ${reference} does not exist: ${session} has turns 1 to ${count} (or -1 to -${count}, counting back from the newest; ${listCommand} shows them)`
      );
    }
  }
  if (reference.length >= MIN_PREFIX_LENGTH) {
    const matches = [.../* @__PURE__ */ new Set([...checkpointIds, ...otherIds])].filter((id) => id.startsWith(reference));
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) {
      const listed = matches.slice(0, MAX_LISTED_CANDIDATES).join(", ");
      const more = matches.length > MAX_LISTED_CANDIDATES ? ` and ${matches.length - MAX_LISTED_CANDIDATES} more` : "";
      throw new InvalidArgumentError(
        `message id prefix ${JSON.stringify(reference)} fits ${matches.length} ids of ${session}: ${listed}${more}; give more characters`
      );
    }
  }
  const short = reference.length < MIN_PREFIX_LENGTH ? ` (a prefix needs at least ${MIN_PREFIX_LENGTH} characters)` : "";
  throw new NotFoundError(`no checkpoint or prompt ${JSON.stringify(reference)} in ${session}${short}; ${listCommand} shows them`);
}

// src/session/checkpoint.ts
import { randomUUID as randomUUID6 } from "crypto";

// src/session/checkpoint-records.ts
var CHECKPOINT_RECORD_TYPE = "fh-checkpoint";
function checkpointRecord(sessionId, mark) {
  return {
    type: CHECKPOINT_RECORD_TYPE,
    version: 1,
    sessionId,
    messageId: mark.messageId,
    kind: mark.kind,
    ...mark.label === void 0 ? {} : { label: mark.label },
    timestamp: mark.timestamp.toISOString()
  };
}
function parseCheckpointRecord(record) {
  if (record.type !== CHECKPOINT_RECORD_TYPE || record.version !== 1) return void 0;
  const { messageId, kind, label, timestamp } = record;
  if (typeof messageId !== "string" || messageId === "") return void 0;
  if (kind !== "end-of-turn" && kind !== "manual") return void 0;
  if (label !== void 0 && typeof label !== "string") return void 0;
  const time = typeof timestamp === "string" ? new Date(timestamp) : void 0;
  if (time === void 0 || Number.isNaN(time.getTime())) return void 0;
  return { messageId, kind, ...label === void 0 ? {} : { label }, timestamp: time };
}
function checkpointMarks(records) {
  const marks = /* @__PURE__ */ new Map();
  for (const record of records) {
    const mark = parseCheckpointRecord(record);
    if (mark !== void 0) marks.set(mark.messageId, mark);
  }
  return marks;
}

// src/session/checkpoint.ts
var MAX_CHECKPOINT_LABEL_LENGTH = 200;
function checkCheckpointLabel(label) {
  if (label.trim() === "") throw new InvalidArgumentError("the checkpoint label is empty; give some text or leave the label out; nothing was recorded");
  if (label.length > MAX_CHECKPOINT_LABEL_LENGTH) {
    throw new InvalidArgumentError(`the checkpoint label is ${label.length} characters, over the ${MAX_CHECKPOINT_LABEL_LENGTH} allowed; shorten it; nothing was recorded`);
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(label)) throw new InvalidArgumentError("the checkpoint label holds a control character; use printable characters only; nothing was recorded");
}
async function takeCheckpoint(history, options = {}) {
  if (options.label !== void 0) checkCheckpointLabel(options.label);
  const messageId = options.messageId ?? randomUUID6();
  const snapshot = await history.makeSnapshot(messageId);
  if (snapshot === void 0) return void 0;
  const mark = { messageId, kind: options.kind ?? "manual", ...options.label === void 0 ? {} : { label: options.label }, timestamp: snapshot.timestamp };
  await (options.log ?? history.store.sessionLog(history.sessionId)).append([checkpointRecord(history.sessionId, mark)]);
  return { messageId, snapshot, mark };
}

// src/session/rewind-session.ts
var CONVERSATION_MODES = /* @__PURE__ */ new Set(["both", "conversation", "summarize", "summarize_up_to"]);
var RewindSession = class {
  history;
  list;
  currentConversationId;
  summarize;
  undoStore;
  /** Journaled operations run one at a time, in call order. */
  serial = Promise.resolve();
  generateId;
  now;
  listeners = /* @__PURE__ */ new Set();
  outsideHistory;
  outsideUndo;
  unrecordedCheckpoints;
  onProgress;
  constructor(options) {
    this.onProgress = options.onProgress;
    this.unrecordedCheckpoints = options.unrecordedCheckpoints !== false;
    this.outsideHistory = options.outside?.history;
    const outsideUndo = options.outside?.undo;
    this.outsideUndo = this.outsideHistory === void 0 || outsideUndo === false ? void 0 : outsideUndo ?? { store: this.outsideHistory.store, sessionId: this.outsideHistory.sessionId };
    this.history = options.history;
    this.list = [...options.messages ?? []];
    this.summarize = options.summarize;
    this.undoStore = options.undo === false ? void 0 : options.undo ?? { store: options.history.store, sessionId: options.history.sessionId };
    this.generateId = options.generateId;
    this.now = options.now;
  }
  /** The conversation as it is now (after any restore). */
  get messages() {
    return this.list;
  }
  /** The conversation id the last rewind gave; undefined before any rewind. */
  get conversationId() {
    return this.currentConversationId;
  }
  /** Replace the conversation (a host calls this as turns are added). */
  setMessages(messages) {
    this.list = [...messages];
  }
  /** Listen for an event; returns a function that removes the listener. */
  on(event, listener) {
    if (event !== "messagesRemoved") throw new FhError(`unknown RewindSession event ${JSON.stringify(event)}`);
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
  /** The rewind picker's entries (see `selectableUserMessages`). */
  selectableMessages() {
    return selectableUserMessages(this.list);
  }
  /**
   * The full message id a person's short reference names (see `resolveMessageReference`): an
   * exact id, a turn number (`3`, `-1` for the newest checkpoint) or a unique prefix of a
   * checkpoint's or typed prompt's id. `listCommand` is what the errors tell the person to run.
   * Throws `InvalidArgumentError` (empty, ambiguous) or `NotFoundError` (names nothing), each
   * naming the session.
   */
  resolveReference(reference, options = {}) {
    return resolveMessageReference(reference, {
      sessionId: this.history.sessionId,
      checkpointIds: this.checkpointIds(),
      otherIds: this.selectableMessages().filter((entry) => !entry.isCurrentPrompt).map((entry) => entry.messageId),
      ...options.listCommand === void 0 ? {} : { listCommand: options.listCommand }
    });
  }
  /**
   * The message ids of the checkpoints a person is offered, oldest first, each once: what `fh list`
   * numbers as turns (see `offeredCheckpointIds` and {@link RewindSessionOptions.unrecordedCheckpoints}).
   */
  checkpointIds() {
    return offeredCheckpointIds(this.list, this.history.state.snapshots.map((snapshot) => snapshot.messageId), { unrecordedMessages: this.unrecordedCheckpoints });
  }
  /** The dry run of a code rewind (see `rewindPreview`; `agent` limits it to one agent's changes). */
  preview(messageId, options = {}) {
    return rewindPreview(this.history, messageId, this.onProgress === void 0 ? options : { ...options, onPhaseProgress: this.onProgress });
  }
  /**
   * The dry run of rewinding the session's files outside the project to `messageId`, paths
   * absolute; undefined when the session has none or no snapshot for `messageId` there.
   */
  async previewOutside(messageId) {
    const outside = this.outsideHistory;
    if (outside === void 0 || outside.state.trackedFiles.size === 0 || !outside.canRestore(messageId)) return void 0;
    return absolutePreview(await rewindPreview(outside, messageId));
  }
  /**
   * The restore menu for `messageId` (seed 000 §2): `both` (default), `conversation`, `code` when
   * the file history can restore it — followed, when sub-agents changed files in that turn, by one
   * "only this sub-agent's changes" option each (mode `code` with `agent`, see
   * {@link subagentOptions}) — else `conversation` (default); `summarize` and — when messages
   * precede it — `summarize_up_to` when a summariser was given; `nevermind` last. Each carries
   * its dry-run diff stats. For {@link CURRENT_PROMPT_ID} only `nevermind`.
   * Throws `NotFoundError`/`InvalidArgumentError` when `messageId` is not a typed prompt.
   */
  async restoreOptions(messageId) {
    const option = (mode, isDefault, diffStats = emptyDiffStats()) => ({
      mode,
      label: RESTORE_MODE_LABELS[mode],
      isDefault,
      diffStats
    });
    if (messageId === CURRENT_PROMPT_ID) return [option("nevermind", true)];
    const index = findSelectableMessageIndex(this.list, messageId);
    const options = [];
    if (this.history.canRestore(messageId)) {
      const stats = await this.preview(messageId);
      options.push(option("both", true, stats), option("conversation", false), option("code", false, stats), ...await this.subagentOptions(messageId));
    } else {
      options.push(option("conversation", true));
    }
    if (this.summarize !== void 0) {
      options.push(option("summarize", false));
      if (this.list.slice(0, index).some(isTranscriptMessage)) options.push(option("summarize_up_to", false));
    }
    options.push(option("nevermind", false));
    return options;
  }
  /**
   * The "only this sub-agent's changes" options of the checkpoint `messageId` (issue 14): one per
   * sub-agent that changed files in that turn (its snapshot's `changedBy`), in the order of their
   * first change, each mode `code` with `agent` and, in `diffStats`, the dry run of
   * `restore({ messageId, mode: 'code', agent: agentId })` (the agent's files; in
   * `diffStats.agent` the conflicts it would leave alone). Works for any checkpoint, recorded
   * prompt or not; `[]` when the turn had no sub-agent or there is no snapshot for `messageId`.
   */
  async subagentOptions(messageId) {
    const snapshot = findSnapshot(this.history.state, messageId);
    if (snapshot === void 0) return [];
    const options = [];
    for (const { agent } of turnAgentChanges(snapshot)) {
      if (agent.by !== "subagent") continue;
      options.push({ mode: "code", label: subagentOptionLabel(agent), isDefault: false, diffStats: await this.preview(messageId, { agent: agent.agentId }), agent });
    }
    return options;
  }
  /**
   * True when rewinding to `messageId` loses nothing (seed 000 §7): no file would change (or the
   * message has no snapshot) and every message after it is synthetic. A front end then rewinds
   * without asking. Throws like {@link restoreOptions} for a bad id.
   */
  async isLosslessRewind(messageId) {
    if (!isLosslessConversationRewind(this.list, messageId)) return false;
    if (!this.history.canRestore(messageId)) return true;
    return !await this.history.hasAnyChanges(messageId);
  }
  /**
   * Carry out a menu choice (seed 000 §2). Validates first and throws, changing nothing, when the
   * message is not a typed prompt of the conversation (conversation modes), has no snapshot (code
   * modes: `NotFoundError`), a needed backup is missing or the wrong size (`BackupMissingError`),
   * a path is not tracked, the undo point cannot be saved, or a summarize mode has no summariser.
   * Then `both` restores code, then the conversation, each on its own: a file that fails to
   * write is reported in `code.failed` and the conversation is still rewound. Before any file is
   * written, the files about to change are saved in an undo point (see {@link undoRewind}).
   */
  async restore(request) {
    const { messageId, mode } = request;
    const result = { messageId, mode, codeApplied: false, conversationApplied: false, listenerErrors: [] };
    if (mode === "nevermind") return result;
    if (!(mode in RESTORE_MODE_LABELS)) throw new InvalidArgumentError(`unknown restore mode ${JSON.stringify(mode)}`);
    if (CONVERSATION_MODES.has(mode)) findSelectableMessageIndex(this.list, messageId);
    if ((mode === "both" || mode === "code") && !this.history.canRestore(messageId)) {
      throw new NotFoundError(`no snapshot for message ${messageId}: its code cannot be restored`);
    }
    if ((mode === "summarize" || mode === "summarize_up_to") && this.summarize === void 0) {
      throw new InvalidArgumentError(`restore mode ${mode} needs a summarize callback (RewindSessionOptions.summarize)`);
    }
    if (request.paths !== void 0 && mode !== "both" && mode !== "code") {
      throw new InvalidArgumentError(`paths apply to the code modes only, not to ${mode}`);
    }
    if (request.agent !== void 0 && mode !== "both" && mode !== "code") {
      throw new InvalidArgumentError(`agent applies to the code modes only, not to ${mode}`);
    }
    const selection = request.agent === void 0 ? void 0 : selectAgentChanges(this.history.state, messageId, request.agent, {
      projectRoot: this.history.projectRoot,
      ...request.paths === void 0 ? {} : { paths: request.paths }
    });
    const paths = selection?.paths ?? request.paths;
    if (selection !== void 0) result.agent = selection;
    if (mode === "both" || mode === "code") {
      result.undoPoint = null;
      result.code = await this.serially(() => this.journaledRewind(messageId, paths === void 0 ? request : { ...request, paths }, result));
      if (selection !== void 0) result.code.skipped.push(...selection.conflicts.map(conflictSkip));
      result.codeApplied = result.code.failed.length === 0;
      const outside = selection === void 0 ? await this.restoreOutside(messageId, request) : void 0;
      if (outside !== void 0) {
        result.outside = outside;
        if (outside.code !== void 0 && outside.code.failed.length > 0) result.codeApplied = false;
      }
    }
    const events = [];
    const onMessagesRemoved = (event) => events.push(event);
    if (mode === "both" || mode === "conversation") {
      const rewind = rewindConversation(this.list, messageId, {
        onMessagesRemoved,
        ...this.generateId === void 0 ? {} : { generateId: this.generateId }
      });
      this.list = rewind.messages;
      this.currentConversationId = rewind.conversationId;
      result.conversation = rewind;
      result.conversationApplied = true;
    } else if (mode === "summarize" || mode === "summarize_up_to") {
      try {
        const compact = await partialCompact(this.list, messageId, {
          direction: mode,
          summarize: this.summarize,
          onMessagesRemoved,
          ...request.instructions === void 0 ? {} : { instructions: request.instructions },
          ...this.generateId === void 0 ? {} : { generateId: this.generateId },
          ...this.now === void 0 ? {} : { now: this.now }
        });
        this.list = compact.messages;
        result.compact = compact;
        result.conversationApplied = true;
      } catch (error) {
        result.conversationError = error instanceof Error ? error : new Error(String(error));
      }
    }
    for (const event of events) {
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch (error) {
          result.listenerErrors.push(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
    return result;
  }
  /** Every timeline point, oldest first; `[]` when undo is off. */
  async undoPoints() {
    return this.undoStore === void 0 ? [] : (await readTimeline(this.undoStore)).points;
  }
  /**
   * The session's timeline: every point (rewinds, undos, redos, recoveries) oldest first with its
   * status, the undo stack and its cursor (see `timeline.ts`). Empty when undo is off.
   */
  async timeline() {
    if (this.undoStore === void 0) return { points: [], steps: [], cursor: 0, pending: [] };
    return readTimeline(this.undoStore);
  }
  /**
   * Roll back any operation that was interrupted (see `recoverPending` in `undo.ts`); every
   * journaled operation does this first. Call it while holding the session's lock.
   */
  async recover() {
    const undo = this.requireUndo();
    return this.serially(() => recoverPending(this.history, undo, this.undoOptions()));
  }
  /**
   * Go back one point on the timeline (or to just before point `pointId`, an id or a prefix): put
   * back the files exactly as they were, saving the files it overwrites as a new point first (see
   * `undoRewind` in `undo.ts`). After an interrupted rewind, rolling it back is the undo. The
   * conversation is not changed. Throws `UnsupportedError` when undo is off, `NotFoundError` when
   * there is nothing to undo or no such point.
   */
  async undo(pointId) {
    const undo = this.requireUndo();
    return this.serially(() => undoRewind(this.history, undo, { ...this.undoOptions(), ...pointId === void 0 ? {} : { pointId } }));
  }
  /**
   * Go back one point on the timeline of the files outside the project (see
   * {@link RewindSessionOptions.outside}; rewinds with `includeOutside` journal there), or to just
   * before `pointId`; paths in the result are absolute. A timeline of its own: {@link undo} never
   * touches these files. Throws `UnsupportedError` when the session has no files outside the
   * project or their undo is off, `NotFoundError` when there is nothing to undo.
   */
  async undoOutside(pointId) {
    const outside = this.outsideHistory;
    const undo = this.outsideUndo;
    if (outside === void 0 || undo === void 0) {
      throw new UnsupportedError("this session has no files outside the project to undo (or their undo is off)");
    }
    const result = await this.serially(() => undoRewind(outside, undo, { ...this.undoOptions(), deleteOrphans: false, ...pointId === void 0 ? {} : { pointId } }));
    return {
      ...result,
      restored: result.restored.map(absoluteKey),
      deleted: result.deleted.map(absoluteKey),
      skipped: result.skipped.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })),
      failed: result.failed.map((entry) => ({ ...entry, path: absoluteKey(entry.path) }))
    };
  }
  /**
   * Take a checkpoint now (`manual` unless `options.kind` says otherwise): a snapshot of the
   * tracked files under a new message id, then its `fh-checkpoint` mark with `options.label` (see
   * `takeCheckpoint`). It is listed with the turns' checkpoints and can be rewound to like them.
   * Resolves with the checkpoint, or undefined when tracking is off. Throws `UnsupportedError`
   * when the history cannot make snapshots, `InvalidArgumentError` for a bad label (nothing is
   * recorded).
   */
  async checkpoint(options = {}) {
    const history = this.history;
    const makeSnapshot = history.makeSnapshot;
    if (makeSnapshot === void 0) throw new UnsupportedError("this RewindSession's history cannot make snapshots (give it a FileHistory)");
    const generateId = this.generateId;
    return this.serially(
      () => takeCheckpoint(
        { sessionId: history.sessionId, store: history.store, makeSnapshot: (messageId) => makeSnapshot.call(history, messageId) },
        { ...options, ...generateId === void 0 ? {} : { messageId: generateId() } }
      )
    );
  }
  /** {@link undo} under its older name. */
  async undoRewind(pointId) {
    return this.undo(pointId);
  }
  /**
   * Go forward one point: undo the last undo (see `redoRewind` in `undo.ts`). Throws
   * `UnsupportedError` when undo is off, `NotFoundError` when there is nothing to redo.
   */
  async redo() {
    const undo = this.requireUndo();
    return this.serially(() => redoRewind(this.history, undo, this.undoOptions()));
  }
  /**
   * Write the conversation, rewound to before `messageId` ({@link CURRENT_PROMPT_ID}: all of it),
   * as a new session of the history's store with the file history of the kept turns, so an agent
   * can resume it (see `forkSession`). The source session is only read. `onProgress` gets
   * `(done, total)` in backups carried. `records`: the whole transcript (abandoned branches,
   * parallel tool-call siblings) when the session's messages are only its current branch, so the
   * fork keeps every record of the branch. Default: the session's messages.
   */
  fork(messageId, options = {}) {
    return forkSession({
      store: this.history.store,
      sessionId: this.history.sessionId,
      projectRoot: this.history.projectRoot,
      messageId,
      records: options.records ?? this.list,
      state: this.history.state,
      ...options.sessionId === void 0 ? {} : { newSessionId: options.sessionId },
      ...options.now === void 0 ? {} : { now: options.now },
      ...options.onProgress === void 0 ? {} : { onProgress: options.onProgress }
    });
  }
  /** The outside half of a code restore: rewound with `includeOutside`, else only listed. */
  async restoreOutside(messageId, request) {
    const preview = await this.previewOutside(messageId);
    const outside = this.outsideHistory;
    if (preview === void 0 || outside === void 0) return void 0;
    if (request.includeOutside !== true) return { left: preview.filesChanged };
    const undo = this.outsideUndo;
    const result = { left: [], undoPoint: null };
    if (undo !== void 0) await recoverPending(outside, undo, { ...this.undoOptions(), deleteOrphans: false });
    const code = await outside.rewind(messageId, {
      ...undo === void 0 ? {} : {
        recoverFirst: false,
        beforeWrite: async (paths, plan) => {
          result.undoPoint = await capturePoint(
            outside,
            undo,
            { paths, operation: "rewind", messageId, plan: plannedEntries(plan), checkpoints: { store: outside.store, sessionId: outside.sessionId } },
            { ...this.undoOptions(), deleteOrphans: false }
          );
        }
      }
    });
    if (undo !== void 0 && result.undoPoint !== null && result.undoPoint !== void 0 && code.failed.length === 0) await completePoint(undo, result.undoPoint, this.undoOptions());
    result.code = {
      ...code,
      restored: code.restored.map(absoluteKey),
      deleted: code.deleted.map(absoluteKey),
      skipped: code.skipped.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })),
      failed: code.failed.map((entry) => ({ ...entry, path: absoluteKey(entry.path) }))
    };
    return result;
  }
  /**
   * The code half of a restore: roll back interrupted operations, then rewind, journaling a
   * `rewind` point (pre-images and plan) before the first write and its done record after the
   * last one succeeded. A rewind with failed files stays pending, so the next operation rolls it
   * back and `undo` reaches the state before it.
   */
  async journaledRewind(messageId, request, result) {
    const undo = this.undoStore;
    const paths = request.paths === void 0 ? {} : { paths: request.paths };
    if (undo === void 0) return this.history.rewind(messageId, { ...paths, ...this.onProgress === void 0 ? {} : { onProgress: this.onProgress } });
    const options = this.undoOptions();
    result.recovered = await recoverPending(this.history, undo, options);
    let point;
    const code = await this.history.rewind(messageId, {
      ...paths,
      ...this.onProgress === void 0 ? {} : { onProgress: this.onProgress },
      recoverFirst: false,
      beforeWrite: async (written, plan) => {
        point = await capturePoint(
          this.history,
          undo,
          { paths: written, operation: "rewind", messageId, plan: plannedEntries(plan), checkpoints: { store: this.history.store, sessionId: this.history.sessionId } },
          options
        );
        result.undoPoint = point;
        request.onUndoPointSaved?.(point);
      }
    }).catch(async (error) => {
      if (point !== void 0 && FhError.hasCode(error, "FH_BACKUP_MISSING")) {
        await abandonPoint(undo, point, options);
        result.undoPoint = null;
      }
      throw error;
    });
    if (point !== void 0 && code.failed.length === 0) await completePoint(undo, point, options);
    return code;
  }
  requireUndo() {
    if (this.undoStore === void 0) throw new UnsupportedError("undo is off for this RewindSession (options.undo is false)");
    return this.undoStore;
  }
  serially(task) {
    const run = this.serial.then(task, task);
    this.serial = run.catch(() => void 0);
    return run;
  }
  undoOptions() {
    return {
      deleteOrphans: this.undoStore !== void 0 && this.undoStore.store === this.history.store && this.undoStore.sessionId === this.history.sessionId && this.history.holdsLock === true,
      sessionLocked: this.history.holdsLock === true,
      ...this.onProgress === void 0 ? {} : { onProgress: this.onProgress },
      ...this.generateId === void 0 ? {} : { generateId: this.generateId },
      ...this.now === void 0 ? {} : { now: this.now }
    };
  }
};
function plannedEntries(plan) {
  return plan.map(
    (write) => write.backupFileName === null ? { path: write.path, kind: "missing", backupFileName: null, mode: null } : { path: write.path, kind: "file", backupFileName: write.backupFileName, mode: write.mode, ...write.size === void 0 ? {} : { size: write.size } }
  );
}
function absoluteKey(path) {
  return path.startsWith("/") ? path : `/${path}`;
}
function absolutePreview(preview) {
  return {
    ...preview,
    filesChanged: preview.filesChanged.map(absoluteKey),
    files: preview.files.map((file) => ({ ...file, path: absoluteKey(file.path) })),
    changedSinceLatestSnapshot: preview.changedSinceLatestSnapshot.map(absoluteKey),
    ...preview.skipped === void 0 ? {} : { skipped: preview.skipped.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })) },
    ...preview.failed === void 0 ? {} : { failed: preview.failed.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })) },
    ...preview.missing === void 0 ? {} : { missing: preview.missing.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })) }
  };
}

// src/session/undo-preview.ts
import pLimit4 from "p-limit";
async function lstatOrUndefined4(workspace, path) {
  try {
    return await workspace.fs.lstat(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return void 0;
    throw error;
  }
}
async function undoEntryBytes(undo, entry) {
  if (entry.kind !== "file") return null;
  const chunks = [];
  for await (const chunk of await undo.store.openBackup(undo.sessionId, entry.backupFileName)) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
async function undoDiffStats(workspace, undo, pointId, options = {}) {
  const warnings = options.onWarning === void 0 ? {} : { onWarning: options.onWarning };
  const timeline = await readTimeline(undo, warnings);
  const point = findPoint(timeline, pointId, undo.sessionId);
  const entries = await previewUndo(workspace, undo, point.undoId, { ...warnings, ...options.onProgress === void 0 ? {} : { onProgress: options.onProgress } });
  const cap = options.diffSizeCapBytes ?? DEFAULT_DIFF_SIZE_CAP_BYTES;
  const deadline = Date.now() + DIFF_BUDGET_MS;
  const files = [];
  const damaged = await damagedPreImages(undo, entries);
  const counting = startPhase(options.onProgress, "counting", entries.length);
  for (const entry of entries) {
    if (damaged.has(entry.path)) {
      counting.file();
      continue;
    }
    const absolutePath = toAbsolutePath(workspace.projectRoot, entry.path);
    const current = await lstatOrUndefined4(workspace, absolutePath);
    const status = entry.kind === "missing" ? "created" : current === void 0 ? "deleted" : "modified";
    const stat = { path: entry.path, status, insertions: 0, deletions: 0, binary: false };
    const currentIsFile = current?.isFile() === true;
    if (entry.kind === "file" || entry.kind === "missing" && currentIsFile) {
      const tooLarge = (entry.size ?? 0) > cap || currentIsFile && Number(current?.size ?? 0) > cap;
      if (tooLarge) stat.tooLarge = true;
      else {
        const before = currentIsFile ? await workspace.fs.readFile(absolutePath) : null;
        const after = await undoEntryBytes(undo, entry);
        const sameBytes2 = before !== null && after !== null && Buffer.compare(Buffer.from(before), Buffer.from(after)) === 0;
        if (sameBytes2) stat.modeOnly = true;
        else {
          const timeoutMs = Math.max(MIN_DIFF_TIMEOUT_MS, Math.min(DIFF_TIMEOUT_MS, deadline - Date.now()));
          const lines = countLineChanges(before, after, timeoutMs);
          if (lines === void 0) stat.tooManyChanges = true;
          else if (lines.binary) stat.binary = true;
          else {
            stat.insertions = lines.insertions;
            stat.deletions = lines.deletions;
          }
        }
      }
    }
    files.push(stat);
    counting.file();
  }
  const stats = {
    filesChanged: files.map((file) => file.path),
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    files,
    skipped: [],
    failed: [...damaged.values()].map((entry) => ({ path: entry.path, reason: `backup ${entry.backupFileName} damaged: ${entry.reason}` })),
    missing: [...damaged.values()]
  };
  return { point, entries, stats };
}
async function damagedPreImages(undo, entries) {
  const limit = pLimit4(8);
  const hashed = entries.filter((entry) => entry.kind === "file" && entry.sha256 !== void 0 && entry.size !== void 0);
  const checks = await Promise.all(
    hashed.map((entry) => limit(() => checkBackupBytes(undo.store, undo.sessionId, entry.backupFileName, entry.sha256, entry.size)))
  );
  const damaged = /* @__PURE__ */ new Map();
  hashed.forEach((entry, index) => {
    const check = checks[index];
    if (isDamaged(check)) damaged.set(entry.path, { path: entry.path, backupFileName: entry.backupFileName, reason: describeDamage(check) });
  });
  return damaged;
}

// src/attribution/transcript-edits.ts
var EDIT_TOOLS = { Edit: "file_path", Write: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path" };
function isObject4(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function contentBlocks2(record) {
  const message = record.message;
  if (!isObject4(message) || !Array.isArray(message.content)) return [];
  return message.content.filter(isObject4);
}
function editsFromTranscript(records, agent = MAIN_AGENT) {
  const failed = /* @__PURE__ */ new Set();
  const calls = [];
  for (const record of records) {
    if (!isObject4(record)) continue;
    if (record.type === "user") {
      for (const block of contentBlocks2(record)) {
        if (block.type === "tool_result" && block.is_error === true && typeof block.tool_use_id === "string") failed.add(block.tool_use_id);
      }
      continue;
    }
    if (record.type !== "assistant") continue;
    const at = typeof record.timestamp === "string" ? new Date(Date.parse(record.timestamp)) : void 0;
    if (at === void 0 || Number.isNaN(at.getTime())) continue;
    let recordAgent = agent;
    if (typeof record.agentId === "string" && record.agentId !== "") {
      const type = typeof record.attributionAgent === "string" ? record.attributionAgent : agent.by === "subagent" ? agent.agentType : void 0;
      recordAgent = agentFromIds(record.agentId, type);
    } else if (record.isSidechain === true && agent.by === "main") {
      continue;
    }
    for (const block of contentBlocks2(record)) {
      if (block.type !== "tool_use" || typeof block.name !== "string") continue;
      const field = EDIT_TOOLS[block.name];
      if (field === void 0 || !isObject4(block.input)) continue;
      const path = block.input[field];
      if (typeof path !== "string" || path === "") continue;
      calls.push({ path, agent: recordAgent, at, tool: block.name, id: typeof block.id === "string" ? block.id : void 0 });
    }
  }
  return calls.filter((call) => call.id === void 0 || !failed.has(call.id)).map(({ id: _id, ...edit }) => edit);
}
function subagentTypesFromTranscript(records) {
  const requested = /* @__PURE__ */ new Map();
  const types = /* @__PURE__ */ new Map();
  for (const record of records) {
    if (!isObject4(record)) continue;
    if (record.type === "assistant") {
      for (const block of contentBlocks2(record)) {
        if (block.type === "tool_use" && typeof block.id === "string" && isObject4(block.input) && typeof block.input.subagent_type === "string") {
          requested.set(block.id, block.input.subagent_type);
        }
      }
      continue;
    }
    if (record.type !== "user" || !isObject4(record.toolUseResult)) continue;
    const result = record.toolUseResult;
    if (typeof result.agentId !== "string" || result.agentId === "") continue;
    if (typeof result.agentType === "string" && result.agentType !== "") {
      types.set(result.agentId, result.agentType);
      continue;
    }
    for (const block of contentBlocks2(record)) {
      const type = block.type === "tool_result" && typeof block.tool_use_id === "string" ? requested.get(block.tool_use_id) : void 0;
      if (type !== void 0) types.set(result.agentId, type);
    }
  }
  return types;
}
function attributeEdits(state, edits, options) {
  const snapshots = [...state.snapshots];
  const copied = /* @__PURE__ */ new Set();
  const untracked = [];
  const ordered = edits.map((edit, index) => ({ edit, index })).sort((a, b) => a.edit.at.getTime() - b.edit.at.getTime() || a.index - b.index);
  for (const { edit } of ordered) {
    let trackingPath;
    try {
      trackingPath = toTrackingPath(options.projectRoot, edit.path);
    } catch {
      continue;
    }
    const turn = turnAt(snapshots, edit.at.getTime());
    const snapshot = turn === -1 ? void 0 : snapshots[turn];
    const entry = snapshot?.trackedFileBackups[trackingPath];
    if (snapshot === void 0 || entry === void 0) {
      untracked.push({ ...edit, trackingPath });
      continue;
    }
    const attributed = withAttribution(entry, attributionFor(edit.agent, edit.at));
    if (attributed === entry) continue;
    let target = snapshot;
    if (!copied.has(turn)) {
      target = { ...snapshot, trackedFileBackups: { ...snapshot.trackedFileBackups } };
      snapshots[turn] = target;
      copied.add(turn);
    }
    target.trackedFileBackups[trackingPath] = attributed;
  }
  return { state: { ...state, snapshots }, untracked };
}
function turnAt(snapshots, time) {
  let low = 0;
  let high = snapshots.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = low + high >> 1;
    if (snapshots[middle].timestamp.getTime() <= time) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

// src/transcript/base-folders.ts
import { isAbsolute as isAbsolute6, relative as relative6, resolve as resolve5, sep as sep6 } from "path";
function isObject5(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function isInside2(root, folder) {
  const inside = relative6(root, folder);
  return inside === "" || inside !== ".." && !inside.startsWith(`..${sep6}`) && !isAbsolute6(inside);
}
function baseFolderTracker(options) {
  const recordedRoot = resolve5(options.recordedRoot);
  const projectRoot = resolve5(options.projectRoot ?? options.recordedRoot);
  const mapped = (folder) => {
    if (folder === recordedRoot) return projectRoot;
    if (isInside2(projectRoot, folder)) return folder;
    const inside = relative6(recordedRoot, folder);
    if (inside !== "" && !inside.startsWith(`..${sep6}`) && inside !== ".." && !isAbsolute6(inside)) return resolve5(projectRoot, inside);
    return folder;
  };
  const worktrees = /* @__PURE__ */ new Set();
  let base = projectRoot;
  return (record) => {
    if (!isObject5(record)) return base;
    if (record.type === WORKTREE_STATE_RECORD_TYPE) {
      const session = record.worktreeSession;
      if (session === null) {
        base = projectRoot;
      } else if (isObject5(session) && typeof session.worktreePath === "string" && isAbsolute6(session.worktreePath)) {
        const worktree = resolve5(session.worktreePath);
        worktrees.add(worktree);
        base = mapped(worktree);
      }
      return base;
    }
    const cwd = record.cwd;
    if (typeof cwd === "string" && isAbsolute6(cwd)) {
      const folder = resolve5(cwd);
      if (folder === recordedRoot) base = projectRoot;
      else if (worktrees.has(folder)) base = mapped(folder);
    }
    return base;
  };
}

// src/transcript/outside-files.ts
import { posix as posix2 } from "path";
var OUTSIDE_ROOT = "/";
function projectKey(key, prefixes) {
  for (const prefix of prefixes) {
    if (prefix === "") return key;
    if (key.startsWith(prefix)) return key.slice(prefix.length);
  }
  return void 0;
}
function splitSnapshot(snapshot, prefixes) {
  const inside = {};
  const outside = {};
  for (const [key, backup] of Object.entries(snapshot.trackedFileBackups)) {
    const mapped = projectKey(key, prefixes);
    if (mapped === void 0) outside[key] = backup;
    else if (inside[mapped] === void 0 || inside[mapped].version < backup.version) inside[mapped] = backup;
  }
  return [
    { messageId: snapshot.messageId, timestamp: snapshot.timestamp, trackedFileBackups: inside },
    { messageId: snapshot.messageId, timestamp: snapshot.timestamp, trackedFileBackups: outside }
  ];
}
function restoreStateWithOutside(records, options) {
  if (typeof options.projectRoot !== "string" || !posix2.isAbsolute(options.projectRoot)) {
    throw new InvalidArgumentError(`projectRoot must be an absolute POSIX path, got ${JSON.stringify(options.projectRoot)}`);
  }
  const root = posix2.resolve(options.projectRoot);
  const baseFolder = options.baseFolder ?? (() => root);
  const whole = restoreStateFromLog(records, {
    projectRoot: OUTSIDE_ROOT,
    baseFolder,
    ...options.onWarning === void 0 ? {} : { onWarning: options.onWarning },
    ...options.maxSnapshots === void 0 ? {} : { maxSnapshots: options.maxSnapshots }
  });
  const prefixOf = (folder) => folder === OUTSIDE_ROOT ? "" : `${folder.slice(1)}/`;
  const recorded = options.recordedRoot === void 0 ? root : posix2.resolve(options.recordedRoot);
  const prefixes = recorded === root ? [prefixOf(root)] : [prefixOf(root), prefixOf(recorded)];
  const projectSnapshots = [];
  const outsideSnapshots = [];
  for (const snapshot of whole.snapshots) {
    const [inside, outside] = splitSnapshot(snapshot, prefixes);
    projectSnapshots.push(inside);
    outsideSnapshots.push(outside);
  }
  const projectFiles = /* @__PURE__ */ new Set();
  const outsideFiles = /* @__PURE__ */ new Set();
  for (const key of whole.trackedFiles) {
    const mapped = projectKey(key, prefixes);
    if (mapped === void 0) outsideFiles.add(key);
    else projectFiles.add(mapped);
  }
  return {
    project: { snapshots: projectSnapshots, trackedFiles: projectFiles, snapshotSequence: whole.snapshotSequence },
    outside: { snapshots: outsideSnapshots, trackedFiles: outsideFiles, snapshotSequence: whole.snapshotSequence },
    outsideFiles: [...outsideFiles].map((key) => `/${key}`).sort()
  };
}

// src/transcript/chain-records.ts
var FH_STATE_TYPES = /* @__PURE__ */ new Set(["fh-snapshot", "fh-session"]);
function isObject6(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function nonEmpty(value) {
  return typeof value === "string" && value !== "" ? value : void 0;
}
function fileHistoryRecordKey(record) {
  if (!isObject6(record)) return void 0;
  if (record.type === "file-history-snapshot") {
    return nonEmpty(record.messageId) ?? (isObject6(record.snapshot) ? nonEmpty(record.snapshot.messageId) : void 0);
  }
  if (record.type === "file-history-delta") return nonEmpty(record.messageId) ?? nonEmpty(record.snapshotMessageId);
  return void 0;
}
function chainFileHistoryRecords(records) {
  const conversation = records;
  const fileHistory = records.filter((record) => fileHistoryRecordKey(record) !== void 0);
  const fhWritten = conversation.some((record) => isObject6(record) && record.type === "fh-snapshot");
  if (fhWritten || !conversation.some((record) => isObject6(record) && isTranscriptMessage(record))) {
    return records.filter((record) => fileHistoryRecordKey(record) !== void 0 || isObject6(record) && FH_STATE_TYPES.has(record.type));
  }
  const snapshotByKey = /* @__PURE__ */ new Map();
  const deltasByKey = /* @__PURE__ */ new Map();
  for (const record of fileHistory) {
    const key = fileHistoryRecordKey(record);
    if (record.type === "file-history-snapshot") snapshotByKey.set(key, record);
    else {
      const deltas = deltasByKey.get(key);
      if (deltas === void 0) deltasByKey.set(key, [record]);
      else deltas.push(record);
    }
  }
  const picked = [];
  for (const message of branchWithParallelParts(conversation)) {
    const snapshot = snapshotByKey.get(message.uuid);
    if (snapshot !== void 0) picked.push(snapshot);
    for (const delta of deltasByKey.get(message.uuid) ?? []) picked.push(delta);
  }
  return picked;
}

// src/verify/verify-session.ts
import pLimit5 from "p-limit";
async function verifySession(options) {
  const { store, sessionId } = options;
  const records = options.records ?? (await store.sessionLog(sessionId).read()).records;
  const references = /* @__PURE__ */ new Map();
  const refer = (recorded, path) => {
    let reference = references.get(recorded.backupFileName);
    if (reference === void 0) {
      reference = { recorded: { backupFileName: recorded.backupFileName }, paths: /* @__PURE__ */ new Set(), checkpoints: /* @__PURE__ */ new Set(), points: /* @__PURE__ */ new Set() };
      references.set(recorded.backupFileName, reference);
    }
    if (reference.recorded.size === void 0 && recorded.size !== void 0) reference.recorded.size = recorded.size;
    if (reference.recorded.sha256 === void 0 && recorded.sha256 !== void 0) reference.recorded.sha256 = recorded.sha256;
    reference.paths.add(path);
    return reference;
  };
  const referCheckpoint = (path, backup, messageId) => {
    if (backup.error !== void 0 || backup.backupFileName === null) return;
    refer({ backupFileName: backup.backupFileName, ...optional(backup.size, backup.sha256) }, path).checkpoints.add(messageId);
  };
  const state = restoreStateFromLog(records, { projectRoot: options.projectRoot, ...options.onWarning === void 0 ? {} : { onWarning: options.onWarning } });
  const lastIndex = new Map(state.snapshots.map((snapshot, index) => [snapshot.messageId, index]));
  const later = /* @__PURE__ */ new Map();
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const snapshot = state.snapshots[index];
    const own = snapshot.trackedFileBackups;
    if (lastIndex.get(snapshot.messageId) === index) {
      for (const [path, backup] of later) if (own[path] === void 0) referCheckpoint(path, backup, snapshot.messageId);
      for (const [path, backup] of Object.entries(own)) referCheckpoint(path, backup, snapshot.messageId);
    }
    for (const [path, backup] of Object.entries(own)) later.set(path, backup);
  }
  for (const point of readTimelinePoints(records, options.onWarning)) {
    if (point.status === "abandoned") continue;
    for (const entry of point.entries) {
      if (entry.kind !== "file" || entry.backupFileName === null) continue;
      refer({ backupFileName: entry.backupFileName, ...optional(entry.size, entry.sha256) }, entry.path).points.add(point.undoId);
    }
  }
  const names = [...references.keys()].sort();
  const limit = pLimit5(options.concurrency ?? 8);
  let done = 0;
  const checks = await Promise.all(
    names.map(
      (name) => limit(async () => {
        const check = await checkBackup(store, sessionId, references.get(name).recorded);
        done += 1;
        options.onProgress?.(done, names.length);
        return check;
      })
    )
  );
  const result = { sessionId, checked: names.length, ok: 0, unverifiable: 0, damaged: [], brokenCheckpoints: [], brokenPoints: [], bytesHashed: 0 };
  const brokenCheckpoints = /* @__PURE__ */ new Set();
  const brokenPoints = /* @__PURE__ */ new Set();
  names.forEach((name, index) => {
    const check = checks[index];
    const reference = references.get(name);
    if (check.status === "ok") {
      result.ok += 1;
      result.bytesHashed += check.size;
    } else if (check.status === "unverifiable") result.unverifiable += 1;
    if (!isDamaged(check)) return;
    if (check.status === "hash") result.bytesHashed += reference.recorded.size ?? 0;
    for (const id of reference.checkpoints) brokenCheckpoints.add(id);
    for (const id of reference.points) brokenPoints.add(id);
    result.damaged.push({
      backupFileName: name,
      status: check.status,
      problem: describeDamage(check),
      paths: [...reference.paths].sort(),
      checkpoints: [...reference.checkpoints].sort((a, b) => (lastIndex.get(a) ?? 0) - (lastIndex.get(b) ?? 0)),
      points: [...reference.points]
    });
  });
  result.brokenCheckpoints = [...new Set(state.snapshots.map((snapshot) => snapshot.messageId))].filter((id) => brokenCheckpoints.has(id));
  result.brokenPoints = readTimelinePoints(records).map((point) => point.undoId).filter((id) => brokenPoints.has(id));
  return result;
}
function optional(size, sha256) {
  return { ...size === void 0 ? {} : { size }, ...sha256 === void 0 ? {} : { sha256 } };
}

// src/state/tail-mentions.ts
function mayHold(value, keys) {
  return typeof value !== "object" || value === null || keys.some((key) => Object.hasOwn(value, key));
}
function tailMayTrack(tail, projectRoot, key) {
  const anchor = tailAnchor(tail);
  if (anchor === void 0) return void 0;
  const keys = [key, `./${key}`, projectRoot.endsWith("/") ? `${projectRoot}${key}` : `${projectRoot}/${key}`];
  for (let index = anchor; index < tail.length; index += 1) {
    const record = tail[index];
    if (typeof record !== "object" || record === null) continue;
    const { type } = record;
    if (type === FH_SNAPSHOT_RECORD_TYPE && mayHold(record.entries, keys)) return true;
    if (type === "file-history-delta" && keys.includes(record.trackingPath)) return true;
    if (type === "file-history-snapshot") {
      const snapshot = record.snapshot;
      if (typeof snapshot !== "object" || snapshot === null || mayHold(snapshot.trackedFileBackups, keys)) return true;
    }
  }
  return false;
}
export {
  BACKUP_FILE_NAME_PATTERN,
  BackupMissingError,
  CHAIN_MESSAGE_TYPES,
  CHECKPOINT_RECORD_TYPE,
  COMMAND_WINDOW_RECORD_VERSION,
  COMPACT_CONTINUATION_PREFIX,
  CURRENT_PROMPT_ID,
  ConflictError,
  CorruptError,
  DEFAULT_COMMAND_MAX_COMMAND_BYTES,
  DEFAULT_COMMAND_MAX_FILE_BYTES,
  DEFAULT_COMMAND_MAX_TOTAL_BYTES,
  DEFAULT_CONCURRENCY,
  DEFAULT_DIFF_SIZE_CAP_BYTES,
  DEFAULT_TIMESTAMP_GRANULARITY_MS,
  DIFF_BUDGET_MS,
  DIFF_TIMEOUT_MS,
  DISABLE_ENV_VARIABLE,
  FH_SESSION_RECORD_TYPE,
  FH_SNAPSHOT_RECORD_TYPE,
  FH_SNAPSHOT_RECORD_VERSION,
  FORK_CARRIED_TYPES,
  FULL_SNAPSHOT_RECORD_EVERY,
  FhError,
  FileHistory,
  InvalidArgumentError,
  LINE_BATCH_BYTES,
  LOG_HEAD_BYTES,
  LOG_TAIL_BYTES_STEPS,
  LockedError,
  MAIN_AGENT,
  MAX_CHECKPOINT_LABEL_LENGTH,
  MAX_LOG_LINE_BYTES,
  MAX_SNAPSHOTS,
  METADATA_CONCURRENCY_FACTOR,
  MIN_DIFF_TIMEOUT_MS,
  MIN_PREFIX_LENGTH,
  MISSING_FACTS,
  MemoryCommandJournal,
  NON_PROMPT_TAGS,
  NotFoundError,
  OUTSIDE_ROOT,
  OutsideRootError,
  POINTS_PRUNED_RECORD_TYPE,
  POINT_DONE_RECORD_TYPE,
  POINT_RECORD_TYPE,
  PermissionError,
  RESTORE_MODE_LABELS,
  RecordTimes,
  ResumeBackupsMissingError,
  RewindSession,
  SCAN_LIMIT_CODE,
  SNAPSHOT_UPDATE_MAX_FILES,
  SUMMARY_BUDGET_MS,
  SUMMARY_LINE_CAP_BYTES,
  SYNTHETIC_MESSAGE_TEXTS,
  StateRebuilder,
  TAIL_REBUILD_BYTES_STEPS,
  TAIL_REBUILD_MAX_BYTES,
  TIMELINE_FORMAT_VERSION,
  UNDO_POINT_RECORD_TYPE,
  UNDO_POINT_REMOVED_RECORD_TYPE,
  UnavailableError,
  UnsupportedError,
  WORKTREE_STATE_RECORD_TYPE,
  abandonPoint,
  adoptBackupEntry,
  agentFromIds,
  agentKey,
  agentOf,
  agentsSince,
  assertWorktreePlacement,
  attachSnapshotRecord,
  attachmentRecords,
  attributeEdits,
  attributionFor,
  backupFileName,
  backupTimeMs,
  backupsToDelete,
  baseFolderTracker,
  beginCommand,
  branchWithParallelParts,
  buildTimeline,
  byteLines,
  capturePoint,
  captureState,
  chainFileHistoryRecords,
  changedTrackingPaths,
  checkBackup,
  checkBackupBytes,
  checkCheckpointLabel,
  checkFileChanged,
  checkpointMarks,
  checkpointRecord,
  cleanup,
  compareMetadata,
  compareWindows,
  completePoint,
  conflictSkip,
  contentBlocks,
  copyFileHistoryForResume,
  countLineChanges,
  createFileHistoryContext,
  currentBranch,
  currentBranchRecords,
  deltaRecord,
  describeAgent,
  describeDamage,
  diffSnapshotRecord,
  editsFromTranscript,
  emptyDiffStats,
  emptyFileHistoryState,
  endCommand,
  endOpenCommands,
  entryChangedBy,
  errnoCode,
  factsOf,
  fhSessionRecord,
  fhSnapshotRecordHead,
  fileHistoryCanRestore,
  fileHistoryGetDiffStats,
  fileHistoryHasAnyChanges,
  fileHistoryMakeSnapshot,
  fileHistoryRecordHead,
  fileHistoryRecordKey,
  fileHistoryRewind,
  fileHistoryTrackEdit,
  findPoint,
  findSelectableMessageIndex,
  findWorktreeState,
  forkSession,
  formatJsonl,
  fullSnapshotRecord,
  hashWorkspaceFile,
  isBackupFileName,
  isBase64ImageBlock,
  isCleanKey,
  isCommandOrOutputMessage,
  isDamaged,
  isDeltaByteLine,
  isLosslessConversationRewind,
  isRetainable,
  isSelectableUserMessage,
  isSyntheticMessage,
  isTextBlock,
  isToolResultBlock,
  isToolResultMessage,
  isToolUseBlock,
  isTranscriptMessage,
  isTurnNumber,
  isUndoBackupName,
  isValidBranchName,
  latestSnapshotFromLog,
  latestSnapshotFromTail,
  latestStateFromTail,
  lineText,
  listUndoPoints,
  liveUndoPoints,
  mayHoldPoints,
  messageIds,
  messageText,
  messagesAfterAreOnlySynthetic,
  normalizeProjectRoot,
  offeredCheckpointIds,
  parseBackupEntry,
  parseChangedBy,
  parseCheckpointRecord,
  parseFhSessionRecord,
  parseFhSnapshotRecord,
  parseFileHistoryRecord,
  parseJsonl,
  parseJsonlLine,
  parseLines,
  parsePointRecord,
  parsePointSummary,
  parseRecordTime,
  parseUndoEntry,
  parseUndoPointRecord,
  parseWorktreeSession,
  partialCompact,
  permissionBits,
  planFork,
  planWorktreeExit,
  planWorktreeRestore,
  planWorktreeRewind,
  pointDoneRecord,
  pointRecord,
  pointsPrunedRecord,
  prepareTrackEdit,
  previewUndo,
  promptForResubmit,
  prunePoints,
  readLogEnds,
  readLogLines,
  readTimeline,
  readTimelinePoints,
  realPathOrNearest,
  rebuildFromTail,
  rebuildStateFromBytes,
  rebuildStateFromLog,
  recoverPending,
  redoRewind,
  redoStep,
  removeLeftoverTemporaryFiles,
  resolveAgent,
  resolveCommandLimits,
  resolveMessageReference,
  restoreStateFromLog,
  restoreStateWithOutside,
  restoredMode,
  rewindConversation,
  rewindPreview,
  rewindRefusals,
  sameAgent,
  sameFacts,
  selectAgentChanges,
  selectablePromptIds,
  selectableUserMessages,
  setStateBookkeeping,
  snapshotFileBackups,
  snapshotFilesChangedEvent,
  snapshotOwner,
  snapshotRecord,
  sniffByteLine,
  sniffFhSnapshotLine,
  sortedPaths,
  startPhase,
  stateBefore,
  subagentOptionLabel,
  subagentTypesFromTranscript,
  summarizePoint,
  tailAnchor,
  tailMayTrack,
  takeCheckpoint,
  timelineRows,
  timelineSize,
  toAbsolutePath,
  toTrackingPath,
  translateFsError,
  translateSourceError,
  turnAgentChanges,
  turnReplyText,
  undoBackupFileName,
  undoDiffStats,
  undoEntryBytes,
  undoPointRecord,
  undoPointRemovedRecord,
  undoRewind,
  undoStep,
  userMessageRecord,
  verifySession,
  withAttribution,
  withoutAttribution,
  workspaceFileEquals,
  worktreeSnapshotMessageIds,
  worktreeStateRecord
};
//# sourceMappingURL=index.js.map