/*
 * What people chose for themselves (storage/people.c): kept across a
 * reload, forgotten, refused when bad, and a damaged line costs only
 * itself.
 */
#include "tests/support/scratch.h"

#include "storage/people.h"
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
    scratch_path(path, sizeof path, PEOPLE_FILE);
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

/* A fresh table loaded from the file. */
static struct people *reload(int *skipped)
{
    struct people *p = people_new();
    char err[256];
    int sk = -1;
    assert_int_equal(people_load(p, path, &sk, err, sizeof err), 0);
    if (skipped)
        *skipped = sk;
    return p;
}

static void test_people_settings_survive_a_reload(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    assert_int_equal(people_count(p), 0);
    char err[256];
    assert_int_equal(
        people_set(p, path, "libera", "a:alice", "lang", "de", err, sizeof err),
        0);
    assert_int_equal(people_set(p, path, "libera", "n:bob@host", "cards",
                                "ascii", err, sizeof err),
                     0);
    /* the same key on another network is another person */
    assert_int_equal(
        people_set(p, path, "matrix", "a:alice", "lang", "fr", err, sizeof err),
        0);
    assert_int_equal(
        people_set(p, path, "libera", "a:alice", "lang", "es", err, sizeof err),
        0);
    assert_string_equal(people_get(p, "libera", "a:alice", "lang"), "es");
    people_free(p);
    int skipped;
    p = reload(&skipped);
    assert_int_equal(skipped, 0);
    assert_int_equal(people_count(p), 3);
    assert_string_equal(people_get(p, "libera", "a:alice", "lang"), "es");
    assert_string_equal(people_get(p, "matrix", "a:alice", "lang"), "fr");
    assert_string_equal(people_get(p, "libera", "n:bob@host", "cards"),
                        "ascii");
    assert_null(people_get(p, "libera", "n:bob@host", "lang"));
    assert_null(people_get(p, "libera", "a:carol", "lang"));
    people_free(p);
}

static void test_people_forget_a_setting_and_a_person(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    people_set(p, path, "n", "a:x", "lang", "de", err, sizeof err);
    people_set(p, path, "n", "a:x", "cards", "ascii", err, sizeof err);
    assert_int_equal(
        people_set(p, path, "n", "a:x", "lang", NULL, err, sizeof err), 0);
    assert_null(people_get(p, "n", "a:x", "lang"));
    assert_int_equal(people_count(p), 1);
    people_set(p, path, "n", "a:x", "cards", NULL, err, sizeof err);
    assert_int_equal(people_count(p), 0);
    people_free(p);
    p = reload(NULL);
    assert_int_equal(people_count(p), 0);
    people_free(p);
}

/* Hostile names round-trip through the file as they are. */
static void test_people_keys_of_any_text(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    const char *key = "n:\"q\\uote\xe2\x99\xa0{}<script>@h";
    assert_int_equal(
        people_set(p, path, "net", key, "lang", "fr", err, sizeof err), 0);
    people_free(p);
    p = reload(NULL);
    assert_string_equal(people_get(p, "net", key, "lang"), "fr");
    people_free(p);
}

static void test_people_bad_settings_change_nothing(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    people_set(p, path, "n", "a:x", "lang", "de", err, sizeof err);
    char *before = scratch_read(path);
    const char *bad[][4] = {
        {"n", "a:x", "Lang", "de"},
        {"n", "a:x", "", "de"},
        {"n", "a:x", "lang", ""},
        {"n", "a:x", "lang", "d e"},
        {"n", "a:x", "lang", "d\"e"},
        {"n", "a:x", "lang", "\xc3\xa9"},
        {"n", "a:\x01x", "lang", "de"},
        {"", "a:x", "lang", "de"},
        {"n", "", "lang", "de"},
        {"n", "a:\xff", "lang", "de"},
        {"n", "a:x", "a_name_too_long_x", "de"},
        {"n", "a:x", "lang", "a-value-longer-than-thirty-two-bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(people_set(p, path, bad[i][0], bad[i][1], bad[i][2],
                                    bad[i][3], err, sizeof err),
                         -1);
        assert_true(err[0] != '\0');
    }
    char *after = scratch_read(path);
    assert_string_equal(before, after);
    assert_string_equal(people_get(p, "n", "a:x", "lang"), "de");
    assert_int_equal(people_count(p), 1);
    free(before);
    free(after);
    people_free(p);
}

static void test_people_too_many_settings_refused(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    char name[8];
    for (int i = 0; i < PEOPLE_SETTINGS_MAX; i++) {
        snprintf(name, sizeof name, "s%c", 'a' + i);
        assert_int_equal(
            people_set(p, path, "n", "a:x", name, "1", err, sizeof err), 0);
    }
    assert_int_equal(
        people_set(p, path, "n", "a:x", "one_more", "1", err, sizeof err), -1);
    /* changing one that is there is fine */
    assert_int_equal(
        people_set(p, path, "n", "a:x", "sa", "2", err, sizeof err), 0);
    people_free(p);
}

/* An editor's mistakes: each bad line skipped and logged, the rest read. */
static void test_people_damaged_lines_cost_only_themselves(void **state)
{
    (void)state;
    scratch_write(
        path,
        "{\"format\":\"heartsbot-people/"
        "1\",\"net\":\"n\",\"key\":\"a:one\",\"lang\":\"de\"}\n"
        "this is no json\n"
        "{\"net\":\"n\",\"key\":\"a:seven\",\"lang\":\"de\"}\n"
        "{\"format\":\"heartsbot-people/"
        "1\",\"net\":\"n\",\"key\":\"a:two\",\"lang\":3}\n"
        "{\"format\":\"heartsbot-people/"
        "1\",\"net\":\"n\",\"key\":\"a:three\",\"Lang\":\"de\"}\n"
        "[\"net\",\"key\"]\n"
        "{\"format\":\"heartsbot-people/"
        "1\",\"net\":\"n\",\"key\":\"a:four\",\"lang\":\"d e\"}\n"
        "{\"format\":\"heartsbot-people/1\",\"net\":\"n\",\"lang\":\"fr\"}\n"
        "{\"format\":\"heartsbot-people/"
        "1\",\"net\":\"n\",\"key\":\"a:five\",\"lang\":\"fr\"} x\n"
        "{\"format\":\"heartsbot-people/"
        "1\",\"net\":\"n\",\"key\":\"a:six\",\"lang\":\"es\"}\n");
    int skipped;
    struct people *p = reload(&skipped);
    assert_int_equal(skipped, 8);
    assert_int_equal(logged, 8);
    assert_int_equal(people_count(p), 2);
    assert_string_equal(people_get(p, "n", "a:one", "lang"), "de");
    assert_string_equal(people_get(p, "n", "a:six", "lang"), "es");
    people_free(p);
}

/* Many replaced lines: the file is written anew with one per person. */
static void test_people_file_compacted_on_load(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    for (int i = 0; i < 200; i++)
        people_set(p, path, "n", "a:x", "lang", i % 2 ? "de" : "fr", err,
                   sizeof err);
    people_set(p, path, "n", "a:y", "lang", "es", err, sizeof err);
    people_free(p);
    p = reload(NULL);
    people_free(p);
    char *text = scratch_read(path);
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 2);
    free(text);
    p = reload(NULL);
    assert_string_equal(people_get(p, "n", "a:x", "lang"), "de");
    assert_string_equal(people_get(p, "n", "a:y", "lang"), "es");
    people_free(p);
}

/* Only reading (heartsbot --check): the same file is read, not written. */
static void test_people_file_not_compacted_while_read_only(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    for (int i = 0; i < 200; i++)
        people_set(p, path, "n", "a:x", "lang", i % 2 ? "de" : "fr", err,
                   sizeof err);
    people_free(p);
    char *before = scratch_read(path);
    storage_set_read_only(true);
    p = reload(NULL);
    storage_set_read_only(false);
    assert_string_equal(people_get(p, "n", "a:x", "lang"), "de");
    people_free(p);
    char *after = scratch_read(path);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

static void test_people_unreadable_file_keeps_what_was_there(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    people_set(p, path, "n", "a:x", "lang", "de", err, sizeof err);
    char dir[1024];
    scratch_path(dir, sizeof dir, "a-directory");
    mkdir(dir, 0700);
    int skipped;
    assert_int_equal(people_load(p, dir, &skipped, err, sizeof err), -1);
    assert_string_equal(people_get(p, "n", "a:x", "lang"), "de");
    people_free(p);
}

/* A newer bot's file is neither read nor written. */
static void test_people_newer_format_refused(void **state)
{
    (void)state;
    struct people *p = reload(NULL);
    char err[256];
    people_set(p, path, "n", "a:x", "lang", "de", err, sizeof err);
    scratch_write(path, "{\"format\":\"heartsbot-people/1\",\"net\":\"n\","
                        "\"key\":\"a:y\",\"lang\":\"fr\"}\n"
                        "{\"format\":\"heartsbot-people/2\",\"x\":1}\n");
    int skipped;
    assert_int_equal(people_load(p, path, &skipped, err, sizeof err), -1);
    assert_non_null(strstr(err, ":2: format \"heartsbot-people/2\""));
    assert_string_equal(people_get(p, "n", "a:x", "lang"), "de");
    assert_null(people_get(p, "n", "a:y", "lang"));
    people_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_people_settings_survive_a_reload,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_people_forget_a_setting_and_a_person, setup, teardown),
        cmocka_unit_test_setup_teardown(test_people_keys_of_any_text, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_people_bad_settings_change_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_people_too_many_settings_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_people_damaged_lines_cost_only_themselves, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_people_file_not_compacted_while_read_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_people_file_compacted_on_load,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_people_unreadable_file_keeps_what_was_there, setup, teardown),
        cmocka_unit_test_setup_teardown(test_people_newer_format_refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
