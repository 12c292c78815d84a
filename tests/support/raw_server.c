/* raw_server.c - see raw_server.h. */
#include "raw_server.h"

#include "wire/protocol.h"
#include "util/bytes.h"
#include "util/monotonic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <lz4.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RING_SIZE (3 * TCW_TARGET_FRAME_SIZE + 1)

/* Reads exactly len bytes within timeout_ms; 0, or -1 on close/timeout. */
static int read_exact(int fd, void *buf, size_t len, int timeout_ms)
{
    size_t got = 0;
    int64_t end = tcu_monotonic_ns() + timeout_ms * 1000000LL;
    while (got < len) {
        int left = (int)((end - tcu_monotonic_ns()) / 1000000);
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return -1;
        ssize_t n = recv(fd, (uint8_t *)buf + got, len - got, 0);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

int tr_connect(struct tr_server *s, uint16_t port, double timeout_s)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    int64_t end = tcu_monotonic_ns() + (int64_t)(timeout_s * 1e9);
    while (tcu_monotonic_ns() < end) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            s->fd = fd;
            break;
        }
        close(fd);
        usleep(10000);
    }
    if (s->fd < 0)
        return -1;
    uint8_t hello[12];
    memcpy(hello, TCW_SHIBBOLETH, 8);
    uint32_t version = TCW_PROTOCOL_VERSION;
    memcpy(hello + 8, &version, 4);
    uint8_t status;
    if (send(s->fd, hello, sizeof hello, MSG_NOSIGNAL) != (ssize_t)sizeof hello ||
        read_exact(s->fd, &status, 1, 5000) != 0 || status != TCW_HANDSHAKE_WELCOME ||
        read_exact(s->fd, s->welcome, sizeof s->welcome, 5000) != 0)
        return -1;
    s->lz4 = LZ4_createStreamDecode();
    s->ring = malloc(RING_SIZE);
    return s->lz4 && s->ring ? 0 : -1;
}

static int append(struct tr_server *s, const uint8_t *p, size_t n)
{
    if (s->log_len + n > s->log_cap) {
        size_t cap = s->log_cap ? s->log_cap : 1 << 20;
        while (cap < s->log_len + n)
            cap *= 2;
        uint8_t *grown = realloc(s->log, cap);
        if (!grown)
            return -1;
        s->log = grown;
        s->log_cap = cap;
    }
    memcpy(s->log + s->log_len, p, n);
    s->log_len += n;
    return 0;
}

/* One frame: u32 compressed size, then an LZ4 block, decompressed as upstream does. */
static long read_frame(struct tr_server *s, int timeout_ms)
{
    uint32_t csize;
    if (read_exact(s->fd, &csize, 4, timeout_ms) != 0)
        return -1;
    static char in[TCW_LZ4_SIZE];
    if (csize == 0 || csize > TCW_LZ4_SIZE || read_exact(s->fd, in, csize, 5000) != 0)
        return -1;
    int n = LZ4_decompress_safe_continue(s->lz4, in, (char *)s->ring + s->ring_off, (int)csize, TCW_TARGET_FRAME_SIZE);
    if (n <= 0 || append(s, s->ring + s->ring_off, (size_t)n) != 0)
        return -1;
    s->ring_off += (size_t)n;
    if (s->ring_off > 2 * TCW_TARGET_FRAME_SIZE)
        s->ring_off = 0;
    return n;
}

long tr_pump(struct tr_server *s, int timeout_ms)
{
    if (s->closed)
        return -1;
    long total = 0;
    int64_t end = tcu_monotonic_ns() + timeout_ms * 1000000LL;
    for (;;) {
        int left = (int)((end - tcu_monotonic_ns()) / 1000000);
        if (left <= 0)
            break;
        struct pollfd p = {s->fd, POLLIN, 0};
        int wait = total ? (left < 50 ? left : 50) : left;
        if (poll(&p, 1, wait) <= 0) {
            if (total)
                break;
            continue;
        }
        long n = read_frame(s, 5000);
        if (n < 0) {
            s->closed = 1;
            return total ? total : -1;
        }
        total += n;
    }
    return total;
}

size_t tr_item_size(const uint8_t *p, size_t avail)
{
    if (avail < 1 || p[0] >= TCW_NUM_TYPES || !tcw_item_size[p[0]])
        return 0;
    size_t size;
    switch (p[0]) {
    case TCW_SingleStringData8:
    case TCW_SecondStringData8:
        size = avail >= 2 ? 2u + p[1] : 0;
        break;
    case TCW_SingleStringData:
    case TCW_SecondStringData:
        size = avail >= 3 ? 3u + tcu_rd16(p + 1) + 256u : 0;
        break;
    case TCW_FrameImageData:
    case TCW_SymbolCode:
    case TCW_SourceCode:
        size = avail >= 13 ? 13u + tcu_rd32(p + 9) : 0;
        break;
    default:
        if (p[0] >= TCW_StringData && p[0] <= TCW_FiberName) /* upstream's last items: strings */
            size = avail >= 11 ? 11u + tcu_rd16(p + 9) : 0;
        else
            size = tcw_item_size[p[0]];
        break;
    }
    return size && size <= avail ? size : 0;
}

int tr_next(const struct tr_server *s, size_t *pos, struct tr_item *it)
{
    if (*pos >= s->log_len)
        return 0;
    size_t size = tr_item_size(s->log + *pos, s->log_len - *pos);
    if (!size)
        return 0;
    *it = (struct tr_item){s->log[*pos], *pos, size, s->log + *pos};
    *pos += size;
    return 1;
}

const char *tr_item_text(const struct tr_item *it, size_t *len)
{
    switch (it->type) {
    case TCW_SingleStringData8:
    case TCW_SecondStringData8:
        *len = it->size - 2;
        return (const char *)it->p + 2;
    case TCW_SingleStringData:
    case TCW_SecondStringData:
        *len = it->size - 3;
        return (const char *)it->p + 3;
    default:
        *len = it->size - 11;
        return (const char *)it->p + 11;
    }
}

void tr_query(struct tr_server *s, uint8_t type, uint64_t ptr, uint32_t extra)
{
    uint8_t q[TCW_QUERY_SIZE];
    q[0] = type;
    memcpy(q + 1, &ptr, 8);
    memcpy(q + 9, &extra, 4);
    if (send(s->fd, q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q)
        s->closed = 1;
}

void tr_finish(struct tr_server *s, double timeout_s)
{
    tr_query(s, TCW_QUERY_TERMINATE, 0, 0);
    int64_t end = tcu_monotonic_ns() + (int64_t)(timeout_s * 1e9);
    while (!s->closed && tcu_monotonic_ns() < end)
        tr_pump(s, 100);
}

void tr_free(struct tr_server *s)
{
    if (s->fd >= 0)
        close(s->fd);
    if (s->lz4)
        LZ4_freeStreamDecode(s->lz4);
    free(s->ring);
    free(s->log);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

struct tr_thread_runs tr_thread_runs(const struct tr_server *s, uint32_t tid)
{
    struct tr_thread_runs n = {0, 0, 0};
    int64_t ref = 0;
    size_t pos = 0;
    struct tr_item it;
    while (tr_next(s, &pos, &it)) {
        if (!tr_ctx_time(&it, &ref) || it.type != TCW_ContextSwitch)
            continue;
        n.runs += tcu_rd32(it.p + 13) == tid; /* new thread */
        if (tcu_rd32(it.p + 9) == tid) {      /* old thread */
            n.ends++;
            n.last_state = it.p[19];
        }
    }
    return n;
}

struct tr_thread_runs tr_wait_thread_exit(struct tr_server *s, uint32_t tid, double timeout_s)
{
    int64_t deadline = tcu_monotonic_ns() + (int64_t)(timeout_s * 1e9);
    struct tr_thread_runs n = tr_thread_runs(s, tid);
    while (n.last_state != TR_STATE_DEAD && tcu_monotonic_ns() < deadline && tr_pump(s, 200) >= 0)
        n = tr_thread_runs(s, tid);
    return n;
}

int tr_ctx_time(const struct tr_item *it, int64_t *ref)
{
    switch (it->type) {
    case TCW_ContextSwitch:
    case TCW_ThreadWakeup:
        *ref += (int64_t)tcu_rd64(it->p + 1);
        return 1;
    case TCW_CallstackSample:
    case TCW_CallstackSampleContextSwitch: {
        int64_t d = (int64_t)tcu_rd64(it->p + 5);
        *ref += d >= 0 ? d + TCW_DELTA32_LIMIT : d;
        return 1;
    }
    case TCW_CallstackSample32:
    case TCW_CallstackSampleContextSwitch32:
        *ref += (int64_t)tcu_rd32(it->p + 5) + TCW_DELTA16_LIMIT;
        return 1;
    case TCW_CallstackSample16:
    case TCW_CallstackSampleContextSwitch16:
        *ref += tcu_rd16(it->p + 5);
        return 1;
    default:
        return 0;
    }
}

static void copy_text(char *dst, size_t cap, const struct tr_item *it)
{
    size_t len;
    const char *s = tr_item_text(it, &len);
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

/* Asks the client what address is and parses its CallstackFrame reply. */
int tr_ask_frame(struct tr_server *s, uint64_t address, struct tr_frames *out)
{
    memset(out, 0, sizeof *out);
    tr_query(s, TCW_QUERY_CALLSTACK_FRAME, address, 0);
    size_t pos = 0;
    struct tr_item it, single = {0}, second = {0};
    for (int round = 0; round < 200; round++) {
        while (tr_next(s, &pos, &it)) {
            if (it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData)
                single = it;
            else if (it.type == TCW_SecondStringData8 || it.type == TCW_SecondStringData)
                second = it;
            else if (it.type == TCW_CallstackFrameSize && tcu_rd64(it.p + 1) == address) {
                copy_text(out->image, sizeof out->image, &single);
                int n = it.p[9];
                for (int i = 0; i < n;) {
                    if (!tr_next(s, &pos, &it))
                        return 0; /* the reply is written in one go */
                    if (it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData)
                        single = it;
                    else if (it.type == TCW_SecondStringData8 || it.type == TCW_SecondStringData)
                        second = it;
                    else if (it.type == TCW_CallstackFrame) {
                        if (i < 8) {
                            struct tr_frame *f = &out->frames[i];
                            copy_text(f->name, sizeof f->name, &single);
                            copy_text(f->file, sizeof f->file, &second);
                            f->line = tcu_rd32(it.p + 1);
                            f->sym_addr = tcu_rd64(it.p + 5);
                            f->sym_len = tcu_rd32(it.p + 13);
                        }
                        i++;
                    } else {
                        return 0; /* nothing else may interleave */
                    }
                }
                out->count = n;
                return 1;
            }
        }
        if (tr_pump(s, 50) < 0)
            return 0;
    }
    return 0;
}

int tr_ask_symbol(struct tr_server *s, uint64_t sym_addr, char *file, size_t cap, uint32_t *line)
{
    tr_query(s, TCW_QUERY_SYMBOL, sym_addr, 0);
    size_t pos = 0;
    struct tr_item it, single = {0};
    for (int round = 0; round < 200; round++) {
        while (tr_next(s, &pos, &it)) {
            if (it.type == TCW_SingleStringData8 || it.type == TCW_SingleStringData)
                single = it;
            else if (it.type == TCW_SymbolInformation && tcu_rd64(it.p + 5) == sym_addr) {
                copy_text(file, cap, &single);
                *line = tcu_rd32(it.p + 1);
                return 1;
            }
        }
        if (tr_pump(s, 50) < 0)
            return 0;
    }
    return 0;
}
