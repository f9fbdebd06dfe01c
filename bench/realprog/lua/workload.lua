-- workload.lua -- the fixed work bench/realprog/lua/driver gives Lua: what a Lua program
-- typically does, in the proportions that make the interpreter call-dense.
--
-- The chunk returns one function, run(iterations), which returns a checksum of every
-- result (an integer below 2^32). Each iteration does the same four kinds of work:
-- recursive calls (fib), objects with methods and metamethods through a metatable,
-- sorting records with a comparator written in Lua (the C library calling back into
-- Lua), and string building, formatting and pattern matching. Nothing depends on the
-- order of a hash table's traversal or on math.random (Lua 5.4 seeds both afresh in
-- every process), so every build of the interpreter computes the same checksum.

local format, concat, sort = string.format, table.concat, table.sort

-- A linear congruential generator: the same numbers in every run.
local function lcg(seed)
    return (seed * 1103515245 + 12345) & 0x7fffffff
end

local function mix(h, v)
    return (h * 31 + v) & 0xffffffff
end

local function fib(n)
    if n < 2 then
        return n
    end
    return fib(n - 1) + fib(n - 2)
end

-- A small class, written the way Lua programs write them.
local Vec = {}
Vec.__index = Vec

function Vec.new(x, y)
    return setmetatable({x = x, y = y}, Vec)
end

function Vec:dot(o)
    return self.x * o.x + self.y * o.y
end

function Vec.__add(a, b)
    return Vec.new(a.x + b.x, a.y + b.y)
end

function Vec:scaled(k)
    return Vec.new(self.x * k, self.y * k)
end

local function vectors(h, seed)
    local acc = Vec.new(0, 0)
    for i = 1, 400 do
        seed = lcg(seed)
        local v = Vec.new(seed % 100, i) + acc:scaled(0)
        acc = acc + v
        h = mix(h, v:dot(acc) % 1000)
    end
    return h, seed
end

local function by_key(a, b)
    if a.key ~= b.key then
        return a.key < b.key
    end
    return a.id < b.id
end

local function records(h, seed)
    local t = {}
    for i = 1, 400 do
        seed = lcg(seed)
        t[i] = {key = seed % 1000, id = i}
    end
    sort(t, by_key)
    for _, r in ipairs(t) do
        h = mix(h, r.id)
    end
    return h, seed
end

local words = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}

local function text(h, seed)
    local parts = {}
    for i = 1, 60 do
        seed = lcg(seed)
        parts[i] = format("%s-%d", words[seed % #words + 1], seed % 97)
    end
    local s = concat(parts, " ")
    for w, n in s:gmatch("(%a+)-(%d+)") do
        h = mix(h, #w + tonumber(n))
    end
    s = s:gsub("a", "A"):upper():sub(1, 200)
    for i = 1, #s do
        h = mix(h, s:byte(i))
    end
    return h, seed
end

return function(iterations)
    local h, seed = 0, 42
    for _ = 1, iterations do
        h = mix(h, fib(20))
        h, seed = vectors(h, seed)
        h, seed = records(h, seed)
        h, seed = text(h, seed)
    end
    return h
end
