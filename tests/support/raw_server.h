/* raw_server.h - a minimal Tracy server for wire-level tests, independent of tracyc's
 * decoder: it connects to the test's own client, performs the handshake, decompresses
 * every LZ4 frame into one byte log of items (sized by the protocol's rules only), sends
 * the queries a test chooses and keeps the replies in the same log. Tests read the items
 * as bytes and check them against docs/protocol.md themselves.
 */
#ifndef TRACYC_TEST_RAW_SERVER_H
#define TRACYC_TEST_RAW_SERVER_H

#include "util/bytes.h"
#include <stddef.h>
#include <stdint.h>

struct tr_server {
    int fd;
    uint8_t welcome[1170];
    void *lz4;     /* LZ4_streamDecode_t */
    uint8_t *ring; /* the server's decompression ring (docs/protocol.md §5.3) */
    size_t ring_off;
    uint8_t *log; /* every decompressed byte, in order */
    size_t log_len, log_cap;
    int closed; /* the client closed the connection */
};

struct tr_item {
    uint8_t type;
    size_t offset; /* in the log */
    size_t size;   /* the whole item, type byte and strings included */
    const uint8_t *p;
};

/* Connects to 127.0.0.1:port (retrying for up to timeout_s) and reads the welcome. 0 on
 * success. */
int tr_connect(struct tr_server *s, uint16_t port, double timeout_s);
/* Reads the frames that arrive within timeout_ms (less when the client is quiet for
 * 50 ms after data). Returns the number of bytes added to the log, -1 when closed. */
long tr_pump(struct tr_server *s, int timeout_ms);
/* The item at log offset *pos, advancing *pos past it; 0 at the end or on a malformed
 * item (then *pos is left at it). */
int tr_next(const struct tr_server *s, size_t *pos, struct tr_item *it);
/* Sends one 13-byte query. */
void tr_query(struct tr_server *s, uint8_t type, uint64_t ptr, uint32_t extra);
/* Sends the Terminate query, then reads until the client closes (or timeout_s). */
void tr_finish(struct tr_server *s, double timeout_s);
void tr_free(struct tr_server *s);

/* Size of the item at p with avail bytes left, or 0 when it does not fit or is unknown. */
size_t tr_item_size(const uint8_t *p, size_t avail);
/* The text of a string item (SingleStringData8/16, SecondStringData8/16, or a
 * StringData-like reply); *len receives its length. */
const char *tr_item_text(const struct tr_item *it, size_t *len);

struct tr_frame {
    char name[256], file[256];
    uint32_t line;
    uint64_t sym_addr;
    uint32_t sym_len;
};

struct tr_frames {
    char image[512];
    int count;
    struct tr_frame frames[8];
};

/* Asks the client what address is (a CallstackFrame query) and parses its reply: the image
 * and up to 8 frames, innermost first. 1 on success (within 10 s). */
int tr_ask_frame(struct tr_server *s, uint64_t address, struct tr_frames *out);
/* Asks for a symbol's source file and line (a Symbol query). 1 on success. */
int tr_ask_symbol(struct tr_server *s, uint64_t sym_addr, char *file, size_t cap, uint32_t *line);

/* For items on the context-switch time chain (ContextSwitch, ThreadWakeup, CallstackSample
 * and CallstackSampleContextSwitch in all sizes): advances *ref to the item's time and
 * returns 1; 0 for other items. docs/protocol.md §8. */
int tr_ctx_time(const struct tr_item *it, int64_t *ref);

/* A thread's runs in the ContextSwitch items read so far: those started, those ended, and
 * the state its last switch-out gave (0: none). */
#define TR_STATE_DEAD 108 /* upstream's state of a thread that exited (X) */
struct tr_thread_runs {
    int runs, ends;
    uint8_t last_state;
};
struct tr_thread_runs tr_thread_runs(const struct tr_server *s, uint32_t tid);
/* Reads until the thread's exit has come (a switch-out in state 108, dead: the last of its
 * records), the client closes, or timeout_s passes (a bound on a hang); its runs then. */
struct tr_thread_runs tr_wait_thread_exit(struct tr_server *s, uint32_t tid, double timeout_s);

#endif
