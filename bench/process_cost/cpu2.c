/* cpu2.c - a CPU-bound program of two threads, for bench/process_cost.sh: each thread
 * counts primes by trial division and sorts arrays, in functions a few calls deep, for
 * UNITS units (argument; default 600, ~1.5 s a thread here). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) int is_prime(int n)
{
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static __attribute__((noinline)) int count_primes(int from, int to)
{
    int count = 0;
    for (int n = from; n < to; n++)
        count += is_prime(n);
    return count;
}

static int cmp(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static __attribute__((noinline)) unsigned sort_some(unsigned seed)
{
    unsigned v[2048];
    for (int i = 0; i < 2048; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = seed >> 8;
    }
    qsort(v, 2048, sizeof *v, cmp);
    return v[1024];
}

static int units = 600;

static void *work(void *arg)
{
    unsigned long total = (unsigned long)(uintptr_t)arg;
    for (int u = 0; u < units; u++) {
        total += (unsigned long)count_primes(1000000, 1001000);
        total += sort_some((unsigned)total);
    }
    return (void *)(uintptr_t)total;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        units = atoi(argv[1]);
    pthread_t other;
    pthread_create(&other, NULL, work, (void *)1);
    void *mine = work((void *)2), *theirs;
    pthread_join(other, &theirs);
    printf("%lu\n", (unsigned long)(uintptr_t)mine + (unsigned long)(uintptr_t)theirs);
    return 0;
}
