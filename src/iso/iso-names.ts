// ISO 9660 file names: decoding the on-disk identifier the way coreos-installer does, and
// deciding whether a directory entry answers to a friendly path component.
//
// Does: strip the `;1` version suffix and a trailing `.`, map `;` and `/` to `.` (as the Linux
// kernel and coreos-installer do), derive the upper-cased 8.3 form of a long name, and rank
// candidate entries (ISO name, Rock Ridge name, 8.3 form).
// Does NOT: read anything from disk, decode Joliet (UCS-2) names, or parse Rock Ridge entries
// (src/iso/rock-ridge.ts does that).

/** Decodes a directory record identifier (not the special `\0`/`\1` self/parent names). */
export function decodeIsoName(raw: Buffer): string {
  let bytes = raw;
  const nul = bytes.indexOf(0);
  if (nul >= 0) bytes = bytes.subarray(0, nul);
  if (endsWithAscii(bytes, ';1')) bytes = bytes.subarray(0, bytes.length - 2);
  if (endsWithAscii(bytes, '.')) bytes = bytes.subarray(0, bytes.length - 1);
  return bytes.toString('latin1').replace(/[;/]/g, '.');
}

function endsWithAscii(bytes: Buffer, suffix: string): boolean {
  return bytes.length >= suffix.length && bytes.subarray(bytes.length - suffix.length).toString('latin1') === suffix;
}

/**
 * The name an ISO 9660 level-1 writer (genisoimage, xorriso) gives a long name: upper-cased,
 * characters outside `A-Z0-9_` replaced by `_`, base truncated to 8 and extension (after the
 * last dot, unless the name starts with it) to 3 characters, e.g. `igninfo.json` -> `IGNINFO.JSO`,
 * `initrd.addrsize` -> `INITRD.ADD`, `.cmdline` -> `_CMDLINE`.
 */
export function toIso83(name: string): string {
  const upper = name.toUpperCase();
  const dot = upper.lastIndexOf('.');
  const base = sanitize83(dot > 0 ? upper.slice(0, dot) : upper).slice(0, 8);
  const ext = dot > 0 ? sanitize83(upper.slice(dot + 1)).slice(0, 3) : '';
  return ext.length > 0 ? `${base}.${ext}` : base;
}

function sanitize83(s: string): string {
  return s.replace(/[^A-Z0-9_]/g, '_');
}

/** The names a directory entry is known by. */
export interface NamedEntry {
  isoName: string;
  rockRidgeName?: string;
}

/**
 * How well `entry` answers to the friendly path component `component`; lower is better,
 * undefined means no match. Order: the ISO name equal ignoring case (what coreos-installer does
 * with its upper-cased paths), the Rock Ridge name exactly, the ISO name equal to the 8.3 form,
 * the Rock Ridge name ignoring case, and last the 8.3 form of the entry's name equal to the
 * component (an 8.3 path looked up in an image written with long names).
 */
export function matchRank(entry: NamedEntry, component: string): number | undefined {
  const upper = component.toUpperCase();
  if (entry.isoName.toUpperCase() === upper) return 0;
  if (entry.rockRidgeName !== undefined && entry.rockRidgeName === component) return 1;
  if (entry.isoName.toUpperCase() === toIso83(component)) return 2;
  if (entry.rockRidgeName !== undefined && entry.rockRidgeName.toUpperCase() === upper) return 3;
  // An 8.3 path (coreos-installer's `COREOS/IGNINFO.JSO`) against an image with long names.
  if (toIso83(entry.rockRidgeName ?? entry.isoName) === upper) return 4;
  return undefined;
}

/**
 * Splits an ISO path into components: leading `/`, empty and `.` components are dropped and
 * `..` removes the previous one (never going above the root), as coreos-installer does.
 */
export function pathComponents(isoPath: string): string[] {
  const out: string[] = [];
  for (const c of isoPath.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') out.pop();
    else out.push(c);
  }
  return out;
}
