/* idmap.h - an open-addressing hash map from non-zero 64-bit ids to 64-bit values.
 * Used per connection to remember what each identifier sent to the server means, so
 * that a server query is only ever answered from data the client itself sent. */
#ifndef TRACYC_CLIENT_IDMAP_H
#define TRACYC_CLIENT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct tc_idmap {
    uint64_t *keys;
    uint64_t *values;
    size_t cap, len;
};

void tc_idmap_clear(struct tc_idmap *m);
/* 1 when newly inserted, 0 when already present (value unchanged), -1 out of memory. */
int tc_idmap_put(struct tc_idmap *m, uint64_t key, uint64_t value);
/* 1 and *value when found. */
int tc_idmap_get(const struct tc_idmap *m, uint64_t key, uint64_t *value);

#endif
