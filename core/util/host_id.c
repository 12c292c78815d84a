/* host_id.c - see host_id.h. */
#include "util/host_id.h"

#include "util/fd.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

uint64_t tcu_host_id_of(const char *text, unsigned long len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned long i = 0; i < len; i++) {
        h ^= (uint8_t)text[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t read_host_id(void)
{
    int fd = tcu_fd_open("/proc/sys/kernel/random/boot_id", O_RDONLY, 0);
    if (fd < 0)
        return 0;
    char text[64];
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    return n > 0 ? tcu_host_id_of(text, (unsigned long)n) : 0;
}

uint64_t tcu_host_id(void)
{
    static _Atomic uint64_t known;
    static _Atomic int read_once; /* known is set (racing readers store the same value) */
    if (atomic_load_explicit(&read_once, memory_order_acquire))
        return atomic_load_explicit(&known, memory_order_relaxed);
    uint64_t id = read_host_id();
    atomic_store_explicit(&known, id, memory_order_relaxed);
    atomic_store_explicit(&read_once, 1, memory_order_release);
    return id;
}
