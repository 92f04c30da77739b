/*
 * Tests of bot/common/log.c: the level filters, each line is
 * "YYYY-MM-DDTHH:MM:SS.mmmZ LEVEL text" on standard error (here a temp
 * file), control characters become spaces, and a long text is cut. Or
 * the lines go to a file (the console's), with only an error that stops
 * the bot on standard error too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    log_to_stderr();
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

/* A file's content (to free); "" if it is not there. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return calloc(1, 1);
    char *s = calloc(1, 8192);
    assert_non_null(s);
    size_t n = fread(s, 1, 8191, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* A fresh directory for the files of a test. */
static void make_dir(char *dir)
{
    strcpy(dir, "/tmp/test_log_XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void test_log_to_a_file_keeps_stderr_for_the_game(void **state)
{
    (void)state;
    char dir[32], path[64], err[256], buf[4096];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/heartsbot.log", dir);
    assert_int_equal(log_to_file(path, err, sizeof err), 0);
    log_info("to the file");
    log_warn("warned");
    /* nothing on stderr */
    assert_int_equal(logged(buf, sizeof buf), 0);
    char *text = slurp(path);
    check_stamp(text);
    assert_memory_equal(text + 25, "info to the file\n", 17);
    assert_non_null(strstr(text, " warn warned\n"));
    free(text);
    /* made private */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    /* an error that stops the bot: the file, and stderr too */
    log_fatal("the lock is %s", "taken");
    logged(buf, sizeof buf);
    assert_string_equal(buf, "heartsbot: the lock is taken\n");
    text = slurp(path);
    assert_non_null(strstr(text, " error the lock is taken\n"));
    free(text);

    /* back: stderr again, the file appended to at the next start */
    log_to_stderr();
    log_info("back");
    logged(buf, sizeof buf);
    assert_string_equal(buf + 25, "info back\n");
    assert_int_equal(log_to_file(path, err, sizeof err), 0);
    log_info("again");
    log_to_stderr();
    text = slurp(path);
    assert_non_null(strstr(text, " info to the file\n"));
    assert_non_null(strstr(text, " info again\n"));
    free(text);
    unlink(path);
    rmdir(dir);
}

static void test_log_fatal_on_stderr_is_one_line(void **state)
{
    (void)state;
    char buf[4096];
    /* no file: the log line alone, not twice */
    log_fatal("stopped");
    logged(buf, sizeof buf);
    check_stamp(buf);
    assert_string_equal(buf + 25, "error stopped\n");
}

static void test_a_log_file_past_its_cap_starts_anew(void **state)
{
    (void)state;
    char dir[32], path[64], err[256];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/heartsbot.log", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < LOG_FILE_MAX_BYTES; i++)
        fputc('o', f);
    fclose(f);
    /* at the cap: kept */
    assert_int_equal(log_to_file(path, err, sizeof err), 0);
    log_info("kept");
    log_to_stderr();
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > LOG_FILE_MAX_BYTES);
    /* past it: anew */
    assert_int_equal(log_to_file(path, err, sizeof err), 0);
    log_info("anew");
    log_to_stderr();
    char *text = slurp(path);
    check_stamp(text);
    assert_string_equal(text + 25, "info anew\n");
    free(text);
    unlink(path);
    rmdir(dir);
}

static void test_a_log_file_that_cannot_be_written_is_refused(void **state)
{
    (void)state;
    char dir[32], path[64], err[256], buf[4096];
    make_dir(dir);
    /* no such directory */
    snprintf(path, sizeof path, "%s/none/heartsbot.log", dir);
    assert_int_equal(log_to_file(path, err, sizeof err), -1);
    char want[128];
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    assert_string_equal(err, want);
    /* a link where the file should be */
    snprintf(path, sizeof path, "%s/heartsbot.log", dir);
    assert_int_equal(symlink("/dev/null", path), 0);
    assert_int_equal(log_to_file(path, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    unlink(path);
    /* a FIFO: refused at once, not waited on */
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(log_to_file(path, err, sizeof err), -1);
    unlink(path);
    /* a directory */
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(log_to_file(path, err, sizeof err), -1);
    rmdir(path);
    rmdir(dir);
    /* the lines still go to stderr */
    log_info("here");
    logged(buf, sizeof buf);
    assert_string_equal(buf + 25, "info here\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_log_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_controls_and_length, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_log_to_a_file_keeps_stderr_for_the_game, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_fatal_on_stderr_is_one_line,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_log_file_past_its_cap_starts_anew, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_log_file_that_cannot_be_written_is_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
