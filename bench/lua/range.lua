-- wrk script: a BMC virtual-media range storm. Every request is a single Range of a random
-- length in [min_len, max_len] at a random offset of a `size`-byte file. Seeded per thread,
-- so the same seed replays the same request sequence against bootsmith and nginx.
--   wrk ... -s range.lua <url> -- <seed> <size> <min_len> <max_len>
local threads = {}
local counter = 0

function setup(thread)
  thread:set("thread_id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  local seed = tonumber(args[1]) or 1
  size = tonumber(args[2])
  min_len = tonumber(args[3]) or 65536
  max_len = tonumber(args[4]) or 1048576
  math.randomseed(seed * 1000 + thread_id)
end

function request()
  local len = math.random(min_len, max_len)
  local start = math.random(0, size - len)
  return wrk.format("GET", nil, { ["Range"] = "bytes=" .. string.format("%d", start) .. "-" .. string.format("%d", start + len - 1) })
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
