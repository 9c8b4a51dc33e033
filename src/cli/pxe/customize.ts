// `bootsmith pxe customize [OPTIONS] -o OUT INITRD`: coreos-installer's `pxe customize`: the same
// installer, network and live-Ignition options as `iso customize` (src/cli/customize/), written
// as one xz newc archive appended to a copy of the CoreOS live PXE initrd. The input must be a
// live initramfs (it holds etc/coreos-live-initramfs) and not customised already (no config.ign,
// no first-boot keyfiles); features come from its etc/coreos/features.json. The output is a temp
// file renamed into place (or stdout with `-o -`).
// The initrd is read into memory to find those files (bounded by MAX_INITRD_BYTES and
// MAX_INITRD_DECOMPRESSED_BYTES; CoreOS initrds are ~100 MiB), then written out unchanged with the
// archive after it.
// Does NOT: change the base initrd's bytes or set the kernel arguments PXE needs (printed).
import { Readable } from 'node:stream';

import { withContext } from '../../errors.js';
import { compress } from '../../initrd/compression.js';
import { writeCpio } from '../../initrd/cpio.js';
import { IGNITION_PATH, NETWORK_KEYFILE_DIR } from '../../initrd/embed-archive.js';
import { lastByPath, readInitrd } from '../../initrd/initrd.js';
import { UsageError } from '../args.js';
import { CUSTOMIZE_OPTIONS, readCustomizeInputs } from '../customize/customize-inputs.js';
import { planCustomization, type OsFeatures } from '../customize/customize-plan.js';
import { QUIET } from '../iso/common-options.js';
import { DEFAULT_EMBED_COMPRESSION } from '../iso/iso-edit.js';
import { writeOutput } from '../output/write-output.js';
import { argument, valueOption } from '../options.js';
import { CliError, defineVerb } from '../verb.js';
import { MAX_INITRD_DECOMPRESSED_BYTES, readImage } from './ignition-unwrap.js';

const VERB = 'bootsmith pxe customize';
/** The stamp dracut's CoreOS live initramfs carries (coreos-installer checks for it too). */
export const LIVE_STAMP_PATH = 'etc/coreos-live-initramfs';
export const INITRD_FEATURES_PATH = 'etc/coreos/features.json';

export const pxeCustomize = defineVerb({
  name: VERB,
  summary: 'Create a custom live PXE boot config (an initrd with the customisations appended)',
  options: {
    ...CUSTOMIZE_OPTIONS,
    output: valueOption({
      long: 'output',
      short: 'o',
      value: 'PATH',
      help: 'output initrd (`-` for stdout); required',
    }),
    quiet: QUIET,
  },
  positionals: { initrd: argument('INITRD') },
  async run({ options, positionals }, io) {
    const output = options.output;
    if (output === undefined) throw new UsageError(`${VERB}: -o/--output is required`, `usage: ${VERB} --help`);
    const inputs = await readCustomizeInputs(options, io.stdin, VERB);
    const { name, bytes } = await readImage(positionals.initrd, io.stdin);
    const entries = lastByPath(
      await withContext(
        'not an initrd image',
        () => readInitrd(bytes, MAX_INITRD_DECOMPRESSED_BYTES),
        (message, cause) => new CliError(name, message, { cause }),
      ),
    );
    if (!entries.has(LIVE_STAMP_PATH)) throw new CliError(name, 'not a CoreOS live initramfs image');
    if (entries.has(IGNITION_PATH) || [...entries.keys()].some((p) => p.startsWith(`${NETWORK_KEYFILE_DIR}/`)))
      throw new CliError(name, 'input is already customized');
    let features: OsFeatures;
    const featuresJson = entries.get(INITRD_FEATURES_PATH);
    if (featuresJson !== undefined) {
      features = withContext(
        `parsing OS features (${INITRD_FEATURES_PATH})`,
        () => JSON.parse(Buffer.from(featuresJson.data).toString('utf8')) as OsFeatures,
        (message, cause) => new CliError(name, message, { cause }),
      );
      if (typeof features !== 'object' || features === null || Array.isArray(features))
        throw new CliError(name, `parsing OS features (${INITRD_FEATURES_PATH}): not a JSON object`);
    }
    const plan = planCustomization(inputs, features, name);
    const quiet = options.quiet;
    if (!quiet) for (const note of plan.notes) io.stderr.write(`${note}\n`);
    const archive =
      plan.members.length === 0 ? Buffer.alloc(0) : await compress(writeCpio(plan.members), DEFAULT_EMBED_COMPRESSION);
    if (!quiet && plan.members.some((m) => m.path === IGNITION_PATH))
      io.stderr.write(
        'PXE configuration must include kernel arguments: ignition.firstboot ignition.platform.id=metal\n',
      );
    await writeOutput(Readable.from([bytes, archive]), bytes.length + archive.length, output, {
      io,
      quiet: quiet || output === '-',
      label: output === '-' ? 'stdout' : output,
    });
    return 0;
  },
});
