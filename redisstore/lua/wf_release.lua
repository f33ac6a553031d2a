-- wf_release.lua: enqueue released workflow tasks into one queue (see
-- workflow_deliver.go and lib_wfrel.lua).
--
-- KEYS: 1 jobs hash, 2 ready list, 3 pending zset, 4 config hash, 5 event
--       stream, 6 the queue's workflow task set (lib_wf.lua's wm),
--       7 garbage zset, 8 done zset, 9 done expiry zset, 10 attempt info
--       hash, 11 error history hash, 12 results hash, 13 cancelled set,
--       14 extras hash, 15 progress hash
-- ARGV: triples: job ID, due ("" now, "+ms" after now, or absolute ms),
--       value (the envelope).
-- Returns release_into's reply.

local now, later = now_ms()
local ids, dues, vals = {}, {}, {}
for a = 1, #ARGV, 3 do
  ids[#ids + 1], dues[#dues + 1], vals[#vals + 1] = ARGV[a], ARGV[a + 1], ARGV[a + 2]
end
local k = {j = KEYS[1], r = KEYS[2], p = KEYS[3], c = KEYS[4], ev = KEYS[5], wm = KEYS[6], g = KEYS[7],
  d = KEYS[8], dx = KEYS[9], a = KEYS[10], e = KEYS[11], o = KEYS[12], x = KEYS[13], ex = KEYS[14], pg = KEYS[15]}
return release_into(k, ids, dues, vals, now, later)
