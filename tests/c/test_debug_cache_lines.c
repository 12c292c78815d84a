/* test_debug_cache_lines.c - the units' line tables (native/line_table.h) answer as libdw
 * does: addresses all over the code of every module loaded here (this program, libtracyc,
 * libc: those with DWARF give lines and inlined frames) give the same images, functions,
 * files, lines, inlined frames, extents, and symbols' files and lines, whether libdw is
 * asked row by row, the tables are made from libdw with no cache, made and written to the
 * cache, or read from it; and so do the units' scopes and the modules' indexes of units
 * (unit_scopes.h, unit_index.h) kept beside them. Each found in the cache is read (marked
 * used, not written again); one cut short, with a byte changed, made for another unit or
 * not one at all is not read, and is made again. Bytes that pass the checksum but are no valid table
 * (rows out of order, a file the table has not, no end of sequence at the end, counts past
 * the bytes) are refused. */
#include "native/debug_cache.h"
#include "native/line_table.h"
#include "native/symbols.h"
#include "test_util.h"

#include <limits.h>
#include <dirent.h>
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

#define PER_MODULE 2500

struct segment {
    uint64_t low, high;
};
static struct segment segments[64];
static int nsegments;

static int find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum && nsegments < 64; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
            segments[nsegments++] =
                (struct segment){info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
    }
    return 0;
}

static void append(char **out, size_t *len, size_t *cap, const char *text)
{
    size_t n = strlen(text);
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *out = realloc(*out, *cap);
        CHECK(*out != NULL);
    }
    memcpy(*out + *len, text, n + 1);
    *len += n;
}

/* Everything resolved, as text; *with_lines: frames with a file and line. */
static char *resolve_all(int *with_lines)
{
    struct tcn_symbols *s = tcn_symbols_new();
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap), line[2048];
    out[0] = 0;
    *with_lines = 0;
    for (int m = 0; s && m < nsegments; m++)
        for (int i = 0; i < PER_MODULE; i++) {
            struct segment g = segments[m];
            uint64_t address = g.low + (g.high - g.low) / PER_MODULE * (uint64_t)i + (uint64_t)(i % 11);
            const struct tcn_symbol_location *loc = tcn_symbols_location(s, address);
            for (int f = 0; f < loc->count; f++) {
                const struct tcn_symbol_frame *fr = &loc->frames[f];
                const char *file;
                uint32_t at;
                tcn_symbols_symbol(s, fr->sym_addr, &file, &at);
                snprintf(line, sizeof line, "%" PRIx64 " %s %d/%d %s %s:%u %" PRIx64 "+%u %s:%u\n", address, loc->image,
                         f, loc->count, fr->name, fr->file, fr->line, fr->sym_addr, fr->sym_len, file, at);
                append(&out, &len, &cap, line);
                *with_lines += fr->line > 0 && strcmp(fr->file, "[unknown]") != 0;
            }
        }
    tcn_symbols_free(s);
    return out;
}

/* The files in dir whose names end with suffix: how many, their paths in names. */
static int tables(const char *dir, const char *suffix, char names[][4400], int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    size_t tail = strlen(suffix);
    for (struct dirent *e; d && (e = readdir(d)) && n < max;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] != '.' && len > tail && !strcmp(e->d_name + len - tail, suffix))
            snprintf(names[n++], 4400, "%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

static void flip_byte(const char *path, off_t at)
{
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    unsigned char b = 0;
    CHECK(pread(fd, &b, 1, at) == 1);
    b ^= 0x40;
    CHECK(pwrite(fd, &b, 1, at) == 1);
    close(fd);
}

/* Bytes that pass the checksum (made by encode) but hold no valid table are refused. */
static void check_refused(void)
{
    static const char *names[] = {"a.c", "b.h"};
    char strings[] = "a.c\0b.h";
    const char *files[] = {strings, strings + 4};
    struct tcn_line_row good[] = {{0x10, 1, 0}, {0x20, 2, 1}, {0x30, 0, 0 | TCN_LINE_END_SEQUENCE}};
    struct tcn_line_table t = {
        .rows = good, .nrows = 3, .files = files, .nfiles = 2, .strings = strings, .strings_len = sizeof strings};
    size_t len;
    struct tcn_line_table back;
    void *bytes = tcn_line_table_encode(&t, 7, &len);
    CHECK(bytes && tcn_line_table_decode(bytes, len, 7, &back) == 0); /* (back takes the bytes) */
    CHECK(back.nrows == 3 && back.nfiles == 2 && !strcmp(back.files[1], names[1]));
    CHECK(tcn_line_table_find(&back, 0x1f) && tcn_line_table_find(&back, 0x1f)->line == 1);
    CHECK(tcn_line_table_find(&back, 0x25) && tcn_line_table_find(&back, 0x25)->line == 2);
    CHECK(tcn_line_table_find(&back, 0x30) == NULL); /* the end of the sequence */
    CHECK(tcn_line_table_find(&back, 0x0f) == NULL);
    tcn_line_table_free(&back);
    bytes = tcn_line_table_encode(&t, 7, &len);
    CHECK(bytes && tcn_line_table_decode(bytes, len, 8, &back) == -1); /* another unit's */
    CHECK(tcn_line_table_decode(bytes, len - 1, 7, &back) == -1);
    free(bytes);

    struct tcn_line_row unsorted[] = {{0x20, 1, 0}, {0x10, 2, 1}, {0x30, 0, TCN_LINE_END_SEQUENCE}};
    struct tcn_line_row no_file[] = {{0x10, 1, 2}, {0x30, 0, TCN_LINE_END_SEQUENCE}};
    struct tcn_line_row no_end[] = {{0x10, 1, 0}, {0x30, 0, 1}};
    struct tcn_line_row *bad[] = {unsorted, no_file, no_end};
    size_t counts[] = {3, 2, 2};
    for (int i = 0; i < 3; i++) {
        struct tcn_line_table b = {.rows = bad[i],
                                   .nrows = counts[i],
                                   .files = files,
                                   .nfiles = 2,
                                   .strings = strings,
                                   .strings_len = sizeof strings};
        bytes = tcn_line_table_encode(&b, 7, &len);
        CHECK(bytes && tcn_line_table_decode(bytes, len, 7, &back) == -1);
        free(bytes);
    }
    /* A name's offset past the names, and counts past the bytes. */
    const char *outside[] = {strings, strings + sizeof strings};
    struct tcn_line_table b = {
        .rows = good, .nrows = 3, .files = outside, .nfiles = 2, .strings = strings, .strings_len = sizeof strings};
    bytes = tcn_line_table_encode(&b, 7, &len);
    CHECK(bytes && tcn_line_table_decode(bytes, len, 7, &back) == -1);
    free(bytes);
    b = (struct tcn_line_table){
        .rows = good, .nrows = 3, .files = files, .nfiles = 2, .strings = strings, .strings_len = sizeof strings};
    bytes = tcn_line_table_encode(&b, 7, &len);
    CHECK(bytes != NULL);
    uint64_t huge = (uint64_t)1 << 60;
    memcpy((char *)bytes + 16, &huge, sizeof huge); /* nrows */
    CHECK(tcn_line_table_decode(bytes, len, 7, &back) == -1);
    free(bytes);
}

int main(void)
{
    check_refused();
    dl_iterate_phdr(find_code, NULL);
    char root[PATH_MAX];
    tt_temp_path(root, sizeof root, "tracyc-lines-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/cache", root);

    int lines, again;
    tcn_debug_cache_configure(NULL, 0);
    tcn_symbols_line_tables_for_tests(0);
    char *libdw = resolve_all(&lines);
    CHECK(lines > PER_MODULE / 2); /* DWARF was read (this program's, libtracyc's at least) */

    tcn_symbols_line_tables_for_tests(1);
    char *plain = resolve_all(&again);
    CHECK(plain && libdw && strcmp(plain, libdw) == 0);
    CHECK_EQ_INT(again, lines);

    tcn_debug_cache_configure(dir, (size_t)1 << 30);
    char *making = resolve_all(&again);
    CHECK(making && strcmp(making, libdw) == 0);
    /* Each kind the resolver keeps: line tables, units' scopes, modules' indexes of units
     * (a header of 48, 64 and 48 bytes before what the checksum covers). */
    static const struct {
        const char *suffix;
        int header, unit; /* where the value naming the unit (the DWARF, for .units) is */
    } kinds[] = {{".lines", 48, 32}, {".scopes", 64, 48}, {".units", 48, 16}};
    static char names[256][4400];
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int n = tables(dir, kinds[k].suffix, names, 256);
        CHECK(n >= 1); /* (this program's: libc's and the loader's need libc6-dbg) */
        int spoilt_n = n < 4 ? n : 4;

        /* Found: read, not written again. */
        struct stat before[256], now;
        struct timespec old[2] = {{1000, 0}, {1000, 0}};
        for (int i = 0; i < n; i++) {
            CHECK(utimensat(AT_FDCWD, names[i], old, 0) == 0);
            CHECK(stat(names[i], &before[i]) == 0);
        }
        char *found = resolve_all(&again);
        CHECK(found && strcmp(found, libdw) == 0);
        int read = 0;
        for (int i = 0; i < n; i++) {
            CHECK(stat(names[i], &now) == 0);
            CHECK(now.st_ino == before[i].st_ino);
            read += now.st_mtime > 1000;
        }
        CHECK_EQ_INT(read, n);
        free(found);

        /* Spoilt: cut short, a byte of what follows the header changed, not a table, another
         * unit's. Each is made again, and nothing resolved changes. */
        CHECK(truncate(names[0], 30) == 0);
        if (spoilt_n > 1)
            flip_byte(names[1], kinds[k].header + 3);
        if (spoilt_n > 2) {
            FILE *f = fopen(names[2], "w");
            CHECK(f != NULL);
            fputs("not a table\n", f);
            fclose(f);
        }
        if (spoilt_n > 3)
            flip_byte(names[3], kinds[k].unit);
        for (int i = 0; i < spoilt_n; i++)
            CHECK(stat(names[i], &before[i]) == 0);
        char *spoilt = resolve_all(&again);
        CHECK(spoilt && strcmp(spoilt, libdw) == 0);
        for (int i = 0; i < spoilt_n; i++) {
            CHECK(stat(names[i], &now) == 0);
            CHECK(now.st_ino != before[i].st_ino);
        }
        char *remade = resolve_all(&again);
        CHECK(remade && strcmp(remade, libdw) == 0);
        free(spoilt);
        free(remade);
    }

    free(libdw);
    free(plain);
    free(making);
    char rm[4300];
    snprintf(rm, sizeof rm, "rm -rf '%s'", root);
    CHECK(system(rm) == 0);
    return tt_finish("test_debug_cache_lines");
}
