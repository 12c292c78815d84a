/* interned.c - permanent copies of plot and frame names.
 *
 * Tracy refers to plots and frame sets by the address of their name, which must stay
 * valid for the process lifetime. One copy per distinct name is kept in a process-wide
 * table; each state caches the Lua string address it last saw in each slot (confirmed by
 * content, as addresses are reused after a collection). Names are few in practice; past
 * NAME_LIMIT distinct ones the call raises an error rather than grow without bound. */
#include "binding.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LIMIT 65536
#define CACHE_SLOTS 256

struct name {
    const struct name *same_hash; /* an older name with the same hash */
    size_t len;
    _Atomic int frame_open; /* a discontinuous frame set of this name is open */
    char text[];
};

struct tl_name_slot {
    const char *lua_str;
    const struct name *name;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tcu_map table; /* content hash -> the newest name with that hash */

static const struct name *intern(const char *s, size_t n)
{
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, s, n);
    pthread_mutex_lock(&table_lock);
    const uint64_t *newest = tcu_map_get(&table, h);
    const struct name *found = newest ? (const struct name *)(uintptr_t)*newest : NULL;
    while (found && !(found->len == n && memcmp(found->text, s, n) == 0))
        found = found->same_hash;
    if (!found && tcu_map_count(&table) < NAME_LIMIT) {
        struct name *nm = malloc(sizeof *nm + n + 1);
        if (nm) {
            nm->same_hash = newest ? (const struct name *)(uintptr_t)*newest : NULL;
            nm->len = n;
            atomic_init(&nm->frame_open, 0);
            memcpy(nm->text, s, n);
            nm->text[n] = 0;
            if (tcu_map_put(&table, h, (uintptr_t)nm) >= 0)
                found = nm;
            else
                free(nm);
        }
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

const char *tl_intern(struct tl_state *S, lua_State *L, int idx)
{
    size_t n;
    const char *s = luaL_checklstring(L, idx, &n);
    if (!S->names)
        S->names = calloc(CACHE_SLOTS, sizeof *S->names);
    struct tl_name_slot *slot = NULL;
    if (S->names) {
        uintptr_t k = (uintptr_t)s >> 4;
        slot = &S->names[(k ^ (k >> 8)) & (CACHE_SLOTS - 1)];
        if (slot->lua_str == s && slot->name->len == n && memcmp(slot->name->text, s, n) == 0)
            return slot->name->text;
    }
    const struct name *nm = intern(s, n);
    if (!nm)
        luaL_error(L, "tracy: too many distinct plot and frame names (or out of memory)");
    if (slot)
        *slot = (struct tl_name_slot){s, nm};
    return nm->text;
}

int tl_frame_set_open(const char *name, int open)
{
    struct name *nm = (struct name *)(uintptr_t)(name - offsetof(struct name, text));
    return atomic_exchange(&nm->frame_open, open);
}

void tl_intern_cache_free(struct tl_state *S)
{
    free(S->names);
    S->names = NULL;
}
