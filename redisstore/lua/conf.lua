-- conf.lua: the queue's shape, which says which variant of a hot script
-- serves it (shape.go). The loader writes read_fields, which fills C and M
-- with the fields a script's files declare (lua.go).
--- @marks sh

-- shape_ok reports whether this script serves the queue's shape M.sh
-- (read_fields first): every letter of it that the script's slots look at
-- (SHAPE_SEEN) is one its variant serves (SHAPE).
local function shape_ok()
  local sh = M.sh
  if not sh or sh == SHAPE then return true end
  for i = 1, #sh do
    local c = string.sub(sh, i, i)
    if string.find(SHAPE_SEEN, c, 1, true) and not string.find(SHAPE, c, 1, true) then return false end
  end
  return true
end

-- refused is the reply of a script that does not serve the queue's
-- shape, and did nothing: the caller calls the variant that does.
local function refused()
  return {'~', M.sh or ''}
end

-- has_shape reports whether the queue's shape has letter c.
local function has_shape(c)
  return string.find(M.sh or '', c, 1, true) ~= nil
end

-- set_shape adds letter c to the queue's shape (on) or takes it away,
-- keeping the letters in shape.go's order, and takes the lean mark away
-- (lean.lua): its callers declare the key lean.
local function set_shape(c, on)
  if has_shape(c) == on then return end
  local sh, out = M.sh or '', ''
  for l in string.gmatch('PGLK', '.') do
    if (l == c and on) or (l ~= c and string.find(sh, l, 1, true)) then out = out .. l end
  end
  M.sh = out
  rcall('HSET', K.marks, 'sh', out)
  rcall('DEL', K.lean)
end
