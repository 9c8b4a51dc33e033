// `bootsmith iso …`: the offline ISO verbs, named and grouped as coreos-installer's are.
// Does: map words to verbs. Does NOT: implement any (one file per verb beside this one).
import type { VerbGroup } from '../verb.js';
import { customizeIso } from './customize.js';
import { extractMinimalIso } from './extract-minimal-iso.js';
import { extractPxe } from './extract-pxe.js';
import { ignitionEmbed } from './ignition-embed.js';
import { ignitionRemove } from './ignition-remove.js';
import { ignitionShow } from './ignition-show.js';
import { inspectIso } from './inspect.js';
import { kargsModify } from './kargs-modify.js';
import { kargsReset } from './kargs-reset.js';
import { kargsShow } from './kargs-show.js';
import { networkEmbed } from './network-embed.js';
import { networkExtract } from './network-extract.js';
import { networkRemove } from './network-remove.js';
import { isoReset } from './reset.js';

export const ISO_GROUP: VerbGroup = {
  name: 'bootsmith iso',
  verbs: {
    ignition: {
      name: 'bootsmith iso ignition',
      verbs: { embed: ignitionEmbed, show: ignitionShow, remove: ignitionRemove },
    },
    kargs: { name: 'bootsmith iso kargs', verbs: { modify: kargsModify, show: kargsShow, reset: kargsReset } },
    network: {
      name: 'bootsmith iso network',
      verbs: { embed: networkEmbed, extract: networkExtract, remove: networkRemove },
    },
    extract: { name: 'bootsmith iso extract', verbs: { pxe: extractPxe, 'minimal-iso': extractMinimalIso } },
    customize: customizeIso,
    inspect: inspectIso,
    reset: isoReset,
  },
};
