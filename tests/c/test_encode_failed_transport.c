/* test_encode_failed_transport.c - once its transport has failed, an encoder discards
 * what it is given: many frames' worth of items written after the failure must stay
 * inside the ring (ASan checks the bounds in the sanitizer suite), and a fresh encoder
 * on a working transport still frames normally. */
#include "test_util.h"
#include "wire/encode.h"

#include <string.h>

static int writes;

static int failing_write(void *user, const void *data, size_t len)
{
    (void)user, (void)data, (void)len;
    writes++;
    return -1;
}

static size_t bytes_written;

static int counting_write(void *user, const void *data, size_t len)
{
    (void)user, (void)data;
    bytes_written += len;
    return 0;
}

int main(void)
{
    struct tcw_encoder e;
    CHECK(tcw_enc_init(&e, failing_write, NULL) == 0);
    static char text[60000];
    memset(text, 'x', sizeof text);
    /* 64 MiB of items: 256 frames' worth, far past the 768 KiB ring. */
    for (int i = 0; i < 1100; i++)
        tcw_enc_message(&e, i, text, sizeof text, 0, 0);
    CHECK(tcw_enc_flush(&e) == -1);
    tt_check(writes == 1, "the failed transport was written once, then never again (%d writes)", writes);
    tcw_enc_free(&e);

    CHECK(tcw_enc_init(&e, counting_write, NULL) == 0);
    for (int i = 0; i < 100; i++)
        tcw_enc_message(&e, i, text, sizeof text, 0, 0);
    CHECK(tcw_enc_flush(&e) == 0);
    tt_check(bytes_written > 0 && e.failed == 0, "a working transport gets frames (%zu bytes)", bytes_written);
    tcw_enc_free(&e);
    return tt_finish("test_encode_failed_transport");
}
