/* libdw.c - loading libdw at run time (see libdw.h). */
#include "native/libdw.h"

#include "native/debug_cache.h"
#include "util/fd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *soname = "libdw.so.1";
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct tcn_libdw table;
static const struct tcn_libdw *loaded;
static char reason[300];
static _Atomic int failed;

static void fail(void)
{
    atomic_store_explicit(&failed, 1, memory_order_release);
}

/* Privately (RTLD_LOCAL): libdw and libelf stay out of the program's global scope, where
 * they could take the place of another copy the program links itself. */
static void load(void)
{
    tcu_fd_guard_begin(); /* (the loader opens the libraries' files on low numbers for a moment) */
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    tcu_fd_guard_end(-1);
    if (!lib) {
        const char *err = dlerror();
        if (err && strncmp(err, soname, strlen(soname)) == 0 && strstr(err, "cannot open shared object file"))
            snprintf(reason, sizeof reason, "%s not found (install elfutils' libdw1)", soname);
        else
            snprintf(reason, sizeof reason, "%s cannot be loaded: %s", soname, err ? err : "unknown error");
        fail();
        return;
    }
#define TCN_LIBDW_LOAD(name, version)                                                                                  \
    table.name = (__typeof__(name) *)dlvsym(lib, #name, version);                                                      \
    if (!table.name) {                                                                                                 \
        snprintf(reason, sizeof reason, "%s has no %s@%s (elfutils' libdw1 0.158 or later needed)", soname, #name,     \
                 version);                                                                                             \
        dlclose(lib);                                                                                                  \
        fail();                                                                                                        \
        return;                                                                                                        \
    }
    TCN_LIBDW_FUNCTIONS(TCN_LIBDW_LOAD)
#undef TCN_LIBDW_LOAD
#define TCN_LIBDW_LOAD_OPTIONAL(name, version) table.name = (__typeof__(name) *)dlvsym(lib, #name, version);
    TCN_LIBDW_OPTIONAL(TCN_LIBDW_LOAD_OPTIONAL)
#undef TCN_LIBDW_LOAD_OPTIONAL
    loaded = &table;
}

const struct tcn_libdw *tcn_libdw(void)
{
    pthread_once(&once, load);
    return loaded;
}

const char *tcn_libdw_unavailable(void)
{
    /* The reason is written before `failed` is set (release), read after it is seen. */
    return atomic_load_explicit(&failed, memory_order_acquire) ? reason : NULL;
}

/* The whole of an open file from where it stands, NUL-terminated (*len: its bytes without
 * the NUL); NULL with errno set on failure: the read's, EIO if it set none. */
static char *read_rest(FILE *f, size_t *len)
{
    clearerr(f); /* a kept stream's earlier failure is not this reading's */
    size_t cap = 64 * 1024, n = 0;
    char *text = malloc(cap + 1);
    while (text) {
        errno = 0;
        n += fread(text + n, 1, cap - n, f);
        if (n < cap) {
            if (ferror(f)) {
                int err = errno ? errno : EIO;
                free(text);
                errno = err;
                return NULL;
            }
            text[n] = '\0';
            *len = n;
            return text;
        }
        char *grown = realloc(text, 2 * cap + 1);
        if (!grown)
            free(text);
        text = grown;
        cap *= 2;
    }
    errno = ENOMEM;
    return NULL;
}

/* The end of the mapping that starts at `start` in the maps' text, or 0. By strtoull, not
 * sscanf: glibc's sscanf measures the whole rest of its string at each call. */
static uint64_t mapping_end(const char *maps, uint64_t start)
{
    for (const char *line = maps; *line;) {
        char *dash;
        uint64_t low = strtoull(line, &dash, 16);
        if (*dash == '-' && low == start)
            return strtoull(dash + 1, NULL, 16);
        const char *next = strchr(line, '\n');
        if (!next)
            break;
        line = next + 1;
    }
    return 0;
}

int tcn_libdw_report_self(Dwfl *dwfl, FILE **maps)
{
    if (!*maps && !(*maps = tcu_fd_fopen_read("/proc/self/maps")))
        return errno;
    /* read from the start, the kernel writes the maps as they are now: once, so that the
     * vDSO's end and libdwfl's modules come from the same reading */
    if (fseek(*maps, 0, SEEK_SET) != 0)
        return errno;
    size_t len;
    char *text = read_rest(*maps, &len);
    if (!text)
        return errno;
    uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
    uint64_t vdso_end = vdso ? mapping_end(text, vdso) : 0;
    FILE *copy = len ? fmemopen(text, len, "r") : NULL; /* a stream on memory: no descriptor */
    int result = copy ? table.dwfl_linux_proc_maps_report(dwfl, copy) : len ? errno : 0;
    if (copy)
        fclose(copy);
    free(text);
    if (result == 0 && vdso_end > vdso) {
        char name[32];
        snprintf(name, sizeof name, "[vdso: %d]", (int)getpid());
        if (!table.dwfl_report_module(dwfl, name, vdso, vdso_end))
            result = -1;
    }
    return result;
}

/* The files of the modules, each opened once a process and kept: a Dwfl made again (the
 * loader has changed something) gets a copy made straight at or above the floor (F_DUPFD),
 * where an open(2) would take the lowest free number for a moment, however short. A file
 * replaced on disk since it was opened is opened again. */
struct kept_file {
    char *path;
    int fd;
};
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept_file *kept;
static size_t kept_count, kept_cap;

void tcn_libdw_forget_after_fork(void)
{
    pthread_mutex_init(&kept_lock, NULL);
}

static int is_file(int fd, const struct stat *st)
{
    struct stat now;
    return fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* A new descriptor of the regular file at path (st: its stat), out of the program's way. */
static int module_file_open(const char *path, const struct stat *st)
{
    pthread_mutex_lock(&kept_lock);
    size_t i = 0;
    while (i < kept_count && strcmp(kept[i].path, path) != 0)
        i++;
    if (i < kept_count && !is_file(kept[i].fd, st)) {
        close(kept[i].fd);
        free(kept[i].path);
        kept[i] = kept[--kept_count];
        i = kept_count;
    }
    int fd;
    if (i < kept_count) {
        fd = fcntl(kept[i].fd, F_DUPFD_CLOEXEC, TCU_FD_FLOOR);
        if (fd < 0) /* (no number at or above the floor: as tcu_fd_lift) */
            fd = fcntl(kept[i].fd, F_DUPFD_CLOEXEC, 3);
    } else {
        fd = tcu_fd_open(path, O_RDONLY, 0);
        if (fd >= 0 && kept_count == kept_cap) {
            size_t cap = kept_cap ? 2 * kept_cap : 16;
            struct kept_file *grown = realloc(kept, cap * sizeof *grown);
            if (grown) {
                kept = grown;
                kept_cap = cap;
            }
        }
        struct kept_file k = {fd >= 0 && kept_count < kept_cap ? strdup(path) : NULL, -1};
        if (k.path && (k.fd = fcntl(fd, F_DUPFD_CLOEXEC, TCU_FD_FLOOR)) >= 0)
            kept[kept_count++] = k;
        else
            free(k.path);
    }
    pthread_mutex_unlock(&kept_lock);
    return fd;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                    Elf **elfp, int make_copy)
{
    if (base != 0 && base == getauxval(AT_SYSINFO_EHDR)) { /* the vDSO, as tcn_libdw_report_self reported it */
        Dwarf_Addr low = 0, high = 0;
        table.dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
        *file_name = NULL;
        *elfp = high > low ? table.elf_memory((char *)(uintptr_t)low, high - low) : NULL;
        return -1;
    }
    /* A module's file is opened here (libdwfl's own callback would keep it a while on the
     * lowest free number, which may be one the program closed and dup2s onto meanwhile).
     * Special and deleted files are left to libdwfl. */
    struct stat st;
    if (modname[0] == '/' && stat(modname, &st) == 0 && S_ISREG(st.st_mode)) {
        /* A file carrying its DWARF is mapped from the cache's copy of it (debug_cache.h),
         * the way libdwfl maps the files it opens: not the loaded file, so perf is not
         * misled. The module keeps its own name. */
        char copy[4200];
        struct stat copy_st;
        int fd = -1;
        if (tcn_debug_cache_module(modname, make_copy, copy, sizeof copy) == 0 && stat(copy, &copy_st) == 0 &&
            S_ISREG(copy_st.st_mode) && (fd = module_file_open(copy, &copy_st)) >= 0) {
            *elfp = table.elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
            if (!*elfp) {
                close(fd);
                fd = -1;
            }
        }
        if (fd < 0 && (fd = module_file_open(modname, &st)) >= 0)
            *elfp = table.elf_begin(fd, ELF_C_READ, NULL);
        *file_name = fd >= 0 ? strdup(modname) : NULL;
        if (fd >= 0 && !*file_name) {
            if (*elfp)
                table.elf_end(*elfp);
            *elfp = NULL;
            close(fd);
            return -1;
        }
        return fd;
    }
    tcu_fd_guard_begin();
    int fd = table.dwfl_linux_proc_find_elf(mod, userdata, modname, base, file_name, elfp);
    if (fd >= 0 && !*elfp) { /* (an Elf made already has the descriptor) */
        fd = tcu_fd_guard_end(fd);
        *elfp = table.elf_begin(fd, ELF_C_READ, NULL);
    } else {
        tcu_fd_guard_end(-1);
    }
    return fd;
}

int tcn_libdw_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                       Elf **elfp)
{
    return find_elf(mod, userdata, modname, base, file_name, elfp, 1);
}

int tcn_libdw_find_elf_made(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                            Elf **elfp)
{
    return find_elf(mod, userdata, modname, base, file_name, elfp, 0);
}

int tcn_libdw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                             const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                             char **debuginfo_file_name)
{
    /* libdwfl asks for a module's dwz file (.gnu_debugaltlink) with its name and the crc 0
     * (a .gnu_debuglink's crc is never 0 but one time in 2^32): libdwfl finds that one. */
    if (debuglink_file && debuglink_crc == 0) {
        tcu_fd_guard_begin();
        return tcu_fd_guard_end(table.dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
                                                                   debuglink_file, debuglink_crc, debuginfo_file_name));
    }
    /* The module's debug file, where dwfl_build_id_find_debuginfo looks, kept as the
     * modules' files are (libdwfl's would be on a low number while it checks the file). */
    const unsigned char *id;
    GElf_Addr vaddr;
    int len = table.dwfl_module_build_id(mod, &id, &vaddr);
    if (len < 3 || len > 64)
        return -1;
    char path[sizeof "/usr/lib/debug/.build-id/" + 2 * 64 + sizeof "/.debug"];
    int n = snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/", id[0]);
    for (int i = 1; i < len; i++)
        n += snprintf(path + n, sizeof path - (size_t)n, "%02x", id[i]);
    snprintf(path + n, sizeof path - (size_t)n, ".debug");
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    /* Its copy with the compressed sections inflated, when the cache has or can make one. */
    char copy[4096 + sizeof path];
    const char *file = path;
    struct stat copy_st;
    const struct tcn_debug_cache_elf elf = {table.elf_begin,    table.elf_end,      table.elf_nextscn,
                                            table.gelf_getshdr, table.elf_compress, table.elf_update};
    if (tcn_debug_cache_copy(&elf, id, len, path, copy, sizeof copy) == 0 && stat(copy, &copy_st) == 0 &&
        S_ISREG(copy_st.st_mode)) {
        file = copy;
        st = copy_st;
    }
    int fd = module_file_open(file, &st);
    if (fd < 0 && file != path && stat(path, &st) == 0) { /* the copy went meanwhile (another process's trim) */
        file = path;
        fd = module_file_open(file, &st);
    }
    *debuginfo_file_name = fd >= 0 ? strdup(file) : NULL;
    if (fd >= 0 && !*debuginfo_file_name) {
        close(fd);
        return -1;
    }
    return fd;
}

void tcn_libdw_use_for_tests(const char *name)
{
    soname = name;
}
