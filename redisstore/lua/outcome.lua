-- outcome.lua: the outcome rules a store applies atomically (store.Outcome).
-- Outcomes: 1 ack, 2 retry, 3 garbage, 4 snooze, 5 release, 6 cancel.

-- on_cancelled is store.Outcome.OnCancelled: a job that Cancel flagged
-- while it ran is never retried, snoozed or released; it dies cancelled.
local function on_cancelled(o)
  if o == 2 or o == 4 or o == 5 then return 6 end
  return o
end

-- OUTCOME_EVENT maps a finish outcome code (finish.go) to its event code.
local OUTCOME_EVENT = {5, 6, 7, 9, 10, 8}
