-- kidx/none.lua: a queue without a kind index (the kidx slot's contract
-- is in kidx/on.lua): nothing to keep.

local function index_add() end

local function index_drop() end

local function index_on() return false end

local function index_build() return true end
