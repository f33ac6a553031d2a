-- groups/names.lua: the names of a queue's groups in order, for listings.
--- @include groups/store
--- @keys g_known

-- first_in_order returns the first k of names (all with k nil) in
-- order, by name (descending with desc), and whether those are all of
-- them. For k well below #names it makes one pass keeping the best k,
-- about one comparison a name, instead of sorting them all: the first
-- page of a listing over 100,000 groups costs a quarter of a sort.
local function first_in_order(names, k, desc)
  local before
  if desc then before = function(a, b) return a > b end else before = function(a, b) return a < b end end
  if not k or k * 4 >= #names then
    table.sort(names, before)
    return names, true
  end
  local best, nb = {}, 0
  for _, g in ipairs(names) do
    if nb < k or before(g, best[nb]) then
      local lo, hi = 1, nb + 1
      while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if before(g, best[mid]) then hi = mid else lo = mid + 1 end
      end
      table.insert(best, lo, g)
      if nb == k then best[k + 1] = nil else nb = nb + 1 end
    end
  end
  return best, false
end

-- group_names returns the first k (all with k nil) of the groups whose
-- lists may hold jobs, by name (descending with desc), and whether
-- those are all of them (first_in_order).
local function group_names(k, desc)
  return first_in_order(rcall('SMEMBERS', K.g_known), k, desc)
end

-- GS.page appends to ids up to c IDs of the groups' ready jobs from
-- position o, by group name (descending with rev), each group's in order
-- (reversed with rev). It reads the names a few at a time, and the length
-- of each group it passes: a page deep into a queue of many groups costs
-- a command or two per group before it.
function GS.page(ids, o, c, rev)
  local k, i = 64, 0
  local names, all = group_names(k, rev)
  local stop = #ids + c
  while #ids < stop do
    if i == #names then
      if all then return end
      k = k * 4
      names, all = group_names(k, rev)
      if i == #names then return end
    end
    i = i + 1
    o = math.max(o - GS.slice(ids, names[i], o, stop - #ids, rev), 0)
  end
end
