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

int main(void)
{
    unsetenv("TRACY_PORT");
    unsetenv("TRACYC_BUFFER_LIMIT");
    unsetenv("TRACY_SAMPLING_HZ");
    ports();
    sizes();
    rates();
    return tt_finish("test_config");
}
