/*
 * by.h -- one rate bucketed by another: a profile's `by` (the SHIM paper's Fig. 14b, memory
 * requests per cycle in each IPC bucket), as `report` prints it and `plot` draws it.
 *
 * Each tag entry holds, per slot of rate X, the kept periods whose X fell there and rate
 * Y's sums over them; Y in a slot is sum_a / sum_b, the ratio estimate the per-tag table
 * quotes for a whole tag, restricted to those periods. This file says what a slot covers
 * and what Y is in it, in one place for the table and the figure (plot_by.c).
 */
#ifndef SHIMVIEW_BY_H
#define SHIMVIEW_BY_H

#include "shimview/model/profile.h"
#include "shimview/base/table.h"

#include <stddef.h>

/* A slot holding fewer kept periods than this gives a value too noisy to lean on: the
 * figure draws its marker hollow. */
#define BY_SPARSE 10

/* The tags the text table shows when no --top is given (the figure's default too). */
#define BY_TOP 4

/* The slots of every entry's `by`: the buckets, and one below and one above them. */
size_t by_nslots(const struct profile_by *b);

/* Slot k's range of X, [lo, hi): -INFINITY is the low edge of slot 0, INFINITY the high
 * edge of the last slot. */
void by_slot_edges(const struct profile_by *b, size_t k, double *lo, double *hi);

/* Y in a slot, sum_a / sum_b; NAN when it holds no period or sum_b is 0. */
double by_slot_rate(const struct profile_by_slot *s);

/* Slot k as text, "< 0", "[0, 0.001)", "≥ 0.01", in buf; returns buf. */
const char *by_slot_label(const struct profile_by *b, size_t k, char *buf, size_t len);

/* One line saying what the profile's `by` holds: "triples per cycle in each bucket of
 * loops per cycle: 10 buckets over [0, 0.01)". */
const char *by_describe(const struct profile *p, char *buf, size_t len);

/* The table of Y per slot of p's `by` (p->has_by must be set).
 * csv 0 (text, HTML): the first `top` tags by samples (negative: every tag), a row per
 * slot that holds periods of one of them -- *hidden counts the others -- with the slot,
 * then per tag Y and the periods behind it; tag names cut to cut code points (0: not cut).
 * csv 1: one record per tag and slot, every slot, for the first `top` tags (negative:
 * every tag) and `other` when it has samples, with the columns name, slot, <X>_lo,
 * <X>_hi, periods, rate_<Y>, sum_a, sum_b. NULL if memory ran out. */
struct table *by_table(const struct profile *p, long top, int csv, size_t cut, size_t *hidden);

#endif /* SHIMVIEW_BY_H */
