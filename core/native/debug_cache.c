/* debug_cache.c - separate debug files kept uncompressed on disk (see debug_cache.h). */
#include "native/debug_cache.h"

#include "util/fd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char cache_dir[4096]; /* "": no cache */
static size_t cache_limit;

void tcn_debug_cache_configure(const char *dir, size_t limit)
{
    cache_dir[0] = 0;
    /* (room left for the file names below it) */
    if (dir && dir[0] == '/' && strlen(dir) < sizeof cache_dir - 256)
        strcpy(cache_dir, dir);
    cache_limit = limit;
}

/* The directory and those above it, made where missing (only the user's own). */
static int make_dirs(const char *dir)
{
    char path[sizeof cache_dir];
    strcpy(path, dir);
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char was = *p;
        *p = 0;
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return -1;
        if (!was)
            return 0;
        *p = was;
    }
}

/* The number of compressed sections in the ELF file at fd (its headers only are read). */
static int compressed_sections(const struct tcn_debug_cache_elf *dw, int fd)
{
    Elf *elf = dw->begin(fd, ELF_C_READ, NULL);
    int n = 0;
    for (Elf_Scn *scn = NULL; elf && (scn = dw->nextscn(elf, scn));) {
        GElf_Shdr shdr;
        if (dw->getshdr(scn, &shdr) && (shdr.sh_flags & SHF_COMPRESSED) && shdr.sh_type != SHT_NOBITS)
            n++;
    }
    if (elf)
        dw->end(elf);
    return n;
}

/* Copies the file at `in` to `out`, then inflates its compressed sections in place: libelf
 * lays the sections out again, each where its alignment puts it, in the same order. */
static int write_inflated(const struct tcn_debug_cache_elf *dw, int in, int out)
{
    struct stat st;
    if (fstat(in, &st) != 0)
        return -1;
    for (off_t at = 0; at < st.st_size;)
        if (sendfile(out, in, &at, (size_t)(st.st_size - at)) <= 0)
            return -1;
    Elf *elf = dw->begin(out, ELF_C_RDWR, NULL);
    if (!elf)
        return -1;
    int ok = 1;
    for (Elf_Scn *scn = NULL; ok && (scn = dw->nextscn(elf, scn));) {
        GElf_Shdr shdr;
        if (!dw->getshdr(scn, &shdr))
            ok = 0;
        else if ((shdr.sh_flags & SHF_COMPRESSED) && shdr.sh_type != SHT_NOBITS)
            ok = dw->compress(scn, 0, 0) >= 0;
    }
    ok = ok && dw->update(elf, ELF_C_WRITE) >= 0;
    dw->end(elf);
    return ok ? 0 : -1;
}

struct cached {
    char name[128];
    off_t size;
    struct timespec used;
};

static int least_recent_first(const void *a, const void *b)
{
    const struct cached *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

static int is_copy_name(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 6 && len < sizeof((struct cached *)0)->name && !strcmp(name + len - 6, ".debug");
}

/* Takes copies out, least recently used first, until those left fit the limit; `keep`
 * (the one just made) stays. Temporary files a process left when it died while writing
 * (an hour old) go too. */
static void trim(const char *keep)
{
    int fd = tcu_fd_open(cache_dir, O_RDONLY | O_DIRECTORY, 0);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct cached *v = NULL;
    size_t n = 0, cap = 0;
    unsigned long long total = 0;
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(dir));) {
        struct stat st;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' && len > 4 && !strcmp(e->d_name + len - 4, ".tmp")) {
            if (st.st_mtime < now - 3600)
                unlinkat(fd, e->d_name, 0);
            continue;
        }
        if (!is_copy_name(e->d_name))
            continue;
        total += (unsigned long long)st.st_size;
        if (!strcmp(e->d_name, keep))
            continue;
        if (n == cap) {
            size_t grown = cap ? 2 * cap : 32;
            struct cached *w = realloc(v, grown * sizeof *w);
            if (!w)
                break;
            v = w;
            cap = grown;
        }
        strcpy(v[n].name, e->d_name);
        v[n].size = st.st_size;
        v[n].used = st.st_mtim;
        n++;
    }
    if (n)
        qsort(v, n, sizeof *v, least_recent_first);
    for (size_t i = 0; i < n && total > cache_limit; i++)
        if (unlinkat(fd, v[i].name, 0) == 0)
            total -= (unsigned long long)v[i].size;
    free(v);
    closedir(dir);
}

static int is_elf(const char *path)
{
    int fd = tcu_fd_open(path, O_RDONLY, 0);
    char magic[4] = {0};
    int ok = fd >= 0 && read(fd, magic, sizeof magic) == (ssize_t)sizeof magic && memcmp(magic, "\177ELF", 4) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

int tcn_debug_cache_copy(const struct tcn_debug_cache_elf *dw, const unsigned char *id, int len, const char *debug_file,
                         char *path, size_t cap)
{
    if (!cache_dir[0] || !dw->compress || len < 1 || len > 64)
        return -1;
    char name[2 * 64 + sizeof ".debug"];
    for (int i = 0; i < len; i++)
        snprintf(name + 2 * i, 3, "%02x", id[i]);
    strcat(name, ".debug");
    if ((size_t)snprintf(path, cap, "%s/%s", cache_dir, name) >= cap)
        return -1;
    struct stat st, original;
    if (stat(debug_file, &original) != 0)
        return -1;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        /* An inflated copy is never smaller than its file: a smaller one was cut short (a
         * crash of the machine before the data reached the disk) and is made again. */
        if (st.st_size >= original.st_size && is_elf(path)) {
            utimensat(AT_FDCWD, path, NULL, 0); /* used now: the last to go */
            return 0;
        }
        unlink(path);
    }

    int in = tcu_fd_open(debug_file, O_RDONLY, 0);
    if (in < 0)
        return -1;
    int result = -1;
    char tmp[sizeof cache_dir + sizeof name + 32];
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", cache_dir, name, (long)getpid());
    int out = compressed_sections(dw, in) > 0 && make_dirs(cache_dir) == 0
                  ? tcu_fd_open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_EXCL, 0644)
                  : -1;
    if (out >= 0) {
        int written = write_inflated(dw, in, out) == 0 && fstat(out, &st) == 0 && fsync(out) == 0;
        if (close(out) == 0 && written && (size_t)st.st_size <= cache_limit && rename(tmp, path) == 0) {
            trim(name);
            result = 0;
        } else {
            unlink(tmp);
        }
    }
    close(in);
    return result;
}
