/*
 * The configuration files the documentation shows must be valid: the
 * bot's own example and the files in docs/examples/ are read with config_load
 * (and never run: they name real networks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bot/config.h"
#include "tests/support/networks.h"

/* The repository's top, from this file's path. */
static void repo_path(char *out, size_t len, const char *rel)
{
    const char *self = __FILE__;
    const char *cut = strstr(self, "tests/unit/bot/test_examples.c");
    int top = cut ? (int)(cut - self) : 0;
    snprintf(out, len, "%.*s%s", top, self, rel);
}

static void loads(const char *rel, int nirc)
{
    char path[1024], err[512];
    repo_path(path, sizeof path, rel);
    struct config c;
    if (config_load(path, registry_protocols, &c, err, sizeof err))
        fail_msg("%s: %s", rel, err);
    assert_int_equal(count_irc(&c), nirc);
    config_free(&c);
}

static void test_config_load_example(void **state)
{
    (void)state;
    loads("config.example.toml", 1);
    /* for a local IRC server only: no Matrix login to retry forever */
    char path[1024], err[512];
    repo_path(path, sizeof path, "config.example.toml");
    struct config c;
    assert_int_equal(config_load(path, registry_protocols, &c, err, sizeof err),
                     0);
    assert_int_equal(count_mx(&c), 0);
    assert_int_equal(c.nnetworks, 1);
    config_free(&c);
}

/* The Matrix example: sync mode, every [[matrix]] key of it set. */
static void test_config_load_matrix_example(void **state)
{
    (void)state;
    char path[1024], err[512];
    repo_path(path, sizeof path, "docs/examples/matrix.toml");
    struct config c;
    assert_int_equal(config_load(path, registry_protocols, &c, err, sizeof err),
                     0);
    assert_int_equal(count_irc(&c), 0);
    assert_int_equal(count_mx(&c), 1);
    assert_false(mx_at(&c, 0)->appservice);
    assert_string_equal(mx_at(&c, 0)->user_id, "@heartsbot:example.org");
    assert_string_equal(mx_at(&c, 0)->homeserver, "https://matrix.example.org");
    assert_int_equal(mx_at(&c, 0)->nrooms, 1);
    /* anyone may invite it, which it warns of at start */
    assert_true(mx_at(&c, 0)->auto_join_invites);
    assert_int_equal(mx_at(&c, 0)->ninvite_from, 0);
    config_free(&c);
}

static void test_config_load_docs_examples(void **state)
{
    (void)state;
    loads("docs/examples/libera.toml", 1);
    loads("docs/examples/own-ircd.toml", 1);
    loads("docs/examples/appservice.toml", 0);
    loads("docs/examples/matrix.toml", 0);
    loads("docs/examples/both.toml", 1);
}

/* The application-service example is what docs/hosting.md says it is. */
static void test_config_load_appservice_example(void **state)
{
    (void)state;
    char path[1024], err[512];
    repo_path(path, sizeof path, "docs/examples/appservice.toml");
    struct config c;
    assert_int_equal(config_load(path, registry_protocols, &c, err, sizeof err),
                     0);
    assert_int_equal(count_mx(&c), 1);
    assert_true(mx_at(&c, 0)->appservice);
    assert_string_equal(mx_at(&c, 0)->registration,
                        "/var/lib/heartsbot/registration.yaml");
    assert_string_equal(mx_at(&c, 0)->listen_host, "127.0.0.1");
    assert_int_equal(mx_at(&c, 0)->listen_port, 9009);
    assert_string_equal(mx_at(&c, 0)->password, "");
    assert_int_equal(mx_at(&c, 0)->ninvite_from, 1);
    assert_string_equal(mx_at(&c, 0)->invite_from[0], ":example.org");
    config_free(&c);
}

static void test_config_load_own_ircd_channel_rules(void **state)
{
    (void)state;
    char path[1024], err[512];
    repo_path(path, sizeof path, "docs/examples/own-ircd.toml");
    struct config c;
    assert_int_equal(config_load(path, registry_protocols, &c, err, sizeof err),
                     0);
    assert_int_equal(irc_at(&c, 0)->nchannels, 3);
    assert_string_equal(irc_at(&c, 0)->channels[1].name, "#omnibus");
    assert_string_equal(irc_at(&c, 0)->channels[1].rules, "omnibus");
    assert_null(irc_at(&c, 0)->channels[0].rules);
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_load_example),
        cmocka_unit_test(test_config_load_matrix_example),
        cmocka_unit_test(test_config_load_docs_examples),
        cmocka_unit_test(test_config_load_own_ircd_channel_rules),
        cmocka_unit_test(test_config_load_appservice_example),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
