-- wf_synced.lua: remember that the index shows the workflow in state
-- ARGV[1], when it still is in it.
--
-- KEYS: 1 the workflow's meta hash.

if redis.call('HGET', KEYS[1], 'st') == ARGV[1] then redis.call('HSET', KEYS[1], 'ist', ARGV[1]) end
return 0
