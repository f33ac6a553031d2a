-- wf_release_local.lua: on one server, enqueue tasks a step left being
-- released (a new workflow's first tasks, a large one's staged roots,
-- tasks added for other queues, those a dead call left: see
-- workflow_release_local.go) into this queue and confirm them, in one
-- step: wf_release.lua and wf_confirm.lua together, in the variant of the
-- queue's shape, with the workflow's keys (see workflow.go, "On one
-- server").
--- @include conf wfone wfrel events
--
-- ARGV: 1 the workflow's ID, then task names.
-- Returns the number of jobs it enqueued; or {'~', shape} when the
-- variant does not serve the queue (conf.lua), having done nothing.
-- A task no longer being released (a sweeper confirmed it) is left as it
-- is; one whose workflow was cancelled meanwhile is confirmed without its
-- job. The jobs are read from the payloads the creation stored (their
-- values sent again cost Redis more: about 3k instructions a task).

read_fields()
if M.sh and M.sh ~= SHAPE and not shape_ok() then return refused() end
events_config()
wf_use()
local now, later = now_ms()
local pre = ARGV[1] .. '~'
local tasks = {}
for a = 2, #ARGV do tasks[a - 1] = ARGV[a] end
local being = call_chunked_flat('SMISMEMBER', WK.rel, tasks)
if wf_cancelled then prefetch(tasks) end
local pl = call_chunked_flat('HMGET', WK.p, tasks)
local ids, dues, vals, done = {}, {}, {}, {}
for k = 1, #tasks do
  local t, p = tasks[k], pl[k]
  if being[k] == 1 then
    done[#done + 1] = t
    if p and not (wf_cancelled and state(t) == 'C') then
      local z = find(p, '|', 1, true)
      local n = #ids + 1
      ids[n], dues[n], vals[n] = pre .. t, sub(p, 1, z - 1), sub(p, z + 1)
    end
  end
end
if #ids > 0 then release_into(ids, dues, vals, now, later) end
if #done > 0 then
  call_chunked('SREM', WK.rel, done, 1)
  call_chunked('HDEL', WK.p, done, 1)
end
flush_events(now)
return #ids
