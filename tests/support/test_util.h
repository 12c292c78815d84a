/* test_util.h - tiny assertion helpers for the C tests. Each CHECK prints a line on
 * failure; tt_finish() prints "N passed, N failed" and gives the exit status. */
#ifndef TRACYC_TEST_UTIL_H
#define TRACYC_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

extern int tt_passed, tt_failed;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            tt_passed++;                                                                                               \
        } else {                                                                                                       \
            tt_failed++;                                                                                               \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                            \
        }                                                                                                              \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                                             \
    do {                                                                                                               \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                                          \
        if (va_ == vb_) {                                                                                              \
            tt_passed++;                                                                                               \
        } else {                                                                                                       \
            tt_failed++;                                                                                               \
            fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, #a, #b, va_, vb_);            \
        }                                                                                                              \
    } while (0)

#define CHECK_STR(a, b)                                                                                                \
    do {                                                                                                               \
        const char *sa_ = (a), *sb_ = (b);                                                                             \
        if (sa_ && sb_ && strcmp(sa_, sb_) == 0) {                                                                     \
            tt_passed++;                                                                                               \
        } else {                                                                                                       \
            tt_failed++;                                                                                               \
            fprintf(stderr, "FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", __FILE__, __LINE__, #a, #b,                   \
                    sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");                                                       \
        }                                                                                                              \
    } while (0)

/* A check with a message: prints "ok" or "FAIL" and the message, and counts it. */
void tt_check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the tally and returns the process exit status. */
int tt_finish(const char *name);

/* n zones of loc, one after the other, on the calling thread. */
struct ___tracy_source_location_data;
void tt_zones(const struct ___tracy_source_location_data *loc, int n);

/* A file's whole contents, malloc'd, with a 0 byte after them (not counted in *len);
 * NULL when it cannot be read. */
uint8_t *tt_read_bytes(const char *path, size_t *len);
/* A text file's whole contents, malloc'd; NULL when it cannot be read. */
char *tt_read_file(const char *path);
/* A path for a test's files in the build folder, beside the test's own program (not a
 * machine path such as /tmp): name is a file name, a mkstemp/mkdtemp template or not.
 * Returns path (len bytes; PATH_MAX is enough). */
char *tt_temp_path(char *path, size_t len, const char *name);
/* How many times `what` occurs in text (0 for NULL text). */
int tt_occurrences(const char *text, const char *what);

/* A loopback port nobody listens on, exported as TRACY_PORT: kept for this process until
 * it exits (bound, not listening), so no other socket takes it but one bound with
 * SO_REUSEADDR, as the client's and a test's own listening sockets are. */
uint16_t tt_use_free_port(void);

/* Bytes of resident memory of this process. */
size_t tt_rss_bytes(void);

/* Whether perf_event_open may sample this process (root, or perf_event_paranoid <= 2). */
int tt_sampling_expected(void);
/* The calling thread's CPU time in nanoseconds. */
long long tt_thread_cpu_ns(void);
/* Spins until the calling thread has used ns more of CPU time: so much CPU is sampled on a
 * loaded machine too, where a spin of so much wall time may get next to no CPU. A test whose
 * samples must name its own function calls this from that function, not as a tail call. */
void tt_burn_cpu_ns(long long ns);

/* The addresses an exported function's code spans ({0, 0} when dladdr does not know it). */
struct tt_extent {
    uint64_t lo, hi;
};
struct tt_extent tt_function_extent(void *fn);

/* Loaded files (those with an executable mapping) that are mapped more than once from their
 * start, as a library reading the file with mmap maps it: 0, or how many, the first one's
 * path in `first`. perf's DWARF unwinder takes the lowest mapping of a file as its load
 * address, so such a copy cuts perf's callstacks of the profiled program short. */
int tt_loaded_files_mapped_again(char *first, size_t len);

#endif
