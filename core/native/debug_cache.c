/* debug_cache.c - separate debug files kept uncompressed on disk (see debug_cache.h). */
#include "native/debug_cache.h"

#include "util/fd.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <link.h>
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
    return name[0] != '.' && len > 6 && len < sizeof((struct cached *)0)->name &&
           (!strcmp(name + len - 6, ".debug") || !strcmp(name + len - 4, ".elf") || !strcmp(name + len - 6, ".lines") ||
            !strcmp(name + len - 6, ".units") || !strcmp(name + len - 7, ".scopes"));
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

/* ---- copies of modules' own files ------------------------------------------------------ */

/* A module's file's ELF header and section headers, read by hand (native class only). */
struct layout {
    ElfW(Ehdr) ehdr;
    ElfW(Shdr) * shdrs;
    off_t size;
};

static int layout_read(int fd, struct layout *l)
{
    struct stat st;
    l->shdrs = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        pread(fd, &l->ehdr, sizeof l->ehdr, 0) != (ssize_t)sizeof l->ehdr)
        return -1;
    const ElfW(Ehdr) *e = &l->ehdr;
    size_t bytes = (size_t)e->e_shnum * sizeof *l->shdrs;
    if (memcmp(e->e_ident, ELFMAG, SELFMAG) != 0 ||
        e->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) || e->e_shentsize != sizeof *l->shdrs ||
        e->e_shnum == 0 || e->e_shoff > (uint64_t)st.st_size || bytes > (uint64_t)st.st_size - e->e_shoff ||
        !(l->shdrs = malloc(bytes)))
        return -1;
    l->size = st.st_size;
    if (pread(fd, l->shdrs, bytes, (off_t)e->e_shoff) != (ssize_t)bytes) {
        free(l->shdrs);
        l->shdrs = NULL;
        return -1;
    }
    return 0;
}

/* The bytes libelf would read into memory for libdw (the sections that are not loaded:
 * DWARF, the symbol table), when none of them is compressed; else 0. */
static uint64_t unloaded_bytes(const struct layout *l)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < l->ehdr.e_shnum; i++) {
        const ElfW(Shdr) *sh = &l->shdrs[i];
        if (sh->sh_flags & SHF_COMPRESSED)
            return 0;
        if (!(sh->sh_flags & SHF_ALLOC) && sh->sh_type != SHT_NOBITS)
            n += sh->sh_size;
    }
    return n;
}

/* The GNU build ID in the file's note sections, as hex in name (2 * 64 + 1 bytes); 0 when found. */
static int build_id_read(int fd, const struct layout *l, char *name)
{
    for (unsigned i = 0; i < l->ehdr.e_shnum; i++) {
        const ElfW(Shdr) *sh = &l->shdrs[i];
        unsigned char notes[1024];
        if (sh->sh_type != SHT_NOTE || sh->sh_size > sizeof notes || sh->sh_offset > (uint64_t)l->size ||
            pread(fd, notes, sh->sh_size, (off_t)sh->sh_offset) != (ssize_t)sh->sh_size)
            continue;
        for (size_t at = 0; at + sizeof(ElfW(Nhdr)) <= sh->sh_size;) {
            ElfW(Nhdr) n;
            memcpy(&n, notes + at, sizeof n);
            size_t desc = at + sizeof n + ((n.n_namesz + 3u) & ~3u);
            if (n.n_namesz > sh->sh_size || n.n_descsz > sh->sh_size || desc + n.n_descsz > sh->sh_size)
                break;
            if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && !memcmp(notes + at + sizeof n, "GNU", 4) &&
                n.n_descsz >= 1 && n.n_descsz <= 64) {
                for (unsigned j = 0; j < n.n_descsz; j++)
                    snprintf(name + 2 * j, 3, "%02x", notes[desc + j]);
                return 0;
            }
            at = desc + ((n.n_descsz + 3u) & ~3u);
        }
    }
    return -1;
}

/* Whether two files have the same size, ELF header and section headers. */
static int same_layout(const struct layout *a, const struct layout *b)
{
    return a->size == b->size && !memcmp(&a->ehdr, &b->ehdr, sizeof a->ehdr) &&
           !memcmp(a->shdrs, b->shdrs, (size_t)a->ehdr.e_shnum * sizeof *a->shdrs);
}

/* A copy at path whose layout is the original's (a copy cut short, or of another file with
 * the same build ID, is not). */
static int copy_matches(const char *path, const struct layout *original)
{
    int fd = tcu_fd_open(path, O_RDONLY, 0);
    struct layout copy;
    int ok = fd >= 0 && layout_read(fd, &copy) == 0 && same_layout(&copy, original);
    if (fd >= 0) {
        free(copy.shdrs);
        close(fd);
    }
    return ok;
}

static int same_file_state(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int tcn_debug_cache_module(const char *file, int make, char *path, size_t cap)
{
    if (!cache_dir[0])
        return -1;
    int in = tcu_fd_open(file, O_RDONLY, 0);
    if (in < 0)
        return -1;
    struct layout original;
    char name[2 * 64 + sizeof ".elf"];
    struct stat before, after;
    int result = -1;
    if (layout_read(in, &original) != 0 || unloaded_bytes(&original) < TCN_DEBUG_CACHE_MODULE_MIN ||
        build_id_read(in, &original, name) != 0 || fstat(in, &before) != 0)
        goto done;
    strcat(name, ".elf");
    if ((size_t)snprintf(path, cap, "%s/%s", cache_dir, name) >= cap)
        goto done;
    if (copy_matches(path, &original)) {
        utimensat(AT_FDCWD, path, NULL, 0); /* used now: the last to go */
        result = 0;
        goto done;
    }
    if (!make)
        goto done;
    char tmp[sizeof cache_dir + sizeof name + 32];
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", cache_dir, name, (long)getpid());
    int out = (uint64_t)original.size <= cache_limit && make_dirs(cache_dir) == 0
                  ? tcu_fd_open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0644)
                  : -1;
    if (out < 0)
        goto done;
    int written = 1;
    for (off_t at = 0; written && at < original.size;)
        written = sendfile(out, in, &at, (size_t)(original.size - at)) > 0;
    /* The original unchanged meanwhile (a build writing it): the copy is of one version. */
    written = written && fsync(out) == 0 && fstat(in, &after) == 0 && same_file_state(&before, &after);
    if (close(out) == 0 && written && rename(tmp, path) == 0) {
        trim(name);
        result = 0;
    } else {
        unlink(tmp);
    }
done:
    free(original.shdrs);
    close(in);
    return result;
}

/* ---- files of bytes (line tables, unit indexes and scopes) ------------------------------- */

uint64_t tcn_debug_cache_checksum(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ len;
}

#define ORDER 0x01020304u

void tcn_debug_cache_mark(void *header, const char *magic)
{
    uint32_t order = ORDER;
    memcpy(header, magic, 8);
    memcpy((char *)header + 8, &order, sizeof order);
}

int tcn_debug_cache_header(const void *data, size_t len, void *header, size_t header_len, const char *magic)
{
    uint32_t order;
    if (len < header_len || header_len < 8 + sizeof order)
        return -1;
    memcpy(header, data, header_len);
    memcpy(&order, (const char *)header + 8, sizeof order);
    return memcmp(header, magic, 8) == 0 && order == ORDER ? 0 : -1;
}

void *tcn_debug_cache_read(const char *name, size_t *len)
{
    char path[sizeof cache_dir + 256];
    if (!cache_dir[0] || !is_copy_name(name) ||
        (size_t)snprintf(path, sizeof path, "%s/%s", cache_dir, name) >= sizeof path)
        return NULL;
    int fd = tcu_fd_open(path, O_RDONLY, 0);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *bytes = NULL;
    size_t got = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= cache_limit &&
        (bytes = malloc((size_t)st.st_size))) {
        for (ssize_t n;
             got < (size_t)st.st_size && (n = pread(fd, bytes + got, (size_t)st.st_size - got, (off_t)got)) > 0;)
            got += (size_t)n;
        if (got == (size_t)st.st_size) {
            *len = got;
            futimens(fd, NULL); /* used now: the last to go */
        } else {
            free(bytes);
            bytes = NULL;
        }
    }
    close(fd);
    return bytes;
}

int tcn_debug_cache_write(const char *name, const void *data, size_t len)
{
    char path[sizeof cache_dir + 256], tmp[sizeof cache_dir + 300];
    if (!cache_dir[0] || !is_copy_name(name) || len > cache_limit ||
        (size_t)snprintf(path, sizeof path, "%s/%s", cache_dir, name) >= sizeof path || make_dirs(cache_dir) != 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", cache_dir, name, (long)getpid());
    int out = tcu_fd_open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0644);
    if (out < 0)
        return -1;
    size_t put = 0;
    for (ssize_t n; put < len && (n = write(out, (const char *)data + put, len - put)) > 0;)
        put += (size_t)n;
    /* No fsync: a file cut short by a crash fails its checksum and is made again. Trimmed
     * after this process's first file, then each sixteenth of the limit it writes: a trim
     * reads the whole directory, thousands of small files. */
    static _Atomic size_t unscanned;
    int ok = put == len;
    if (close(out) == 0 && ok && rename(tmp, path) == 0) {
        size_t before = atomic_fetch_add(&unscanned, len + 1);
        if (before == 0 || before + len + 1 > cache_limit / 16) {
            atomic_store(&unscanned, 1);
            trim(name);
        }
        return 0;
    }
    unlink(tmp);
    return -1;
}
