/* libdw.c - loading libdw at run time (see libdw.h). */
#include "native/libdw.h"

#include "util/fd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
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

int tcn_libdw_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                       Elf **elfp)
{
    int fd = table.dwfl_linux_proc_find_elf(mod, userdata, modname, base, file_name, elfp);
    if (fd >= 0 && !*elfp) { /* (an Elf made already has the descriptor) */
        fd = tcu_fd_lift(fd);
        *elfp = table.elf_begin(fd, ELF_C_READ, NULL);
    }
    return fd;
}

int tcn_libdw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                             const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                             char **debuginfo_file_name)
{
    return tcu_fd_lift(table.dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                                          debuglink_crc, debuginfo_file_name));
}

void tcn_libdw_use_for_tests(const char *name)
{
    soname = name;
}
