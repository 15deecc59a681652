-- Driven by bench/app/wrk.ts. Arguments: a file of bearer tokens (one a line, or "" for none),
-- the number of threads, and a file of request paths (one a line, or "" for the url's own);
-- method and body come from WRK_METHOD and WRK_BODY. Each thread walks its own stride of the
-- tokens and paths, so every user (or ticket) is distinct until the list wraps. Answers are
-- counted by status and, for refusals, by the contract's error code; done() prints one JSON line
-- the runner parses.
local threads = {}
wrk.method = os.getenv("WRK_METHOD") or "GET"
wrk.body = os.getenv("WRK_BODY")

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

function init(args)
  tokens = {}
  counts = {}
  if args[1] and args[1] ~= "" then
    for line in io.lines(args[1]) do
      if line ~= "" then tokens[#tokens + 1] = "Bearer " .. line end
    end
  end
  stride = tonumber(args[2]) or 1
  paths = {}
  if args[3] and args[3] ~= "" then
    for line in io.lines(args[3]) do
      if line ~= "" then paths[#paths + 1] = line end
    end
  end
  cursor = thread_index
  headers = { ["Content-Type"] = "application/json" }
end

function request()
  if #tokens > 0 then
    headers["Authorization"] = tokens[(cursor % #tokens) + 1]
  end
  local path = nil
  if #paths > 0 then path = paths[(cursor % #paths) + 1] end
  cursor = cursor + stride
  return wrk.format(nil, path, headers, wrk.body)
end

function response(status, _, body)
  local key = tostring(status)
  if status >= 400 then
    local code = string.match(body or "", '"code":"([A-Z_]+)"')
    key = key .. " " .. (code or "no contract code")
  end
  counts[key] = (counts[key] or 0) + 1
end

function done(summary, latency, _)
  local merged = {}
  for _, thread in ipairs(threads) do
    for key, n in pairs(thread:get("counts")) do merged[key] = (merged[key] or 0) + n end
  end
  local parts = {}
  for key, n in pairs(merged) do parts[#parts + 1] = string.format('"%s":%d', key, n) end
  local e = summary.errors
  io.write(string.format(
    '\nWRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"socketErrors":%d,"timeouts":%d,"byAnswer":{%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect + e.read + e.write, e.timeout, table.concat(parts, ",")))
end
