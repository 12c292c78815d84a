/* A program that waits for a server with TracyCIsConnected before any other call (as
 * upstream's examples do) must see one connect: ___tracy_connected starts the profiler,
 * as every other entry point does. Without that, the loop would wait forever. */
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static struct tr_server srv;
static uint16_t port;
static int connected_rc = -1;

static void *server_main(void *arg)
{
    (void)arg;
    connected_rc = tr_connect(&srv, port, 20);
    return NULL;
}

int main(void)
{
    setenv("TRACY_NO_SYS_TRACE", "1", 1);
    port = tt_use_free_port();
    pthread_t t;
    pthread_create(&t, NULL, server_main, NULL);
    int connected = 0;
    for (int i = 0; i < 10000 && !connected; i++) {
        connected = TracyCIsConnected;
        usleep(1000);
    }
    pthread_join(t, NULL);
    CHECK_EQ_INT(connected, 1);
    CHECK_EQ_INT(connected_rc, 0);
    if (connected_rc == 0)
        tr_finish(&srv, 5);
    ___tracy_shutdown_profiler();
    tr_free(&srv);
    return tt_finish("test_connected_starts");
}
