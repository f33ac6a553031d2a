-- wf_create.lua: store a new workflow with every task (see workflow.go).
--
-- KEYS: the workflow's (lib_wfgraph.lua).
-- ARGV: 1 id, 2 name, 3 retention ms, then five per task: name, info,
--       dependencies, dependents, payload.
-- Returns {'dup'} when the ID is held, else lib_wfgraph's reply with the
-- tasks released (those without dependencies), their queue and payload
-- left empty: the caller has them.

if redis.call('EXISTS', WK.m) == 1 then return {'dup'} end
local now = now_ms()
local s, r, i, d, n, p, roots = {}, {}, {}, {}, {}, {}, {}
local nt = 0
for a = 4, #ARGV, 5 do
  local t = ARGV[a]
  nt = nt + 1
  s[#s + 1] = t; s[#s + 1] = 'w'
  i[#i + 1] = t; i[#i + 1] = ARGV[a + 1]
  p[#p + 1] = t; p[#p + 1] = ARGV[a + 4]
  local deps = ARGV[a + 2]
  if deps == '' then
    roots[#roots + 1] = t
    r[#r + 1] = t; r[#r + 1] = 0
  else
    d[#d + 1] = t; d[#d + 1] = deps
    local c = 1
    for _ in string.gmatch(deps, '\n') do c = c + 1 end
    r[#r + 1] = t; r[#r + 1] = c
  end
  if ARGV[a + 3] ~= '' then n[#n + 1] = t; n[#n + 1] = ARGV[a + 3] end
end
redis.call('HSET', WK.m, 'id', ARGV[1], 'name', ARGV[2], 'st', 'running', 'cx', 0, 'cr', now, 'en', 0,
  'ret', ARGV[3], 'nt', nt, 'open', nt, 'bad', 0, 'ist', '', 'c_w', nt)
call_chunked('HSET', WK.s, s, 2)
call_chunked('HSET', WK.r, r, 2)
call_chunked('HSET', WK.i, i, 2)
call_chunked('HSET', WK.p, p, 2)
if #d > 0 then call_chunked('HSET', WK.d, d, 2) end
if #n > 0 then call_chunked('HSET', WK.n, n, 2) end
-- The tasks without dependencies are released at once: the caller has
-- their jobs, so the reply names them without their payloads.
if #roots > 0 then
  local h = {}
  for _, t in ipairs(roots) do
    h[#h + 1] = t
    h[#h + 1] = 'e'
  end
  call_chunked('HSET', WK.s, h, 2)
  call_chunked('SADD', WK.rel, roots, 1)
  redis.call('HSET', WK.m, 'c_w', nt - #roots, 'c_e', #roots)
end
local out = reply({})
for _, t in ipairs(roots) do
  out[#out + 1] = t
  out[#out + 1] = ''
  out[#out + 1] = ''
end
return out
