// `bootsmith events [--infra-env ID] [--host ID] [--follow]`: prints events, oldest first, one line
// each (time, severity, message); `--follow` keeps polling and prints only events not yet shown.
// Does NOT: filter by severity (use grep).
import { flagOption, valueOption } from '../options.js';
import { defineVerb } from '../verb.js';
import { ApiClient, CLIENT_OPTIONS } from './api-client.js';
import { pollLoop, POLL_OPTIONS } from './poll-loop.js';

interface EventView {
  event_time?: string;
  severity?: string;
  message?: string;
  host_id?: string;
}

/** Events remembered to avoid printing one twice while following; older keys are dropped. */
const MAX_SEEN = 50_000;

export const eventsVerb = defineVerb({
  name: 'bootsmith events',
  summary: 'Print events (of an InfraEnv or a host); --follow keeps printing new ones',
  options: {
    infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: 'only this InfraEnv' }),
    host: valueOption({ long: 'host', value: 'ID', help: 'only this host' }),
    follow: flagOption({ long: 'follow', short: 'f', help: 'keep polling for new events until Ctrl-C' }),
    ...POLL_OPTIONS,
    ...CLIENT_OPTIONS,
  },
  positionals: {},
  async run({ options }, io) {
    const client = ApiClient.from(options, io);
    const query = new URLSearchParams({ order: 'ascending', limit: '-1' });
    const { infraEnv, host } = options;
    if (infraEnv !== undefined) query.set('infra_env_id', infraEnv);
    if (host !== undefined) query.set('host_id', host);
    const seen = new Set<string>();
    const step = async (): Promise<void> => {
      const events = await client.call<EventView[]>('GET', `/events?${query.toString()}`);
      for (const e of events) {
        const key = `${e.event_time}|${e.host_id ?? ''}|${e.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value!);
        io.stdout.write(`${e.event_time ?? ''}  ${(e.severity ?? '').padEnd(8)} ${e.message ?? ''}\n`);
      }
    };
    if (options.follow) await pollLoop(options, 'bootsmith events', step);
    else await step();
    return 0;
  },
});
