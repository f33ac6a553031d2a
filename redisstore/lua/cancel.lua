-- cancel.lua: cancel one job (see admin.go).
--- @flags allow-oom
--- @include conf att errors unique events kinds waiters ready wfends
--- @keys jobs pending retry unack garbage done cancelled
--
-- ARGV: 1 id, 2 error text
-- Returns the state the job was in, or '' when there is no such job.
-- Waiting jobs move to garbage at once, cancelled, with the error recorded;
-- a running job is only flagged (its worker learns of it through Extend);
-- garbage and done stay as they are.

read_fields()
local id = ARGV[1]
if rcall('HEXISTS', K.jobs, id) == 0 then return '' end
local from
if rcall('ZREM', K.pending, id) == 1 then
  from = 'pending'
elseif rcall('ZREM', K.retry, id) == 1 then
  from = 'retry'
elseif rcall('ZSCORE', K.garbage, id) then
  return 'garbage'
elseif rcall('ZSCORE', K.done, id) then
  return 'done'
end
local a, _, tok = parse_att(rcall('HGET', K.att, id))
if not from then
  if tok ~= '' and rcall('ZSCORE', K.unack, id .. '|' .. tok) then
    rcall('SADD', K.cancelled, id)
    return 'unack'
  end
  if ready_remove(id, rcall('HGET', K.jobs, id)) == 0 then return '' end
  from = 'ready'
end
local now = now_ms()
append_error(id, now, a, error_rest(a, ARGV[2]))
release_unique({id})
if rcall('ZCARD', K.garbage) == 0 then wake_sched() end
rcall('ZADD', K.garbage, now, id)
rcall('SADD', K.cancelled, id)
events_config()
local kind = kind_of(rcall('HGET', K.jobs, id))
emit(8, id, kind, a, ARGV[2])
flush_events(now)
if waited_among({id}) then publish_end(id, 'garbage', a, kind, '', ARGV[2], true, now) end
if wf_members({id}) then
  wf_note(id, 'c', '')
  wf_flush(now)
end
return from
