/* Functions whose bodies are nothing but a signal macro: test_codegen.sh disassembles
 * them to check what the program pays per signal. */
#include <shim.h>

void set_phase(void)
{
    SHIM_SIGNAL(0, 3);
}
void set_value(uint64_t v)
{
    SHIM_SIGNAL(1, v);
}
void count_const(void)
{
    SHIM_COUNT(0, 4);
}
void count_value(uint64_t n)
{
    SHIM_COUNT(2, n);
}
