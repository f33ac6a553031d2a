-- cancel.lua: cancel one job (see admin.go).
--
-- KEYS: 1 jobs hash, 2 pending zset, 3 retry zset, 4 ready list, 5 unack
--       zset, 6 attempt info hash, 7 garbage zset, 8 done zset,
--       9 cancelled set, 10 error history hash, 11 unique locks hash,
--       12 extras hash, 13 config hash, 14 event stream, 15 waited set,
--       16-19 workflow task set, records, delivery zset and token counter
--       (lib_wf.lua)
-- ARGV: 1 id, 2 error text
-- Returns the state the job was in, or '' when there is no such job.
-- Waiting jobs move to garbage at once, cancelled, with the error recorded;
-- a running job is only flagged (its worker learns of it through Extend);
-- garbage and done stay as they are.

local id = ARGV[1]
if redis.call('HEXISTS', KEYS[1], id) == 0 then return '' end
local from
if redis.call('ZREM', KEYS[2], id) == 1 then
  from = 'pending'
elseif redis.call('ZREM', KEYS[3], id) == 1 then
  from = 'retry'
elseif redis.call('ZSCORE', KEYS[7], id) then
  return 'garbage'
elseif redis.call('ZSCORE', KEYS[8], id) then
  return 'done'
end
local a, _, tok = parse_att(redis.call('HGET', KEYS[6], id))
if not from then
  if tok ~= '' and redis.call('ZSCORE', KEYS[5], id .. '|' .. tok) then
    redis.call('SADD', KEYS[9], id)
    return 'unack'
  end
  local list = ext().ready_list_of(KEYS[4], redis.call('HGET', KEYS[1], id))
  if redis.call('LREM', list, 1, id) == 0 then return '' end
  from = 'ready'
end
local now = now_ms()
append_error(KEYS[10], id, now, a, error_rest(a, ARGV[2]))
release_unique(KEYS[11], KEYS[12], {id})
if redis.call('ZCARD', KEYS[7]) == 0 then wake_sched() end
redis.call('ZADD', KEYS[7], now, id)
redis.call('SADD', KEYS[9], id)
events_config(unpack(redis.call('HMGET', KEYS[13], 'ev', 'evw')))
local kind = kind_of(redis.call('HGET', KEYS[1], id))
emit(8, id, kind, a, ARGV[2])
flush_events(KEYS[14], now)
if waited_among(KEYS[15], {id}) then publish_end(KEYS[15], id, 'garbage', a, kind, '', ARGV[2], true, now) end
if wf_members(KEYS[16], {id}) then
  wf_note(id, 'c', '')
  wf_flush(KEYS[17], KEYS[18], KEYS[19], now)
end
return from
