-- cellrate GCRA: one cell per key, TAT in integer microseconds (exact in Lua doubles below 2^53).
-- One call decides n >= 1 keys in order, each on its own cell (a batch is n independent decisions).
-- KEYS[1..n]  the cells
-- ARGV[1]     ceiling tau' + T' (us), <= 2^52
-- ARGV[2]     T' (us): the unit of a lease
-- ARGV[3]     lease: extra intervals to grant beyond each request (0: a plain decision)
-- ARGV[4]     caller time (us), or -1: the server's TIME, or -2: each key's own time, after the increments
-- ARGV[5]     extra expiry (ms) beyond TAT - now
-- ARGV[6]     increment I = permits * T' (us) of every key, in [1, ceiling]; or 0: each key's own follows
-- ARGV[6+i]   with ARGV[6] = 0 only: KEYS[i]'s increment, in [1, ceiling]; 0 skips the key
-- ARGV[m+i]   with -2 only: KEYS[i]'s caller time (us), or -1: the server's TIME (m = 6, or 6 + n with ARGV[6] = 0)
-- Reply: {now_us, then one integer per key, then with a lease one more per key: the intervals granted}. now_us is
-- the server's TIME with -2 if a key used it, else -2. Per key: TAT' - now > 0 when admitted (TAT' the TAT after
-- the decision), -retry_after < 0 when rejected (the TAT is then now + ceiling - I + retry_after), 0 when skipped or
-- when the key holds another type or a value that is not a TAT (a decimal integer below 2^53): an error about that
-- key alone, which changes nothing.
if redis.replicate_commands then redis.replicate_commands() end
local n = #KEYS
local ceiling = tonumber(ARGV[1])
local unit = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local extra = tonumber(ARGV[5])
local shared = tonumber(ARGV[6])
local times = shared > 0 and 6 or 6 + n
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
  local inc = shared
  if inc == 0 then inc = tonumber(ARGV[6 + i]) end
  if perKey then
    now = tonumber(ARGV[times + i])
    if now < 0 then now = serverTime() end
  end
  local v, granted = 0, 0
  if inc > 0 then
    local stored = redis.pcall('GET', KEYS[i])
    local tat = now
    if stored then
      if type(stored) == 'table' or #stored > 16 or not string.match(stored, '^%d+$') then
        tat = nil
      else
        tat = tonumber(stored)
        if tat >= 9007199254740992 then tat = nil elseif tat < now then tat = now end
      end
    end
    if tat ~= nil then
      local lag = tat - now + inc
      if lag > ceiling then
        v = ceiling - lag
      else
        if lease > 0 then
          local room = ceiling - lag
          granted = math.floor(room / unit)
          if granted > lease then granted = lease end
          while granted > 0 and granted * unit > room do granted = granted - 1 end
          lag = lag + granted * unit
        end
        v = lag
        redis.call('SET', KEYS[i], string.format('%d', now + lag),
          'PX', string.format('%d', math.ceil(lag / 1000) + extra))
      end
    end
  end
  out[i + 1] = v
  if lease > 0 then out[n + 1 + i] = granted end
end
if perKey and server ~= nil then out[1] = server end
return out
