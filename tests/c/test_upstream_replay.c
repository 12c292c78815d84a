/* test_upstream_replay.c - upstream Tracy's own client of every supported release,
 * replayed through tracyc's decoder.
 *
 * tests/upstream/fixtures/<protocol>.client holds the bytes upstream's client of that
 * release sent to that release's tracy-capture (recorded on loopback by
 * tests/upstream/record.sh from tests/upstream/client.c), <protocol>.server the bytes the
 * capture sent back (its hello and every query), <protocol>.expect what upstream's
 * tracy-dump read from the capture file. For each release the decoder, set to the version
 * of the recorded hello, must
 *  - decode the client's bytes to the end (DONE), whatever the chunking;
 *  - send exactly the queries upstream's server sent, in the same order (the client's
 *    replies in the recording answer those: a different order would misname things);
 *  - find what tracy-dump found: zones, GPU zones, messages, main frames, locks, memory
 *    pools and allocations, plot points, thread names, app info.
 *
 * usage: test_upstream_replay FIXTURE_DIR */
#include "test_util.h"
#include "decode/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bytes {
    uint8_t *p;
    size_t len;
};

static struct bytes read_file(const char *dir, uint32_t protocol, const char *ext)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%u.%s", dir, protocol, ext);
    struct bytes b = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return b;
    fseek(f, 0, SEEK_END);
    b.len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.p = malloc(b.len + 1);
    if (fread(b.p, 1, b.len, f) != b.len)
        b.len = 0;
    b.p[b.len] = 0;
    fclose(f);
    return b;
}

#define MAX_PLOTS 8
#define MAX_POOLS 8

struct replay {
    struct tcd_decoder *dec;
    uint8_t queries[8192];
    size_t queries_len;
    unsigned zones, gpu_zones, messages, main_frames, locks, allocs;
    uint32_t plot_ids[MAX_PLOTS], plot_points[MAX_PLOTS], nplots;
    uint32_t pools[MAX_POOLS], npools;
    char app_info[128];
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct replay *r = user;
    switch (ev->kind) {
    case TCD_ZONE_BEGIN:
        r->zones++;
        break;
    case TCD_GPU_ZONE_BEGIN:
        r->gpu_zones++;
        break;
    case TCD_MESSAGE:
        r->messages++;
        break;
    case TCD_FRAME_MARK:
        r->main_frames += ev->id == 0;
        break;
    case TCD_LOCK_ANNOUNCE:
        r->locks++;
        break;
    case TCD_MEM_ALLOC: {
        r->allocs++;
        uint32_t i = 0;
        while (i < r->npools && r->pools[i] != ev->id)
            i++;
        if (i == r->npools && i < MAX_POOLS)
            r->pools[r->npools++] = ev->id;
        break;
    }
    case TCD_PLOT: {
        uint32_t i = 0;
        while (i < r->nplots && r->plot_ids[i] != ev->id)
            i++;
        if (i == r->nplots && i < MAX_PLOTS)
            r->plot_ids[r->nplots++] = ev->id;
        if (i < MAX_PLOTS)
            r->plot_points[i]++;
        break;
    }
    case TCD_APP_INFO:
        snprintf(r->app_info, sizeof r->app_info, "%.*s", (int)ev->text_len, ev->text);
        break;
    default:
        break;
    }
}

static void on_query(void *user, const uint8_t packet[13])
{
    struct replay *r = user;
    if (r->queries_len + 13 <= sizeof r->queries)
        memcpy(r->queries + r->queries_len, packet, 13);
    r->queries_len += 13;
}

/* The value of "key: N" in tracy-dump's output, or -1. */
static long expect_count(const char *expect, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\n%s: ", key);
    const char *at = strstr(expect, pattern); /* expect starts with a newline */
    return at ? strtol(at + strlen(pattern), NULL, 10) : -1;
}

/* Every `plot "NAME" points=N` and `thread id=... name="NAME"` of tracy-dump found here. */
static void check_plots_and_threads(const struct replay *r, const char *expect, uint32_t protocol)
{
    unsigned plots = 0, threads = 0, found_threads = 0;
    for (const char *line = expect; (line = strstr(line, "\nplot \"")); line++) {
        char name[128];
        unsigned points;
        if (sscanf(line, "\nplot \"%127[^\"]\" points=%u", name, &points) != 2)
            continue;
        plots++;
        int ok = 0;
        for (uint32_t i = 0; i < r->nplots; i++)
            ok |= !strcmp(tcd_plot_name(r->dec, r->plot_ids[i]), name) && r->plot_points[i] == points;
        /* The server makes plots of its own, depending on timing: frame times ("Frame") and
         * memory use (named after the pool). The client sends neither. */
        int own = !strcmp(name, "Frame");
        for (uint32_t i = 0; i < r->npools; i++)
            own |= !strcmp(name, tcd_pool_name(r->dec, r->pools[i]));
        if (own) {
            plots--;
            continue;
        }
        tt_check(ok, "protocol %u: plot \"%s\" with %u points", protocol, name, points);
    }
    tt_check(plots == r->nplots, "protocol %u: %u plots (%u)", protocol, plots, r->nplots);
    for (const char *line = expect; (line = strstr(line, "\nthread id=")); line++) {
        char name[128];
        unsigned long long id;
        if (sscanf(line, "\nthread id=%llu name=\"%127[^\"]\"", &id, name) != 2)
            continue;
        threads++;
        found_threads += !strcmp(tcd_thread_name(r->dec, (uint32_t)id), name);
    }
    tt_check(threads > 0 && found_threads == threads, "protocol %u: the %u threads and their names", protocol, threads);
}

static void replay(const char *dir, uint32_t protocol, size_t chunk)
{
    struct bytes client = read_file(dir, protocol, "client"), server = read_file(dir, protocol, "server");
    struct bytes expect_file = read_file(dir, protocol, "expect");
    tt_check(client.len && server.len >= 12 && expect_file.len, "protocol %u: fixture found", protocol);
    if (!client.len || server.len < 12 || !expect_file.len)
        return;
    char *expect = malloc(expect_file.len + 2);
    expect[0] = '\n';
    memcpy(expect + 1, expect_file.p, expect_file.len + 1);

    struct replay *r = calloc(1, sizeof *r);
    struct tcd_callbacks cb = {on_event, on_query};
    r->dec = tcd_decoder_new(&cb, r, NULL);
    uint32_t hello_version;
    memcpy(&hello_version, server.p + 8, 4);
    tt_check(hello_version == protocol && tcd_decoder_set_version(r->dec, protocol) == 0,
             "protocol %u: the recorded hello asks for it", protocol);
    uint8_t hello[12];
    tcd_decoder_hello(r->dec, hello);
    CHECK(memcmp(hello, server.p, 12) == 0);

    for (size_t off = 0; off < client.len; off += chunk)
        tcd_decoder_feed(r->dec, client.p + off, client.len - off < chunk ? client.len - off : chunk);
    tt_check(tcd_decoder_state(r->dec) == TCD_STATE_DONE, "protocol %u, chunks of %zu: decoded to the end (%s)",
             protocol, chunk, tcd_decoder_error(r->dec));

    /* Upstream's server: the hello, the queries, and a Terminate query once done. */
    static const uint8_t terminate[13] = {0};
    const uint8_t *queries = server.p + 12;
    size_t queries_len = server.len - 12;
    if (queries_len >= 13 && !memcmp(queries + queries_len - 13, terminate, 13))
        queries_len -= 13;
    tt_check(r->queries_len == queries_len && !memcmp(r->queries, queries, queries_len),
             "protocol %u: the same %zu queries as upstream's server, in its order (%zu)", protocol, queries_len / 13,
             r->queries_len / 13);

    tt_check(r->zones == expect_count(expect, "zones") && r->gpu_zones == expect_count(expect, "gpu zones"),
             "protocol %u: %u zones, %u GPU zones", protocol, r->zones, r->gpu_zones);
    tt_check(r->messages == expect_count(expect, "messages"), "protocol %u: %u messages", protocol, r->messages);
    /* The server adds two frames of its own to the main set: at 0 and at the end of start-up. */
    tt_check(r->main_frames + 2 == expect_count(expect, "frames(base)"), "protocol %u: %u main frames", protocol,
             r->main_frames);
    tt_check(r->locks == expect_count(expect, "lockables"), "protocol %u: %u locks", protocol, r->locks);
    tt_check(r->allocs == expect_count(expect, "memory events") && r->npools == expect_count(expect, "memory pools"),
             "protocol %u: %u allocations in %u pools", protocol, r->allocs, r->npools);
    const char *app = strstr(expect, "\nappinfo: ");
    tt_check(app && !strncmp(app + 10, r->app_info, strlen(r->app_info)) && r->app_info[0],
             "protocol %u: app info \"%s\"", protocol, r->app_info);
    CHECK(strstr(expect, "\nfailure: none") != NULL);
    check_plots_and_threads(r, expect, protocol);

    tcd_decoder_free(r->dec);
    free(r);
    free(expect);
    free(client.p);
    free(server.p);
    free(expect_file.p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_upstream_replay FIXTURE_DIR\n");
        return 2;
    }
    static const uint32_t protocols[] = {82, 76, 74, 69, 66, 64};
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++) {
        replay(argv[1], protocols[i], (size_t)1 << 20);
        replay(argv[1], protocols[i], 7); /* frames and the welcome cut anywhere */
    }
    return tt_finish("test_upstream_replay");
}
