// A linux-bridge's `bridge` section (nmstate: options.stp{enabled, priority, forward-delay,
// hello-time, max-age}, options.mac-ageing-time, port[]{name, stp-priority, stp-path-cost,
// stp-hairpin-mode}).
//
// Does: validate it with NetworkManager's ranges for the matching keyfile properties
// (nm-settings-nmcli(5): bridge.priority 0–65535, bridge.forward-delay 2–30 s,
// bridge.hello-time 1–10 s, bridge.max-age 6–40 s, bridge.ageing-time 0–1000000 s;
// bridge-port.priority 0–63, bridge-port.path-cost 1–65535).
// Does not: check that ports exist (parse-document.ts) or render the section.
import { yamlError } from './errors.js';
import { MAX_PORTS } from './limits.js';
import type { BridgeConfig, BridgePort } from './model.js';
import { child, item, list, mapping, optionalBool, optionalInteger } from './reader.js';

export function parseBridge(raw: unknown, path: string): BridgeConfig {
  const m = mapping(raw, path, ['options', 'port']);
  const bridge: BridgeConfig = { stp: {}, ports: [] };
  if (m.options !== undefined && m.options !== null) {
    const op = child(path, 'options');
    const om = mapping(m.options, op, ['stp', 'mac-ageing-time']);
    const age = optionalInteger(om['mac-ageing-time'], child(op, 'mac-ageing-time'), 0, 1_000_000);
    if (age !== undefined) bridge.macAgeingTime = age;
    if (om.stp !== undefined && om.stp !== null) {
      const sp = child(op, 'stp');
      const sm = mapping(om.stp, sp, ['enabled', 'priority', 'forward-delay', 'hello-time', 'max-age']);
      const stp = bridge.stp;
      const enabled = optionalBool(sm.enabled, child(sp, 'enabled'));
      if (enabled !== undefined) stp.enabled = enabled;
      const set = (
        key: 'priority' | 'forwardDelay' | 'helloTime' | 'maxAge',
        name: string,
        min: number,
        max: number,
      ) => {
        const v = optionalInteger(sm[name], child(sp, name), min, max);
        if (v !== undefined) stp[key] = v;
      };
      set('priority', 'priority', 0, 65_535);
      set('forwardDelay', 'forward-delay', 2, 30);
      set('helloTime', 'hello-time', 1, 10);
      set('maxAge', 'max-age', 6, 40);
    }
  }
  const pp = child(path, 'port');
  bridge.ports = list(m.port, pp, MAX_PORTS).map((p, k): BridgePort => {
    const at = item(pp, k);
    const pm = mapping(p, at, ['name', 'stp-priority', 'stp-path-cost', 'stp-hairpin-mode']);
    if (typeof pm.name !== 'string' || pm.name === '') yamlError(child(at, 'name'), 'must be an interface name');
    const port: BridgePort = { name: pm.name };
    const priority = optionalInteger(pm['stp-priority'], child(at, 'stp-priority'), 0, 63);
    if (priority !== undefined) port.stpPriority = priority;
    const cost = optionalInteger(pm['stp-path-cost'], child(at, 'stp-path-cost'), 1, 65_535);
    if (cost !== undefined) port.stpPathCost = cost;
    const hairpin = optionalBool(pm['stp-hairpin-mode'], child(at, 'stp-hairpin-mode'));
    if (hairpin !== undefined) port.stpHairpinMode = hairpin;
    return port;
  });
  return bridge;
}
