-- wf_synced.lua: remember that the index shows the workflow in state
-- ARGV[1], when it still is in it.
--- @keys wf_meta

if redis.call('HGET', K.wf_meta, 'st') == ARGV[1] then redis.call('HSET', K.wf_meta, 'ist', ARGV[1]) end
return 0
