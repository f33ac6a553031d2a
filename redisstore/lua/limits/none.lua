-- limits/none.lua: a queue without MaxRunning or RateLimit (the limits
-- slot's contract is in limits/on.lua): nothing holds a claim back.

local function limits_room(n) return n, 0, false end

local function limits_note() end

local function limits_paced() return false end

local function limits_after() return 0 end

local function limits_freed() return false end
