-- state.lua: the state of a job that exists, found by elimination, for
-- getjob.lua, the kind search and replace.lua.
--- @include att
--- @keys pending retry garbage done unack

-- job_state returns the state of job id and its score there ('' for
-- ready): the sorted sets pending, retry, garbage and done first, then the
-- unack member named by the token in its attempt info, and ready
-- otherwise (finding it in a ready list would be O(n)).
local function job_state(id)
  for _, s in ipairs({{'pending', K.pending}, {'retry', K.retry}, {'garbage', K.garbage}, {'done', K.done}}) do
    local score = rcall('ZSCORE', s[2], id)
    if score then return s[1], score end
  end
  local _, _, tok = parse_att(rcall('HGET', K.att, id))
  if tok ~= '' then
    local score = rcall('ZSCORE', K.unack, id .. '|' .. tok)
    if score then return 'unack', score end
  end
  return 'ready', ''
end
