/* same_id_lib.c - built twice under one build ID for test_debug_cache_same_id: the second
 * time (SAME_ID_MORE) with same_id_extra.c's unit before it and more code in it, so its DWARF
 * has other units at other offsets and other functions at other addresses, as a debug
 * package's DWARF compressed by dwz differs from the build tree's. */
static inline __attribute__((always_inline)) int step(int x)
{
    return x * 3 + 1;
}

#ifdef SAME_ID_MORE
__attribute__((noinline)) int same_id_more(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += step(i) ^ i;
    return s;
}
#endif

__attribute__((noinline)) int same_id_work(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += step(s + i);
    return s;
}

int same_id_entry(int x)
{
    return same_id_work(x) + 1;
}
