/*
 * unit.c -- TinyCC as it builds itself by default: one translation unit (libtcc.c with
 * ONE_SOURCE, which includes the preprocessor, the parser and code generator, the ELF
 * writer and the x86-64 back end), and for the driver's checksum the size of the code a
 * compile wrote.
 */
#include "libtcc.c"

#include "driver.h"

unsigned long driver_text_size(TCCState *s1)
{
    return (unsigned long)text_section->data_offset;
}
