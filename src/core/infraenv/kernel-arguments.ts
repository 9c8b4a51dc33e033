// Checks one InfraEnv kernel argument against what the boot loaders it is pasted into interpret.
//
// The same text lands in three places, verbatim:
//  - iPXE scripts (src/core/ipxe/scripts.ts, `kernel … <kargs> || goto failed`): iPXE splits a
//    line on whitespace with no quoting or escapes, expands `${name}` anywhere in a word, treats
//    a word `||`, `&&` or `;` as a command separator and a word starting with `#` as a comment
//    (ipxe src/core/exec.c split_command/command_terminator, settings.c expand_settings).
//  - grub.cfg (the ISO's kargs area in the `linux` line): grub's shell-like lexer expands `$name`
//    and `${name}` (also inside double quotes), treats `\` as an escape, `'…'` and `"…"` as
//    quotes, `#` at the start of a word as a comment, and `;`, `|`, `&`, `<`, `>`, `{`, `}`
//    outside quotes as syntax.
//  - isolinux.cfg (the kargs area in the `append` line): the rest of the line is handed to the
//    kernel as is, except that syslinux itself loads every `initrd=` it finds.
// Rather than quoting for three grammars at once, an argument is refused (400 naming the
// argument and the character) when it holds: a control character, `$`, `\`, `'`; a word (split
// on whitespace, as iPXE does) that starts with `#` or is `||`, `&&` or `;`; one of
// `; | & < > { }` outside a double-quoted part (inside one grub takes them literally, so
// `ignition.config.url="http://h/x?a=1&b=2"` passes); whitespace other than ASCII blanks (a
// U+00A0 no-break space looks like a separator but the kernel reads it as part of the word); or
// the name `initrd`/`BOOT_IMAGE`, which the boot media set. An InfraEnv's own arguments
// (validateUserKernelArgument) also must not set `coreos.liveiso`/`coreos.live.rootfs_url`, which
// the media (and, for a minimal ISO, this service) set and which break the live boot when given
// twice or wrong. Everything upstream's examples use passes: `console=ttyS0,115200n8`,
// `ip=192.0.2.5::192.0.2.1:255.255.255.0:h:eth0:none`, `rd.net.timeout.carrier=30`,
// `foo="a value with spaces"`. Does not check the total length against the kargs area
// (service.ts does, with the image's capacity).
import { BadRequestError } from '../../errors.js';
import { findControlCharacter } from '../../platform/api/clean-text.js';

/** x86's COMMAND_LINE_SIZE is 2048 bytes: no single argument can be longer and still boot. */
export const MAX_KERNEL_ARGUMENT_LENGTH = 2048;
/** More arguments than this cannot fit an ISO's kargs area (~1 KiB) either. */
export const MAX_KERNEL_ARGUMENTS = 256;

/**
 * upstream's swagger pattern for kernel_argument.value, `^(?:(?:[^ \t\n\r"]+)|(?:"[^"]*"))+$`
 * (non-empty, blanks only inside balanced double quotes), checked by one linear scan: the
 * pattern itself backtracks exponentially in JavaScript on an unbalanced quote (`a…a"`).
 */
function hasUpstreamShape(value: string): boolean {
  let quoted = false;
  for (const ch of value) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r')) return false;
  }
  return value !== '' && !quoted;
}
const ALWAYS_REFUSED = new Set(['$', '\\', "'"]);
const UNQUOTED_REFUSED = new Set([';', '|', '&', '<', '>', '{', '}']);
const IPXE_SEPARATOR_WORDS = new Set(['||', '&&', ';']);
const RESERVED_NAMES = new Set(['initrd', 'BOOT_IMAGE']);
/** Set by the boot media (and, for a minimal ISO, by this service): a user's copy breaks the live boot. */
const LIVE_MEDIA_NAMES = new Set(['coreos.liveiso', 'coreos.live.rootfs_url']);
/** Whitespace the kernel does not split on (it splits on ASCII blanks only), and zero-width spaces. */
const NON_ASCII_WHITESPACE = /[\u0085\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/;

function refuse(index: number, what: string): never {
  throw new BadRequestError(`kernel_arguments[${index}].value ${what}`, { field: `kernel_arguments[${index}]` });
}

export function validateKernelArgument(value: unknown, index: number): string {
  if (typeof value !== 'string' || value === '') refuse(index, 'must be a non-empty string');
  if (value.length > MAX_KERNEL_ARGUMENT_LENGTH)
    refuse(index, `is longer than ${MAX_KERNEL_ARGUMENT_LENGTH} characters`);
  const ctl = findControlCharacter(value, 'line');
  if (ctl) refuse(index, `must not contain control characters (${ctl.char} at offset ${ctl.offset})`);
  const blank = NON_ASCII_WHITESPACE.exec(value);
  if (blank) {
    const code = blank[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    refuse(index, `must not contain non-ASCII whitespace (U+${code} at offset ${blank.index})`);
  }
  if (!hasUpstreamShape(value))
    refuse(index, 'is not a valid kernel argument (blanks only inside balanced double quotes)');
  let quoted = false;
  for (const ch of value) {
    if (ch === '"') quoted = !quoted;
    else if (ALWAYS_REFUSED.has(ch))
      refuse(index, `must not contain ${JSON.stringify(ch)} (interpreted by grub or iPXE)`);
    else if (!quoted && UNQUOTED_REFUSED.has(ch)) {
      refuse(index, `must not contain ${JSON.stringify(ch)} outside double quotes (interpreted by grub)`);
    }
  }
  for (const word of value.split(/\s+/)) {
    if (word.startsWith('#')) refuse(index, 'must not have a word starting with "#" (a comment to grub and iPXE)');
    if (IPXE_SEPARATOR_WORDS.has(word))
      refuse(index, `must not have the word ${JSON.stringify(word)} (a command separator to iPXE)`);
  }
  const name = value.split('=', 1)[0]!.replaceAll('"', '');
  if (RESERVED_NAMES.has(name)) refuse(index, `must not set ${name} (the boot media set it)`);
  return value;
}

/**
 * An InfraEnv's own kernel argument: the rules above, and not one of the live media's
 * (`coreos.liveiso`, `coreos.live.rootfs_url`) anywhere in it. The service's own arguments (the
 * minimal ISO's rootfs URL) are checked with validateKernelArgument alone.
 */
export function validateUserKernelArgument(value: unknown, index: number): string {
  const checked = validateKernelArgument(value, index);
  for (const word of checked.split(/\s+/)) {
    const name = word.split('=', 1)[0]!.replaceAll('"', '');
    if (LIVE_MEDIA_NAMES.has(name))
      refuse(index, `must not set ${name} (the boot media set it; a second value breaks the live boot)`);
  }
  return checked;
}
