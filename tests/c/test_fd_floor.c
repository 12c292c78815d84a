/* The profiler's descriptors never keep a number the program has closed (core/util/fd.h).
 * With 0, 1 or 2 closed while the profiler opens what it keeps (libunwind's pipe and the
 * listening socket at start, the sampler's perf events, a server's socket, the file of a
 * library the unwinder reads), none of them keeps the number (where the program's dup2 would
 * replace it silently, and the profiler later close the program's descriptor). And every
 * descriptor the profiler keeps is at TCU_FD_FLOOR or above.
 *
 * A descriptor is low for the instant between its opening and its move above the floor
 * (fd.h): the program looks at its numbers once the profiler has settled (its descriptors
 * the same across pieces of work; it opens nothing periodically), three times over. */
#include "client/sampling.h"
#include "native/libdw.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/fd.h"

#include <limits.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAVED 100  /* where the test keeps copies of 0, 1, 2 */
#define CLIENT 103 /* and its own socket */

static char existing[TCU_FD_FLOOR]; /* descriptors the process had before the test began */
static const struct ___tracy_source_location_data loc = {"work", "work", "fd_floor.c", 1, 0};

static int is_free(int fd)
{
    return fcntl(fd, F_GETFD) == -1 && errno == EBADF;
}

/* Whether number fd holds the file of the test's copy at number copy. Looked at through
 * /proc, not with fstat(fd): the profiler's guard may put a stand-in on a closed standard
 * number and close it from another thread meanwhile, which ThreadSanitizer would report as
 * a race on the descriptor (it is none: the look only reads what the number holds). */
static int same_file(int fd, int copy)
{
    char path[64];
    struct stat x, y;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return stat(path, &x) == 0 && fstat(copy, &y) == 0 && x.st_ino == y.st_ino && x.st_dev == y.st_dev;
}

/* Whether fd is the program's: one it had at the start (0, 1, 2 while they are the files of
 * their copies), or the test's own. */
static int programs(int fd)
{
    if (fd <= 2)
        return same_file(fd, SAVED + fd);
    return (fd < TCU_FD_FLOOR && existing[fd]) || (fd >= SAVED && fd <= CLIENT);
}

/* Descriptors not the program's whose target contains part, at any number; with part NULL,
 * those below the floor (the profiler's, misplaced), printed. */
static int count_fds(const char *part)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        char path[64], target[512] = "";
        if (e->d_name[0] == '.' || fd == dirfd(d) || programs(fd))
            continue;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(path, target, sizeof target - 1);
        target[len > 0 ? len : 0] = 0;
        if (part ? strstr(target, part) != NULL : fd < TCU_FD_FLOOR) {
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

/* What a zone with a callstack does, and CPU time for samples. */
static void work(void)
{
    TracyCZoneCtx z = ___tracy_emit_zone_begin_callstack(&loc, 16, 1);
    for (int i = 0; i < 100000; i++)
        sink += i * 0.5;
    ___tracy_emit_zone_end(z);
}

/* Until the process's descriptors stay the same across three pieces of work: the profiler
 * has opened what the last event made it open (the unwinder opens a library's file when a
 * sample first needs it). */
static void settle(void)
{
    static char before[1024], now[1024];
    for (int stable = 0; stable < 3;) {
        for (int fd = 0; fd < 1024; fd++)
            before[fd] = !is_free(fd);
        work();
        for (int fd = 0; fd < 1024; fd++)
            now[fd] = !is_free(fd);
        stable = memcmp(before, now, sizeof now) == 0 ? stable + 1 : 0;
    }
}

/* Called from the library: samples here unwind through it, so the unwinder opens its file. */
static void until_library_opened(void)
{
    while (count_fds("symlib_debug") == 0)
        work();
}

/* Whether the number the program closed is free once the profiler has settled, in one of
 * many looks: a descriptor it is opening and moving above the floor is low only for an
 * instant (util/fd.h), which a look may catch now and then on a loaded machine; one it
 * keeps there is caught by every look. Then the program puts its descriptor back. */
#define LOOKS 50

static int free_then_restored(int fd)
{
    int kept = 1;
    for (int round = 0; kept && round < LOOKS; round++) {
        settle();
        kept = !is_free(fd);
    }
    if (kept) {
        char path[64], target[512] = "";
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(path, target, sizeof target - 1);
        target[len > 0 ? len : 0] = 0;
        fprintf(stderr, "descriptor %d is the profiler's: %s\n", fd, target);
    }
    dup2(SAVED + fd, fd);
    return !kept;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    char name[64], out[PATH_MAX];
    snprintf(name, sizeof name, "tracyc-fd-floor-%d.txt", (int)getpid());
    tt_temp_path(out, sizeof out, name);
    setenv("TRACYC_OUTPUT", out, 1);
    for (int fd = 0; fd < TCU_FD_FLOOR; fd++)
        existing[fd] = !is_free(fd);
    for (int fd = 0; fd < 3; fd++)
        CHECK_EQ_INT(fcntl(fd, F_DUPFD_CLOEXEC, SAVED + fd), SAVED + fd);
    int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_EQ_INT(fcntl(client, F_DUPFD_CLOEXEC, CLIENT), CLIENT);
    close(client);
    int sampling = tt_sampling_expected();

    /* 0 closed while the profiler starts and the in-process capture starts the sampler,
     * whose unwinder opens the files of the libraries samples fall in. */
    close(0);
    work();
    while (sampling && tracyc_own_threads(NULL, 0) < 2 && !tc_sampling_unavailable())
        work();
    int unwinding = sampling && !tc_sampling_unavailable() && tcn_libdw();
    while (unwinding && count_fds("/") == 0)
        work();
    int start_free = free_then_restored(0);

    /* 1 closed while a server connects: the worker accepts its socket. */
    close(1);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int connected = connect(CLIENT, (struct sockaddr *)&addr, sizeof addr) == 0;
    while (connected && count_fds("socket:") < 2) /* the listening one and the accepted one */
        work();
    int accept_free = free_then_restored(1);

    /* 2 closed while the unwinder opens a library loaded now. */
    close(2);
    void *lib = unwinding ? dlopen(getenv("SYMLIB_DEBUG"), RTLD_NOW | RTLD_LOCAL) : NULL;
    int (*entry)(void (*)(void)) = lib ? (int (*)(void (*)(void)))dlsym(lib, "symlib_debug_entry") : NULL;
    if (entry)
        entry(until_library_opened);
    int library_free = free_then_restored(2);

    tt_check(start_free, "0 stayed free while the profiler started%s", sampling ? " and sampled" : "");
    tt_check(connected && accept_free, "1 stayed free while a server connected");
    tt_check(library_free, "2 stayed free while the unwinder opened a library%s", entry ? "" : " (not run)");
    int misplaced = 1;
    for (int round = 0; misplaced && round < LOOKS; round++) {
        settle();
        misplaced = count_fds(NULL);
    }
    tt_check(!misplaced, "every descriptor of the profiler's is at %d or above", TCU_FD_FLOOR);
    close(CLIENT);
    ___tracy_shutdown_profiler();
    unlink(out);
    return tt_finish("test_fd_floor");
}
