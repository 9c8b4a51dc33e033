// The budgets of parsing one ISO image: how much directory data, how many directory records,
// how many Rock Ridge (SUSP) bytes and which continuation areas one image may make the parser
// read, and for how long. Crafted images (issue 15: many records sharing one chain of
// continuation areas, each decoding to megabytes of names) are refused with a
// BudgetExceededError naming the budget, long before they cost real memory or time.
//
// Does: count, remember visited continuation areas, check a deadline, and throw typed errors.
// Does NOT: read anything, or decide what happens to an image over budget (src/images marks it
// failed and does not retry it until its configuration changes).
//
// Real CoreOS live ISOs (RHCOS, FCOS; x86_64, aarch64, ppc64le, s390x) have a few hundred
// directory records, names under 100 bytes and at most a few KiB of SUSP data per directory;
// every limit below leaves more than a hundredfold margin.

import { FormatError } from '../errors.js';

/** Bytes of one Rock Ridge name. Linux allows 255-byte names; 1 KiB leaves room for any encoding. */
export const MAX_ROCK_RIDGE_NAME_BYTES = 1024;
/** SUSP bytes (System Use areas plus continuation areas) scanned for one directory. */
export const MAX_SUSP_BYTES_PER_DIRECTORY = 2 * 1024 * 1024;
/** SUSP bytes scanned for the whole image; also bounds the memory all Rock Ridge names can take. */
export const MAX_SUSP_BYTES_PER_IMAGE = 8 * 1024 * 1024;
/** Directory extent bytes read for the whole image (each directory is cached once read). */
export const MAX_DIRECTORY_BYTES_PER_IMAGE = 32 * 1024 * 1024;
/** Directory records listed for the whole image: bounds the entries kept in memory. */
export const MAX_DIRECTORY_RECORDS_PER_IMAGE = 200_000;
/** Visits of one continuation area per image: real images give every record its own area. */
export const MAX_VISITS_PER_CONTINUATION_AREA = 1;
/** Wall-clock time for parsing one image; a real one takes milliseconds (cold disk: well under a second). */
export const PARSE_TIME_BUDGET_MS = 20_000;

export type BudgetName =
  | 'rock-ridge-name-bytes'
  | 'susp-bytes-per-directory'
  | 'susp-bytes-per-image'
  | 'continuation-area-revisited'
  | 'directory-bytes-per-image'
  | 'directory-records-per-image'
  | 'parse-time';

/** An image made the parser exceed one of its budgets; `budget` says which. */
export class BudgetExceededError extends FormatError {
  readonly budget: BudgetName;
  /** What was exceeded, without the image and budget names. */
  readonly detail: string;

  constructor(budget: BudgetName, path: string, detail: string, context: Record<string, unknown> = {}) {
    super(`parsing ${path}: budget ${budget} exceeded: ${detail}`, { ...context, path, budget });
    this.budget = budget;
    this.detail = detail;
  }
}

export interface ParseBudgetLimits {
  nameBytes: number;
  suspBytesPerDirectory: number;
  suspBytesPerImage: number;
  directoryBytesPerImage: number;
  directoryRecordsPerImage: number;
  visitsPerContinuationArea: number;
  timeMs: number;
}

export const DEFAULT_PARSE_BUDGET: ParseBudgetLimits = {
  nameBytes: MAX_ROCK_RIDGE_NAME_BYTES,
  suspBytesPerDirectory: MAX_SUSP_BYTES_PER_DIRECTORY,
  suspBytesPerImage: MAX_SUSP_BYTES_PER_IMAGE,
  directoryBytesPerImage: MAX_DIRECTORY_BYTES_PER_IMAGE,
  directoryRecordsPerImage: MAX_DIRECTORY_RECORDS_PER_IMAGE,
  visitsPerContinuationArea: MAX_VISITS_PER_CONTINUATION_AREA,
  timeMs: PARSE_TIME_BUDGET_MS,
};

/** The SUSP bytes charged to one directory while it is being listed. */
export class DirectoryCharge {
  suspBytes = 0;
}

/** What one image has spent so far; one instance per opened image. */
export class ParseBudget {
  readonly limits: ParseBudgetLimits;
  private readonly deadline: number;
  private suspBytes = 0;
  private directoryBytes = 0;
  private directoryRecords = 0;
  private readonly visits = new Map<string, number>();

  constructor(
    limits: Partial<ParseBudgetLimits> = {},
    /** The image, for messages. */
    readonly path = 'ISO image',
    now = Date.now(),
  ) {
    this.limits = { ...DEFAULT_PARSE_BUDGET, ...limits };
    this.deadline = now + this.limits.timeMs;
  }

  private over(budget: BudgetName, message: string, context: Record<string, unknown>): BudgetExceededError {
    return new BudgetExceededError(budget, this.path, message, context);
  }

  /** Throws once the image has taken longer than its time budget. */
  checkTime(): void {
    if (Date.now() > this.deadline) {
      throw this.over('parse-time', `parsing took longer than ${this.limits.timeMs} ms`, {
        limitMs: this.limits.timeMs,
      });
    }
  }

  /** Charges a directory extent about to be read. */
  chargeDirectory(bytes: number): void {
    this.checkTime();
    this.directoryBytes += bytes;
    if (this.directoryBytes > this.limits.directoryBytesPerImage) {
      throw this.over(
        'directory-bytes-per-image',
        `directories of more than ${this.limits.directoryBytesPerImage} bytes in all`,
        { limit: this.limits.directoryBytesPerImage },
      );
    }
  }

  /** Charges the records of one directory. */
  chargeRecords(count: number): void {
    this.directoryRecords += count;
    if (this.directoryRecords > this.limits.directoryRecordsPerImage) {
      throw this.over(
        'directory-records-per-image',
        `more than ${this.limits.directoryRecordsPerImage} directory records in all`,
        { limit: this.limits.directoryRecordsPerImage },
      );
    }
  }

  /** Charges SUSP bytes scanned for a record of the directory `dir`. */
  chargeSusp(bytes: number, dir: DirectoryCharge): void {
    dir.suspBytes += bytes;
    this.suspBytes += bytes;
    if (dir.suspBytes > this.limits.suspBytesPerDirectory) {
      throw this.over(
        'susp-bytes-per-directory',
        `more than ${this.limits.suspBytesPerDirectory} bytes of Rock Ridge/SUSP data in one directory`,
        { limit: this.limits.suspBytesPerDirectory },
      );
    }
    if (this.suspBytes > this.limits.suspBytesPerImage) {
      throw this.over(
        'susp-bytes-per-image',
        `more than ${this.limits.suspBytesPerImage} bytes of Rock Ridge/SUSP data in the image`,
        { limit: this.limits.suspBytesPerImage },
      );
    }
  }

  /**
   * Records a visit to the continuation area at (`block`, `offset`); a second visit, from the
   * same record's chain or from another record, is refused: real images never share one.
   */
  visitContinuation(block: number, offset: number): void {
    this.checkTime();
    const key = `${block}:${offset}`;
    const visits = (this.visits.get(key) ?? 0) + 1;
    if (visits > this.limits.visitsPerContinuationArea) {
      throw this.over(
        'continuation-area-revisited',
        `Rock Ridge continuation area at block ${block} offset ${offset} is referenced more than once`,
        { block, offset },
      );
    }
    this.visits.set(key, visits);
  }

  /** Throws when a Rock Ridge name has grown beyond the name budget. */
  checkNameLength(bytes: number): void {
    if (bytes > this.limits.nameBytes) {
      throw this.over('rock-ridge-name-bytes', `a Rock Ridge name longer than ${this.limits.nameBytes} bytes`, {
        limit: this.limits.nameBytes,
      });
    }
  }
}
