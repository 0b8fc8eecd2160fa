-- The hall's phones for Debian's wrk 4.1 (bench/hall.py --compare-wrk): each connection is one
-- phone polling the public pages with HX-Request and If-None-Match, paced by delay().
--
--   wrk -t2 -c5000 -d30s --timeout 10s -s bench/hall.lua http://127.0.0.1:8590 -- \
--       PREFIX SLUG STAGE_ORDER TABLES PLAYERS
--
-- wrk is closed loop: a connection sends its next request only after the answer to the last,
-- and its latency figures count from the send, not from when the phone meant to ask. Lua
-- callbacks run per thread, not per connection, so a connection cannot keep "its" page: each
-- request picks a page in the phones' mix (bench/hall_parts.py PAGE_MIX, weighted by how often
-- each page polls), and the delay before it is random with the mean gap of one phone's polls.

local standings, sheet_base, player_base
local tables, players = 125, 500
local etag = nil
-- One phone: 60% on the standings (every 5 s), 25% on a sheet (10 s), 15% on a player (15 s):
-- 0.155 polls a second, 77% of them of the standings and 16% of a sheet.
local MEAN_GAP_MS = 1000 / (0.60 / 5 + 0.25 / 10 + 0.15 / 15)
local P_STANDINGS = (0.60 / 5) / (0.60 / 5 + 0.25 / 10 + 0.15 / 15)
local P_SHEET = P_STANDINGS + (0.25 / 10) / (0.60 / 5 + 0.25 / 10 + 0.15 / 15)

function init(args)
  local prefix, slug, order = args[1] or "", args[2], args[3] or "1"
  tables = tonumber(args[4] or "125")
  players = tonumber(args[5] or "500")
  standings = prefix .. "/t/" .. slug .. "/"
  sheet_base = standings .. "tables/" .. order .. "/"
  player_base = standings .. "players/"
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 1000)
end

function delay()
  return math.random(0, math.floor(2 * MEAN_GAP_MS))
end

function request()
  local r = math.random()
  local headers = { ["HX-Request"] = "true", ["Accept-Language"] = "en" }
  local path
  if r < P_STANDINGS then
    path = standings
    if etag then headers["If-None-Match"] = etag end
  elseif r < P_SHEET then
    path = sheet_base .. math.random(1, tables) .. "/"
  else
    path = player_base .. math.random(1, players) .. "/"
  end
  return wrk.format("GET", path, headers)
end

function response(status, headers, body)
  local tag = headers["ETag"] or headers["etag"]
  if status == 200 and tag and tag:find("standings", 1, true) then etag = tag end
end
