/*
 * driver.c -- a fixed amount of Lua work for bench/realprog/lua.
 *
 *     driver SCRIPT ITERATIONS
 *
 * Embeds the Lua interpreter as a program does: a new state with the standard
 * libraries, the chunk SCRIPT (bench/realprog/lua/workload.lua) loaded and run once,
 * and the function it returns called with ITERATIONS. That function's result is a
 * checksum of all the work, printed so that runs of different builds of the same work
 * can be compared for equality; so is the time the call took, measured here so that
 * neither process start-up, loading the script nor a profile written at exit is
 * counted in it.
 */
#include <stdio.h>

#include "../driver.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

int main(int argc, char **argv)
{
    unsigned long iterations = argc == 3 ? driver_iterations(argv[2]) : 0;
    if (iterations == 0) {
        fprintf(stderr, "usage: driver SCRIPT ITERATIONS (a positive number)\n");
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "driver: no memory for a Lua state\n");
        return 1;
    }
    luaL_openlibs(L);
    if (luaL_loadfile(L, argv[1]) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK ||
        !lua_isfunction(L, -1)) {
        fprintf(stderr, "driver: %s: %s\n", argv[1],
                lua_isstring(L, -1) ? lua_tostring(L, -1) : "returned no function");
        lua_close(L);
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)iterations);
    double start = driver_now();
    int status = lua_pcall(L, 1, 1, 0);
    double elapsed = driver_now() - start;
    if (status != LUA_OK || !lua_isinteger(L, -1)) {
        fprintf(stderr, "driver: %s: %s\n", argv[1],
                status != LUA_OK ? lua_tostring(L, -1) : "no integer checksum");
        lua_close(L);
        return 1;
    }
    unsigned long long h = (unsigned long long)lua_tointeger(L, -1);
    printf("driver: %lu iterations of %s, checksum %016llx, elapsed: %.6f s\n", iterations, argv[1],
           h, elapsed);
    lua_close(L);
    return 0;
}
