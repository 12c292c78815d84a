/* conn.c - one connection's handshake, lifetime, and the identifiers it has sent.
 * conn_records.c encodes records on it, conn_queries.c answers the server. */
#include "client/conn.h"

#include "native/resolver.h"
#include "client/welcome.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <string.h>

enum { ID_STRING = 1, ID_SRCLOC = 2 };
#define ID_VALUE(kind, ptr) (((uint64_t)(kind) << 56) | (uint64_t)(uintptr_t)(ptr))
#define ID_KIND(v) ((int)((v) >> 56))
#define ID_PTR(v) ((const void *)(uintptr_t)((v)&0x00ffffffffffffffULL))

static int enc_write(void *user, const void *data, size_t len)
{
    struct tc_conn *c = user;
    if (!c->alive)
        return -1;
    if (c->transport->send(c->transport, data, len) != 0) {
        c->alive = 0;
        return -1;
    }
    return 0;
}

static int enc_write_items(void *user, const void *items, size_t len)
{
    struct tc_conn *c = user;
    if (!c->alive)
        return -1;
    if (c->transport->send_items(c->transport, items, len) != 0) {
        c->alive = 0;
        return -1;
    }
    return 0;
}

int tc_conn_hello_valid(const uint8_t *hello, size_t len)
{
    return memcmp(hello, TCW_SHIBBOLETH, len < TCW_SHIBBOLETH_SIZE ? len : TCW_SHIBBOLETH_SIZE) == 0;
}

int tc_conn_open(struct tc_conn *c, struct tc_transport *t, int slot, const uint8_t hello[12])
{
    static uint64_t next_serial;
    memset(c, 0, sizeof *c);
    c->slot = slot;
    c->frame_base = -1;
    c->serial = ++next_serial; /* connections are opened by the worker only */
    if (!tc_conn_hello_valid(hello, 12)) {
        t->close(t);
        return -1;
    }
    uint32_t version;
    memcpy(&version, hello + TCW_SHIBBOLETH_SIZE, 4);
    int vi = tcw_version_index(version);
    if (vi < 0) {
        uint8_t status = TCW_HANDSHAKE_PROTOCOL_MISMATCH;
        t->send(t, &status, 1);
        t->close(t);
        return -1;
    }
    /* The welcome in the server's own protocol (docs/protocol.md §24.2). */
    uint8_t w82[TCW_WELCOME_SIZE], msg[1 + 1178];
    msg[0] = TCW_HANDSHAKE_WELCOME;
    tc_welcome_build(w82);
    tcw_welcome_to_version(msg + 1, w82, vi);
    if (t->send(t, msg, 1u + tcw_versions[vi].welcome_size) != 0 || tcw_enc_init(&c->enc, enc_write, c) != 0) {
        t->close(t);
        return -1;
    }
    tcw_enc_set_version(&c->enc, vi);
    if (t->send_items)
        tcw_enc_set_items_writer(&c->enc, enc_write_items);
    c->bypass = t->zone_begin && t->zone_end && vi == TCW_V82;
    c->transport = t;
    c->alive = 1;
    return 0;
}

void tc_conn_close(struct tc_conn *c)
{
    if (c->transport)
        c->transport->close(c->transport);
    c->transport = NULL;
    tcw_enc_free(&c->enc);
    tcu_map_free(&c->ids);
    tcu_map_free(&c->pools);
    tcu_map_free(&c->locks);
    tcu_map_free(&c->gpu);
    tcu_map_free(&c->frames);
    tcu_map_free(&c->running);
    tcu_map_free(&c->named);
    if (c->resolving)
        tcn_resolver_forget(c->serial);
    c->resolving = 0;
    c->alive = 0;
}

/* Remembers what id means on this connection. Most events reuse a handful of ids, so a
 * small cache in front of the map keeps the worker's cost per event low. */
static uint64_t remember_id(struct tc_conn *c, uint64_t id, int kind)
{
    uint64_t *slot = &c->recent_ids[(id >> 3) & 255];
    if (*slot != id) {
        if (!tcu_map_get(&c->ids, id)) /* an id keeps the kind it was first sent as */
            tcu_map_put(&c->ids, id, ID_VALUE(kind, id));
        *slot = id;
    }
    return id;
}

uint64_t tc_conn_string_id(struct tc_conn *c, const char *s)
{
    return s ? remember_id(c, (uint64_t)(uintptr_t)s, ID_STRING) : 0;
}

uint64_t tc_conn_srcloc_id_slow(struct tc_conn *c, uint64_t srcloc)
{
    return remember_id(c, srcloc, ID_SRCLOC);
}

static const void *sent(const struct tc_conn *c, uint64_t id, int kind)
{
    const uint64_t *v = tcu_map_get(&c->ids, id);
    return v && ID_KIND(*v) == kind ? ID_PTR(*v) : NULL;
}

const char *tc_conn_sent_string(const struct tc_conn *c, uint64_t id)
{
    return sent(c, id, ID_STRING);
}

const struct ___tracy_source_location_data *tc_conn_sent_srcloc(const struct tc_conn *c, uint64_t id)
{
    return sent(c, id, ID_SRCLOC);
}
