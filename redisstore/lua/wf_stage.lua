-- wf_stage.lua: store some tasks of a large workflow before its last step
-- (wf_create.lua or wf_create_local.lua) creates it, in keys of their own
-- (the "<root>:<attempt>" families of keys.go) that expire unless that
-- step renames them into place (see workflow_stage.go): a workflow of
-- 100,000 tasks is stored in steps of 250, between which Redis
-- serves others.
--- @include wfone wfcreate
--
-- ARGV: 1 id, 2 attempt, 3 TTL ms, then six per task as wfcreate.lua
-- takes them.
-- Returns {'dup'} when the workflow exists already, {'noperm'} when the
-- ACL user may not run PEXPIRE, RENAME or PERSIST, having stored nothing;
-- else the names of the tasks it stored released (no
-- dependencies), which wait in the staged rel set.

wf_use()
if WM.st then return {'dup'} end
local att, ttl = ARGV[2], ARGV[3]
local staged = staged_keys(att)
-- An ACL user of an older recipe, without the rights the stage and the
-- last step need, stages nothing: the caller creates the workflow in one
-- step, as before.
if not (redis.acl_check_cmd('PEXPIRE', staged.s, ttl) and redis.acl_check_cmd('RENAME', staged.s, WK.s)
    and redis.acl_check_cmd('PERSIST', WK.s)) then
  return {'noperm'}
end
wf_use({WK.m, staged.s, staged.r, staged.i, staged.d, staged.p, WK.o, staged.rel})
local roots = store_tasks(4, nil)
for _, root in ipairs(STAGED_ROOTS) do rcall('PEXPIRE', staged[root], ttl) end
return roots
