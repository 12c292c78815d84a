/* test_hold.c - see test_hold.h. */
#include "test_hold.h"

#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static int on_thread(const char *name)
{
    char mine[16] = {0};
    prctl(PR_GET_NAME, mine, 0, 0, 0);
    return strcmp(mine, name) == 0;
}

__attribute__((no_sanitize("address"))) void tt_hold_pass(struct tt_hold *h)
{
    if (!atomic_load(&h->armed) || (h->thread && !on_thread(h->thread)) || !atomic_exchange(&h->armed, 0))
        return;
    atomic_store(&h->held, 1);
    while (!atomic_load(&h->released))
        nanosleep(&(struct timespec){0, 1000000L}, NULL);
}

void tt_hold_arm(struct tt_hold *h)
{
    atomic_store(&h->held, 0);
    atomic_store(&h->released, 0);
    atomic_store(&h->armed, 1);
}

void tt_hold_release(struct tt_hold *h)
{
    atomic_store(&h->armed, 0);
    atomic_store(&h->released, 1);
}
