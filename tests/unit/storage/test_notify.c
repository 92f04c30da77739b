/*
 * Who asked to be called in a channel (storage/notify.c): kept across a
 * reload, taken off, bounded, refused when bad; a damaged line costs only
 * itself, a newer bot's file is neither read nor written, and a file of
 * mostly replaced lines is written anew.
 */
#include "tests/support/scratch.h"

#include "storage/notify.h"
#include "storage/storage.h"

static char path[1024];
static int logged;

static void count_log(bool error, const char *msg)
{
    (void)error;
    (void)msg;
    logged++;
}

static int setup(void **state)
{
    (void)state;
    if (scratch_make())
        return -1;
    scratch_path(path, sizeof path, NOTIFY_FILE);
    logged = 0;
    storage_set_log(count_log);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    storage_set_log(NULL);
    scratch_remove_tree(scratch_dir);
    return 0;
}

/* A fresh list loaded from the file. */
static struct notify *reload(int *skipped)
{
    struct notify *n = notify_new();
    char err[256];
    int rc = notify_load(n, path, skipped, err, sizeof err);
    assert_int_equal(rc, 0);
    return n;
}

static void test_notify_survives_a_reload(void **state)
{
    (void)state;
    struct notify *n = notify_new();
    char err[256];
    assert_int_equal(notify_set(n, path, "a:Bob", "bob", err, sizeof err), 0);
    assert_int_equal(notify_set(n, path, "n:carol@h", "carol", err, sizeof err),
                     0);
    assert_int_equal(notify_set(n, path, "a:Bob", "bobby", err, sizeof err), 0);
    assert_int_equal(notify_set(n, path, "n:carol@h", NULL, err, sizeof err),
                     0);
    notify_free(n);
    int skipped = -1;
    n = reload(&skipped);
    assert_int_equal(skipped, 0);
    assert_int_equal(notify_count(n), 1);
    assert_string_equal(notify_find(n, "a:Bob")->nick, "bobby");
    assert_null(notify_find(n, "n:carol@h"));
    notify_free(n);
}

static void test_notify_is_bounded_and_refuses_bad_input(void **state)
{
    (void)state;
    struct notify *n = notify_new();
    char key[32], err[128];
    for (int i = 0; i < NOTIFY_MAX; i++) {
        snprintf(key, sizeof key, "n:p%d@h", i);
        assert_int_equal(notify_set(n, NULL, key, "p", err, sizeof err), 0);
    }
    assert_int_equal(notify_set(n, path, "n:one@more", "p", err, sizeof err),
                     -1);
    assert_int_equal(notify_count(n), NOTIFY_MAX);
    /* one already there changes, one goes */
    assert_int_equal(notify_set(n, NULL, "n:p1@h", "q", err, sizeof err), 0);
    assert_int_equal(notify_set(n, NULL, "n:p2@h", NULL, err, sizeof err), 0);
    assert_int_equal(notify_count(n), NOTIFY_MAX - 1);
    /* bad keys and nicks change nothing, and write nothing */
    assert_int_equal(notify_set(n, path, "", "p", err, sizeof err), -1);
    assert_int_equal(notify_set(n, path, "n:x", "a\nb", err, sizeof err), -1);
    assert_int_equal(notify_set(n, path, "n:x", "\xff", err, sizeof err), -1);
    char long_nick[NOTIFY_NICK_MAX + 2];
    memset(long_nick, 'x', sizeof long_nick - 1);
    long_nick[sizeof long_nick - 1] = '\0';
    assert_int_equal(notify_set(n, path, "n:x", long_nick, err, sizeof err),
                     -1);
    assert_int_equal(notify_count(n), NOTIFY_MAX - 1);
    assert_int_equal(scratch_entries(scratch_dir), 0);
    notify_free(n);
}

static void test_notify_damaged_lines_cost_themselves(void **state)
{
    (void)state;
    scratch_write(path,
                  "{\"format\":\"heartsbot-notify/1\",\"key\":\"a:Bob\","
                  "\"nick\":\"bob\"}\n"
                  "{\"format\":\"heartsbot-notify/1\",\"key\":\"a:X\","
                  "\"nick\":7}\n"
                  "{\"format\":\"heartsbot-notify/1\",\"nick\":\"nokey\"}\n"
                  "[1,2]\n"
                  "{\"format\":\"heartsbot-notify/1\",\"key\":\"a:Eve\","
                  "\"nick\":\"eve\",\"added_later\":{\"x\":1}}\n");
    int skipped = 0;
    struct notify *n = reload(&skipped);
    assert_int_equal(skipped, 3);
    assert_int_equal(logged, 3);
    assert_int_equal(notify_count(n), 2);
    assert_string_equal(notify_find(n, "a:Eve")->nick, "eve");
    notify_free(n);
}

static void test_notify_newer_format_is_left_alone(void **state)
{
    (void)state;
    const char *text = "{\"format\":\"heartsbot-notify/1\",\"key\":\"a:Bob\","
                       "\"nick\":\"bob\"}\n"
                       "{\"format\":\"heartsbot-notify/2\",\"key\":\"a:Bob\"}"
                       "\n";
    scratch_write(path, text);
    struct notify *n = notify_new();
    char err[512];
    int skipped = 0;
    assert_int_equal(notify_load(n, path, &skipped, err, sizeof err), -1);
    assert_non_null(strstr(err, "heartsbot-notify/2"));
    assert_int_equal(notify_count(n), 0);
    char *now = scratch_read(path);
    assert_string_equal(now, text);
    free(now);
    notify_free(n);
}

static void test_notify_mostly_replaced_is_written_anew(void **state)
{
    (void)state;
    struct notify *n = notify_new();
    char err[256];
    for (int i = 0; i < 100; i++)
        assert_int_equal(
            notify_set(n, path, "a:Bob", i % 2 ? "bob" : NULL, err, sizeof err),
            0);
    notify_free(n);
    int skipped = 0;
    n = reload(&skipped);
    notify_free(n);
    char *now = scratch_read(path);
    assert_string_equal(now, "{\"format\":\"heartsbot-notify/1\",\"key\":"
                             "\"a:Bob\",\"nick\":\"bob\"}\n");
    free(now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_notify_survives_a_reload, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_notify_is_bounded_and_refuses_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_notify_damaged_lines_cost_themselves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_notify_newer_format_is_left_alone,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_notify_mostly_replaced_is_written_anew, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
