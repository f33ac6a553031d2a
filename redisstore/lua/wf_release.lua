-- wf_release.lua: enqueue released workflow tasks into one queue (see
-- workflow_deliver.go and wfrel.lua).
--- @include conf wfrel events
--
-- ARGV: triples: job ID, due ("" now, "+ms" after now, or absolute ms),
-- value (the envelope).
-- Returns release_into's reply.

read_fields()
events_config()
local now, later = now_ms()
local ids, dues, vals = {}, {}, {}
for a = 1, #ARGV, 3 do
  ids[#ids + 1], dues[#dues + 1], vals[#vals + 1] = ARGV[a], ARGV[a + 1], ARGV[a + 2]
end
local out = release_into(ids, dues, vals, now, later)
flush_events(now)
return out
