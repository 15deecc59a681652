-- Driven by bench/app/wrk.ts. Arguments: a file of bearer tokens (one a line, or "" for none),
-- the number of threads, a file of request paths (one a line, or "" for the url's own), a file of
-- request bodies (one a line, or "" for WRK_BODY's) and "once" (or ""); method and body come from
-- WRK_METHOD and WRK_BODY. Each thread walks its own stride of the tokens, paths and bodies (the
-- same index in each), so every user (or ticket) is distinct until the list wraps. With "once" the
-- lists never wrap: a connection sends its thread's next entry or, when the thread has sent them
-- all, waits out the run (delay()), and a thread that has every answer in prints WRK_THREAD_DONE
-- (the runner then ends wrk). Answers are counted by status and, for refusals, by the contract's
-- error code; done() prints one JSON line the runner parses.
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
  bodies = {}
  if args[4] and args[4] ~= "" then
    for line in io.lines(args[4]) do
      if line ~= "" then bodies[#bodies + 1] = line end
    end
  end
  cursor = thread_index
  headers = { ["Content-Type"] = "application/json" }
  once = args[5] == "once"
  if once then
    total = math.max(#tokens, #paths, #bodies)
    -- reserved: the next entry not yet promised to a connection; granted: promised, not yet built.
    reserved = thread_index
    granted = 0
    held = 0
    received = 0
    finished = false
    -- wrk asks for delay() before each request only when the global exists after init().
    delay = hold
  end
end

-- "once": promises the thread's next entry to a connection about to send, or holds it for good.
function hold()
  if reserved >= total then return 1000000000 end
  reserved = reserved + stride
  granted = granted + 1
  held = held + 1
  return 0
end

function request()
  local index = cursor
  -- wrk builds one request at start-up only to check it; with "once" that one spends no entry.
  if not once or granted > 0 then
    cursor = cursor + stride
    if once then granted = granted - 1 end
  end
  if #tokens > 0 then
    headers["Authorization"] = tokens[(index % #tokens) + 1]
  end
  local path = nil
  if #paths > 0 then path = paths[(index % #paths) + 1] end
  local body = wrk.body
  if #bodies > 0 then body = bodies[(index % #bodies) + 1] end
  return wrk.format(nil, path, headers, body)
end

function response(status, _, body)
  local key = tostring(status)
  if status >= 400 then
    local code = string.match(body or "", '"code":"([A-Z_]+)"')
    key = key .. " " .. (code or "no contract code")
  end
  counts[key] = (counts[key] or 0) + 1
  if once then
    received = received + 1
    if not finished and reserved >= total and received >= held then
      finished = true
      io.write("WRK_THREAD_DONE\n")
      io.flush()
    end
  end
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
