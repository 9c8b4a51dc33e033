// `bootsmith bmc …`: client verbs for BMCs against a running service (the extension API,
// /api/bootsmith/v1). Does: map words to verbs. Does NOT: implement any.
import type { VerbGroup } from '../../verb.js';
import { bmcEject, bmcPower, bmcRefresh } from './bmc-actions.js';
import { bmcAdd, bmcUpdate } from './bmc-add.js';
import { bmcBoot } from './bmc-boot.js';
import { bmcCancel } from './bmc-cancel.js';
import { bmcImport } from './bmc-import.js';
import { bmcList, bmcMacs, bmcRemove, bmcShow } from './bmc-read.js';

export const BMC_GROUP: VerbGroup = {
  name: 'bootsmith bmc',
  verbs: {
    add: bmcAdd,
    update: bmcUpdate,
    list: bmcList,
    show: bmcShow,
    boot: bmcBoot,
    cancel: bmcCancel,
    eject: bmcEject,
    power: bmcPower,
    refresh: bmcRefresh,
    remove: bmcRemove,
    import: bmcImport,
    macs: bmcMacs,
  },
};
