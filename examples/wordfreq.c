/*
 * wordfreq.c -- an ordinary program that knows nothing of shim: the README's quick
 * start profiles it with shimrun, as a user would profile their own.
 *
 * It makes up a text of words (a fixed seed, so every run does the same work), counts
 * each word in a hash table, sorts the words by count with qsort and prints the most
 * frequent. Four kinds of work with different costs: generating text (arithmetic),
 * splitting it into words (a byte loop), counting (hashing, probing, string
 * comparisons) and sorting (a comparison function called from the C library). Built
 * with -finstrument-functions, shimview names each function and calling context.
 *
 *     wordfreq [WORDS [ROUNDS]]   WORDS made up (default 3000000), counted ROUNDS
 *                                 times (default 3)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE                                                                                 \
    (1u << 17) /* open addressing: the vocabulary (at most 37440 words)                            \
                * fills under a third of it */

struct entry {
    char *word;
    long count;
};

static struct entry table[TABLE_SIZE];
static size_t distinct;

static uint64_t rng = 88172645463325252ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A made-up word of 2 to 5 letters out of 8: short words are common, long ones rare. */
static size_t make_word(char *out)
{
    size_t len = 2 + (size_t)(next_random() % 2);
    if (next_random() % 4 == 0) len += (size_t)(next_random() % 3);
    for (size_t i = 0; i < len; i++)
        out[i] = (char)('a' + next_random() % 8);
    return len;
}

/* `words` words separated by spaces, in memory the caller frees. */
static char *make_text(long words, size_t *size)
{
    char *text = malloc((size_t)words * 6 + 1), *p = text;
    if (!text) return NULL;
    for (long i = 0; i < words; i++) {
        p += make_word(p);
        *p++ = ' ';
    }
    *p = 0;
    *size = (size_t)(p - text);
    return text;
}

static uint32_t hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void count_word(const char *s, size_t len)
{
    uint32_t at = hash(s, len) & (TABLE_SIZE - 1);
    while (table[at].word) {
        if (strlen(table[at].word) == len && memcmp(table[at].word, s, len) == 0) {
            table[at].count++;
            return;
        }
        at = (at + 1) & (TABLE_SIZE - 1);
    }
    table[at].word = strndup(s, len);
    table[at].count = 1;
    distinct++;
}

static void count_words(const char *text, size_t size)
{
    size_t start = 0;
    for (size_t i = 0; i <= size; i++)
        if (i == size || text[i] == ' ') {
            if (i > start) count_word(text + start, i - start);
            start = i + 1;
        }
}

static int by_count(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->word, y->word);
}

/* The table's entries sorted, most frequent first; their number in *n. */
static struct entry *sorted_words(size_t *n)
{
    struct entry *all = malloc((distinct ? distinct : 1) * sizeof *all);
    if (!all) return NULL;
    *n = 0;
    for (size_t i = 0; i < TABLE_SIZE; i++)
        if (table[i].word) all[(*n)++] = table[i];
    qsort(all, *n, sizeof *all, by_count);
    return all;
}

int main(int argc, char **argv)
{
    long words = argc > 1 ? atol(argv[1]) : 3000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    size_t size, n;
    char *text = make_text(words > 0 ? words : 1, &size);
    if (!text) return 1;
    for (int round = 0; round < rounds; round++)
        count_words(text, size);
    struct entry *all = sorted_words(&n);
    if (!all) return 1;
    printf("%ld words, %zu distinct; most frequent:", (long)rounds * words, n);
    for (size_t i = 0; i < n && i < 5; i++)
        printf(" %s (%ld)", all[i].word, all[i].count);
    printf("\n");
    free(all);
    free(text);
    return 0;
}
