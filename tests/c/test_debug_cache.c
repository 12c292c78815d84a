/* test_debug_cache.c - the cache of inflated debug files (native/debug_cache.h) changes
 * nothing resolved: addresses all over libc's code give the same images, functions, files,
 * lines, inlined frames and extents with no cache, with one that makes the copy, and with
 * one that finds it made. The copy is made once, named by the build ID, and marked used
 * when found, and made again when found cut short; a directory that cannot be written and a copy larger than the limit leave the
 * original read; copies past the limit go, least recently used first, and so do temporary
 * files a process left behind. Needs libc's separate debug file with compressed sections
 * (Debian's libc6-dbg): skipped (77) without one. */
#include "native/debug_cache.h"
#include "native/symbols.h"
#include "test_symbols.h"
#include "test_util.h"

#include <dirent.h>
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

#define ADDRESSES 2500

static uint64_t code_low, code_high;
static char build_id[2 * 64 + 1];

/* libc's executable segment and build ID, from the loader. */
static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libc.so"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            code_low = info->dlpi_addr + ph->p_vaddr;
            code_high = code_low + ph->p_memsz;
        }
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const unsigned char *desc = (const unsigned char *)p + sizeof *n + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz <= 64)
                for (unsigned j = 0; j < n->n_descsz; j++)
                    snprintf(build_id + 2 * j, 3, "%02x", desc[j]);
            p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

/* Whether the ELF file at path has a compressed section (read by hand: the test checks the
 * library, not with it). */
static int has_compressed_section(const char *path)
{
    int fd = open(path, O_RDONLY);
    Elf64_Ehdr eh;
    int found = 0;
    if (fd >= 0 && pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && eh.e_ident[EI_CLASS] == ELFCLASS64)
        for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
            Elf64_Shdr sh;
            if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (uint64_t)i * eh.e_shentsize)) != (ssize_t)sizeof sh)
                break;
            found = (sh.sh_flags & SHF_COMPRESSED) && sh.sh_type != SHT_NOBITS;
        }
    if (fd >= 0)
        close(fd);
    return found;
}

/* Everything resolved at the addresses, as text; *with_lines: frames with a file and line. */
static char *resolve_all(int *with_lines)
{
    struct tcn_symbols *s = tcn_symbols_new();
    char *out = tt_resolve_text(s, code_low, code_high, ADDRESSES, 7, with_lines);
    tcn_symbols_free(s);
    return out;
}

static int copy_stat(const char *dir, struct stat *st)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.debug", dir, build_id);
    return stat(path, st);
}

static void make_file(const char *dir, const char *name, size_t size, time_t mtime)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    for (size_t i = 0; f && i < size; i++)
        fputc('x', f);
    if (f)
        fclose(f);
    struct timespec times[2] = {{mtime, 0}, {mtime, 0}};
    CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
}

/* The bytes of the files in dir (the units' indexes, scopes and line tables the resolver
 * wrote beside the copy). */
static size_t bytes_in(const char *dir)
{
    DIR *d = opendir(dir);
    size_t total = 0;
    char path[4200 + 258];
    struct stat st;
    for (struct dirent *e; d && (e = readdir(d));) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            total += (size_t)st.st_size;
    }
    if (d)
        closedir(d);
    return total;
}

static int exists(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

int main(void)
{
    dl_iterate_phdr(find_libc, NULL);
    char debug_file[512];
    snprintf(debug_file, sizeof debug_file, "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id, build_id + 2);
    if (!code_high || !build_id[0] || access(debug_file, R_OK) != 0 || !has_compressed_section(debug_file)) {
        printf("test_debug_cache: skipped: no separate debug file with compressed sections for libc (%s)\n",
               build_id[0] ? debug_file : "no build ID");
        return 77;
    }
    char root[PATH_MAX];
    tt_temp_path(root, sizeof root, "tracyc-debug-cache-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    char dir[4200], full[4200], blocked[4200];
    snprintf(dir, sizeof dir, "%s/made/here", root); /* made by the cache, parents too */
    snprintf(full, sizeof full, "%s/full", root);
    snprintf(blocked, sizeof blocked, "%s/file/below", root);

    int lines;
    /* The debug files' copies alone: the units' line tables the cache keeps too (and counts
     * against its limit) have their own test, test_debug_cache_lines. */
    tcn_symbols_line_tables_for_tests(0);
    tcn_debug_cache_configure(NULL, 0);
    char *plain = resolve_all(&lines);
    CHECK(plain != NULL);
    CHECK(lines > ADDRESSES / 2); /* libc's DWARF was read */

    /* The copy is made, and read in place of the original: the same frames. */
    tcn_debug_cache_configure(dir, (size_t)1 << 30);
    int again;
    char *making = resolve_all(&again);
    struct stat made;
    CHECK(copy_stat(dir, &made) == 0);
    CHECK(!has_compressed_section(debug_file) || made.st_size > 0);
    CHECK(making && plain && strcmp(making, plain) == 0);
    CHECK_EQ_INT(again, lines);

    /* Found made: not written again, marked used, the same frames. */
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.debug", dir, build_id);
    struct timespec old[2] = {{1000, 0}, {1000, 0}};
    CHECK(utimensat(AT_FDCWD, path, old, 0) == 0);
    char *found = resolve_all(&again);
    struct stat now;
    CHECK(copy_stat(dir, &now) == 0);
    CHECK(now.st_ino == made.st_ino);
    CHECK(now.st_mtime > 1000);
    CHECK(found && plain && strcmp(found, plain) == 0);

    /* A copy cut short (the machine crashed before its data reached the disk) is made again,
     * not read. */
    CHECK(truncate(path, 4096) == 0);
    char *cut = resolve_all(&again);
    CHECK(copy_stat(dir, &now) == 0);
    CHECK(now.st_size == made.st_size);
    CHECK(cut && plain && strcmp(cut, plain) == 0);
    free(cut);

    /* A directory that cannot be made, and a limit the copy passes: the original is read. */
    make_file(root, "file", 1, 1000);
    tcn_debug_cache_configure(blocked, (size_t)1 << 30);
    char *unwritable = resolve_all(&again);
    CHECK(unwritable && plain && strcmp(unwritable, plain) == 0);
    CHECK(mkdir(full, 0700) == 0);
    tcn_debug_cache_configure(full, (size_t)made.st_size - 1);
    char *too_big = resolve_all(&again);
    CHECK(too_big && plain && strcmp(too_big, plain) == 0);
    CHECK(copy_stat(full, &now) != 0);

    /* Past the limit, the least recently used copies go; other files stay; so do temporary
     * files, unless an hour old. (The limit leaves room for the copy, what the resolver
     * wrote beside it with the last limit, and bb.debug.) */
    size_t beside = bytes_in(full);
    make_file(full, "aa.debug", 1000, 1000);
    make_file(full, "bb.debug", 1000, 3000);
    make_file(full, "cc.debug", 1000, 2000);
    make_file(full, "notes.txt", 5000, 1000);
    make_file(full, ".old.debug.1.tmp", 10, 1000);
    make_file(full, ".new.debug.2.tmp", 10, time(NULL));
    tcn_debug_cache_configure(full, (size_t)made.st_size + beside + 1500);
    char *trimmed = resolve_all(&again);
    CHECK(trimmed && plain && strcmp(trimmed, plain) == 0);
    CHECK(copy_stat(full, &now) == 0);
    CHECK(!exists(full, "aa.debug"));
    CHECK(!exists(full, "cc.debug"));
    CHECK(exists(full, "bb.debug"));
    CHECK(exists(full, "notes.txt"));
    CHECK(!exists(full, ".old.debug.1.tmp"));
    CHECK(exists(full, ".new.debug.2.tmp"));

    free(plain);
    free(making);
    free(found);
    free(unwritable);
    free(too_big);
    free(trimmed);
    char rm[4300];
    snprintf(rm, sizeof rm, "rm -rf '%s'", root);
    CHECK(system(rm) == 0);
    return tt_finish("test_debug_cache");
}
