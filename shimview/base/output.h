/*
 * output.h -- the files shimview writes (figures, pages, exports), written whole or not
 * at all; see output.c.
 */
#ifndef SHIM_SHIMVIEW_OUTPUT_H
#define SHIM_SHIMVIEW_OUTPUT_H

#include <stdio.h>

struct output {
    FILE *f;          /* what to write to */
    const char *path; /* as the user gave it; "-" is standard output */
    char *tmp;        /* the temporary file renamed to path at the end, or NULL */
};

/* What -o means, in every command: the path an output goes to. `given` (what -o named)
 * is a directory when one exists there or it ends in '/': the file is `name` inside it;
 * else it is the file itself, and "-" standard output. Without -o (given NULL) it is
 * `name` in the current directory. A new string (free it); NULL if memory ran out. */
char *output_path(const char *given, const char *name);

/* The file `name` in directory dir (NULL: the current directory), for a command that
 * writes several files and so takes -o as a directory always. NULL if memory ran out. */
char *output_in_dir(const char *dir, const char *name);

/* Open path for writing ("-": standard output), creating the directories it names that
 * do not exist yet (as mkdir -p). 0, or EXIT_FILE_ERROR after one line. */
int output_open(struct output *o, const char *path);

/* Finish: `failed` says the writer gave up (it has said why). The file goes to its path
 * only when everything was written; else whatever was at the path stays as it was. 0,
 * or EXIT_FILE_ERROR after one line naming the path and the reason. */
int output_close(struct output *o, int failed);

/* Write path whole with draw(f, arg), which returns 0, or -1 when memory ran out (then a
 * line says so), and print the path on standard output; "-" writes to standard output
 * (and prints nothing else). 0, or EXIT_FILE_ERROR with a message, leaving what was at
 * the path as it was. */
int output_write(const char *path, int (*draw)(FILE *, const void *), const void *arg);

#endif
