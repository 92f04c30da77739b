/*
 * Tests of adapters/matrix/matrix_config.c, the [[matrix]] table, read
 * through config_parse with the bot's protocols: its keys and defaults,
 * the sync and appservice modes with each form of listen, a
 * registration file found beside the config, and the values and missing
 * keys it refuses with their line, column and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/support/config_check.h"

static void test_matrix_config_keys(void **state)
{
    (void)state;
    struct config c;
    parse_ok(
        "[[irc]]\nname = \"libera\"\nhost = \"h\"\nnick = \"k\"\n"
        "[[matrix]]\nname = \"mx\"\n"
        "homeserver = \"https://matrix.example.org/\"\n"
        "user_id = \"@hearts:example.org\"\npassword = \"pass word\"\n"
        "rooms = [\"#hearts:example.org\", \"!abc:example.org omnibus\"]\n"
        "[[matrix]]\nname = \"tok\"\nhomeserver = \"http://127.0.0.1:8008\"\n"
        "user_id = \"@b:hs\"\naccess_token = \"syt_x\"\n"
        "device_id = \"DEV\"\nauto_join_invites = false\n"
        "max_body_bytes = 65536\nsync_timeout_ms = 0\n"
        "request_timeout_ms = 1000\nrejoin_delay_ms = 0\n",
        &c);
    assert_int_equal(count_irc(&c), 1);
    assert_int_equal(count_mx(&c), 2);
    const struct matrix_config *m = mx_at(&c, 0);
    assert_string_equal(m->name, "mx");
    /* a trailing '/' would double in every request's path */
    assert_string_equal(m->homeserver, "https://matrix.example.org");
    assert_string_equal(m->user_id, "@hearts:example.org");
    assert_string_equal(m->password, "pass word");
    assert_string_equal(m->access_token, "");
    assert_string_equal(m->device_id, "");
    assert_int_equal(m->nrooms, 2);
    assert_string_equal(m->rooms[0].name, "#hearts:example.org");
    assert_null(m->rooms[0].rules);
    assert_string_equal(m->rooms[1].name, "!abc:example.org");
    assert_string_equal(m->rooms[1].rules, "omnibus");
    assert_true(m->auto_join_invites);
    assert_int_equal(m->max_body_bytes, 4 << 20);
    assert_int_equal(m->sync_timeout_ms, 30000);
    assert_int_equal(m->request_timeout_ms, 30000);
    assert_int_equal(m->rejoin_delay_ms, 30000);
    m = mx_at(&c, 1);
    assert_string_equal(m->access_token, "syt_x");
    assert_string_equal(m->password, "");
    assert_string_equal(m->device_id, "DEV");
    assert_false(m->auto_join_invites);
    assert_int_equal(m->max_body_bytes, 65536);
    assert_int_equal(m->sync_timeout_ms, 0);
    assert_int_equal(m->request_timeout_ms, 1000);
    assert_int_equal(m->rejoin_delay_ms, 0);
    struct config fresh;
    parse_ok("", &fresh);
    config_keep_networks(&fresh, &c);
    assert_int_equal(count_mx(&fresh), 2);
    assert_int_equal(count_mx(&c), 0);
    config_free(&c);
    config_free(&fresh);
}

/* mode, registration and listen: the defaults of the sync mode, and the
 * appservice mode with each form of listen. */
static void test_matrix_config_modes(void **state)
{
    (void)state;
    struct config c;
    char err[ERRLEN] = "";
    const char text[] =
        "[[matrix]]\nname = \"s\"\nhomeserver = \"https://h\"\n"
        "user_id = \"@b:h\"\npassword = \"p\"\nsync_timeout_ms = 5000\n"
        "[[matrix]]\nname = \"a\"\nhomeserver = \"http://127.0.0.1:8008\"\n"
        "user_id = \"@hearts.bot_1=x-y/z+w:example.org\"\n"
        "mode = \"appservice\"\nregistration = \"/etc/hb/a.yaml\"\n"
        "sync_timeout_ms = 1000 # unused, and accepted\n"
        "[[matrix]]\nname = \"v4\"\nhomeserver = \"https://h\"\n"
        "user_id = \"@b:h\"\nmode = \"appservice\"\n"
        "registration = \"/r\"\nlisten = \"10.0.0.5:65535\"\n"
        "[[matrix]]\nname = \"v6\"\nhomeserver = \"https://h\"\n"
        "user_id = \"@b:h\"\nmode = \"appservice\"\n"
        "registration = \"/r\"\nlisten = \"[::1]:1\"\n"
        "[[matrix]]\nname = \"any6\"\nhomeserver = \"https://h\"\n"
        "user_id = \"@b:h\"\nmode = \"appservice\"\n"
        "registration = \"/r\"\nlisten = \"[0:0::0]:8080\"\n"
        "[[matrix]]\nname = \"sync2\"\nhomeserver = \"https://h\"\n"
        "user_id = \"@B:h\"\nmode = \"sync\"\naccess_token = \"t\"\n";
    int rc = config_parse(text, sizeof text - 1, "/etc/hb/bot.toml",
                          registry_protocols, &c, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(count_mx(&c), 6);
    const struct matrix_config *m = mx_at(&c, 0);
    assert_false(m->appservice);
    assert_string_equal(m->registration, "");
    assert_string_equal(m->listen_host, "127.0.0.1");
    assert_int_equal(m->listen_port, 9009);
    assert_string_equal(m->password, "p");
    m = mx_at(&c, 1);
    assert_true(m->appservice);
    assert_string_equal(m->registration, "/etc/hb/a.yaml");
    assert_string_equal(m->listen_host, "127.0.0.1");
    assert_int_equal(m->listen_port, 9009);
    assert_string_equal(m->password, "");
    assert_string_equal(m->access_token, "");
    assert_int_equal(m->sync_timeout_ms, 1000);
    m = mx_at(&c, 2);
    assert_string_equal(m->listen_host, "10.0.0.5");
    assert_int_equal(m->listen_port, 65535);
    m = mx_at(&c, 3);
    assert_string_equal(m->listen_host, "::1");
    assert_int_equal(m->listen_port, 1);
    m = mx_at(&c, 4);
    assert_string_equal(m->listen_host, "::");
    assert_int_equal(m->listen_port, 8080);
    m = mx_at(&c, 5);
    assert_false(m->appservice);
    assert_string_equal(m->user_id, "@B:h"); /* sync mode: any user ID */
    config_free(&c);
}

/* Parses one appservice [[matrix]] whose registration is `reg`, read as
 * the file `path`, and checks where the registration ends up. */
static void registration_at(const char *path, const char *reg, const char *want)
{
    char text[512], err[ERRLEN] = "";
    snprintf(text, sizeof text,
             "[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
             "user_id = \"@b:h\"\nmode = \"appservice\"\n"
             "registration = \"%s\"\n",
             reg);
    struct config c;
    int rc = config_parse(text, strlen(text), path, registry_protocols, &c, err,
                          sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    if (strcmp(mx_at(&c, 0)->registration, want) != 0)
        print_error("config %s, registration %s: want %s, got %s\n", path, reg,
                    want, mx_at(&c, 0)->registration);
    assert_string_equal(mx_at(&c, 0)->registration, want);
    config_free(&c);
}

/* A relative registration is beside the config file, made absolute: the
 * bot may run in another directory than the one it was started from. */
static void test_matrix_config_registration_beside_config(void **state)
{
    (void)state;
    char cwd[4096], want[8192];
    assert_non_null(getcwd(cwd, sizeof cwd));
    registration_at("/etc/hb/bot.toml", "reg.yaml", "/etc/hb/reg.yaml");
    registration_at("/etc/hb/bot.toml", "as/reg.yaml", "/etc/hb/as/reg.yaml");
    registration_at("/etc/hb/bot.toml", "/var/lib/r.yaml", "/var/lib/r.yaml");
    registration_at("/bot.toml", "reg.yaml", "/reg.yaml");
    snprintf(want, sizeof want, "%s/reg.yaml", cwd);
    registration_at("bot.toml", "reg.yaml", want);
    registration_at("./bot.toml", "reg.yaml", want);
    snprintf(want, sizeof want, "%s/conf/reg.yaml", cwd);
    registration_at("conf/bot.toml", "reg.yaml", want);
    snprintf(want, sizeof want, "%s/../up/reg.yaml", cwd);
    registration_at("bot.toml", "../up/reg.yaml", want);
}

/* The same through config_load, from another directory than the file's. */
static void test_matrix_config_load_registration_beside_config(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_config_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], want[160], err[ERRLEN] = "";
    snprintf(path, sizeof path, "%s/bot.toml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
          "user_id = \"@b:h\"\nmode = \"appservice\"\n"
          "registration = \"heartsbot-registration.yaml\"\n",
          f);
    assert_int_equal(fclose(f), 0);
    struct config c;
    int rc = config_load(path, registry_protocols, &c, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    snprintf(want, sizeof want, "%s/heartsbot-registration.yaml", dir);
    assert_string_equal(mx_at(&c, 0)->registration, want);
    config_free(&c);
    unlink(path);
    rmdir(dir);
}

static const struct bad_case bad_cases[] = {
    /* [[matrix]] */
    {"[matrix]\n", "1:1", "write [[matrix]], one per network"},
    {"[[matrix]]\nname = \"m\"\nuser_id = \"@b:hs\"\npassword = \"p\"\n", "1:1",
     "this [[matrix]] has no 'homeserver'"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://hs\"\n"
     "user_id = \"@b:hs\"\n",
     "1:1", "needs a 'password' or an 'access_token'"},
    {"[[matrix]]\nhomeserver = \"hs.example\"\n", "2:14",
     "must be a URL starting with https://"},
    {"[[matrix]]\nhomeserver = \"https://\"\n", "2:14", "has no host"},
    {"[[matrix]]\nhomeserver = \"https://h/?x\"\n", "2:14", "no ? or #"},
    {"[[matrix]]\nuser_id = \"bot\"\n", "2:11", "\"@name:server\""},
    {"[[matrix]]\nuser_id = \"@bot:\"\n", "2:11", "full Matrix user ID"},
    {"[[matrix]]\naccess_token = \"a b\"\n", "2:16", "contains a space"},
    {"[[matrix]]\nrooms = [\"hearts\"]\n", "2:10", "must start with a room ID"},
    {"[[matrix]]\nrooms = [\"#hearts\"]\n", "2:10",
     "must be written '#name:server'"},
    {"[[matrix]]\nrooms = [\"!a:hs\", \"!a:hs\"]\n", "2:19", "is listed twice"},
    {"[[matrix]]\nrooms = [\"#a:hs nosuchrule\"]\n", "2:10",
     "the rules of #a:hs"},
    {"[[matrix]]\nmax_body_bytes = 10\n", "2:18", "between 65536 and"},
    {"[[matrix]]\nauto_join_invites = 1\n", "2:21", "true or false"},
    {"[[matrix]]\ninvite_from = \":hs\"\n", "2:15", "'invite_from' must be"},
    {"[[matrix]]\ninvite_from = [\"alice\"]\n", "2:16",
     "'invite_from': 'alice' is neither a user ID (\"@name:server\") nor a "
     "server (\":server\")"},
    {"[[matrix]]\ninvite_from = [\"@alice\"]\n", "2:16", "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\"@:hs\"]\n", "2:16", "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\"@a b:hs\"]\n", "2:16", "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\":\"]\n", "2:16", "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\"example.org\"]\n", "2:16",
     "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\":exa mple.org\"]\n", "2:16",
     "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\":hs:99999x\"]\n", "2:16",
     "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\":[::1\"]\n", "2:16", "neither a user ID"},
    {"[[matrix]]\ninvite_from = [\"@a:hs\\u0007\"]\n", "2:16",
     "control character"},
    {"[[matrix]]\ninvite_from = [\":hs\", \"@a:hs\", \":hs\"]\n", "2:32",
     "':hs' is listed twice"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://hs\"\n"
     "user_id = \"@b:hs\"\npassword = \"p\"\nauto_join_invites = false\n"
     "invite_from = [\":hs\"]\n",
     "7:1", "auto_join_invites = false takes no invite"},
    /* [[matrix]] modes (docs/hosting.md, "Matrix as an application
     * service") */
    {"[[matrix]]\nmode = \"push\"\n", "2:8",
     "'mode' must be \"sync\" or \"appservice\""},
    {"[[matrix]]\nmode = \"AppService\"\n", "2:8", "must be \"sync\" or"},
    {"[[matrix]]\nmode = true\n", "2:8", "'mode' must be a string"},
    {"[[matrix]]\nregistration = \"\"\n", "2:16", "'registration' is empty"},
    {"[[matrix]]\nregistration = \"a\\nb\"\n", "2:16", "control character"},
    {"[[matrix]]\nlisten = \"127.0.0.1\"\n", "2:10",
     "'listen' has no port: write \"ADDRESS:PORT\""},
    {"[[matrix]]\nlisten = \"127.0.0.1:0\"\n", "2:10",
     "'listen' must end in a port from 1 to 65535"},
    {"[[matrix]]\nlisten = \"127.0.0.1:65536\"\n", "2:10", "from 1 to 65535"},
    {"[[matrix]]\nlisten = \"127.0.0.1:123456\"\n", "2:10", "from 1 to 65535"},
    {"[[matrix]]\nlisten = \"127.0.0.1:+80\"\n", "2:10", "from 1 to 65535"},
    {"[[matrix]]\nlisten = \"127.0.0.1:\"\n", "2:10", "from 1 to 65535"},
    {"[[matrix]]\nlisten = \"localhost:9009\"\n", "2:10",
     "'listen' must name a numeric IPv4 address, not 'localhost'"},
    {"[[matrix]]\nlisten = \"127.1:9009\"\n", "2:10", "numeric IPv4 address"},
    {"[[matrix]]\nlisten = \"256.0.0.1:9009\"\n", "2:10", "numeric IPv4"},
    {"[[matrix]]\nlisten = \":9009\"\n", "2:10",
     "must be a numeric address and a port"},
    {"[[matrix]]\nlisten = \"::1:9009\"\n", "2:10",
     "an IPv6 address goes in brackets, as \"[::1]:9009\""},
    {"[[matrix]]\nlisten = \"[::1]\"\n", "2:10",
     "'listen' must be \"[IPv6]:PORT\""},
    {"[[matrix]]\nlisten = \"[::1]9009\"\n", "2:10", "\"[IPv6]:PORT\""},
    {"[[matrix]]\nlisten = \"[127.0.0.1]:9009\"\n", "2:10",
     "numeric IPv6 address, not '127.0.0.1'"},
    {"[[matrix]]\nlisten = \"[fe80::1%eth0]:9009\"\n", "2:10",
     "numeric IPv6 address"},
    {"[[matrix]]\nlisten = \"[]:9009\"\n", "2:10", "a numeric address and"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@b:h\"\nmode = \"appservice\"\n",
     "1:1",
     "this [[matrix]] has mode = \"appservice\" but no 'registration' (the "
     "file `heartsbot --appservice-registration CONFIG` writes)"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@b:h\"\npassword = \"p\"\nmode = \"appservice\"\n"
     "registration = \"r.yaml\"\n",
     "5:1",
     "'password' is not used with mode = \"appservice\": the bot acts with "
     "the as_token of its registration file (remove 'password')"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@b:h\"\nmode = \"appservice\"\nregistration = \"r\"\n"
     "access_token = \"\"\n",
     "7:1", "'access_token' is not used with mode = \"appservice\""},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@b:h\"\npassword = \"p\"\nregistration = \"r.yaml\"\n",
     "6:1",
     "'registration' is only for mode = \"appservice\" (this [[matrix]] is "
     "in sync mode)"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@b:h\"\nmode = \"sync\"\npassword = \"p\"\n"
     "listen = \"127.0.0.1:9009\"\n",
     "7:1", "'listen' is only for mode = \"appservice\""},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@HeartsBot:h\"\nmode = \"appservice\"\n"
     "registration = \"r\"\n",
     "4:1",
     "with mode = \"appservice\" the homeserver registers 'user_id': its "
     "name before ':' may hold only a-z, 0-9 and . _ = - / +"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@b\xc3\xa9:h\"\nmode = \"appservice\"\n"
     "registration = \"r\"\n",
     "4:1", "may hold only a-z"},
};

/* invite_from: who may invite the bot, by user ID or by server. */
static void test_matrix_config_invite_from(void **state)
{
    (void)state;
    struct config c;
    parse_ok("[[matrix]]\nname = \"mx\"\nhomeserver = \"https://hs\"\n"
             "user_id = \"@b:hs\"\npassword = \"p\"\n"
             "invite_from = [\"@alice:example.org\", \":friends.example\", "
             "\":[::1]:8448\", \":127.0.0.1:8008\"]\n"
             "[[matrix]]\nname = \"any\"\nhomeserver = \"https://hs\"\n"
             "user_id = \"@b:hs\"\npassword = \"p\"\n",
             &c);
    const struct matrix_config *m = mx_at(&c, 0);
    assert_int_equal(m->ninvite_from, 4);
    assert_string_equal(m->invite_from[0], "@alice:example.org");
    assert_true(matrix_config_may_invite(m, "@alice:example.org"));
    /* a user ID is compared exactly; a server case aside */
    assert_false(matrix_config_may_invite(m, "@Alice:example.org"));
    assert_false(matrix_config_may_invite(m, "@bob:example.org"));
    assert_false(matrix_config_may_invite(m, "@alice:example.org.evil"));
    assert_true(matrix_config_may_invite(m, "@bob:friends.example"));
    assert_true(matrix_config_may_invite(m, "@bob:Friends.Example"));
    assert_false(matrix_config_may_invite(m, "@bob:evil.friends.example"));
    assert_false(matrix_config_may_invite(m, "@bob:friends.example:8448"));
    assert_true(matrix_config_may_invite(m, "@x:[::1]:8448"));
    assert_true(matrix_config_may_invite(m, "@x:127.0.0.1:8008"));
    assert_false(matrix_config_may_invite(m, "@x:127.0.0.1"));
    assert_false(matrix_config_may_invite(m, NULL));
    assert_false(matrix_config_may_invite(m, "friends.example"));
    /* none named: anyone */
    m = mx_at(&c, 1);
    assert_int_equal(m->ninvite_from, 0);
    assert_true(matrix_config_may_invite(m, "@anyone:anywhere"));
    config_free(&c);
}

static void test_matrix_config_refused(void **state)
{
    (void)state;
    parse_bad_cases(bad_cases, sizeof bad_cases / sizeof bad_cases[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_config_keys),
        cmocka_unit_test(test_matrix_config_modes),
        cmocka_unit_test(test_matrix_config_registration_beside_config),
        cmocka_unit_test(test_matrix_config_load_registration_beside_config),
        cmocka_unit_test(test_matrix_config_invite_from),
        cmocka_unit_test(test_matrix_config_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
