// `bootsmith pxe …`: the offline PXE verbs, named as coreos-installer's are, and the PXE front
// door's (assign, unassign, assignments, dhcp-snippet: ../client/pxe/front-door-verbs.ts).
// Does: map words to verbs. Does NOT: implement any.
import { pxeAssign, pxeAssignments, pxeDhcpSnippet, pxeUnassign } from '../client/pxe/front-door-verbs.js';
import type { VerbGroup } from '../verb.js';
import { pxeCustomize } from './customize.js';
import { pxeIgnitionUnwrap } from './ignition-unwrap.js';
import { pxeIgnitionWrap } from './ignition-wrap.js';
import { pxeNetworkWrap } from './network-wrap.js';

export const PXE_GROUP: VerbGroup = {
  name: 'bootsmith pxe',
  verbs: {
    ignition: { name: 'bootsmith pxe ignition', verbs: { wrap: pxeIgnitionWrap, unwrap: pxeIgnitionUnwrap } },
    network: { name: 'bootsmith pxe network', verbs: { wrap: pxeNetworkWrap } },
    customize: pxeCustomize,
    assign: pxeAssign,
    unassign: pxeUnassign,
    assignments: pxeAssignments,
    'dhcp-snippet': pxeDhcpSnippet,
  },
};
