-- cellrate GCRA, all or nothing over n keys with their own limits, in one atomic call.
-- TAT in integer microseconds (exact in Lua doubles below 2^53), as gcra.lua keeps it.
-- KEYS[1..n]     the cells (a key may appear more than once: each leg sees the legs before it)
-- ARGV[3i-2]     for KEYS[i]: increment I = permits * T' (us), >= 1
-- ARGV[3i-1]     for KEYS[i]: ceiling tau' + T' (us), <= 2^52
-- ARGV[3i]       for KEYS[i]: mode 0 check (must conform, never charged), 1 charge (all or nothing),
--                2 alone (charged if it conforms, whatever the others; never refuses them),
--                3 refund (I given back: TAT - I, never below now, a full bucket; never refuses the others)
-- ARGV[3n+1]     caller time (us), or -1: the server's TIME
-- ARGV[3n+2]     extra expiry (ms) beyond TAT - now
-- The legs of modes 0 and 1 are decided together: the mode-1 legs are charged iff every mode-0 and mode-1 leg
-- conforms; otherwise nothing of theirs is written. Mode-2 legs are decided after them, one by one, then the
-- refunds (mode 3).
-- Reply: {now_us, all_conform (1 or 0), then per key: retry_after_us, tat_us}. retry_after_us is 0 when the leg
-- conforms, > 0 when it does not, -1 when the key holds another type or a value that is not a TAT (that leg
-- refuses and nothing about the key changes). tat_us is the key's TAT after the call (the stored one when
-- the leg was not charged).
if redis.replicate_commands then redis.replicate_commands() end
local n = #KEYS
local now = tonumber(ARGV[3 * n + 1])
local extra = tonumber(ARGV[3 * n + 2])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local stored = {}
local function load(key)
  local v = stored[key]
  if v == nil then
    local raw = redis.pcall('GET', key)
    if type(raw) == 'table' then
      v = false
    elseif not raw then
      v = now
    elseif #raw > 16 or not string.match(raw, '^%d+$') then
      v = false
    else
      v = tonumber(raw)
      if v >= 9007199254740992 then v = false elseif v < now then v = now end
    end
    stored[key] = v
  end
  return v
end
local retry, tat = {}, {}
local work = {}
local all = true
local function store(key, t)
  redis.call('SET', key, string.format('%.0f', t), 'PX', math.ceil((t - now) / 1000) + extra)
end
-- Leg i's GCRA test on its key's TAT as the legs before it left it: returns the key, the TAT and the increment
-- when the leg conforms (retry[i] = 0, nothing charged yet); otherwise sets retry[i] and tat[i] and returns nil.
local function decide(i)
  local key = KEYS[i]
  local inc = tonumber(ARGV[3 * i - 2])
  local ceiling = tonumber(ARGV[3 * i - 1])
  local t = work[key] or load(key)
  if t == false then
    retry[i], tat[i] = -1, 0
  elseif t - now + inc > ceiling then
    retry[i], tat[i] = t - now + inc - ceiling, t
  else
    retry[i] = 0
    return key, t, inc
  end
  return nil
end
for i = 1, n do
  local mode = tonumber(ARGV[3 * i])
  if mode < 2 then
    local key, t, inc = decide(i)
    if key == nil then
      all = false
    else
      if mode == 1 then
        t = t + inc
        work[key] = t
      end
      tat[i] = t
    end
  end
end
if all then
  for key, t in pairs(work) do
    store(key, t)
  end
else
  work = {}
  for i = 1, n do
    if tonumber(ARGV[3 * i]) < 2 and retry[i] >= 0 then
      tat[i] = load(KEYS[i])
    end
  end
end
for i = 1, n do
  if tonumber(ARGV[3 * i]) == 2 then
    local key, t, inc = decide(i)
    if key ~= nil then
      t = t + inc
      work[key] = t
      tat[i] = t
      store(key, t)
    end
  end
end
for i = 1, n do
  if tonumber(ARGV[3 * i]) == 3 then
    local key = KEYS[i]
    local t = work[key] or load(key)
    if t == false then
      retry[i], tat[i] = -1, 0
    else
      local after = t - tonumber(ARGV[3 * i - 2])
      if after < now then after = now end
      if after < t then
        work[key] = after
        if after > now then
          store(key, after)
        else
          redis.call('DEL', key)
        end
      end
      retry[i], tat[i] = 0, after
    end
  end
end
local out = {now, all and 1 or 0}
for i = 1, n do
  out[2 * i + 1] = retry[i]
  out[2 * i + 2] = tat[i]
end
return out
