/* test_debug_cache_module.c - the cache's copies of modules' own files (native/debug_cache.h:
 * tcn_debug_cache_module) change nothing resolved: addresses all over this program's code
 * (built with -g: its DWARF is in the file) give the same images, functions, files, lines,
 * inlined frames and extents with no cache, with one that makes the copy, and with one that
 * finds it made; the copy is named by the build ID, byte for byte the file, mapped in place
 * of the file (which is never mapped again from its start), marked used when found, and
 * made again when cut short, when its section headers are not the file's, or when it is not
 * an ELF file at all; a limit below the file's size leaves the file read. Skipped (77) when
 * this program carries no DWARF or no build ID. */
#include "native/debug_cache.h"
#include "native/libdw.h"
#include "native/symbols.h"
#include "test_symbols.h"
#include "test_util.h"

#include <limits.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ADDRESSES 4000

static uint64_t code_low, code_high;

/* This program's executable segment, from the loader (the program is the first entry). */
static int find_program(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            code_low = info->dlpi_addr + ph->p_vaddr;
            code_high = code_low + ph->p_memsz;
        }
    }
    return 1;
}

/* Everything resolved at the addresses, as text; *with_lines: frames with a file and line.
 * *mapped: whether `copy` is mapped while the resolver is open. */
static char *resolve_all(int *with_lines, const char *copy, int *mapped)
{
    struct tcn_symbols *s = tcn_symbols_new();
    char *out = tt_resolve_text(s, code_low, code_high, ADDRESSES, 5, with_lines);
    char *maps = tt_read_file("/proc/self/maps");
    *mapped = maps && copy && strstr(maps, copy) != NULL;
    char again[256] = "";
    CHECK_EQ_INT(tt_loaded_files_mapped_again(again, sizeof again), 0);
    free(maps);
    tcn_symbols_free(s);
    return out;
}

/* The program's module looked at through the sampler's unwinder's find_elf: whether `copy`
 * is mapped then. It takes a copy made already and never makes one (copying a whole program
 * would keep the sampler from reading its rings). */
static int unwinder_maps(const char *copy)
{
    const struct tcn_libdw *dw = tcn_libdw();
    Dwfl_Callbacks callbacks = {.find_elf = tcn_libdw_find_elf_made, .find_debuginfo = tcn_libdw_find_debuginfo};
    Dwfl *dwfl = dw ? dw->dwfl_begin(&callbacks) : NULL;
    FILE *maps = NULL;
    int mapped = 0;
    if (dwfl) {
        dw->dwfl_report_begin(dwfl);
        tcn_libdw_report_self(dwfl, &maps);
        dw->dwfl_report_end(dwfl, NULL, NULL);
        Dwfl_Module *mod = dw->dwfl_addrmodule(dwfl, code_low);
        CHECK(mod && dw->dwfl_module_getsymtab(mod) > 0); /* (its file opened) */
        char *now = tt_read_file("/proc/self/maps");
        mapped = now && strstr(now, copy) != NULL;
        free(now);
        dw->dwfl_end(dwfl);
    }
    if (maps)
        fclose(maps);
    return mapped;
}

/* The program's build ID and the bytes of DWARF in it, read by hand (the test checks the
 * library, not with it). */
static uint64_t program_dwarf(const char *path, char *id)
{
    int fd = open(path, O_RDONLY);
    ElfW(Ehdr) eh;
    uint64_t dwarf = 0;
    id[0] = 0;
    if (fd >= 0 && pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && eh.e_shentsize == sizeof(ElfW(Shdr)))
        for (unsigned i = 0; i < eh.e_shnum; i++) {
            ElfW(Shdr) sh;
            if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (uint64_t)i * eh.e_shentsize)) != (ssize_t)sizeof sh)
                break;
            if (!(sh.sh_flags & SHF_ALLOC) && sh.sh_type == SHT_PROGBITS)
                dwarf += sh.sh_size;
            unsigned char note[256];
            if (sh.sh_type == SHT_NOTE && sh.sh_size <= sizeof note &&
                pread(fd, note, sh.sh_size, (off_t)sh.sh_offset) == (ssize_t)sh.sh_size) {
                ElfW(Nhdr) n;
                memcpy(&n, note, sizeof n);
                if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && n.n_descsz <= 64 &&
                    sizeof n + 4 + n.n_descsz <= sh.sh_size)
                    for (unsigned j = 0; j < n.n_descsz; j++)
                        snprintf(id + 2 * j, 3, "%02x", note[sizeof n + 4 + j]);
            }
        }
    if (fd >= 0)
        close(fd);
    return dwarf;
}

static int files_equal(const char *a, const char *b)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    return system(cmd) == 0;
}

int main(void)
{
    dl_iterate_phdr(find_program, NULL);
    char exe[4096], id[2 * 64 + 1];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    if (!code_high || n <= 0 || program_dwarf(exe, id) < TCN_DEBUG_CACHE_MODULE_MIN || !id[0]) {
        printf("test_debug_cache_module: skipped: %s has no DWARF of its own or no build ID\n", exe);
        return 77;
    }
    char root[PATH_MAX];
    tt_temp_path(root, sizeof root, "tracyc-module-cache-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    char dir[4200], full[4200], copy[4400];
    snprintf(dir, sizeof dir, "%s/made/here", root); /* made by the cache, parents too */
    snprintf(full, sizeof full, "%s/full", root);
    snprintf(copy, sizeof copy, "%s/%s.elf", dir, id);
    struct stat program;
    CHECK(stat(exe, &program) == 0);

    int lines, again, mapped;
    tcn_debug_cache_configure(NULL, 0);
    char *plain = resolve_all(&lines, NULL, &mapped);
    CHECK(plain != NULL);
    /* the program's DWARF was read (the rest: code linked in without any, as the demangler's) */
    CHECK(lines > ADDRESSES / 4);

    /* The sampler's unwinder makes no copy; the resolver makes it, byte for byte, and maps it
     * in place of the file: the same frames. The unwinder maps it from then on. */
    tcn_debug_cache_configure(dir, (size_t)1 << 30);
    struct stat made;
    CHECK(!unwinder_maps(copy));
    CHECK(stat(copy, &made) != 0);
    char *making = resolve_all(&again, copy, &mapped);
    CHECK(stat(copy, &made) == 0);
    CHECK(made.st_size == program.st_size);
    CHECK(unwinder_maps(copy));
    CHECK(files_equal(copy, exe));
    CHECK(mapped);
    CHECK(making && plain && strcmp(making, plain) == 0);
    CHECK_EQ_INT(again, lines);

    /* Found made: not written again, marked used, the same frames. */
    struct timespec old[2] = {{1000, 0}, {1000, 0}};
    CHECK(utimensat(AT_FDCWD, copy, old, 0) == 0);
    char *found = resolve_all(&again, copy, &mapped);
    struct stat now;
    CHECK(stat(copy, &now) == 0);
    CHECK(now.st_ino == made.st_ino);
    CHECK(now.st_mtime > 1000);
    CHECK(mapped);
    CHECK(found && plain && strcmp(found, plain) == 0);

    /* Copies that are not the file are not read: one cut short, one whose section headers
     * differ (the same size), one that is no ELF file. Each is made again. */
    for (int bad = 0; bad < 3; bad++) {
        if (bad == 0) {
            CHECK(truncate(copy, 4096) == 0);
        } else {
            int fd = open(copy, O_RDWR);
            CHECK(fd >= 0);
            ElfW(Ehdr) eh;
            CHECK(pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh);
            /* the last section's size, or the magic */
            off_t at =
                bad == 1
                    ? (off_t)(eh.e_shoff + (uint64_t)(eh.e_shnum - 1) * eh.e_shentsize + offsetof(ElfW(Shdr), sh_size))
                    : 0;
            char byte;
            CHECK(pread(fd, &byte, 1, at) == 1);
            byte ^= 0x10;
            CHECK(pwrite(fd, &byte, 1, at) == 1);
            close(fd);
        }
        struct stat before;
        CHECK(stat(copy, &before) == 0);
        char *remade = resolve_all(&again, copy, &mapped);
        CHECK(stat(copy, &now) == 0);
        CHECK(now.st_ino != before.st_ino);
        CHECK(files_equal(copy, exe));
        CHECK(remade && plain && strcmp(remade, plain) == 0);
        free(remade);
    }

    /* A limit the file passes: no copy, the file is read. */
    CHECK(mkdir(full, 0700) == 0);
    tcn_debug_cache_configure(full, (size_t)program.st_size - 1);
    char *too_big = resolve_all(&again, full, &mapped);
    CHECK(!mapped);
    CHECK(too_big && plain && strcmp(too_big, plain) == 0);
    snprintf(copy, sizeof copy, "%s/%s.elf", full, id);
    CHECK(stat(copy, &now) != 0);

    free(plain);
    free(making);
    free(found);
    free(too_big);
    char rm[4300];
    snprintf(rm, sizeof rm, "rm -rf '%s'", root);
    CHECK(system(rm) == 0);
    return tt_finish("test_debug_cache_module");
}
