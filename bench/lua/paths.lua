-- wrk script: GET requests cycling through the paths listed in a file (one per line;
-- `path<TAB>key` sends the key as X-Secret-Key, the agent's credential), each thread starting
-- at its own place in the list. Used for the agent heartbeat: 5,000
-- registered hosts' `.../hosts/{host_id}/instructions` URLs.
--   wrk ... -s paths.lua <url> -- <paths-file> <threads>
local counter = 0

function setup(thread)
  thread:set("thread_id", counter)
  counter = counter + 1
end

function init(args)
  paths = {}
  for line in io.lines(args[1]) do
    if #line > 0 then
      local p, key = line:match("^([^\t]+)\t(.+)$")
      if p then
        paths[#paths + 1] = wrk.format("GET", p, { ["X-Secret-Key"] = key })
      else
        paths[#paths + 1] = wrk.format("GET", line)
      end
    end
  end
  local nthreads = tonumber(args[2]) or 1
  index = math.floor(thread_id * #paths / nthreads)
end

function request()
  index = index % #paths + 1
  return paths[index]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
