/*
 * alloc.c -- allocation rates per phase: a program that builds a dictionary of words,
 * looks words up in it, rebuilds it balanced and tears it down, observed by shim while
 * it runs on jemalloc.
 *
 * Build and run (after installing shim, with jemalloc's development files):
 *
 *     cc -O2 alloc.c $(pkg-config --cflags --libs shim) -ljemalloc -o alloc
 *     ./alloc
 *     shimview report shim-alloc-<pid>.json
 *
 * A program built without -ljemalloc gets the same with LD_PRELOAD=libjemalloc.so.2.
 *
 * Nothing in the program measures allocation. jemalloc counts, for each thread, the bytes
 * it has allocated; shim_start() finds that counter and the observer reads it like any
 * software counter, so the report shows for each phase an `alloc` rate, in bytes per
 * 1000 TSC cycles, beside its share of the time:
 *   insert    allocates a node for each new word: the tree grows, slowly, since most of
 *             the time goes into walking it;
 *   lookup    allocates nothing;
 *   rebalance copies every word into a new node, balanced, and frees the old ones: the
 *             memory in use does not grow, but the allocator works hardest here;
 *   teardown  frees everything, and allocates nothing.
 *
 * Usage: alloc [--seconds S] [--words N]
 */
#include <shim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PHASE_SLOT = 0 };
enum { INSERT = 1, LOOKUP = 2, REBALANCE = 3, TEARDOWN = 4, NPHASES = 5 };
static const char *phase_name[NPHASES] = {"", "insert", "lookup", "rebalance", "teardown"};

struct node {
    struct node *left, *right;
    unsigned count;
    char word[]; /* the node is allocated to the word's length */
};

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* A word of 3 to 24 lowercase letters from a small alphabet, so that words repeat. */
static void random_word(char *out)
{
    uint64_t r = next_random();
    unsigned len = 3 + (unsigned)(r % 22);
    for (unsigned i = 0; i < len; i++)
        out[i] = (char)('a' + (next_random() >> 60) % 8);
    out[len] = 0;
}

static struct node *new_node(const char *word, unsigned count)
{
    size_t len = strlen(word) + 1;
    struct node *n = malloc(sizeof *n + len);
    if (!n) {
        perror("alloc");
        exit(1);
    }
    n->left = n->right = NULL;
    n->count = count;
    memcpy(n->word, word, len);
    return n;
}

static void insert(struct node **at, const char *word)
{
    while (*at) {
        int c = strcmp(word, (*at)->word);
        if (c == 0) {
            (*at)->count++;
            return;
        }
        at = c < 0 ? &(*at)->left : &(*at)->right;
    }
    *at = new_node(word, 1);
}

static unsigned lookup(const struct node *n, const char *word)
{
    while (n) {
        int c = strcmp(word, n->word);
        if (c == 0) return n->count;
        n = c < 0 ? n->left : n->right;
    }
    return 0;
}

/* The tree's nodes in order, into an array that grows by doubling. */
static void in_order(struct node *n, struct node ***all, size_t *len, size_t *cap)
{
    for (; n; n = n->right) {
        in_order(n->left, all, len, cap);
        if (*len == *cap) {
            *cap = *cap ? 2 * *cap : 1024;
            *all = realloc(*all, *cap * sizeof **all);
            if (!*all) {
                perror("alloc");
                exit(1);
            }
        }
        (*all)[(*len)++] = n;
    }
}

/* A balanced copy of sorted nodes [lo, hi): new nodes, as a compacting rebuild makes. */
static struct node *balanced(struct node **all, size_t lo, size_t hi)
{
    if (lo >= hi) return NULL;
    size_t mid = lo + (hi - lo) / 2;
    struct node *n = new_node(all[mid]->word, all[mid]->count);
    n->left = balanced(all, lo, mid);
    n->right = balanced(all, mid + 1, hi);
    return n;
}

static void destroy(struct node *n)
{
    while (n) {
        struct node *right = n->right;
        destroy(n->left);
        free(n);
        n = right;
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double seconds = 1.0;
    long words = 20000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--words") == 0 && i + 1 < argc)
            words = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--seconds S] [--words N]\n", argv[0]);
            return 2;
        }
    }
    shim_name_slot(PHASE_SLOT, "phase");
    for (int p = 1; p < NPHASES; p++)
        shim_name_tag(PHASE_SLOT, (uint64_t)p, phase_name[p]);
    /* Starts the observer; with jemalloc under the program it also reads jemalloc's
     * counters of this thread (SHIM_ALLOC=on would say why when it cannot). */
    int rc = shim_start(NULL);
    if (rc != 0) fprintf(stderr, "alloc: running without shim: %s\n", shim_strerror(rc));

    char word[32];
    unsigned long found = 0, rounds = 0;
    double end = now_seconds() + seconds;
    do {
        struct node *tree = NULL, **all = NULL;
        size_t len = 0, cap = 0;

        SHIM_SIGNAL(PHASE_SLOT, INSERT);
        for (long i = 0; i < words; i++) {
            random_word(word);
            insert(&tree, word);
        }

        SHIM_SIGNAL(PHASE_SLOT, LOOKUP);
        for (long i = 0; i < words; i++) {
            random_word(word);
            found += lookup(tree, word) > 0;
        }

        SHIM_SIGNAL(PHASE_SLOT, REBALANCE);
        in_order(tree, &all, &len, &cap);
        struct node *fresh = balanced(all, 0, len);
        free(all);
        destroy(tree);
        tree = fresh;

        SHIM_SIGNAL(PHASE_SLOT, TEARDOWN);
        destroy(tree);
        rounds++;
    } while (now_seconds() < end);
    SHIM_SIGNAL(PHASE_SLOT, 0);

    if (rc == 0) shim_stop(); /* writes the profile */
    printf("%lu rounds of %ld words, %lu lookups found their word\n", rounds, words, found);
    return 0;
}
