-- lib_member.lua: unack member helper (see scripts.go).

-- id_of returns the job ID of an unack member "id|token". IDs may contain
-- '|', tokens may not, so the last '|' separates them.
local function id_of(member)
  return string.match(member, '^(.*)|%d+$')
end
