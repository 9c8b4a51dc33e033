// Kernel arguments of a minimal ISO: the live ISO's defaults without `coreos.liveiso=` (a
// minimal ISO has no rootfs to find on the boot medium) and with `coreos.live.rootfs_url=` (where
// the initramfs downloads the rootfs instead). Pure string functions.
//
// What coreos-installer does (`iso extract minimal-iso --rootfs-url URL`, src/live/mod.rs
// `modify_miniso_kargs`, with src/io/bls.rs `KargsEditor`): find the first whitespace-separated
// word starting with `coreos.liveiso=` (none: "minimal ISO does not have coreos.liveiso= karg"),
// delete every ` word ` from ` kargs ` and trim: that is the new kargs.json `default`; then append
// `coreos.live.rootfs_url=URL` (a URL with whitespace is refused): that goes into every kargs
// area. We do the same, with two additions:
// - an existing `coreos.live.rootfs_url=` word is removed before ours is appended (coreos-installer
//   would leave both; dracut uses the last one, so booting is unchanged);
// - quoting for GRUB. grub.cfg's `linux` line is parsed by GRUB's shell-like lexer: unquoted,
//   `& | ; < > { } $` are operators or expansions and `* ? [` may be globbed, so a URL such as
//   `.../rootfs?arch=x86_64&version=4.14` breaks the menu entry. Like assisted-image-service
//   (pkg/isoeditor `transformKernelArgs`) we then write `coreos.live.rootfs_url="URL"`: GRUB drops
//   the quotes; isolinux and the s390x command line pass them to the kernel, whose parser (and
//   dracut's getarg, which uses the kernel's `next_arg`) strips double quotes around a value.
//   The same string must go into every area (coreos-installer refuses ISOs whose areas
//   disagree), so the form must suit all of them. Inside double quotes GRUB still expands `$`
//   and treats `\` as an escape, and the kernel cannot escape `"`: URLs with `$`, `\` or `"`
//   are refused, as are whitespace, control and non-ASCII characters (percent-encode them).
//   A URL made only of `A-Z a-z 0-9 - . _ ~ : / = % + , @` is written unquoted, exactly as
//   coreos-installer writes it.
// Does NOT: read or write ISOs (src/iso/minimal-kargs-patches.ts), or check that the result fits
// the kargs areas (encodeKargsArea does).

import { BadRequestError, FormatError } from '../errors.js';
import { trimKargs } from './kargs-codec.js';

export const LIVEISO_KARG = 'coreos.liveiso=';
export const ROOTFS_URL_KARG = 'coreos.live.rootfs_url=';

/** Rust's `split_ascii_whitespace` separators. */
const ASCII_WHITESPACE = /[\t\n\f\r ]+/;
const GRUB_SAFE_URL = /^[A-Za-z0-9\-._~:/=%+,@]+$/;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const REFUSED_IN_QUOTES = /["\\$]/;

function words(kargs: string): string[] {
  return kargs.split(ASCII_WHITESPACE).filter((w) => w.length > 0);
}

/** KargsEditor::delete + apply_to: every ` word ` replaced by a space, then trimmed. */
function deleteWord(kargs: string, word: string): string {
  return ` ${kargs} `.replaceAll(` ${trimKargs(word)} `, ' ');
}

/**
 * The default kargs of a minimal ISO (kargs.json `default` after coreos-installer's edit): the
 * first `coreos.liveiso=` word deleted wherever it occurs. FormatError when there is none.
 */
export function minimalIsoDefaultKargs(defaultKargs: string): string {
  const liveiso = words(defaultKargs).find((w) => w.startsWith(LIVEISO_KARG));
  if (liveiso === undefined) {
    throw new FormatError(
      `the image's kernel arguments have no ${LIVEISO_KARG} argument, so it is not a live ISO a minimal ISO can be made from`,
    );
  }
  return trimKargs(deleteWord(defaultKargs, liveiso));
}

/**
 * The `coreos.live.rootfs_url=` argument for `rootfsUrl`, double-quoted when GRUB needs it (see
 * the header comment). BadRequestError for URLs no quoting can carry safely.
 */
export function rootfsUrlKarg(rootfsUrl: string): string {
  if (rootfsUrl.length === 0) throw new BadRequestError('the rootfs URL for the minimal ISO is empty');
  if (!PRINTABLE_ASCII.test(rootfsUrl)) {
    throw new BadRequestError(
      'the rootfs URL for the minimal ISO contains whitespace, control or non-ASCII characters; percent-encode them',
      { rootfsUrl },
    );
  }
  if (GRUB_SAFE_URL.test(rootfsUrl)) return `${ROOTFS_URL_KARG}${rootfsUrl}`;
  if (REFUSED_IN_QUOTES.test(rootfsUrl)) {
    throw new BadRequestError(
      'the rootfs URL for the minimal ISO contains `"`, `\\` or `$`, which GRUB and the kernel cannot take inside a quoted argument; percent-encode them',
      { rootfsUrl },
    );
  }
  return `${ROOTFS_URL_KARG}"${rootfsUrl}"`;
}

/**
 * The kernel arguments every kargs area of a minimal ISO holds: `defaultKargs` (the live ISO's,
 * e.g. manifest.kargs.default) without `coreos.liveiso=` and any `coreos.live.rootfs_url=`, with
 * `coreos.live.rootfs_url=<rootfsUrl>` (quoted when needed) appended.
 */
export function minimalIsoKargs(defaultKargs: string, rootfsUrl: string): string {
  const karg = rootfsUrlKarg(rootfsUrl);
  let kargs = minimalIsoDefaultKargs(defaultKargs);
  for (const old of new Set(words(kargs).filter((w) => w.startsWith(ROOTFS_URL_KARG))))
    kargs = trimKargs(deleteWord(kargs, old));
  return trimKargs(`${kargs} ${karg} `);
}
