-- wf_get.lua: read a whole workflow (see workflow_admin.go).
--
-- KEYS: 1 meta hash, 2 states, 3 infos, 4 dependencies (lib_wfgraph.lua's
-- 1, 2, 5 and 6).
-- Returns {} when it is not stored, else the four hashes' HGETALL replies.

if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]),
  redis.call('HGETALL', KEYS[4])}
