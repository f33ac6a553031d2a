-- wf_create.lua: store a new workflow with every task (see workflow.go).
--- @include wfone
--
-- ARGV: 1 id, 2 name, 3 retention ms, then six per task: name, info,
-- dependencies, dependents, due and value of its job (wf_release.lua's
-- triples without the ID).
-- Returns {'dup'} when the ID is held, else wfgraph/flow.lua's reply with
-- the tasks released (those without dependencies), their queue and
-- payload left empty: the caller has them.

wf_use()

if redis.call('EXISTS', WK.m) == 1 then return {'dup'} end
local now, later = now_ms()
local s, r, i, d, p, roots = {}, {}, {}, {}, {}, {}
local ns, nr, ni, nd, np, nroots = 0, 0, 0, 0, 0, 0
local nt = 0
for a = 4, #ARGV, 6 do
  local t, deps, dependents = ARGV[a], ARGV[a + 2], ARGV[a + 3]
  nt = nt + 1
  i[ni + 1] = t; i[ni + 2] = ARGV[a + 1]; ni = ni + 2
  -- Released at once when it waits for nothing.
  local st = deps == '' and 'e' or 'w'
  s[ns + 1] = t
  s[ns + 2] = dependents == '' and st or (st .. '|' .. dependents)
  ns = ns + 2
  if deps == '' then
    nroots = nroots + 1
    roots[nroots] = t
  else
    d[nd + 1] = t; d[nd + 2] = deps; nd = nd + 2
    local c = 1
    for _ in string.gmatch(deps, '\n') do c = c + 1 end
    r[nr + 1] = t; r[nr + 2] = c; nr = nr + 2
  end
  p[np + 1] = t; p[np + 2] = ARGV[a + 4] .. '|' .. ARGV[a + 5]; np = np + 2
end
redis.call('HSET', WK.m, 'id', ARGV[1], 'name', ARGV[2], 'st', 'running', 'cx', 0, 'cr', now, 'en', 0,
  'ret', ARGV[3], 'nt', nt, 'open', nt, 'bad', 0, 'ist', '', 'c_w', nt - nroots, 'c_e', nroots)
WM = {st = 'running', open = nt, bad = 0, ist = ''}
call_chunked('HSET', WK.s, s, 2)
call_chunked('HSET', WK.i, i, 2)
-- A task missing from r waits for nothing (lib_wfgraph's rem).
if nr > 0 then call_chunked('HSET', WK.r, r, 2) end
if np > 0 then call_chunked('HSET', WK.p, p, 2) end
if nd > 0 then call_chunked('HSET', WK.d, d, 2) end
-- The tasks without dependencies are released at once: the caller has
-- their jobs, so the reply names them without their payloads.
if nroots > 0 then call_chunked('SADD', WK.rel, roots, 1) end
local out = reply({})
for _, t in ipairs(roots) do
  out[#out + 1] = t
  out[#out + 1] = ''
  out[#out + 1] = ''
end
return out
