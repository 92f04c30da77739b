/*
 * Tests of bot/common/log.c: the level filters, each line is
 * "YYYY-MM-DDTHH:MM:SS.mmmZ LEVEL text" on standard error (here a temp
 * file), control characters become spaces, and a long text is cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/common/log.h"

static FILE *out;
static int saved_stderr = -1;

static int setup(void **state)
{
    (void)state;
    out = tmpfile();
    assert_non_null(out);
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    assert_true(saved_stderr >= 0);
    assert_true(dup2(fileno(out), STDERR_FILENO) >= 0);
    log_level_set(LOG_INFO);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    /* what was not read yet (a failed check's message) to the real one */
    char buf[4096];
    size_t n;
    rewind(out);
    while ((n = fread(buf, 1, sizeof buf, out)) > 0)
        fwrite(buf, 1, n, stderr);
    fclose(out);
    log_level_set(LOG_INFO);
    return 0;
}

/* What was logged since the last call, NUL-ended, into buf. */
static size_t logged(char *buf, size_t size)
{
    fflush(stderr);
    rewind(out);
    size_t n = fread(buf, 1, size - 1, out);
    buf[n] = '\0';
    /* start over for the next call */
    assert_int_equal(ftruncate(fileno(out), 0), 0);
    rewind(out);
    return n;
}

/* A stamp "2026-11-21T12:00:00.123Z " at line. */
static void check_stamp(const char *line)
{
    const char *shape = "dddd-dd-ddTdd:dd:dd.dddZ ";
    for (size_t i = 0; shape[i]; i++) {
        if (shape[i] == 'd')
            assert_true(isdigit((unsigned char)line[i]));
        else
            assert_int_equal(line[i], shape[i]);
    }
}

static void test_log_format(void **state)
{
    (void)state;
    char buf[4096];
    log_info("hello %s %d", "world", 42);
    size_t n = logged(buf, sizeof buf);
    assert_int_equal(n, 25 + strlen("info hello world 42\n"));
    check_stamp(buf);
    assert_string_equal(buf + 25, "info hello world 42\n");

    log_error("e");
    log_warn("w");
    logged(buf, sizeof buf);
    check_stamp(buf);
    assert_memory_equal(buf + 25, "error e\n", 8);
    check_stamp(buf + 33);
    assert_string_equal(buf + 33 + 25, "warn w\n");
}

static void test_log_levels(void **state)
{
    (void)state;
    char buf[4096];
    /* the default: info and above */
    log_debug("hidden");
    assert_int_equal(logged(buf, sizeof buf), 0);

    assert_int_equal(log_set_level("debug"), 0);
    log_debug("shown");
    logged(buf, sizeof buf);
    assert_string_equal(buf + 25, "debug shown\n");

    assert_int_equal(log_set_level("error"), 0);
    log_warn("no");
    log_info("no");
    log_debug("no");
    assert_int_equal(logged(buf, sizeof buf), 0);
    log_error("yes");
    logged(buf, sizeof buf);
    assert_string_equal(buf + 25, "error yes\n");

    assert_int_equal(log_set_level("warn"), 0);
    log_info("no");
    log_warn("yes");
    logged(buf, sizeof buf);
    assert_string_equal(buf + 25, "warn yes\n");

    /* unknown names leave the level alone */
    assert_int_equal(log_set_level("verbose"), -1);
    assert_int_equal(log_set_level("INFO"), -1);
    assert_int_equal(log_set_level(""), -1);
    log_info("no");
    assert_int_equal(logged(buf, sizeof buf), 0);

    log_level_set(LOG_DEBUG);
    log_debug("d");
    logged(buf, sizeof buf);
    assert_string_equal(buf + 25, "debug d\n");
}

static void test_log_controls_and_length(void **state)
{
    (void)state;
    char buf[4096];
    log_info("a\r\nb\tc\x01"
             "d\x7f"
             "e \xc3\xa9");
    logged(buf, sizeof buf);
    /* bytes below 0x20 become spaces; DEL and UTF-8 stay */
    assert_string_equal(buf + 25, "info a  b c d\x7f"
                                  "e \xc3\xa9\n");

    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    log_info("%s", big);
    size_t n = logged(buf, sizeof buf);
    /* the text is cut at 1023 bytes */
    assert_int_equal(n, 25 + 5 + 1023 + 1);
    assert_int_equal(buf[n - 1], '\n');
    assert_int_equal(buf[n - 2], 'x');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_log_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_controls_and_length, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
