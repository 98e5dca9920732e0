-- cellrate GCRA: one cell per key, TAT in integer microseconds (exact in Lua doubles below 2^53).
-- One call decides n >= 1 keys in order, each on its own cell (a batch is n independent decisions).
-- KEYS[1..n]  the cells
-- ARGV[i]     for KEYS[i]: increment I = permits * T' (us), in [1, ceiling]; 0 skips the key
-- ARGV[n+1]   ceiling tau' + T' (us), <= 2^52
-- ARGV[n+2]   T' (us): the unit of a lease
-- ARGV[n+3]   lease: extra intervals to grant beyond each request (0: a plain decision)
-- ARGV[n+4]   caller time (us), or -1: the server's TIME, or -2: each key's own time in ARGV[n+5+i]
-- ARGV[n+5]   extra expiry (ms) beyond TAT - now
-- ARGV[n+5+i] with -2 only: KEYS[i]'s caller time (us), or -1: the server's TIME
-- Reply: {now_us, then for each key: retry_after_us, tat_after_us, granted}; with -2, now_us is the server's TIME
-- if a key used it, else -2. retry_after_us is 0 when admitted,
-- > 0 when rejected, -1 when the key holds another type or a value that is not a TAT (a decimal integer below
-- 2^53): an error about that key alone, which changes nothing; -2 when skipped.
if redis.replicate_commands then redis.replicate_commands() end
local n = #KEYS
local ceiling = tonumber(ARGV[n + 1])
local unit = tonumber(ARGV[n + 2])
local lease = tonumber(ARGV[n + 3])
local now = tonumber(ARGV[n + 4])
local extra = tonumber(ARGV[n + 5])
local perKey = now == -2
local server = nil
local function serverTime()
  if server == nil then
    local t = redis.call('TIME')
    server = tonumber(t[1]) * 1000000 + tonumber(t[2])
  end
  return server
end
if now == -1 then now = serverTime() end
local out = {now}
for i = 1, n do
  local inc = tonumber(ARGV[i])
  if perKey then
    now = tonumber(ARGV[n + 5 + i])
    if now < 0 then now = serverTime() end
  end
  local retry, tat, granted = -2, 0, 0
  if inc > 0 then
    local stored = redis.pcall('GET', KEYS[i])
    retry = -1
    if type(stored) ~= 'table' then
      tat = now
      if stored then
        if #stored > 16 or not string.match(stored, '^%d+$') then
          tat = nil
        else
          tat = tonumber(stored)
          if tat >= 9007199254740992 then tat = nil elseif tat < now then tat = now end
        end
      end
    else
      tat = nil
    end
    if tat == nil then
      tat = 0
    else
      local lag = tat - now
      if lag + inc > ceiling then
        retry = lag + inc - ceiling
      else
        retry = 0
        if lease > 0 then
          local room = ceiling - lag - inc
          granted = math.floor(room / unit)
          if granted > lease then granted = lease end
          while granted > 0 and granted * unit > room do granted = granted - 1 end
          inc = inc + granted * unit
        end
        tat = tat + inc
        redis.call('SET', KEYS[i], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + extra)
      end
    end
  end
  out[3 * i - 1] = retry
  out[3 * i] = tat
  out[3 * i + 1] = granted
end
if perKey and server ~= nil then out[1] = server end
return out
