-- lib_state.lua: the state of a job that exists, found by elimination, for
-- getjob.lua and lib_replace.lua (needs lib_att.lua).

-- job_state returns the state of job id and its score there ('' for
-- ready): the sorted sets pending, retry, garbage and done first, then the
-- unack member named by the token in the attempt info hash att, and ready
-- otherwise (LPOS on the ready list would be O(n)).
local function job_state(id, pending, retry, garbage, done, unack, att)
  for _, s in ipairs({{'pending', pending}, {'retry', retry}, {'garbage', garbage}, {'done', done}}) do
    local score = redis.call('ZSCORE', s[2], id)
    if score then return s[1], score end
  end
  local _, _, tok = parse_att(redis.call('HGET', att, id))
  if tok ~= '' then
    local score = redis.call('ZSCORE', unack, id .. '|' .. tok)
    if score then return 'unack', score end
  end
  return 'ready', ''
end
