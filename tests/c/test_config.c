/* test_config.c - the settings from the environment: values that cannot be what they name
 * are reported on stderr and replaced by the default, never taken in part (TRACY_PORT=70000
 * used to listen on port 4464, 70000 mod 65536, without a word). */
#include "client/config.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tc_config_read with one variable set; what it printed on stderr goes to `said`. */
static struct tc_config read_with(const char *name, const char *value, char *said, size_t size)
{
    FILE *capture = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(capture), 2);
    setenv(name, value, 1);
    struct tc_config c;
    memset(&c, 0xff, sizeof c);
    tc_config_read(&c);
    unsetenv(name);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(capture);
    size_t n = fread(said, 1, size - 1, capture);
    said[n] = 0;
    fclose(capture);
    free(c.output);
    free(c.connect_host);
    c.connect_host = NULL;
    return c;
}

static void ports(void)
{
    uint16_t port = 1;
    CHECK(tc_config_parse_port("8086", &port) == 0 && port == 8086);
    CHECK(tc_config_parse_port("0", &port) == 0 && port == 0);
    CHECK(tc_config_parse_port("65535", &port) == 0 && port == 65535);
    CHECK(tc_config_parse_port("65536", &port) != 0);
    CHECK(tc_config_parse_port("70000", &port) != 0);
    CHECK(tc_config_parse_port("-1", &port) != 0);
    CHECK(tc_config_parse_port("80a", &port) != 0);
    CHECK(tc_config_parse_port(" 80", &port) != 0);
    CHECK(tc_config_parse_port("port", &port) != 0);
    CHECK(tc_config_parse_port("99999999999999999999999", &port) != 0);

    char said[512];
    struct tc_config c = read_with("TRACY_PORT", "70000", said, sizeof said);
    CHECK_EQ_INT(c.port, 0);
    CHECK(strstr(said, "tracyc: TRACY_PORT=70000 is not a port number") != NULL);
    c = read_with("TRACY_PORT", "9123", said, sizeof said);
    CHECK_EQ_INT(c.port, 9123);
    CHECK_STR(said, "");
}

/* TRACYC_CONNECT=HOST:PORT: a host, and a port that can be dialed (not 0). */
static void addresses(void)
{
    char host[16];
    uint16_t port = 0;
    CHECK(tc_config_parse_address("127.0.0.1:9000", host, sizeof host, &port) == 0 && port == 9000);
    CHECK_STR(host, "127.0.0.1");
    CHECK(tc_config_parse_address("collector:8086", host, sizeof host, &port) == 0 && port == 8086);
    CHECK_STR(host, "collector");
    CHECK(tc_config_parse_address("[::1]:9001", host, sizeof host, &port) == 0 && port == 9001);
    CHECK_STR(host, "::1");
    static const char *bad[] = {"8086",
                                "localhost",
                                "localhost:",
                                "localhost:0",
                                "localhost:70000",
                                ":9000",
                                "::1:9000",
                                "[::1]9000",
                                "[::1:9000",
                                "[]:9000",
                                "a host:9000",
                                "h:90x",
                                "h:-1",
                                "averyveryverylonghostname:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = tc_config_parse_address(bad[i], host, sizeof host, &port);
        if (rc == 0)
            fprintf(stderr, "accepted: %s\n", bad[i]);
        CHECK(rc != 0);
    }

    char said[512];
    struct tc_config c = read_with("TRACYC_CONNECT", "localhost", said, sizeof said);
    CHECK(c.connect_port == 0);
    CHECK(strstr(said, "tracyc: TRACYC_CONNECT=localhost is not HOST:PORT") != NULL);
    CHECK(strstr(said, "listening for a server instead") != NULL);
    FILE *capture = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(capture), 2);
    setenv("TRACYC_CONNECT", "localhost:9002", 1);
    tc_config_read(&c);
    unsetenv("TRACYC_CONNECT");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(ftell(capture) == 0);
    fclose(capture);
    CHECK(c.connect_host && strcmp(c.connect_host, "localhost") == 0 && c.connect_port == 9002);
    free(c.connect_host);
    free(c.output);
}

/* TRACYC_TEST_CLOCK_SKEW_NS=[-]N (docs/protocol.md §28). */
static void skews(void)
{
    int64_t v = 0;
    CHECK(tc_config_parse_signed("7000000000", &v) == 0 && v == 7000000000LL);
    CHECK(tc_config_parse_signed("-3", &v) == 0 && v == -3);
    CHECK(tc_config_parse_signed("9223372036854775807", &v) == 0 && v == INT64_MAX);
    CHECK(tc_config_parse_signed("9223372036854775808", &v) != 0);
    CHECK(tc_config_parse_signed("--3", &v) != 0);
    CHECK(tc_config_parse_signed("3s", &v) != 0);
    CHECK(tc_config_parse_signed("", &v) != 0);

    char said[512];
    struct tc_config c = read_with("TRACYC_TEST_CLOCK_SKEW_NS", "5ms", said, sizeof said);
    CHECK(!c.clock_skewed && c.clock_skew_ns == 0);
    CHECK(strstr(said, "tracyc: TRACYC_TEST_CLOCK_SKEW_NS=5ms is not a whole number of nanoseconds") != NULL);
    c = read_with("TRACYC_TEST_CLOCK_SKEW_NS", "-5000", said, sizeof said);
    CHECK(c.clock_skewed && c.clock_skew_ns == -5000);
    CHECK_STR(said, "");
}

static void sizes(void)
{
    size_t size = 0;
    CHECK(tc_config_parse_size("64M", &size) == 0 && size == (size_t)64 << 20);
    CHECK(tc_config_parse_size("2g", &size) == 0 && size == (size_t)2 << 30);
    CHECK(tc_config_parse_size("4096", &size) == 0 && size == 4096);
    CHECK(tc_config_parse_size("0", &size) != 0);
    CHECK(tc_config_parse_size("64MB", &size) != 0);
    CHECK(tc_config_parse_size("64X", &size) != 0);
    CHECK(tc_config_parse_size("lots", &size) != 0);
    CHECK(tc_config_parse_size("99999999999G", &size) != 0);

    char said[512];
    struct tc_config c = read_with("TRACYC_BUFFER_LIMIT", "64X", said, sizeof said);
    CHECK(c.buffer_limit == (size_t)256 << 20);
    CHECK(strstr(said, "TRACYC_BUFFER_LIMIT=64X is not a size") != NULL);
}

static void rates(void)
{
    int hz = 0;
    CHECK(tc_config_parse_rate("1000", &hz) == 0 && hz == 1000);
    CHECK(tc_config_parse_rate("0", &hz) != 0);
    CHECK(tc_config_parse_rate("-5", &hz) != 0);
    CHECK(tc_config_parse_rate("1k", &hz) != 0);
    CHECK(tc_config_parse_rate("2000000", &hz) != 0);

    char said[512];
    struct tc_config c = read_with("TRACY_SAMPLING_HZ", "fast", said, sizeof said);
    CHECK(c.sampling_hz > 0);
    CHECK(strstr(said, "TRACY_SAMPLING_HZ=fast is not a rate") != NULL);
}

static int read_sysctl(const char *path)
{
    FILE *f = fopen(path, "r");
    int v = 0;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

/* TRACY_SAMPLING_HZ=100000 was taken as it was: a program's CPU time 16 times longer, half
 * the samples lost. A rate above what the kernel allows is lowered to it, and said. */
static void rate_ceiling(void)
{
    int max_rate = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate");
    int percent = read_sysctl("/proc/sys/kernel/perf_cpu_time_max_percent");
    int ceiling = tc_config_sampling_ceiling(max_rate, percent);
    char said[512];
    struct tc_config c = read_with("TRACY_SAMPLING_HZ", "1000000", said, sizeof said);
    CHECK_EQ_INT(c.sampling_hz, ceiling);
    if (ceiling < 1000000) {
        tt_check(strstr(said, "tracyc: TRACY_SAMPLING_HZ=1000000 is more than") != NULL, "said: %s", said);
        char rate[32];
        snprintf(rate, sizeof rate, "sampling at %d Hz", ceiling);
        tt_check(strstr(said, rate) != NULL, "said: %s", said);
    }
    c = read_with("TRACY_SAMPLING_HZ", "400", said, sizeof said);
    CHECK_EQ_INT(c.sampling_hz, ceiling < 400 ? ceiling : 400);
    if (ceiling >= 400)
        CHECK_STR(said, "");

    /* The kernel's rate, and its CPU budget for perf at ~20 us a sample. */
    CHECK_EQ_INT(tc_config_sampling_ceiling(100000, 25), 12500);
    CHECK_EQ_INT(tc_config_sampling_ceiling(5000, 25), 5000);
    CHECK_EQ_INT(tc_config_sampling_ceiling(100000, 50), 25000);
    CHECK_EQ_INT(tc_config_sampling_ceiling(100000, 0), 100000);   /* the budget off */
    CHECK_EQ_INT(tc_config_sampling_ceiling(100000, 100), 100000); /* the budget off */
    CHECK_EQ_INT(tc_config_sampling_ceiling(0, 25), 12500);        /* unreadable rate */
    CHECK_EQ_INT(tc_config_sampling_ceiling(0, 0), 1000000);
}

/* Where a child's profile goes when TRACYC_OUTPUT is its parent's (test_output_child runs
 * the whole story): beside it, the pid before the extension, the format kept. */
static void child_outputs(void)
{
    static const struct {
        const char *path, *child;
    } names[] = {{"/t/out.json", "/t/out.42.json"},
                 {"/t/out.trace.csv", "/t/out.trace.42.csv"},
                 {"/t.d/summary", "/t.d/summary.42.txt"},
                 {"/t/.profile", "/t/.profile.42.txt"},
                 {"rel.folded", "rel.42.folded"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *child = tc_config_output_of_child(names[i].path, 42);
        CHECK_STR(child, names[i].child);
        free(child);
    }
}

/* TRACYC_DEBUG_CACHE: a directory, 0 for none, or the user's cache directory. */
static void debug_cache(void)
{
    char said[512];
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/t", 1);
    struct tc_config c = read_with("TRACYC_DEBUG_CACHE", "/var/tmp/dc", said, sizeof said);
    CHECK_STR(c.debug_cache, "/var/tmp/dc");
    CHECK(c.debug_cache_limit == (size_t)512 << 20);
    CHECK_STR(said, "");
    c = read_with("TRACYC_DEBUG_CACHE", "0", said, sizeof said);
    CHECK_STR(c.debug_cache, "");
    c = read_with("TRACYC_DEBUG_CACHE", "relative/dir", said, sizeof said);
    CHECK_STR(c.debug_cache, "/xdg/tracyc/debug");
    CHECK(strstr(said, "TRACYC_DEBUG_CACHE=relative/dir is not an absolute directory") != NULL);
    unsetenv("XDG_CACHE_HOME");
    c = read_with("TRACYC_DEBUG_CACHE", "", said, sizeof said);
    CHECK_STR(c.debug_cache, "/home/t/.cache/tracyc/debug");
    CHECK_STR(said, "");
    unsetenv("HOME");
    c = read_with("TRACYC_DEBUG_CACHE", "", said, sizeof said);
    CHECK_STR(c.debug_cache, "");
    c = read_with("TRACYC_DEBUG_CACHE_LIMIT", "64M", said, sizeof said);
    CHECK(c.debug_cache_limit == (size_t)64 << 20);
    c = read_with("TRACYC_DEBUG_CACHE_LIMIT", "lots", said, sizeof said);
    CHECK(c.debug_cache_limit == (size_t)512 << 20);
    CHECK(strstr(said, "TRACYC_DEBUG_CACHE_LIMIT=lots is not a size") != NULL);
    if (home)
        setenv("HOME", home, 1);
    free(home);
}

/* TRACYC_EXIT_SIGNALS: 0 leaves SIGINT, SIGTERM and SIGHUP alone; 1 or unset, caught. */
static void exit_signals(void)
{
    char said[512];
    struct tc_config c = read_with("TRACYC_EXIT_SIGNALS", "0", said, sizeof said);
    CHECK(c.exit_signals == 0);
    CHECK_STR(said, "");
    c = read_with("TRACYC_EXIT_SIGNALS", "1", said, sizeof said);
    CHECK(c.exit_signals == 1);
    c = read_with("TRACYC_EXIT_SIGNALS", "no", said, sizeof said);
    CHECK(c.exit_signals == 1);
    CHECK(strstr(said, "tracyc: TRACYC_EXIT_SIGNALS=no is not 0 or 1") != NULL);
    c = read_with("TRACYC_DISABLE_NOTHING", "x", said, sizeof said);
    CHECK(c.exit_signals == 1);
}

int main(void)
{
    unsetenv("TRACY_PORT");
    unsetenv("TRACYC_BUFFER_LIMIT");
    unsetenv("TRACY_SAMPLING_HZ");
    ports();
    addresses();
    skews();
    sizes();
    rates();
    rate_ceiling();
    child_outputs();
    debug_cache();
    exit_signals();
    return tt_finish("test_config");
}
