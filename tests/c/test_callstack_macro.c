/* TRACY_CALLSTACK defined before the header gives every zone, message and allocation macro
 * a callstack of that depth, as upstream: the plain macros send their Callstack forms (a
 * raw server reads the bytes). docs/protocol.md §26.2. */
#define TRACY_CALLSTACK 6
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"
#include "util/bytes.h"

#include <stdlib.h>

static struct tr_server srv;

/* The consumer of the next payload, with the payload's frame count. */
static int next_consumer(size_t *pos, int *frames)
{
    for (int round = 0; round < 100; round++) {
        struct tr_item it;
        while (tr_next(&srv, pos, &it)) {
            if (it.type != TCW_CallstackPayload)
                continue;
            *frames = tcu_rd16(it.p + 9) / 8;
            while (tr_next(&srv, pos, &it))
                if (it.type != TCW_Callstack && it.type != TCW_CallstackSerial && it.type != TCW_SingleStringData8 &&
                    it.type != TCW_MemNamePayload)
                    return it.type;
            return -1;
        }
        if (tr_pump(&srv, 50) < 0)
            return -1;
    }
    return -1;
}

static __attribute__((noinline)) void level2(void)
{
    TracyCZoneN(zone, "macro zone", 1);
    TracyCMessageL("macro message");
    int block;
    TracyCAlloc(&block, 8);
    TracyCFree(&block);
    TracyCZoneEnd(zone);
}

static __attribute__((noinline)) void level1(void)
{
    level2();
    __asm__ volatile("" ::: "memory");
}

int main(void)
{
    setenv("TRACY_NO_SYS_TRACE", "1", 1);
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0)
        return 1;
    level1();
    /* Serial events (memory) may reach the wire before the thread's own (§21.1). */
    size_t pos = 0;
    int zones = 0, messages = 0, allocs = 0, frees = 0;
    for (int i = 0; i < 4; i++) {
        int frames = 0, type = next_consumer(&pos, &frames);
        CHECK_EQ_INT(frames, TRACY_CALLSTACK);
        zones += type >= TCW_ZoneBeginCallstack && type <= TCW_ZoneBeginCallstack16;
        messages += type == TCW_MessageLiteralCallstack;
        allocs += type == TCW_MemAllocCallstack;
        frees += type == TCW_MemFreeCallstack;
    }
    CHECK_EQ_INT(zones, 1);
    CHECK_EQ_INT(messages, 1);
    CHECK_EQ_INT(allocs, 1);
    CHECK_EQ_INT(frees, 1);
    tr_finish(&srv, 5);
    ___tracy_shutdown_profiler();
    tr_free(&srv);
    return tt_finish("test_callstack_macro");
}
