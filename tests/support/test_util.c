/* test_util.c - tally, files read whole, free ports, resident memory, what the machine lets a test sample,
 * where a function's code lies, which files are mapped twice. */
#include "test_util.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int tt_passed, tt_failed;

void tt_check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "ok  " : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout); /* (a test that hangs later, or forks, keeps what it said) */
    va_end(ap);
    if (ok)
        tt_passed++;
    else
        tt_failed++;
}

int tt_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, tt_passed, tt_failed);
    return tt_failed ? 1 : 0;
}

/* The port is not let go: a socket of this process stays bound to it (not listening) until
 * the process exits, so the kernel gives it to no other socket, neither another test's pick
 * (bind to port 0) nor a connection's own end (every capture's connect takes one). Picked and
 * closed, it could be taken before the client listens, and the test's capture would dial
 * another test's client, or something that never answers. The client still listens on it:
 * both sockets have SO_REUSEADDR and this one does not listen. */
uint16_t tt_use_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        perror("tt_use_free_port");
        exit(2);
    }
    uint16_t port = ntohs(addr.sin_port);
    char buf[16];
    snprintf(buf, sizeof buf, "%u", port);
    setenv("TRACY_PORT", buf, 1);
    return port;
}

size_t tt_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (size_t)rss * (size_t)sysconf(_SC_PAGESIZE);
}

int tt_sampling_expected(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int paranoid = 2;
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = 2;
        fclose(f);
    }
    return geteuid() == 0 || paranoid <= 2;
}

long long tt_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void tt_burn_cpu_ns(long long ns)
{
    volatile unsigned long x = 0;
    long long end = tt_thread_cpu_ns() + ns;
    while (tt_thread_cpu_ns() < end)
        for (int i = 0; i < 10000; i++)
            x += (unsigned long)i * 7;
}

struct tt_extent tt_function_extent(void *fn)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return (struct tt_extent){0, 0};
    uint64_t lo = (uint64_t)(uintptr_t)info.dli_saddr;
    return (struct tt_extent){lo, lo + sym->st_size};
}

struct mapped_file {
    char path[256];
    int executable, from_start; /* mappings: executable ones, ones at file offset 0 */
};

int tt_loaded_files_mapped_again(char *first, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    static struct mapped_file files[512];
    size_t n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char perms[8], path[256] = "";
        unsigned long long offset;
        if (sscanf(line, "%*x-%*x %7s %llx %*s %*s %255s", perms, &offset, path) < 2 || path[0] != '/')
            continue;
        size_t i = 0;
        while (i < n && strcmp(files[i].path, path) != 0)
            i++;
        if (i == n) {
            if (n == sizeof files / sizeof *files)
                continue;
            memset(&files[n], 0, sizeof files[n]);
            strcpy(files[n++].path, path);
        }
        files[i].executable += perms[2] == 'x';
        files[i].from_start += offset == 0;
    }
    fclose(f);
    int again = 0;
    for (size_t i = 0; i < n; i++)
        if (files[i].executable && files[i].from_start > 1 && again++ == 0)
            snprintf(first, len, "%s", files[i].path);
    return again;
}

uint8_t *tt_read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        uint8_t *grown = realloc(buf, cap * 2);
        if (!grown)
            free(buf);
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

char *tt_read_file(const char *path)
{
    size_t len;
    return (char *)tt_read_bytes(path, &len);
}

int tt_occurrences(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

char *tt_temp_path(char *path, size_t len, const char *name)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    snprintf(path, len, "%s/%s", slash ? exe : ".", name);
    return path;
}
