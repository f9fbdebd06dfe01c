/*
 * replay_corpus.c -- run the profile fuzz target over saved inputs, without libFuzzer.
 *
 *     replay_corpus DIR_OR_FILE...
 *
 * Feeds every regular file named, and every regular file in a directory named (in name
 * order, skipping names that start with a dot), to LLVMFuzzerTestOneInput from
 * fuzz_profile.c, the function the fuzzer runs, so the corpus it found and every input
 * that once crashed it run under ctest with the normal compiler. Each file's name is
 * printed before it runs: an input that crashes the target ends the program with that
 * signal (a failure for ctest), and the last name printed is the culprit. A file that
 * cannot be read counts as failed. Prints "N passed, N failed" and exits 0 only when
 * nothing failed and at least one input ran.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target sends stdout to /dev/null; results go to a copy of the original. */
static FILE *out;
static int passed, failed;

/* The whole file in a malloc'ed buffer (at least one byte, so never NULL when it works). */
static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) return NULL;
    for (;;) {
        if (n == cap) {
            size_t want = cap ? 2 * cap : 4096;
            uint8_t *grown = realloc(buf, want);
            if (!grown) break;
            buf = grown;
            cap = want;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
    }
    if (ferror(f) || n == cap) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

static void replay_file(const char *path)
{
    size_t len;
    fprintf(out, "%s: ", path);
    fflush(out);
    errno = 0;
    uint8_t *data = read_all(path, &len);
    if (!data) {
        fprintf(out, "FAIL (%s)\n", errno ? strerror(errno) : "cannot read");
        failed++;
        return;
    }
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    fprintf(out, "ok\n");
    passed++;
}

static int visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

static void replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, visible, alphasort);
    if (n < 0) {
        fprintf(out, "%s: FAIL (%s)\n", dir, strerror(errno));
        failed++;
        return;
    }
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) replay_file(path);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    struct stat st;
    int fd = dup(STDOUT_FILENO);
    out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        perror("replay_corpus: stdout");
        return 1;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: replay_corpus DIR_OR_FILE...\n");
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            replay_dir(argv[i]);
        else
            replay_file(argv[i]);
    }
    fprintf(out, "%d passed, %d failed\n", passed, failed);
    if (passed == 0 && failed == 0) fprintf(out, "no inputs found\n");
    return fclose(out) == 0 && failed == 0 && passed > 0 ? 0 : 1;
}
