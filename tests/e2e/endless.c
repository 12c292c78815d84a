/* endless.c - a client that records zones and messages until it is killed; used to
 * stop captures mid-stream. Prints "ready" once it has recorded its first frame, and
 * "connected" once a server has connected (so a test waits for events, not for time). */
#define _DEFAULT_SOURCE
#include <tracy/TracyC.h>

#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int connected = 0;
    for (long frame = 0;; frame++) {
        TracyCZoneN(outer, "endless frame", 1);
        for (int i = 0; i < 50; i++) {
            TracyCZoneN(inner, "endless work", 1);
            TracyCZoneEnd(inner);
        }
        if (frame % 10 == 0)
            TracyCMessageL("tick");
        usleep(1000);
        TracyCZoneEnd(outer);
        TracyCFrameMark;
        if (frame == 0) {
            puts("ready");
            fflush(stdout);
        }
        if (!connected && ___tracy_connected()) {
            connected = 1;
            puts("connected");
            fflush(stdout);
        }
    }
}
