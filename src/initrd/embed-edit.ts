// Editing an existing embed archive: the members to write back after replacing or removing the
// Ignition config or the first-boot network keyfiles, keeping every other file the archive holds
// (coreos-installer's `iso customize` puts installer configs there too) with its mode.
// What the kernel leaves behind counts: for a path given twice, the last copy; directories are
// not carried over (writeCpio recreates the parents of every file).
// Does: pure list manipulation. Does NOT: read areas, compress, or check sizes (embed-archive.ts).
import {
  IGNITION_MODE,
  IGNITION_PATH,
  KEYFILE_MODE,
  NETWORK_KEYFILE_DIR,
  keyfileName,
  type EmbedContents,
  type NetworkKeyfile,
} from './embed-archive.js';
import { type CpioFileInput, isRegularFile } from './cpio.js';
import { lastByPath } from './initrd.js';

export interface EmbedEdit {
  /** New Ignition config; `null` removes it; undefined keeps what is there. */
  ignition?: Buffer | null;
  /** New keyfiles replacing every existing one; `[]` removes them; undefined keeps them. */
  networkKeyfiles?: readonly NetworkKeyfile[];
}

const PERMISSION_BITS = 0o7777;

function isKeyfilePath(p: string): boolean {
  return p.startsWith(`${NETWORK_KEYFILE_DIR}/`) && !p.slice(NETWORK_KEYFILE_DIR.length + 1).includes('/');
}

/** The regular files of `current` with `edit` applied, Ignition first. */
export function editEmbedMembers(current: Pick<EmbedContents, 'members'>, edit: EmbedEdit): CpioFileInput[] {
  const kept = [...lastByPath(current.members).values()].filter(isRegularFile);
  const out: CpioFileInput[] = [];
  const ignition = edit.ignition === undefined ? kept.find((m) => m.path === IGNITION_PATH)?.data : edit.ignition;
  if (ignition !== undefined && ignition !== null)
    out.push({ path: IGNITION_PATH, data: ignition, mode: IGNITION_MODE });
  for (const m of kept) {
    if (m.path === IGNITION_PATH) continue;
    if (edit.networkKeyfiles !== undefined && isKeyfilePath(m.path)) continue;
    out.push({ path: m.path, data: m.data, mode: m.mode & PERMISSION_BITS });
  }
  for (const k of edit.networkKeyfiles ?? []) {
    out.push({ path: `${NETWORK_KEYFILE_DIR}/${keyfileName(k.name)}`, data: k.content, mode: KEYFILE_MODE });
  }
  return out;
}
