/*
 * trace.h -- the trace file's format (docs/trace-format.md): its magic, its header and
 * the fixed words and flags of its records, defined once for the writer (libshim's trace
 * writer and the observer that fills its ring) and the reader (shimview/model/trace.c).
 *
 * The file is a header of TRACE_HEADER_BYTES, then records of record_words little-endian
 * 64-bit words each: TRACE_FIXED_WORDS fixed words, the tag slots, the rates.
 */
#ifndef SHIM_FORMATS_TRACE_H
#define SHIM_FORMATS_TRACE_H

#define TRACE_MAGIC          "SHIMTRC1" /* the first 8 bytes, without a terminating 0 */
#define TRACE_MAGIC_BYTES    8
#define TRACE_FORMAT_VERSION 1 /* the newest version written and read */
#define TRACE_HEADER_BYTES   64

/* The header's fields: byte offsets, little-endian. */
#define TRACE_HEADER_VERSION      8  /* u32 */
#define TRACE_HEADER_RECORD_WORDS 12 /* u32: TRACE_FIXED_WORDS + tags + rates */
#define TRACE_HEADER_TAGS         16 /* u32: tag slots per record */
#define TRACE_HEADER_RATES        20 /* u32: rates per record */
#define TRACE_HEADER_TSC_HZ       24 /* IEEE-754 double, as known at start */
#define TRACE_HEADER_FIRST_TSC    32 /* u64: the TSC when observation started */
#define TRACE_HEADER_PID          40 /* u64 */

/* A record's fixed words, before the tag slots and the rates. */
#define TRACE_WORD_SEQ    0 /* the period's number; a gap is periods dropped */
#define TRACE_WORD_START  1 /* the TSC at the period's start marker */
#define TRACE_WORD_CYCLES 2 /* the period's length in TSC cycles */
#define TRACE_WORD_FLAGS  3 /* the bits below */
#define TRACE_WORD_THREAD 4 /* the thread word */
#define TRACE_FIXED_WORDS 5

/* Bits of a record's flags. */
#define TRACE_ATTRIBUTED 0x1u /* not interrupted */
#define TRACE_RATED      0x2u /* the same thread at both ends */
#define TRACE_KEPT       0x4u /* kept by DTE */
#define TRACE_OTHER      0x8u /* the tag table was full */

#endif /* SHIM_FORMATS_TRACE_H */
