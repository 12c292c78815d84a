/* symbol_cache.c - what the debug cache (native/debug_cache.h) saves the symbol resolver of
 * a process that starts: for a library of UNITS compilation units (bench/CMakeLists.txt
 * generates them), and libc when its DWARF is installed, the first address's latency and
 * the time to resolve addresses spread over all the units, with no cache (the baseline),
 * making the cache (an empty directory) and reading it (the directory just made). libdw
 * finds the unit of a module's first address by reading every unit's header and ranges;
 * the cache's index of units and their scopes answers without.
 *
 * Each measurement is a process of its own, forked before anything is resolved, as a
 * profiled process starts with nothing; the three states take turns, round after round (the
 * machine is shared): medians. What the three resolve must be the same, frame by frame, or
 * the benchmark fails. The cache directories are temporary, removed at the end.
 *
 *   bench_symbol_cache [ROUNDS]   (default 3)
 */
#include "native/debug_cache.h"
#include "native/libdw.h"
#include "native/symbols.h"

#include <elf.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER_UNIT 6 /* (as generated) */
#define ADDRESSES (UNITS * PER_UNIT)
#define MAX_ROUNDS 50

extern int (*const bench_unit_functions[ADDRESSES])(int);

enum state { NONE, MAKING, READING, STATES };
static const char *const state_names[STATES] = {"none", "making", "reading"};

struct measure {
    double first_ms, total_ms, cpu_ms;
    int with_line; /* addresses whose function has a file and line */
    int frames;
};

struct module {
    const char *name;
    uint64_t addresses[ADDRESSES];
    struct measure m[STATES][MAX_ROUNDS];
    char *reference; /* what the first measurement resolved, as text */
};

static char root[4096];

static double ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Address i of n taken in a scattered order, as samples come: consecutive ones far apart. */
static int scattered(int i, int n)
{
    return (int)((uint64_t)i * 7919 % (uint64_t)n);
}

static void generated_addresses(struct module *m)
{
    for (int i = 0; i < ADDRESSES; i++) {
        int f = scattered(i, ADDRESSES);
        m->addresses[i] = (uint64_t)(uintptr_t)bench_unit_functions[f] + (uint64_t)(f % 2) * 4;
    }
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct module *m = arg;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libc.so"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uint64_t low = info->dlpi_addr + ph->p_vaddr, step = ph->p_memsz / ADDRESSES;
        for (int a = 0; a < ADDRESSES; a++)
            m->addresses[a] = low + step / 2 + (uint64_t)scattered(a, ADDRESSES) * step;
        return 1;
    }
    return 0;
}

/* In a child: resolves the module's addresses with the cache in dir (NULL: none), writes
 * the measure to fd and everything resolved to text_path. */
static void child_resolves(const struct module *mod, const char *dir, int fd, const char *text_path)
{
    static const struct tcn_symbol_location *locs[ADDRESSES];
    tcn_debug_cache_configure(dir, (size_t)1 << 30);
    struct measure m = {0};
    double t0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
    struct tcn_symbols *s = tcn_symbols_new();
    locs[0] = tcn_symbols_location(s, mod->addresses[0]);
    m.first_ms = ms(CLOCK_MONOTONIC) - t0;
    for (int i = 1; i < ADDRESSES; i++)
        locs[i] = tcn_symbols_location(s, mod->addresses[i]);
    m.total_ms = ms(CLOCK_MONOTONIC) - t0;
    m.cpu_ms = ms(CLOCK_PROCESS_CPUTIME_ID) - c0;

    FILE *f = fopen(text_path, "w");
    if (!f)
        _exit(1);
    for (int i = 0; i < ADDRESSES; i++) {
        const struct tcn_symbol_location *l = locs[i];
        fprintf(f, "%#" PRIx64 " %s", mod->addresses[i], l->image);
        for (int k = 0; k < l->count; k++)
            fprintf(f, " | %s %s:%" PRIu32 " %#" PRIx64 "+%" PRIu32, l->frames[k].name, l->frames[k].file,
                    l->frames[k].line, l->frames[k].sym_addr, l->frames[k].sym_len);
        fputc('\n', f);
        m.with_line += l->frames[l->count - 1].line > 0;
        m.frames += l->count;
    }
    if (fclose(f) != 0 || write(fd, &m, sizeof m) != (ssize_t)sizeof m)
        _exit(1);
    _exit(0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) == (size_t)n)
        text[n] = 0;
    else {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int files_counted;

static int count_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path, (void)st, (void)ftw;
    files_counted += flag == FTW_F;
    return 0;
}

static int files_in(const char *dir)
{
    files_counted = 0;
    nftw(dir, count_one, 16, FTW_PHYS);
    return files_counted;
}

static _Noreturn void fail(const char *what)
{
    fprintf(stderr, "bench_symbol_cache: FAILED: %s\n", what);
    remove_tree(root);
    exit(1);
}

/* The line where a and b first differ, printed. */
static void show_difference(const char *a, const char *b)
{
    const char *line_a = a, *line_b = b;
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n')
            line_a = a + 1, line_b = b + 1;
    fprintf(stderr, "  first:    %.*s\n  this one: %.*s\n", (int)strcspn(line_a, "\n"), line_a,
            (int)strcspn(line_b, "\n"), line_b);
}

/* One measurement of mod in state, in a process of its own; its result checked against
 * the first one's. */
static void measure(struct module *mod, enum state state, int round, const char *dir)
{
    char text_path[4200];
    snprintf(text_path, sizeof text_path, "%s/resolved.txt", root);
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0)
        fail("pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        fail("fork");
    if (pid == 0) {
        close(pipe_fd[0]);
        child_resolves(mod, state == NONE ? NULL : dir, pipe_fd[1], text_path);
    }
    close(pipe_fd[1]);
    struct measure *m = &mod->m[state][round];
    ssize_t got = read(pipe_fd[0], m, sizeof *m);
    close(pipe_fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof *m || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail("a measuring process failed");
    char *text = read_text(text_path);
    if (!text)
        fail("reading what was resolved");
    if (!mod->reference) {
        mod->reference = text;
        return;
    }
    if (strcmp(text, mod->reference) != 0) {
        fprintf(stderr, "bench_symbol_cache: %s, cache %s, round %d resolved differently from the first:\n", mod->name,
                state_names[state], round + 1);
        show_difference(mod->reference, text);
        fail("the cache changed what was resolved");
    }
    free(text);
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const struct module *mod, enum state state, size_t offset, int rounds)
{
    double v[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        v[r] = *(const double *)((const char *)&mod->m[state][r] + offset);
    qsort(v, (size_t)rounds, sizeof *v, compare);
    return rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
}

/* The rounds of mod: each, the three states in turn (no cache first or last, alternately),
 * reading the directory that making filled in the same round. */
static void run(struct module *mod, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/round-%d", root, r);
        if (r % 2)
            measure(mod, NONE, r, dir);
        measure(mod, MAKING, r, dir);
        if (files_in(dir) == 0) /* (else the figures would compare no cache with itself) */
            fail("making the cache wrote nothing: the debug cache is not in effect");
        measure(mod, READING, r, dir);
        if (!(r % 2))
            measure(mod, NONE, r, dir);
        remove_tree(dir);
    }
}

static void report(const struct module *mod, int rounds)
{
    const struct measure *m0 = &mod->m[NONE][0];
    printf("  %s: %d addresses, %d frames (inlined ones included), %d with a line\n", mod->name, ADDRESSES, m0->frames,
           m0->with_line);
    printf("    %-8s %14s %14s %14s\n", "cache", "first address", "all addresses", "all, CPU");
    double v[STATES][3];
    for (int s = 0; s < STATES; s++) {
        v[s][0] = median(mod, s, offsetof(struct measure, first_ms), rounds);
        v[s][1] = median(mod, s, offsetof(struct measure, total_ms), rounds);
        v[s][2] = median(mod, s, offsetof(struct measure, cpu_ms), rounds);
        printf("    %-8s %11.1f ms %11.1f ms %11.1f ms\n", state_names[s], v[s][0], v[s][1], v[s][2]);
    }
    printf("    reading the cache / none (the baseline): first address %.2f x, all addresses %.2f x (CPU %.2f x); "
           "making / none: %.2f x; the same frames in all %d rounds\n",
           v[READING][0] / v[NONE][0], v[READING][1] / v[NONE][1], v[READING][2] / v[NONE][2],
           v[MAKING][1] / v[NONE][1], rounds);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_symbol_cache [ROUNDS, 1 to %d]\n", MAX_ROUNDS);
        return 2;
    }
    unsetenv("DEBUGINFOD_URLS");
    if (!tcn_libdw()) { /* (loaded here once, not in each measuring process) */
        printf("debug cache: skipped, no libdw (%s)\n", tcn_libdw_unavailable());
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/tracyc-bench-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        fail("making a temporary directory");
    char absolute[PATH_MAX]; /* (the debug cache takes only an absolute directory) */
    if (!realpath(root, absolute) || strlen(absolute) >= sizeof root)
        fail("finding the temporary directory's absolute path");
    strcpy(root, absolute);

    printf("debug cache: resolving in a fresh process, no cache / making it / reading it; medians of %d rounds "
           "taking turns, wall time\n",
           rounds);
    static struct module units;
    char units_name[64];
    snprintf(units_name, sizeof units_name, "library of %d compilation units", UNITS);
    units.name = units_name;
    generated_addresses(&units);
    run(&units, rounds);
    if (units.m[NONE][0].with_line < ADDRESSES / 2)
        fail("the generated library's DWARF was not read");
    report(&units, rounds);

    static struct module libc = {.name = "libc"};
    if (!dl_iterate_phdr(find_libc, &libc)) {
        printf("  libc: skipped, not found among the loaded modules\n");
    } else {
        measure(&libc, NONE, 0, NULL);
        if (libc.m[NONE][0].with_line < ADDRESSES / 2) {
            printf("  libc: skipped, its DWARF is not installed (%d of %d addresses with a line; Debian: libc6-dbg)\n",
                   libc.m[NONE][0].with_line, ADDRESSES);
        } else {
            run(&libc, rounds);
            report(&libc, rounds);
        }
    }
    remove_tree(root);
    return 0;
}
