/**
 * KEYS[1] quota, KEYS[2] leases, KEYS[3] journal. ARGV[1] the size wanted, ARGV[2] the call's amount (the least
 * lease worth having, and its unit), ARGV[3] the allowance, ARGV[4] the new lease's field, ARGV[5] its journal
 * field, ARGV[6] the TTL; then triples (lease field, journal field, amount) of leases whose rest is given back
 * first. -1: the counter is missing (seed it, then again). 0: refused, with the charged total and the outstanding
 * leases. 1: granted, with the size, the charged total and the other leases outstanding.
 */
export const GRANT = `
local v = redis.call('GET', KEYS[1])
if not v then return {-1, 0, 0} end
v = tonumber(v)
for i = 7, #ARGV, 3 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then
    redis.call('HINCRBY', KEYS[2], ARGV[i], 0 - tonumber(ARGV[i + 2]))
    redis.call('HINCRBY', KEYS[3], ARGV[i + 1], 0 - tonumber(ARGV[i + 2]))
  end
end
local out = 0
for _, x in ipairs(redis.call('HVALS', KEYS[2])) do out = out + tonumber(x) end
local amount = tonumber(ARGV[2])
local room = tonumber(ARGV[3]) - v - out
if room < amount then return {0, v, out} end
local size = math.floor(room / 8)
if size > tonumber(ARGV[1]) then size = tonumber(ARGV[1]) end
if amount > 0 then size = size - size % amount end
if size < amount then size = amount end
if size < 1 then size = 1 end
redis.call('HSET', KEYS[2], ARGV[4], size)
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('HINCRBY', KEYS[3], ARGV[5], size)
return {1, size, v, out}`;
