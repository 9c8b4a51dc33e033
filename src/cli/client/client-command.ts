// `bootsmith infraenv …`, `bootsmith hosts …`, `bootsmith events`: client verbs against a running
// service. Does: map words to verbs. Does NOT: implement any.
import type { VerbGroup } from '../verb.js';
import { eventsVerb } from './events.js';
import { hostsList } from './hosts-list.js';
import { infraenvCreate } from './infraenv-create.js';
import { infraenvDownload } from './infraenv-download.js';
import { infraenvDelete, infraenvList, infraenvShow } from './infraenv-read.js';

export const INFRAENV_GROUP: VerbGroup = {
  name: 'bootsmith infraenv',
  verbs: {
    create: infraenvCreate,
    list: infraenvList,
    show: infraenvShow,
    delete: infraenvDelete,
    download: infraenvDownload,
  },
};
export const HOSTS_GROUP: VerbGroup = { name: 'bootsmith hosts', verbs: { list: hostsList } };
export { eventsVerb };
