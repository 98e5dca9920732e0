-- cellrate GCRA: one cell per key, TAT in integer microseconds (exact in Lua doubles below 2^53).
-- KEYS[1]  the cell
-- ARGV[1]  increment I = n * T' (us), in [1, ceiling]
-- ARGV[2]  ceiling tau' + T' (us), <= 2^52
-- ARGV[3]  T' (us): the unit of a lease
-- ARGV[4]  lease: extra intervals to grant beyond this request (0: a plain decision)
-- ARGV[5]  caller time (us), or -1: the server's TIME
-- ARGV[6]  extra expiry (ms) beyond TAT - now
-- Reply: {retry_after_us (0: admitted), tat_after_us, now_us, granted}, or {-1, 0, now_us, 0} when the key holds
-- another type or a value that is not a TAT (a decimal integer below 2^53): an error about this key alone.
if redis.replicate_commands then redis.replicate_commands() end
local now = tonumber(ARGV[5])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local inc = tonumber(ARGV[1])
local ceiling = tonumber(ARGV[2])
local stored = redis.pcall('GET', KEYS[1])
local tat = now
if type(stored) == 'table' then
  return {-1, 0, now, 0}
end
if stored then
  if #stored > 16 or not string.match(stored, '^%d+$') then
    return {-1, 0, now, 0}
  end
  tat = tonumber(stored)
  if tat >= 9007199254740992 then
    return {-1, 0, now, 0}
  end
  if tat < now then tat = now end
end
local lag = tat - now
if lag + inc > ceiling then
  return {lag + inc - ceiling, tat, now, 0}
end
local granted = 0
local lease = tonumber(ARGV[4])
if lease > 0 then
  local unit = tonumber(ARGV[3])
  local room = ceiling - lag - inc
  granted = math.floor(room / unit)
  if granted > lease then granted = lease end
  while granted > 0 and granted * unit > room do granted = granted - 1 end
  inc = inc + granted * unit
end
local after = tat + inc
redis.call('SET', KEYS[1], string.format('%.0f', after), 'PX', math.ceil((after - now) / 1000) + tonumber(ARGV[6]))
return {0, after, now, granted}
