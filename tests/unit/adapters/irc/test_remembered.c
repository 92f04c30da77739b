/*
 * Tests of adapters/irc/remembered.c: the file of invited channels, its
 * parser (every refusal), and an adapter that saves an accepted invite
 * and a new one that reads it back; a refused file is never overwritten.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/irc/remembered.h"
#include "bot/common/file.h"
#include "tests/support/irc_fixture.h"

static int parse(const char *text, char ***names, int *n)
{
    char err[200];
    return ircad_remembered_parse(text, strlen(text), 4, names, n, err,
                                  sizeof err);
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void test_remembered_parse_good(void **state)
{
    (void)state;
    char **names = NULL;
    int n = -1;
    assert_int_equal(
        parse("{\"version\":1,\"channels\":[\"#a\",\"&b\"]}", &names, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "#a");
    assert_string_equal(names[1], "&b");
    free_names(names, n);
    assert_int_equal(parse("{\"version\":1,\"channels\":[]}", &names, &n), 0);
    assert_int_equal(n, 0);
    free_names(names, n);
}

/* Every malformed file is refused whole; out-parameters untouched. */
static void test_remembered_parse_refusals(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[]",
        "{\"version\":1,\"channels\":[\"#a\"]} x",
        "{\"channels\":[\"#a\"]}",
        "{\"version\":\"1\",\"channels\":[\"#a\"]}",
        "{\"version\":0,\"channels\":[\"#a\"]}",
        "{\"version\":2,\"channels\":[\"#a\"]}",
        "{\"version\":1}",
        "{\"version\":1,\"channels\":\"#a\"}",
        "{\"version\":1,\"channels\":[\"#a\",3]}",
        "{\"version\":1,\"channels\":[\"nochan\"]}",
        "{\"version\":1,\"channels\":[\"#a b\"]}",
        "{\"version\":1,\"channels\":[\"#a,#b\"]}",
        "{\"version\":1,\"channels\":[\"#a\\u0000b\"]}",
        "{\"version\":1,\"channels\":[\"#a\",\"#b\",\"#c\",\"#d\",\"#e\"]}",
        "{\"version\":1,\"channels\":[\"#"
        "0123456789012345678901234567890123456789012345678901\"]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char **names = (char **)&bad; /* a sentinel */
        int n = -7;
        if (parse(bad[i], &names, &n) != -1)
            fail_msg("accepted: %s", bad[i]);
        assert_ptr_equal(names, (char **)&bad);
        assert_int_equal(n, -7);
    }
    char err[200];
    char **names;
    int n;
    assert_int_equal(ircad_remembered_parse("{\"version\":9,\"channels\":[]}",
                                            27, 4, &names, &n, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "newer"));
}

static const char *seen_prefix;

static bool saw(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, seen_prefix, 0) >= 0;
}

static bool admin_yes(void *ctx, const struct chat_user *u)
{
    (void)ctx;
    (void)u;
    return true;
}

/* Starts the adapter and has an admin invite it to #games, joined. */
static void admin_invites_games(struct ircfx *f)
{
    f->a->is_admin = admin_yes;
    f->a->ops->start(f->a);
    assert_true(ircfx_run_until(f, ircfx_connected, 3000));
    ircfx_srv_send(&f->srv, ":boss!b@h INVITE hearts #games");
    seen_prefix = "JOIN #games";
    assert_true(ircfx_run_until(f, saw, 3000));
}

static char *read_all(const char *path)
{
    char *text = NULL;
    size_t len;
    if (file_read(path, 65536, &text, &len, NULL, NULL, 0))
        return NULL;
    return text;
}

/* An accepted invite is written; a new adapter on the same data
 * directory serves and joins it at connect. */
static void test_remembered_across_restart(void **state)
{
    (void)state;
    char dir[] = "/tmp/hearts-remembered-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct ircfx f;
    ircfx_init(&f);
    ircfx_make(&f, NULL);
    ircad_set_data_dir(f.a, dir);
    admin_invites_games(&f);
    ircfx_free(&f);
    char path[600];
    snprintf(path, sizeof path, "%s/testnet/irc-channels.json", dir);
    char *text = read_all(path);
    assert_non_null(text);
    assert_string_equal(text, "{\"version\":1,\"channels\":[\"#games\"]}");
    free(text);

    ircfx_init(&f);
    ircfx_make(&f, NULL);
    ircad_set_data_dir(f.a, dir);
    assert_true(f.a->ops->serves(f.a, "#GAMES"));
    f.a->ops->start(f.a);
    seen_prefix = "JOIN #hearts,#games";
    assert_true(ircfx_run_until(&f, saw, 3000));
    ircfx_free(&f);
    unlink(path);
    snprintf(path, sizeof path, "%s/testnet", dir);
    rmdir(path);
    rmdir(dir);
}

/* A file of a newer version: nothing of it joined, and an accepted
 * invite does not overwrite it. */
static void test_remembered_newer_file_left_alone(void **state)
{
    (void)state;
    char dir[] = "/tmp/hearts-remembered-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/testnet", dir);
    assert_int_equal(file_mkdirs(dir, path, NULL, 0), 0);
    snprintf(path, sizeof path, "%s/testnet/irc-channels.json", dir);
    const char *newer = "{\"version\":2,\"channels\":[\"#new\"]}";
    assert_int_equal(file_replace(path, newer, strlen(newer), NULL, 0), 0);
    struct ircfx f;
    ircfx_init(&f);
    ircfx_make(&f, NULL);
    ircad_set_data_dir(f.a, dir);
    assert_false(f.a->ops->serves(f.a, "#new"));
    admin_invites_games(&f);
    assert_int_equal(ircfx_srv_find(&f.srv, "JOIN #new", 0), -1);
    ircfx_free(&f);
    char *text = read_all(path);
    assert_non_null(text);
    assert_string_equal(text, newer);
    free(text);
    unlink(path);
    snprintf(path, sizeof path, "%s/testnet", dir);
    rmdir(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_remembered_parse_good),
        cmocka_unit_test(test_remembered_parse_refusals),
        cmocka_unit_test(test_remembered_across_restart),
        cmocka_unit_test(test_remembered_newer_file_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
