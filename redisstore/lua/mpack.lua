-- mpack.lua: the msgpack of a job's envelope (envelope.go) walked by
-- bytes, for replace.lua: where each value starts and ends, without
-- decoding it (cmsgpack would not give back the bytes Go wrote: a bin
-- comes back a str, an empty map an array).

-- mp_uint returns the big-endian unsigned integer of n bytes at p of s.
local function mp_uint(s, p, n)
  local x = 0
  for i = p, p + n - 1 do x = x * 256 + (string.byte(s, i) or 0) end
  return x
end

-- mp_container returns how many values the array or map at byte p of s
-- holds (a map's keys and values each counted) and where the first
-- starts, or nil when it is neither.
local function mp_container(s, p)
  local b = string.byte(s, p)
  if not b then return nil end
  if b >= 0x80 and b <= 0x8f then return 2 * (b - 0x80), p + 1 end
  if b >= 0x90 and b <= 0x9f then return b - 0x90, p + 1 end
  if b == 0xdc then return mp_uint(s, p + 1, 2), p + 3 end
  if b == 0xde then return 2 * mp_uint(s, p + 1, 2), p + 3 end
  if b == 0xdd then return mp_uint(s, p + 1, 4), p + 5 end
  if b == 0xdf then return 2 * mp_uint(s, p + 1, 4), p + 5 end
  return nil
end

-- mp_skip returns the position after the msgpack value at byte p of s, or
-- nil when there is none.
local function mp_skip(s, p)
  local b = string.byte(s, p)
  if not b then return nil end
  if b <= 0x7f or b >= 0xe0 or b == 0xc0 or b == 0xc2 or b == 0xc3 then return p + 1 end
  if b >= 0xa0 and b <= 0xbf then return p + 1 + b - 0xa0 end
  if b == 0xd9 or b == 0xc4 then return p + 2 + mp_uint(s, p + 1, 1) end
  if b == 0xda or b == 0xc5 then return p + 3 + mp_uint(s, p + 1, 2) end
  if b == 0xdb or b == 0xc6 then return p + 5 + mp_uint(s, p + 1, 4) end
  if b == 0xcc or b == 0xd0 then return p + 2 end
  if b == 0xcd or b == 0xd1 then return p + 3 end
  if b == 0xce or b == 0xd2 or b == 0xca then return p + 5 end
  if b == 0xcf or b == 0xd3 or b == 0xcb then return p + 9 end
  if b >= 0xd4 and b <= 0xd8 then return p + 2 + 2 ^ (b - 0xd4) end
  if b == 0xc7 then return p + 3 + mp_uint(s, p + 1, 1) end
  if b == 0xc8 then return p + 4 + mp_uint(s, p + 1, 2) end
  if b == 0xc9 then return p + 6 + mp_uint(s, p + 1, 4) end
  local n, q = mp_container(s, p)
  if not n then return nil end
  for _ = 1, n do
    q = mp_skip(s, q)
    if not q then return nil end
  end
  return q
end

-- mp_items returns the start of each item of the array (each key and
-- each value of the map) at byte p of s, then the position after the
-- last; or nil when there is none.
local function mp_items(s, p)
  local n, q = mp_container(s, p)
  if not n then return nil end
  local at = {}
  for i = 1, n do
    at[i] = q
    q = mp_skip(s, q)
    if not q then return nil end
  end
  at[n + 1] = q
  return at
end

-- mp_header returns the header of an array (map with map) of n items
-- (pairs).
local function mp_header(n, map)
  local base, wide = 0x90, 0xdc
  if map then base, wide = 0x80, 0xde end
  if n < 16 then return string.char(base + n) end
  return string.char(wide, math.floor(n / 256), n % 256)
end
