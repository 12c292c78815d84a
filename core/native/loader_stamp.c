/* loader_stamp.c - see loader_stamp.h. */
#include "native/loader_stamp.h"

#include <link.h>
#include <stddef.h>

static int read_counters(struct dl_phdr_info *info, size_t size, void *data)
{
    struct tcn_loader_stamp *now = data;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        now->adds = info->dlpi_adds;
        now->subs = info->dlpi_subs;
    }
    return 1; /* the counters are the same in every entry */
}

int tcn_loader_changed(struct tcn_loader_stamp *stamp)
{
    struct tcn_loader_stamp now = {0, 0};
    dl_iterate_phdr(read_counters, &now);
    if (now.adds == stamp->adds && now.subs == stamp->subs)
        return 0;
    *stamp = now;
    return 1;
}
