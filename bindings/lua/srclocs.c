/* srclocs.c - zone source locations, interned so a hot Lua zone allocates nothing.
 *
 * Upstream allocates and sends a source location on every ZoneBegin. Here each distinct
 * (source, line, enclosing function, zone name) gets one static
 * ___tracy_source_location_data, made on first sight and kept for the process lifetime
 * (the server asks for its strings lazily, by address). A process-wide table keyed by
 * content holds them; in front of it, each Lua state has a small direct-mapped cache keyed
 * by the addresses Lua hands out (the chunk's source string, the name string), so the
 * steady state is a few compares. Those addresses can be reused after a collection, so a
 * hit is confirmed by content.
 *
 * The enclosing function is identified by where it is defined (source and first line):
 * its display name is the one Lua reports the first time, as a call site has one
 * enclosing function however it was called. Past LOC_LIMIT locations (a script naming
 * zones after changing data), zones fall back to upstream's per-zone allocation, so
 * memory stays bounded.
 *
 * Call sites have a faster cache in front of all that, as ZoneBegin* is the hot path: it
 * is keyed by the calling function itself (lua_getinfo "fl": the function value and the
 * current line, without "S", which formats the short source on every call), the line
 * and the name string's address, and a hit needs no source compare. That is exact
 * because a slot trusts its function only while generation.c keeps that function alive:
 * until the state's epoch moves (at the next collection), its address cannot be reused.
 * A miss takes the way above, and once the same function has filled the slot a few times
 * in a row, keeps it and trusts it again (code that makes a new closure for every call
 * should not fill the generation with them). Only the name is confirmed by content
 * (names are not kept; they are short). */
#include "binding.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC_MAX 255      /* bytes of a source kept, as upstream: a string chunk's source is its text */
#define KEY_MAX 1024     /* longer zone names are not interned */
#define LOC_LIMIT 32768  /* interned locations at most */
#define CACHE_SLOTS 1024 /* per state, a power of two */
#define SITE_SLOTS 512   /* per state, a power of two */

/* Call-site zones (ZoneBegin*) and function zones (hook mode) never share a location. */
enum tl_loc_kind { TL_LOC_CALLSITE, TL_LOC_FUNCTION };

struct tl_loc {
    struct ___tracy_source_location_data data;
    uint64_t hash;
    const struct tl_loc *same_hash; /* an older location whose key has the same hash */
    uint8_t kind;
    int line, linedefined;
    char *src; /* key: the first SRC_MAX bytes of lua_Debug.source */
    size_t srclen;
    char *key; /* key: the zone name (call sites) or function name (hook), or NULL */
    size_t keylen;
};

struct tl_loc_slot {
    const char *src, *key; /* the addresses Lua gave */
    int line, linedefined;
    uint8_t kind;
    const struct tl_loc *loc;
};

/* The call-site cache: the calling function, its current line, the name. */
struct tl_site_slot {
    const void *func;
    const char *name;
    int line;
    unsigned epoch; /* S->epoch when func was kept alive (trusted) */
    const struct tl_loc *loc;
    uint8_t trusted;   /* func was kept when filled; else the slot only remembers it */
    uint8_t sightings; /* confirmed lookups of this function in a row */
};
#define TRUST_AFTER 4 /* sightings in a row before the function is kept and trusted */

/* What a location is made of, before interning. */
struct site {
    uint8_t kind;
    const char *src;
    size_t srclen;
    int line, linedefined;
    const char *key;
    size_t keylen;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tcu_map table; /* key hash -> the newest location with that hash */

static uint64_t site_hash(const struct site *s)
{
    int nums[4] = {s->kind, s->line, s->linedefined, s->key != NULL};
    uint64_t h = tcu_hash_bytes(TCU_HASH_INIT, nums, sizeof nums);
    h = tcu_hash_bytes(h, s->src, s->srclen);
    return s->key ? tcu_hash_bytes(h, s->key, s->keylen) : h;
}

static int site_is(const struct tl_loc *l, const struct site *s)
{
    return l->kind == s->kind && l->line == s->line && l->linedefined == s->linedefined && l->srclen == s->srclen &&
           memcmp(l->src, s->src, s->srclen) == 0 && !l->key == !s->key &&
           (!s->key || (l->keylen == s->keylen && memcmp(l->key, s->key, s->keylen) == 0));
}

static char *dup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* The file shown for a source: a path without Lua's '@' (or '=' for names), else (code
 * given as a string) Lua's short form of it. */
static const char *display_file(const lua_Debug *ar, const struct site *s, size_t *len)
{
    if (s->srclen && (s->src[0] == '@' || s->src[0] == '=')) {
        *len = s->srclen - 1;
        return s->src + 1;
    }
    *len = strlen(ar->short_src);
    return ar->short_src;
}

/* The function shown: its name, or as Lua's tracebacks call it. */
static const char *display_function(const lua_Debug *ar, char *buf, size_t size)
{
    if (ar->name)
        return ar->name;
    if (*ar->what == 'm')
        return "main chunk";
    if (*ar->what == 'C')
        return "?";
    snprintf(buf, size, "function <%s:%d>", ar->short_src, ar->linedefined);
    return buf;
}

static struct tl_loc *make(const lua_Debug *ar, const struct site *s, const char *zone_name, uint64_t hash)
{
    char fbuf[LUA_IDSIZE + 32];
    size_t filelen;
    const char *file = display_file(ar, s, &filelen);
    const char *function = display_function(ar, fbuf, sizeof fbuf);
    struct tl_loc *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->hash = hash;
    l->kind = s->kind;
    l->line = s->line;
    l->linedefined = s->linedefined;
    l->srclen = s->srclen;
    l->keylen = s->keylen;
    l->src = dup(s->src, s->srclen);
    l->key = s->key ? dup(s->key, s->keylen) : NULL;
    char *f = dup(file, filelen), *fn = dup(function, strlen(function));
    char *zn = zone_name ? dup(zone_name, s->keylen) : NULL;
    if (!l->src || (s->key && !l->key) || !f || !fn || (zone_name && !zn)) {
        free(l->src), free(l->key), free(f), free(fn), free(zn), free(l);
        return NULL;
    }
    l->data = (struct ___tracy_source_location_data){zn, fn, f, (uint32_t)(s->line > 0 ? s->line : 0), 0};
    return l;
}

/* The interned location of a site, made if new; NULL past the limit or out of memory. */
static const struct tl_loc *intern(const lua_Debug *ar, const struct site *s, const char *zone_name)
{
    uint64_t h = site_hash(s);
    pthread_mutex_lock(&table_lock);
    const uint64_t *newest = tcu_map_get(&table, h);
    const struct tl_loc *found = newest ? (const struct tl_loc *)(uintptr_t)*newest : NULL;
    while (found && !site_is(found, s))
        found = found->same_hash;
    if (!found && tcu_map_count(&table) < LOC_LIMIT) {
        struct tl_loc *l = make(ar, s, zone_name, h);
        if (l) {
            l->same_hash = newest ? (const struct tl_loc *)(uintptr_t)*newest : NULL;
            if (tcu_map_put(&table, h, (uintptr_t)l) >= 0)
                found = l;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* Upstream's way, for zones past the limit: a location allocated for one zone. */
static uint64_t allocate(const lua_Debug *ar, const struct site *s, const char *zone_name)
{
    char fbuf[LUA_IDSIZE + 32];
    size_t filelen;
    const char *file = display_file(ar, s, &filelen);
    const char *function = display_function(ar, fbuf, sizeof fbuf);
    uint32_t line = (uint32_t)(s->line > 0 ? s->line : 0);
    if (zone_name)
        return ___tracy_alloc_srcloc_name(line, file, filelen, function, strlen(function), zone_name, s->keylen, 0);
    return ___tracy_alloc_srcloc(line, file, filelen, function, strlen(function), 0);
}

static struct tl_where lookup(struct tl_state *S, lua_State *L, lua_Debug *ar, struct site *s, const char *zone_name,
                              const struct tl_loc **interned)
{
    uintptr_t k = (uintptr_t)s->src ^ ((uintptr_t)s->key >> 4) ^ (uintptr_t)s->line * 0x9e3779b1u;
    struct tl_loc_slot *slot = NULL;
    if (!S->locs)
        S->locs = calloc(CACHE_SLOTS, sizeof *S->locs);
    if (S->locs) {
        slot = &S->locs[(k ^ (k >> 13)) & (CACHE_SLOTS - 1)];
        if (slot->loc && slot->src == s->src && slot->key == s->key && slot->line == s->line &&
            slot->linedefined == s->linedefined && slot->kind == s->kind && site_is(slot->loc, s)) {
            *interned = slot->loc;
            return (struct tl_where){&slot->loc->data, 0};
        }
    }
    if (s->kind == TL_LOC_CALLSITE && L)
        lua_getinfo(L, "n", ar); /* only now: naming the enclosing function costs */
    const struct tl_loc *loc = s->keylen <= KEY_MAX ? intern(ar, s, zone_name) : NULL;
    *interned = loc;
    if (!loc)
        return (struct tl_where){NULL, allocate(ar, s, zone_name)};
    if (slot)
        *slot = (struct tl_loc_slot){s->src, s->key, s->line, s->linedefined, s->kind, loc};
    return (struct tl_where){&loc->data, 0};
}

/* memcmp(a, b, n) == 0, inline for the short names zones have. */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    if (n > 32)
        return memcmp(a, b, n) == 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* The location of a call site missing from the call-site cache; the calling function is
 * on the top of the stack, ar has its "l"; seen: the slot holds this function's address,
 * line and name already, but untrusted or stamped with an older epoch. The function is
 * trusted after a few confirmed lookups in a row: a closure made anew for every call
 * (which Lua often gives the address of the one before) stays on this way rather than
 * be kept alive each time. */
static struct tl_where callsite_slow(struct tl_state *S, lua_State *L, lua_Debug *ar, struct tl_site_slot *slot,
                                     const char *name, size_t namelen, int seen)
{
    const void *func = lua_topointer(L, -1);
    lua_getinfo(L, "S", ar);
    size_t srclen = tl_srclen(ar);
    struct site s = {TL_LOC_CALLSITE, ar->source,      srclen < SRC_MAX ? srclen : SRC_MAX,
                     ar->currentline, ar->linedefined, name,
                     namelen};
    const struct tl_loc *loc;
    struct tl_where w = lookup(S, L, ar, &s, name, &loc);
    if (loc && slot) {
        int same = seen && slot->loc == loc;
        int sightings = same ? slot->sightings + (slot->sightings < TRUST_AFTER) : 1;
        unsigned epoch = S->epoch; /* before keeping: a collection then moves it */
        int trusted = sightings >= TRUST_AFTER && lua_checkstack(L, 6);
        if (trusted) {
            lua_pushvalue(L, -1);
            tl_gen_keep(S, L);
        }
        *slot = (struct tl_site_slot){func, name, ar->currentline, epoch, loc, (uint8_t)trusted, (uint8_t)sightings};
    }
    return w;
}

struct tl_where tl_srcloc_callsite(struct tl_state *S, lua_State *L, const char *name, size_t namelen)
{
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar)) { /* called from C with no Lua function below */
        ar = (lua_Debug){.source = "=[C]", .currentline = 0, .linedefined = 0, .what = "C"};
        strcpy(ar.short_src, "[C]");
        struct site s = {TL_LOC_CALLSITE, ar.source, 4, 0, 0, name, namelen};
        const struct tl_loc *loc;
        return lookup(S, NULL, &ar, &s, name, &loc);
    }
    lua_getinfo(L, "fl", &ar);
    const void *func = lua_topointer(L, -1);
    if (!S->sites)
        S->sites = calloc(SITE_SLOTS, sizeof *S->sites);
    struct tl_site_slot *slot = NULL;
    int seen = 0;
    if (S->sites) {
        uintptr_t k = ((uintptr_t)func >> 4) ^ ((uintptr_t)name >> 3) ^ (uintptr_t)ar.currentline * 0x9e3779b1u;
        slot = &S->sites[(k ^ (k >> 11)) & (SITE_SLOTS - 1)];
        const struct tl_loc *loc = slot->loc;
        seen = slot->func == func && slot->name == name && slot->line == ar.currentline &&
               (!name || (loc->keylen == namelen && same_bytes(loc->key, name, namelen)));
        if (seen && slot->trusted && slot->epoch == S->epoch)
            return (struct tl_where){&loc->data, 0};
    }
    return callsite_slow(S, L, &ar, slot, name, namelen, seen);
}

struct tl_where tl_srcloc_function(struct tl_state *S, lua_Debug *ar)
{
    int line = ar->linedefined > 0 ? ar->linedefined : 0;
    size_t srclen = tl_srclen(ar);
    struct site s = {TL_LOC_FUNCTION, ar->source, srclen < SRC_MAX ? srclen : SRC_MAX, line,
                     ar->linedefined, ar->name,   ar->name ? strlen(ar->name) : 0};
    const struct tl_loc *loc;
    return lookup(S, NULL, ar, &s, NULL, &loc);
}

void tl_srcloc_cache_free(struct tl_state *S)
{
    free(S->locs);
    S->locs = NULL;
    free(S->sites);
    S->sites = NULL;
}
