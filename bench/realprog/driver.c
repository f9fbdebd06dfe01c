/*
 * driver.c -- a fixed amount of libxcrypt work for bench/realprog.
 *
 *     driver ITERATIONS
 *
 * Each iteration hashes one pass phrase (different in every iteration) with one setting
 * per hashing method, through crypt_rn(): the work a login server does, in the code
 * paths of a library written without shim in mind. The costs are chosen so that every
 * method takes a share of the time and none dominates: md5crypt, sha256crypt and
 * sha512crypt are chains of small calls (the compression functions, the digest
 * updates), sunmd5 is thousands of MD5 rounds, bcrypt at cost 6 is Blowfish's key
 * schedule, and yescrypt at its lowest cost ("j75", 1 MiB; the default "j9T" is 16 MiB)
 * is memory-bound mixing with few calls.
 *
 * Every result is checked (a failure is NULL or a token starting with '*'), and a
 * checksum of all of them is printed, so that runs of different builds of the same
 * work can be compared for equality; so is the time the hashing took, measured here so
 * that neither process start-up nor a profile written at exit is counted in it.
 */
#include <crypt.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static const struct method {
    const char *name;
    const char *setting;
} methods[] = {
    {"md5crypt", "$1$k2XAnEHB$"},
    {"sha256crypt", "$5$rounds=5000$k2XAnEHBqQ1Ct2aM$"},
    {"sha512crypt", "$6$rounds=5000$k2XAnEHBqQ1Ct2aM$"},
    {"bcrypt", "$2b$06$KBCwKxOzLha2MUDgW0PjXe"},
    {"yescrypt", "$y$j75$k2XAnEHBqQ1Ct2aMXFKNa/$"},
    {"sunmd5", "$md5,rounds=100$mA1BpMnB$"},
};
#define NMETHODS (sizeof methods / sizeof methods[0])

/* FNV-1a, 64 bits: enough to tell two runs' outputs apart. */
static uint64_t checksum_add(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

int main(int argc, char **argv)
{
    unsigned long iterations = argc == 2 ? driver_iterations(argv[1]) : 0;
    if (iterations == 0) {
        fprintf(stderr, "usage: driver ITERATIONS (a positive number)\n");
        return 2;
    }
    /* crypt_rn's scratch space is ~32 KiB: static (so zeroed, as its first use needs), not
     * on the stack. */
    static struct crypt_data data;
    uint64_t h = 0xcbf29ce484222325u;
    double start = driver_now();
    for (unsigned long i = 0; i < iterations; i++) {
        char phrase[64];
        snprintf(phrase, sizeof phrase, "correct horse battery %lu", i);
        for (size_t m = 0; m < NMETHODS; m++) {
            errno = 0;
            const char *hash = crypt_rn(phrase, methods[m].setting, &data, sizeof data);
            if (!hash || hash[0] == '*') {
                fprintf(stderr, "driver: %s failed in iteration %lu: %s\n", methods[m].name, i,
                        hash ? hash : strerror(errno));
                return 1;
            }
            h = checksum_add(h, hash);
        }
    }
    double elapsed = driver_now() - start;
    printf("driver: %lu iterations of %zu methods, checksum %016" PRIx64 ", elapsed: %.6f s\n",
           iterations, NMETHODS, h, elapsed);
    return 0;
}
