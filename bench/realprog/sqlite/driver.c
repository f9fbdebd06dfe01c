/*
 * driver.c -- a fixed amount of SQLite work for bench/realprog/sqlite.
 *
 *     driver ITERATIONS
 *
 * Embeds SQLite as a program does: one in-memory database with a table and two
 * indexes, and the statements below prepared once. Each iteration empties the table,
 * fills it with 2,000 rows made by a recursive query (printf, hex, arithmetic), and
 * runs a grouping with a sort, a LIKE scan, an IN subquery, an UPDATE, a self-join, and
 * an ORDER BY into group_concat: SQL compiled to bytecode run by SQLite's virtual
 * machine, B-tree searches and inserts, the page cache, the sorter and its built-in
 * functions. Every value of every row read back goes into a checksum (FNV-1a of its
 * text), printed so that runs of different builds of the same work can be compared for
 * equality; so is the time the iterations took, measured here so that neither process
 * start-up nor a profile written at exit is counted in it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../driver.h"
#include "sqlite3.h"

static const char *const setup = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d INTEGER);"
                                 "CREATE INDEX tb ON t(b);"
                                 "CREATE INDEX td ON t(d, c);";

/* ?1 in the first: the iteration, so that each fills the table with other keys */
static const char *const work[] = {
    "DELETE FROM t",
    "WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < 2000) "
    "INSERT INTO t SELECT ?1 * 2000 + k, printf('row-%08d-%s', (k * 7919 + ?1) % 2000, hex(k)), "
    "k * 0.5, (k * 31 + ?1) % 100 FROM s",
    "SELECT d, count(*), sum(c), max(b) FROM t GROUP BY d ORDER BY 2 DESC, 1 LIMIT 5",
    "SELECT count(*) FROM t WHERE b LIKE 'row-0001%'",
    "SELECT sum(length(b)) FROM t AS x WHERE x.d IN (SELECT d FROM t WHERE a % 50 = 0)",
    "UPDATE t SET c = c + 1 WHERE d % 7 = 0",
    "SELECT count(*), sum(t.c) FROM t JOIN t AS u ON u.a = t.a + 1",
    "SELECT group_concat(b, ',') FROM (SELECT b FROM t ORDER BY c DESC, a LIMIT 20)",
};
#define NWORK (sizeof work / sizeof *work)

static uint64_t fnv(uint64_t h, const unsigned char *s)
{
    for (; s && *s; s++)
        h = (h ^ *s) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull; /* the end of a value */
}

static int fail(sqlite3 *db, const char *what)
{
    fprintf(stderr, "driver: %s: %s\n", what, sqlite3_errmsg(db));
    sqlite3_close(db);
    return 1;
}

int main(int argc, char **argv)
{
    unsigned long iterations = argc == 2 ? driver_iterations(argv[1]) : 0;
    if (iterations == 0) {
        fprintf(stderr, "usage: driver ITERATIONS (a positive number)\n");
        return 2;
    }
    sqlite3 *db;
    sqlite3_stmt *st[NWORK];
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return fail(db, "opening :memory:");
    if (sqlite3_exec(db, setup, NULL, NULL, NULL) != SQLITE_OK) return fail(db, "the schema");
    for (size_t i = 0; i < NWORK; i++)
        if (sqlite3_prepare_v2(db, work[i], -1, &st[i], NULL) != SQLITE_OK)
            return fail(db, work[i]);
    uint64_t h = 0xcbf29ce484222325ull;
    double start = driver_now();
    for (unsigned long it = 0; it < iterations; it++) {
        sqlite3_bind_int64(st[1], 1, (sqlite3_int64)it);
        for (size_t i = 0; i < NWORK; i++) {
            int rc;
            while ((rc = sqlite3_step(st[i])) == SQLITE_ROW)
                for (int c = 0; c < sqlite3_column_count(st[i]); c++)
                    h = fnv(h, sqlite3_column_text(st[i], c));
            if (rc != SQLITE_DONE) return fail(db, work[i]);
            sqlite3_reset(st[i]);
        }
    }
    double elapsed = driver_now() - start;
    printf("driver: %lu iterations, checksum %016llx, elapsed: %.6f s\n", iterations,
           (unsigned long long)h, elapsed);
    for (size_t i = 0; i < NWORK; i++)
        sqlite3_finalize(st[i]);
    sqlite3_close(db);
    return 0;
}
