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
    uint64_t hash;
    size_t len;
    _Atomic int frame_open; /* a discontinuous frame set of this name is open */
    char text[];
};

struct tl_name_slot {
    const char *lua_str;
    const struct name *name;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct name **table;
static size_t table_len, table_cap;

static uint64_t hash_of(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t entry_hash(const void *entry)
{
    return ((const struct name *)entry)->hash;
}

static int table_grow(void)
{
    return tl_table_grow((void ***)&table, &table_cap, 64, entry_hash);
}

static const struct name *intern(const char *s, size_t n)
{
    uint64_t h = hash_of(s, n);
    const struct name *found = NULL;
    pthread_mutex_lock(&table_lock);
    if (table_cap) {
        for (size_t j = h & (table_cap - 1); table[j]; j = (j + 1) & (table_cap - 1)) {
            if (table[j]->hash == h && table[j]->len == n && memcmp(table[j]->text, s, n) == 0) {
                found = table[j];
                break;
            }
        }
    }
    if (!found && table_len < NAME_LIMIT && (2 * (table_len + 1) <= table_cap || table_grow() == 0)) {
        struct name *nm = malloc(sizeof *nm + n + 1);
        if (nm) {
            nm->hash = h;
            nm->len = n;
            atomic_init(&nm->frame_open, 0);
            memcpy(nm->text, s, n);
            nm->text[n] = 0;
            size_t j = h & (table_cap - 1);
            while (table[j])
                j = (j + 1) & (table_cap - 1);
            table[j] = nm;
            table_len++;
            found = nm;
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
