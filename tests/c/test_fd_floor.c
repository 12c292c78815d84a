/* The profiler's descriptors never take a number the program has closed (core/util/fd.h).
 * With 0, 1 or 2 closed while the profiler opens something, the number stays free for the
 * program's dup2: while it starts (libunwind's pipe, the listening socket) and the
 * in-process capture starts the sampler (perf events), while a server connects (its
 * socket), while the unwinder opens a library loaded since (its file). And every
 * descriptor the profiler keeps is at TCU_FD_FLOOR or above. */
#include "native/libdw.h"
#include "client/sampling.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/fd.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SAVED 100 /* where the test keeps its own descriptors, out of the way */

static char existing[TCU_FD_FLOOR]; /* descriptors the process had before the test began */

static const struct ___tracy_source_location_data loc = {"work", "work", "fd_floor.c", 1, 0};

static int is_free(int fd)
{
    return fcntl(fd, F_GETFD) == -1 && errno == EBADF;
}

/* Descriptors at or above the floor whose target contains part; with part NULL, the
 * descriptors below the floor the process did not have at the start, other than the
 * test's own (the profiler's, misplaced). */
static int count_fds(const char *part)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        char path[64], target[512] = "";
        if (e->d_name[0] == '.' || fd == dirfd(d))
            continue;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(path, target, sizeof target - 1);
        target[len > 0 ? len : 0] = 0;
        if (part ? fd >= TCU_FD_FLOOR && strstr(target, part)
                 : fd < TCU_FD_FLOOR && !existing[fd] && (fd < SAVED || fd > SAVED + 3)) {
            if (!part)
                fprintf(stderr, "below the floor: %d -> %s\n", fd, target);
            n++;
        }
    }
    if (d)
        closedir(d);
    return n;
}

static volatile double sink;

static void spin(void)
{
    for (int i = 0; i < 100000; i++)
        sink += i * 0.5;
}

/* What a zone with a callstack does, and CPU time for samples. */
static void work(void)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&loc, 16, 1);
    spin();
    ___tracy_emit_zone_end(z);
}

static int closed_fd;
static const char *library_file;

/* Called from the library: samples here unwind through it, so the unwinder opens its file. */
static void until_library_opened(void)
{
    while (is_free(closed_fd) && count_fds(library_file) == 0)
        work();
}

static void close_std(int fd)
{
    closed_fd = fd;
    close(fd);
}

static int restore_std(int fd)
{
    int was_free = is_free(fd);
    dup2(SAVED + fd, fd);
    return was_free;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    char out[64];
    snprintf(out, sizeof out, "/tmp/tracyc-fd-floor-%d.txt", (int)getpid());
    setenv("TRACYC_OUTPUT", out, 1);
    for (int fd = 0; fd < 3; fd++)
        CHECK_EQ_INT(fcntl(fd, F_DUPFD_CLOEXEC, SAVED + fd), SAVED + fd);
    for (int fd = 0; fd < TCU_FD_FLOOR; fd++)
        existing[fd] = !is_free(fd);
    int sampling = tt_sampling_expected();
    /* the test's own client of the profiler's port, made before anything is closed */
    int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_EQ_INT(fcntl(client, F_DUPFD_CLOEXEC, SAVED + 3), SAVED + 3);
    close(client);

    /* 0 closed while the profiler starts, and the capture starts the sampler, whose
     * unwinder opens the files of the libraries samples fall in. */
    close_std(0);
    work();
    while (sampling && is_free(0) && tracyc_own_threads(NULL, 0) < 2 && !tc_sampling_unavailable())
        work();
    int unwinding = sampling && !tc_sampling_unavailable() && tcn_libdw();
    while (unwinding && is_free(0) && count_fds("/") == 0)
        work();
    int start_free = restore_std(0);

    /* 1 closed while a server connects: the worker accepts its socket. */
    close_std(1);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int connected = connect(SAVED + 3, (struct sockaddr *)&addr, sizeof addr) == 0;
    while (connected && is_free(1) && count_fds("socket:") < 2) /* the listening one and this */
        work();
    int accept_free = restore_std(1);

    /* 2 closed while the unwinder opens a library loaded now. */
    close_std(2);
    int library_free = 1;
    void *lib = unwinding ? dlopen(getenv("SYMLIB_DEBUG"), RTLD_NOW | RTLD_LOCAL) : NULL;
    int (*entry)(void (*)(void)) = lib ? (int (*)(void (*)(void)))dlsym(lib, "symlib_debug_entry") : NULL;
    if (entry) {
        library_file = "symlib_debug";
        entry(until_library_opened);
        library_free = is_free(2);
    }
    restore_std(2);

    tt_check(start_free, "0 stayed free while the profiler started%s", sampling ? " and sampled" : "");
    tt_check(connected && accept_free, "1 stayed free while a server connected");
    tt_check(library_free, "2 stayed free while the unwinder opened a library%s", entry ? "" : " (not run)");
    tt_check(count_fds(NULL) == 0, "every descriptor of the profiler's is at %d or above", TCU_FD_FLOOR);
    close(SAVED + 3);
    ___tracy_shutdown_profiler();
    unlink(out);
    return tt_finish("test_fd_floor");
}
