/* same_id_extra.c - a unit of its own before same_id_lib.c's in the second library of one
 * build ID (test_debug_cache_same_id). */
static inline __attribute__((always_inline)) int twice(int x)
{
    return x + x;
}

__attribute__((noinline)) int same_id_extra(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += twice(i) - s / 3;
    return s;
}
