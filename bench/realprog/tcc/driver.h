/* driver.h -- what bench/realprog/tcc/unit.c gives the driver besides libtcc.h. */
#ifndef SHIM_BENCH_TCC_DRIVER_H
#define SHIM_BENCH_TCC_DRIVER_H

struct TCCState;

/* The bytes of code the last compile wrote into the state's text section. */
unsigned long driver_text_size(struct TCCState *s1);

#endif
