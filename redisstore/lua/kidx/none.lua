-- kidx/none.lua: a queue without a kind index (the kidx slot's contract
-- is in kidx/on.lua): nothing to keep.

local function kidx_add() end

local function kidx_drop() end

local function kidx_build() return true end
