/*
 * Tests of adapters/irc/ctcp.c: VERSION and PING are answered, anything
 * else is not, and a PING argument that could break the reply is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/ctcp.h"

static void test_ircad_ctcp_reply_version(void **state)
{
    (void)state;
    char out[128];
    assert_int_equal(
        ircad_ctcp_reply("VERSION", "heartsbot 1", out, sizeof out), 0);
    assert_string_equal(out, "VERSION heartsbot 1");
    assert_int_equal(ircad_ctcp_reply("version", "v", out, sizeof out), 0);
    assert_string_equal(out, "VERSION v");
}

static void test_ircad_ctcp_reply_ping_echoes(void **state)
{
    (void)state;
    char out[128];
    assert_int_equal(
        ircad_ctcp_reply("PING 1700000000 123", "v", out, sizeof out), 0);
    assert_string_equal(out, "PING 1700000000 123");
    assert_int_equal(ircad_ctcp_reply("PING", "v", out, sizeof out), 0);
    assert_string_equal(out, "PING");
}

static void test_ircad_ctcp_reply_refuses(void **state)
{
    (void)state;
    char out[128] = "untouched";
    const char *no[] = {
        "TIME",
        "FINGER",
        "DCC SEND x 1 2 3",
        "ACTION waves",
        "PINGX 1",
        "PING a\001b",
        "PING a\rb",
        "",
        /* a right-to-left override, a left-to-right isolate, DEL */
        "PING 1\xe2\x80\xae"
        "2",
        "PING \xe2\x81\xa6"
        "1",
        "PING 1\x7f",
    };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        assert_int_equal(ircad_ctcp_reply(no[i], "v", out, sizeof out), -1);
        assert_string_equal(out, "untouched");
    }
    char longarg[IRCAD_CTCP_ARG_MAX + 16];
    memcpy(longarg, "PING ", 5);
    memset(longarg + 5, '9', IRCAD_CTCP_ARG_MAX + 1);
    longarg[5 + IRCAD_CTCP_ARG_MAX + 1] = '\0';
    assert_int_equal(ircad_ctcp_reply(longarg, "v", out, sizeof out), -1);
    /* too small a buffer: refused, not truncated */
    char tiny[8] = "same";
    assert_int_equal(
        ircad_ctcp_reply("VERSION", "long version", tiny, sizeof tiny), -1);
    assert_string_equal(tiny, "same");
    assert_int_equal(ircad_ctcp_reply(NULL, "v", out, sizeof out), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_ctcp_reply_version),
        cmocka_unit_test(test_ircad_ctcp_reply_ping_echoes),
        cmocka_unit_test(test_ircad_ctcp_reply_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
