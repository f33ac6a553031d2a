-- wf/none.lua: a finish whose batch ends no workflow task's job (the wf
-- slot's contract is in wf/record.lua).

local function wf_members() return nil end

local function wf_note() end

local function wf_finish(out)
  out[#out + 1] = 0
end
