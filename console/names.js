// How the console names things people recognise: a host by its hostname (the requested one, else
// the one its agent reported in the inventory, else its id), an InfraEnv by its name, with a short
// id suffix when another InfraEnv has the same name. Does NOT: fetch anything.

/** The inventory's hostname, or undefined when there is none or it is not JSON. */
function inventoryHostname(inventory) {
  if (typeof inventory !== 'string' || inventory === '') return undefined;
  try {
    const name = JSON.parse(inventory).hostname;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** requested_hostname, else the inventory's hostname, else the id (`bootsmith hosts list` uses the same rule). */
export function hostName(host) {
  return host.requested_hostname || inventoryHostname(host.inventory) || host.id;
}

/** The first 8 characters of an id: enough to tell two InfraEnvs apart at a glance. */
export function shortId(id) {
  return String(id).slice(0, 8);
}

/**
 * id → label for a list of InfraEnvs: the name, plus ` · <short id>` for names that more than
 * one InfraEnv carries.
 * @param {{ id: string, name: string }[]} infraEnvs
 * @returns {Map<string, string>}
 */
export function infraEnvLabels(infraEnvs) {
  const count = new Map();
  for (const ie of infraEnvs) count.set(ie.name, (count.get(ie.name) ?? 0) + 1);
  return new Map(infraEnvs.map((ie) => [ie.id, count.get(ie.name) > 1 ? `${ie.name} · ${shortId(ie.id)}` : ie.name]));
}
