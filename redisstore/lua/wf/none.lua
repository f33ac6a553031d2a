-- wf/none.lua: a finish whose batch ends no workflow task's job: nobody
-- tracks its ends (the wf slot's contract is in wf/record.lua).

local function tracked_among() return nil end

local function track_end() end

local function track_oks() end

local function tracked_tail(out)
  out[#out + 1] = 0
end

-- ENDS_TRACKED tells whether this file tracks the ends of some jobs: a
-- finish that ends nobody's tasks may take the lean way (ends_lean.lua).
local ENDS_TRACKED = false
