/*
 * Tests of bot/config.c: config.example.toml reads as documented, keys
 * left out take their documented defaults, the TOML the subset allows
 * (escapes, underscores in integers, arrays over several lines, comments
 * anywhere, CRLF, a BOM) reads right, networks of the protocols share
 * no name, and a table of malformed or invalid files is refused with the
 * expected line, column and message while the caller's struct stays as
 * it was. The [[irc]] and [[matrix]] tables' own keys are tested beside
 * their readers (tests/unit/adapters/irc/test_irc_config.c,
 * ...matrix/test_matrix_config.c). Run under ASan and valgrind by the CI.
 */
#include "bot/config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/support/config_check.h"

/* The repository's root, from where this file sits in it. */
static void source_path(const char *rel, char *buf, size_t len)
{
    static const char self[] = "tests/unit/bot/test_config.c";
    const char *file = __FILE__;
    size_t n = strlen(file);
    assert_true(n >= strlen(self));
    assert_string_equal(file + n - strlen(self), self);
    snprintf(buf, len, "%.*s%s", (int)(n - strlen(self)), file, rel);
}

/* ---- What is accepted ------------------------------------------------- */

static void test_config_load_example(void **state)
{
    (void)state;
    char path[4096], err[ERRLEN] = "";
    source_path("config.example.toml", path, sizeof path);
    struct config c;
    int rc = config_load(path, registry_protocols, &c, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(c.data_dir, "data");
    assert_string_equal(c.log_level, "info");
    assert_string_equal(c.command_prefix, "!");
    assert_true(c.colors);
    assert_int_equal(c.nadmins, 1);
    assert_string_equal(c.admins[0], "admin!*@127.0.0.1");
    assert_string_equal(c.default_rules, "standard");
    assert_int_equal(c.turn_timeout, 90);
    assert_int_equal(c.max_timeouts, 2);
    assert_int_equal(c.lobby_timeout, 600);
    assert_int_equal(c.grace_period, 120);
    assert_int_equal(c.max_turn_timeout, 604800);
    assert_string_equal(c.bot_level, "easy");
    assert_int_equal(c.next_hand_delay, 3);
    assert_int_equal(c.playouts[AI_NORMAL], 0);
    assert_int_equal(c.playouts[AI_HARD], 0);
    assert_int_equal(c.think_threads, 1);
    assert_int_equal(c.reply_burst, 6);
    assert_int_equal(c.reply_interval, 5);
    assert_int_equal(c.repeat_quiet, 30);
    assert_int_equal(c.channel_repeat, 30);
    assert_int_equal(c.chatter_burst, 5);
    assert_int_equal(c.chatter_interval, 60);
    assert_int_equal(c.unattended_pause, 0);
    assert_int_equal(c.unattended_end, 600);
    assert_int_equal(count_irc(&c), 1);
    const struct irc_config *irc = irc_at(&c, 0);
    assert_string_equal(irc->name, "local");
    assert_string_equal(irc->host, "127.0.0.1");
    assert_int_equal(irc->port, 6667);
    assert_string_equal(irc->nick, "heartsbot");
    assert_string_equal(irc->username, "heartsbot");
    assert_string_equal(irc->realname, "heartsbot: Hearts for IRC");
    assert_string_equal(irc->password, "");
    assert_string_equal(irc->nickserv_password, "");
    assert_int_equal(irc->nchannels, 1);
    assert_string_equal(irc->channels[0].name, "#hearts");
    assert_null(irc->channels[0].rules);
    assert_int_equal(irc->flood_burst, 4);
    assert_int_equal(irc->flood_interval_ms, 1100);
    /* unset bounds: the floor by the server (0), four times slower */
    assert_int_equal(irc->flood_min_interval_ms, 0); /* auto */
    assert_int_equal(irc->flood_max_interval_ms, 4400);
    assert_string_equal(irc->nickserv_account, "");
    assert_string_equal(irc->services_mask, "NickServ!*@services.*");
    config_free(&c);
}

/* The defaults every key left out takes (those of config.example.toml). */
static void check_bot_game_defaults(const struct config *c)
{
    assert_string_equal(c->data_dir, "data");
    assert_string_equal(c->log_level, "info");
    assert_string_equal(c->command_prefix, "!");
    assert_true(c->colors);
    assert_int_equal(c->nadmins, 0);
    assert_null(c->admins);
    assert_string_equal(c->default_rules, "standard");
    assert_int_equal(c->turn_timeout, 90);
    assert_int_equal(c->max_timeouts, 2);
    assert_int_equal(c->lobby_timeout, 600);
    assert_int_equal(c->grace_period, 120);
    assert_int_equal(c->max_turn_timeout, 604800);
    assert_string_equal(c->bot_level, "easy");
    assert_int_equal(c->next_hand_delay, 3);
    assert_int_equal(c->reply_burst, 6);
    assert_int_equal(c->reply_interval, 5);
    assert_int_equal(c->repeat_quiet, 30);
    assert_int_equal(c->channel_repeat, 30);
    assert_int_equal(c->chatter_burst, 5);
    assert_int_equal(c->chatter_interval, 60);
    assert_int_equal(c->unattended_pause, 0);
    assert_int_equal(c->unattended_end, 600);
}

static void test_config_parse_empty_file(void **state)
{
    (void)state;
    struct config c;
    parse_ok("", &c);
    check_bot_game_defaults(&c);
    assert_int_equal(count_irc(&c), 0);
    assert_null(c.networks);
    config_free(&c);
    /* empty tables are tables too */
    parse_ok("[bot]\n[game]\n", &c);
    check_bot_game_defaults(&c);
    config_free(&c);
}

static void test_config_parse_values(void **state)
{
    (void)state;
    struct config c;
    parse_ok("[bot]\n"
             "data_dir = \"/var/lib/heartsbot\"\n"
             "log_level = \"debug\"\n"
             "command_prefix = \"h.\"\n"
             "colors = false\n"
             "admins = [\n"
             "  \"a!*@*\",\n"
             "  \"account:bob\", # trailing comma next\n"
             "  \"@carol:example.org\",\n"
             "]\n"
             "[game]\n"
             "default_rules = \"omnibus target=50\"\n"
             "turn_timeout = 1_000\n"
             "max_timeouts = +7\n"
             "lobby_timeout = 86_400\n"
             "grace_period = 0\n"
             "bot_level = \"random\"\n"
             "next_hand_delay = 60\n",
             &c);
    assert_string_equal(c.data_dir, "/var/lib/heartsbot");
    assert_string_equal(c.log_level, "debug");
    assert_string_equal(c.command_prefix, "h.");
    assert_false(c.colors);
    assert_int_equal(c.nadmins, 3);
    assert_string_equal(c.admins[0], "a!*@*");
    assert_string_equal(c.admins[1], "account:bob");
    assert_string_equal(c.admins[2], "@carol:example.org");
    assert_string_equal(c.default_rules, "omnibus target=50");
    assert_int_equal(c.turn_timeout, 1000);
    assert_int_equal(c.max_timeouts, 7);
    assert_int_equal(c.lobby_timeout, 86400);
    assert_int_equal(c.grace_period, 0);
    assert_string_equal(c.bot_level, "random");
    assert_int_equal(c.next_hand_delay, 60);
    assert_int_equal(count_irc(&c), 0);
    config_free(&c);
}

/* [site]: off by default; its address ends with '/'. */
static void test_config_parse_site(void **state)
{
    (void)state;
    struct config c;
    parse_ok("", &c);
    assert_string_equal(c.site_dir, "");
    assert_string_equal(c.site_url, "");
    assert_int_equal(c.nsite_hide_hands, 0);
    config_free(&c);
    parse_ok("[site]\n"
             "dir = \"/var/www/hearts\"\n"
             "url = \"https://hearts.example.org/club\"\n"
             "hide_hands = [\"libera #secret\", \"matrix !a:example.org\"]\n",
             &c);
    assert_string_equal(c.site_dir, "/var/www/hearts");
    assert_string_equal(c.site_url, "https://hearts.example.org/club/");
    assert_int_equal(c.nsite_hide_hands, 2);
    assert_string_equal(c.site_hide_hands[1], "matrix !a:example.org");
    config_free(&c);
    parse_ok("[site]\nurl = \"http://h/\"\n", &c);
    assert_string_equal(c.site_url, "http://h/");
    config_free(&c);
}

/* Every integer key at both ends of its range, then just past them. */
static void test_config_parse_range_bounds(void **state)
{
    (void)state;
    static const struct int_key keys[] = {
        {"[game]", "turn_timeout", 5, 86400,
         offsetof(struct config, turn_timeout)},
        {"[game]", "max_timeouts", 1, 100,
         offsetof(struct config, max_timeouts)},
        {"[game]", "lobby_timeout", 10, 86400,
         offsetof(struct config, lobby_timeout)},
        {"[game]", "grace_period", 0, 86400,
         offsetof(struct config, grace_period)},
        {"[game]", "max_turn_timeout", 0, 604800,
         offsetof(struct config, max_turn_timeout)},
        {"[game]", "next_hand_delay", 0, 60,
         offsetof(struct config, next_hand_delay)},
        {"[game]", "normal_playouts", 0, 100000,
         offsetof(struct config, playouts[AI_NORMAL])},
        {"[game]", "hard_playouts", 0, 100000,
         offsetof(struct config, playouts[AI_HARD])},
        {"[game]", "think_threads", 1, 8,
         offsetof(struct config, think_threads)},
        {"[game]", "unattended_pause", 0, 86400,
         offsetof(struct config, unattended_pause)},
        {"[game]", "unattended_end", 1, 86400,
         offsetof(struct config, unattended_end)},
        {"[bot]", "reply_burst", 1, 100, offsetof(struct config, reply_burst)},
        {"[bot]", "reply_interval", 0, 3600,
         offsetof(struct config, reply_interval)},
        {"[bot]", "repeat_quiet", 0, 86400,
         offsetof(struct config, repeat_quiet)},
        {"[bot]", "channel_repeat", 0, 3600,
         offsetof(struct config, channel_repeat)},
        {"[bot]", "chatter_burst", 1, 1000,
         offsetof(struct config, chatter_burst)},
        {"[bot]", "chatter_interval", 0, 3600,
         offsetof(struct config, chatter_interval)},
    };
    check_int_ranges(keys, sizeof keys / sizeof keys[0], NULL, "");
}

static void test_config_parse_crlf(void **state)
{
    (void)state;
    struct config c;
    parse_ok("[bot]\r\ndata_dir = \"d\" # note\r\nadmins = [\r\n\"x\",\r\n"
             "]\r\n\r\n[game]\r\nturn_timeout = 30\r\n",
             &c);
    assert_string_equal(c.data_dir, "d");
    assert_int_equal(c.nadmins, 1);
    assert_string_equal(c.admins[0], "x");
    assert_int_equal(c.turn_timeout, 30);
    config_free(&c);
    /* and an error's line and column count CRLF lines right */
    BAD("[bot]\r\n\r\ncolors = 1\r\n", "3:10", "true or false");
}

static void test_config_parse_bom(void **state)
{
    (void)state;
    struct config c;
    parse_ok("\xef\xbb\xbf[game]\nturn_timeout = 33\n", &c);
    assert_int_equal(c.turn_timeout, 33);
    config_free(&c);
    /* columns count from after the BOM */
    BAD("\xef\xbb\xbf[gmae]\n", "1:2", "unknown table 'gmae'");
    /* a BOM anywhere else is a character like any other */
    BAD("[bot]\n\xef\xbb\xbf", "2:1", "non-ASCII character");
}

static void test_config_parse_comments_everywhere(void **state)
{
    (void)state;
    struct config c;
    parse_ok("# top\n"
             "   # indented\n"
             "\t\n"
             "[bot] # after a header\n"
             "data_dir = \"a#b\" # a '#' in a string is not a comment\n"
             "admins = [ # after the bracket\n"
             "  # a line of its own\n"
             "  \"x\" # after an item\n"
             "  , # after a comma\n"
             "  \"y\"\n"
             "] # after the array\n"
             "[[irc]]#tight\n"
             "name=\"n\"#tight\n"
             "host\t=\t\"h\"\n"
             "nick = \"k\"\n"
             "# last line without a line end",
             &c);
    assert_string_equal(c.data_dir, "a#b");
    assert_int_equal(c.nadmins, 2);
    assert_string_equal(c.admins[1], "y");
    assert_string_equal(irc_at(&c, 0)->name, "n");
    assert_string_equal(irc_at(&c, 0)->host, "h");
    config_free(&c);
}

/* ---- What is refused -------------------------------------------------- */

static const struct bad_case bad_cases[] = {
    /* tables and keys */
    {"[game]\nturn_timout = 5\n", "2:1",
     "unknown key 'turn_timout' in [game] (did you mean 'turn_timeout'?)"},
    {"[[irc]]\nnik = \"x\"\n", "2:1", "did you mean 'nick'?"},
    {"[gaem]\n", "1:2", "unknown table 'gaem' (did you mean [game]?"},
    {"[[ircc]]\n", "1:3", "did you mean [[irc]]?"},
    {"turn_timeout = 5\n", "1:1", "belongs under [game]"},
    {"colour = true\n", "1:1",
     "unknown key 'colour' before any table header (did you mean 'colors' "
     "under [bot]?)"},
    {"[bot]\ncolors = true\ncolors = false\n", "3:1",
     "duplicate key 'colors' (first set at line 2)"},
    {"[bot]\n[game]\n[bot]\n", "3:1",
     "[bot] is defined twice (first at line 1)"},
    {"[game]\n[game]\n", "2:1", "[game] is defined twice"},
    {"[irc]\n", "1:1", "write [[irc]]"},
    {"[[bot]]\n", "1:1", "bot is a single table: write [bot]"},
    {"[bot.x]\n", "1:5", "dotted table names"},
    {"[\"bot\"]\n", "1:2", "quoted table names"},
    {"[]\n", "1:2", "expected a table name"},
    {"[bot\n", "1:5", "expected ']'"},
    {"[[irc]\n", "1:6", "expected ']]'"},
    {"[bot] x\n", "1:7", "unexpected 'x' after the table header"},
    {"[bot]\na.b = 1\n", "2:2", "dotted keys"},
    {"[bot]\n\"colors\" = true\n", "2:1", "quoted keys"},
    {"[bot]\n= true\n", "2:1", "a key is missing"},
    {"[bot]\ncolors true\n", "2:8", "expected '=' after the key 'colors'"},
    {"[bot]\ncolors =\n", "2:9", "missing value"},
    {"[bot]\ncolors = # none\n", "2:10", "missing value"},
    {"[bot]\ncolors =", "2:9", "missing value"},
    {"[bot]\n}\n", "2:1", "unexpected '}': expected a key"},
    /* types */
    {"[game]\nturn_timeout = \"90\"\n", "2:16",
     "'turn_timeout' must be an integer, not a string"},
    {"[bot]\ncolors = 1\n", "2:10",
     "'colors' must be true or false, not an integer"},
    {"[bot]\ncolors = \"true\"\n", "2:10", "not a string"},
    {"[bot]\nadmins = \"x\"\n", "2:10",
     "'admins' must be an array of strings, not a string"},
    {"[bot]\ndata_dir = [\"x\"]\n", "2:12",
     "'data_dir' must be a string, not an array"},
    {"[game]\nbot_level = true\n", "2:13", "not a boolean"},
    {"[bot]\ndata_dir = data\n", "2:12", "strings need double quotes"},
    {"[bot]\ncolors = yes\n", "2:10", "expected a value"},
    {"[bot]\ncolors = TRUE\n", "2:10", "expected a value"},
    /* what TOML has and the subset does not */
    {"[game]\nturn_timeout = 1.5\n", "2:16", "floats are not supported"},
    {"[game]\nturn_timeout = 1e3\n", "2:16", "floats are not supported"},
    {"[game]\nturn_timeout = -inf\n", "2:16", "floats are not supported"},
    {"[game]\nturn_timeout = nan\n", "2:16", "floats are not supported"},
    {"[game]\nturn_timeout = 1979-05-27\n", "2:16", "dates and times"},
    {"[game]\nturn_timeout = 07:32:00\n", "2:16", "dates and times"},
    {"[game]\nturn_timeout = 0x10\n", "2:16", "hexadecimal"},
    {"[game]\nturn_timeout = 090\n", "2:16", "leading zeros"},
    {"[game]\nturn_timeout = 1__0\n", "2:17", "'_' in an integer"},
    {"[game]\nturn_timeout = 10_\n", "2:18", "'_' in an integer"},
    {"[game]\nturn_timeout = _10\n", "2:16", "expected a value"},
    {"[game]\nturn_timeout = 12ab\n", "2:18", "invalid integer"},
    {"[game]\nturn_timeout = +\n", "2:16", "expected a value"},
    {"[bot]\nadmins = {a = 1}\n", "2:10", "inline tables"},
    {"[bot]\ndata_dir = 'x'\n", "2:12", "literal strings"},
    {"[bot]\ndata_dir = \"\"\"x\"\"\"\n", "2:12", "multi-line strings"},
    /* integers too large for 64 bits, and large ones within them */
    {"[game]\nturn_timeout = 9223372036854775808\n", "2:16",
     "integer too large"},
    {"[game]\nturn_timeout = 99999999999999999999\n", "2:16",
     "integer too large"},
    {"[game]\nturn_timeout = -9223372036854775809\n", "2:16",
     "integer too large"},
    {"[game]\nturn_timeout = 9223372036854775807\n", "2:16",
     "between 5 and 86400"},
    {"[game]\nturn_timeout = -9223372036854775808\n", "2:16",
     "between 5 and 86400"},
    {"[game]\nturn_timeout = 4294967301\n", "2:16", "between 5 and 86400"},
    /* the line after a value */
    {"[game]\nturn_timeout = 90 x\n", "2:19", "unexpected 'x' after the value"},
    {"[game]\nturn_timeout = 90 91\n", "2:19", "unexpected '9'"},
    {"[bot]\ndata_dir = \"a\" \"b\"\n", "2:16", "unexpected '\"'"},
    {"[bot]\r\ncolors = true\r", "2:14",
     "carriage return without a line feed after the value"},
    /* strings */
    {"[bot]\ndata_dir = \"abc\n", "2:12", "string not closed"},
    {"[bot]\ndata_dir = \"abc", "2:12", "string not closed"},
    {"[bot]\ndata_dir = \"a\\qb\"\n", "2:14", "invalid escape '\\q'"},
    {"[bot]\ndata_dir = \"a\\e\"\n", "2:14", "invalid escape '\\e'"},
    {"[bot]\ndata_dir = \"a\\ b\"\n", "2:14", "a backslash must start"},
    {"[bot]\ndata_dir = \"\\u12\"\n", "2:13", "'\\u' needs 4 hex digits"},
    {"[bot]\ndata_dir = \"\\U0001F0A\"\n", "2:13", "'\\U' needs 8 hex digits"},
    {"[bot]\ndata_dir = \"\\uD800\"\n", "2:13", "not a Unicode scalar"},
    {"[bot]\ndata_dir = \"\\U00110000\"\n", "2:13", "not a Unicode scalar"},
    {"[bot]\ndata_dir = \"a\\u0000\"\n", "2:14", "NUL"},
    {"[bot]\ndata_dir = \"a\x01z\"\n", "2:14",
     "control character 0x01 in a string"},
    {"[bot]\ndata_dir = \"a\x7fz\"\n", "2:14", "control character 0x7F"},
    {"[bot]\ndata_dir = \"a\rz\"\n", "2:14", "carriage return"},
    {"[[irc]]\nrealname = \"a\\nb\"\n", "2:12",
     "'realname' contains a control character"},
    {"[[irc]]\nrealname = \"\xc3\xa9\" x\n", "2:16", "unexpected 'x'"},
    {"[[irc]]\nrealname =\t\"a\\tb\"\n", "2:12", "control character"},
    /* UTF-8 */
    {"[bot]\n# caf\xc3\n", "2:6", "invalid UTF-8"},
    {"[bot]\ndata_dir = \"\xc0\xaf\"\n", "2:13", "invalid UTF-8"},
    {"[bot]\ndata_dir = \"\xed\xa0\x80\"\n", "2:13", "invalid UTF-8"},
    {"[bot]\ndata_dir = \"\xf4\x90\x80\x80\"\n", "2:13", "invalid UTF-8"},
    {"[bot]\ndata_dir = \"\xe2\x82\"\n", "2:13", "invalid UTF-8"},
    {"[bot]\ndata_dir = \"\xc3\xa9\xff\"\n", "2:14", "invalid UTF-8"},
    {"# \x01\n", "1:3", "control character 0x01 in a comment"},
    /* arrays */
    {"[bot]\nadmins = [\"a\",\n\"b\"\n", "2:10", "array not closed"},
    {"[bot]\nadmins = [\n", "2:10", "array not closed"},
    {"[bot]\nadmins = [\"a\",\n[game]\n", "3:1",
     "expected a \"string\" or ']' in the array opened at line 2"},
    {"[bot]\nadmins = [1, 2]\n", "2:11",
     "arrays hold only strings, not an integer"},
    {"[bot]\nadmins = [\"a\", true]\n", "2:16", "not a boolean"},
    {"[bot]\nadmins = [[\"a\"]]\n", "2:11", "arrays hold only strings"},
    {"[bot]\nadmins = [\"a\" \"b\"]\n", "2:15", "expected ',' or ']'"},
    {"[bot]\nadmins = [,]\n", "2:11", "expected a value"},
    {"[bot]\nadmins = [\"a\",,]\n", "2:15", "expected a value"},
    {"[bot]\nadmins = ['a']\n", "2:11", "literal strings"},
    {"[bot]\nadmins = [\"\"]\n", "2:11", "an entry of 'admins' is empty"},
    {"[bot]\nadmins = [\"a\", \"b c\"]\n", "2:16", "contains a space"},
    /* [bot] values */
    {"[bot]\ndata_dir = \"\"\n", "2:12", "'data_dir' is empty"},
    {"[bot]\nlog_level = \"verbose\"\n", "2:13",
     "'log_level' must be error, warn, info or debug"},
    {"[bot]\nlog_level = \"INFO\"\n", "2:13", "must be error, warn"},
    {"[bot]\ncommand_prefix = \"\"\n", "2:18", "1 to 8 characters"},
    {"[bot]\ncommand_prefix = \"123456789\"\n", "2:18", "1 to 8 characters"},
    {"[bot]\ncommand_prefix = \"! \"\n", "2:18", "without spaces"},
    {"[bot]\ncommand_prefix = \"\xc2\xa1\"\n", "2:18", "printable ASCII"},
    /* [game] values */
    {"[game]\ndefault_rules = \"standard bogus=1\"\n", "2:17",
     "'default_rules': unknown option 'bogus'"},
    {"[game]\ndefault_rules = \"nosuch\"\n", "2:17",
     "'default_rules': unknown preset 'nosuch'"},
    {"[game]\nbot_level = \"expert\"\n", "2:13",
     "'bot_level' must be a computer level: random, easy, normal, hard"},
    {"[[irc]]\nname = \"net\"\nhost = \"h\"\nnick = \"n\"\n"
     "[[matrix]]\nname = \"NET\"\n",
     "6:8", "another [[irc]] is already named 'NET'"},
    {"[[matrix]]\nname = \"m\"\nhomeserver = \"https://h\"\n"
     "user_id = \"@b:h\"\npassword = \"p\"\n"
     "[[irc]]\nname = \"m\"\n",
     "7:8", "another [[matrix]] is already named 'm'"},
    /* bytes where a key should be */
    {"[bot]\n\x01\n", "2:1", "control character 0x01"},
    /* [site] */
    {"[site]\nurl = \"ftp://x.org/\"\n", "2:7",
     "'url' must be an http:// or https:// address with a host"},
    {"[site]\nurl = \"https:///x\"\n", "2:7", "with a host"},
    {"[site]\nurl = \"https://x.org/a b\"\n", "2:7",
     "'url' may hold only printable ASCII without spaces"},
    {"[site]\nurl = \"https://x.org/\\\"><script>\"\n", "2:7",
     "without spaces, quotes, <, >"},
    {"[site]\nhide_hands = [\"libera\"]\n", "2:15",
     "an entry of 'hide_hands' must be \"NETWORK ROOM\""},
    {"[site]\nhide_hands = [\"libera #a #b\"]\n", "2:15", "NETWORK ROOM"},
    {"[site]\nhide_hands = [\" #a\"]\n", "2:15", "NETWORK ROOM"},
    {"[site]\n[site]\n", "2:1", "[site] is defined twice"},
    {"\xc3\xa9 = 1\n", "1:1", "non-ASCII character"},
};

static void test_config_parse_refused(void **state)
{
    (void)state;
    parse_bad_cases(bad_cases, sizeof bad_cases / sizeof bad_cases[0]);
}

/* NUL bytes are not strings' ends to the reader: the length is. */
static void test_config_parse_nul_byte(void **state)
{
    (void)state;
    BAD("[bot]\ndata_dir = \"a\0b\"\n", "2:14",
        "control character 0x00 in a string");
    BAD("[game]\nturn_timeout = 9\0\n", "2:17",
        "unexpected control character 0x00 after the value");
    BAD("[bot]\0\n", "1:6", "control character 0x00");
}

/* A refused file leaves a config the caller already holds as it was,
 * even when the error comes after much of it was read. */
static void test_config_parse_error_keeps_out(void **state)
{
    (void)state;
    struct config c, copy;
    parse_ok("[bot]\ndata_dir = \"old\"\n", &c);
    memcpy(&copy, &c, sizeof c);
    char err[ERRLEN];
    const char *text = "[bot]\ndata_dir = \"new\"\nadmins = [\"a\", \"b\"]\n"
                       "[[irc]]\nname = \"n\"\nhost = \"h\"\nnick = \"k\"\n"
                       "channels = [\"#a\", \"#b\"]\n[game]\nturn_timeot = 1\n";
    assert_int_equal(config_parse(text, strlen(text), "x.toml",
                                  registry_protocols, &c, err, sizeof err),
                     -1);
    assert_memory_equal(&c, &copy, sizeof c);
    assert_string_equal(c.data_dir, "old");
    assert_string_equal(err,
                        "x.toml:10:1: unknown key 'turn_timeot' in [game] (did "
                        "you mean 'turn_timeout'?)");
    config_free(&c);
}

static void test_config_parse_no_err_buffer(void **state)
{
    (void)state;
    struct config c;
    memset(&c, 0x5a, sizeof c);
    assert_int_equal(
        config_parse("[x]", 3, "t", registry_protocols, &c, NULL, 0), -1);
    char err[12];
    assert_int_equal(
        config_parse("[x]", 3, "t", registry_protocols, &c, err, sizeof err),
        -1);
    assert_string_equal(err, "t:1:2: unkn"); /* cut, still terminated */
    assert_int_equal(config_parse("", 0, NULL, registry_protocols, &c, NULL, 0),
                     0);
    check_bot_game_defaults(&c);
    config_free(&c);
}

static void test_config_parse_too_large(void **state)
{
    (void)state;
    size_t len = 1024 * 1024 + 1;
    char *text = malloc(len);
    assert_non_null(text);
    memset(text, '\n', len);
    struct config c;
    char err[ERRLEN];
    assert_int_equal(config_parse(text, len, "big.toml", registry_protocols, &c,
                                  err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "big.toml: larger than 1 MiB"));
    /* exactly 1 MiB of blank lines is a config with every default */
    assert_int_equal(config_parse(text, len - 1, "big.toml", registry_protocols,
                                  &c, err, sizeof err),
                     0);
    check_bot_game_defaults(&c);
    config_free(&c);
    free(text);
}

/* At most 64 networks and 256 channels on one: the 65th and the 257th
 * are refused where they start, and 64 and 256 are read. */
static void test_config_parse_limits(void **state)
{
    (void)state;
    size_t cap = 64 * 1024, len = 0, len64 = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 0; i < 65; i++) {
        len64 = len;
        len += (size_t)snprintf(text + len, cap - len,
                                "[[irc]]\nname = \"n%d\"\nhost = \"h\"\n"
                                "nick = \"k\"\n",
                                i);
    }
    assert_true(len < cap);
    parse_bad(text, len, "257:1", "more than 64 [[irc]] tables");
    struct config c;
    char err[ERRLEN];
    assert_int_equal(
        config_parse(text, len64, "t", registry_protocols, &c, err, sizeof err),
        0);
    assert_int_equal(count_irc(&c), 64);
    assert_string_equal(irc_at(&c, 63)->name, "n63");
    config_free(&c);

    len = (size_t)snprintf(text, cap,
                           "[[irc]]\nname = \"n\"\nhost = "
                           "\"h\"\nnick = \"k\"\nchannels = [\n");
    for (int i = 0; i < 257; i++) {
        len64 = len;
        len += (size_t)snprintf(text + len, cap - len, "\"#c%d\",\n", i);
    }
    len += (size_t)snprintf(text + len, cap - len, "]\n");
    assert_true(len < cap);
    parse_bad(text, len, "262:1", "more than 256 channels on one network");
    memcpy(text + len64, "]\n", 2);
    assert_int_equal(config_parse(text, len64 + 2, "t", registry_protocols, &c,
                                  err, sizeof err),
                     0);
    assert_int_equal(irc_at(&c, 0)->nchannels, 256);
    assert_string_equal(irc_at(&c, 0)->channels[255].name, "#c255");
    config_free(&c);
    free(text);
}

/* Writes text to a new temporary file; returns its path in buf. */
static void temp_file(const char *text, size_t len, char *buf, size_t blen)
{
    snprintf(buf, blen, "/tmp/test_config_XXXXXX");
    int fd = mkstemp(buf);
    assert_true(fd >= 0);
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        assert_true(w > 0);
        off += (size_t)w;
    }
    assert_int_equal(close(fd), 0);
}

static void test_config_load_errors(void **state)
{
    (void)state;
    struct config c, sentinel;
    memset(&c, 0xa5, sizeof c);
    memset(&sentinel, 0xa5, sizeof sentinel);
    char err[ERRLEN];
    assert_int_equal(config_load("/nonexistent/heartsbot.toml",
                                 registry_protocols, &c, err, sizeof err),
                     -1);
    assert_string_equal(err, "/nonexistent/heartsbot.toml: cannot open: No "
                             "such file or directory");
    assert_int_equal(
        config_load("/tmp", registry_protocols, &c, err, sizeof err), -1);
    assert_string_equal(err, "/tmp: cannot read: Is a directory");

    char path[64];
    size_t len = 3 * 1024 * 1024;
    char *big = malloc(len);
    assert_non_null(big);
    memset(big, '#', len);
    temp_file(big, len, path, sizeof path);
    free(big);
    assert_int_equal(config_load(path, registry_protocols, &c, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "larger than 1 MiB"));
    unlink(path);

    const char bad[] = "[bot]\ncolors = 2\n";
    temp_file(bad, sizeof bad - 1, path, sizeof path);
    assert_int_equal(config_load(path, registry_protocols, &c, err, sizeof err),
                     -1);
    char want[128];
    snprintf(want, sizeof want, "%s:2:10: 'colors' must be true or false",
             path);
    assert_memory_equal(err, want, strlen(want));
    unlink(path);
    assert_memory_equal(&c, &sentinel, sizeof c);

    const char good[] = "[game]\nturn_timeout = 45\n";
    temp_file(good, sizeof good - 1, path, sizeof path);
    assert_int_equal(config_load(path, registry_protocols, &c, err, sizeof err),
                     0);
    assert_int_equal(c.turn_timeout, 45);
    config_free(&c);
    unlink(path);
}

/* ---- config_check: every problem, reading on ---------------------------- */

struct problems {
    int n;
    char first[ERRLEN];
    char all[4096];
};

static void note_problem(void *ctx, const char *msg)
{
    struct problems *p = ctx;
    if (p->n++ == 0)
        snprintf(p->first, sizeof p->first, "%s", msg);
    size_t used = strlen(p->all);
    snprintf(p->all + used, sizeof p->all - used, "%s\n", msg);
}

/* config_check of text (written to a file), and what config_load says. */
static int check_text(const char *text, struct problems *p, char *load_err,
                      size_t errlen)
{
    char path[64];
    temp_file(text, strlen(text), path, sizeof path);
    memset(p, 0, sizeof *p);
    struct config c, d;
    int rc = config_check(path, registry_protocols, &c, note_problem, p);
    if (rc >= 0)
        config_free(&c);
    load_err[0] = '\0';
    if (config_load(path, registry_protocols, &d, load_err, errlen) == 0)
        config_free(&d);
    /* messages name the file: make them the same as config_parse's */
    char *at;
    while ((at = strstr(p->all, path)))
        memcpy(at, "/tmp/test_config_ZZZZZZ", strlen(path));
    unlink(path);
    return rc;
}

/* Its first problem is always config_load's error: a file refused by the
 * start is refused by the check, with the same words. */
static void test_config_check_first_problem_is_the_loads_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        struct problems p;
        char err[ERRLEN];
        check_text(bad_cases[i].text, &p, err, sizeof err);
        assert_true(p.n >= 1);
        if (strcmp(p.first, err))
            fail_msg("case %zu: check \"%s\", load \"%s\"", i, p.first, err);
    }
}

static void test_config_check_accepts_what_load_accepts(void **state)
{
    (void)state;
    char path[4096];
    source_path("config.example.toml", path, sizeof path);
    struct problems p = {0};
    struct config c, d;
    char err[ERRLEN];
    assert_int_equal(
        config_check(path, registry_protocols, &c, note_problem, &p), 0);
    assert_int_equal(p.n, 0);
    assert_int_equal(config_load(path, registry_protocols, &d, err, sizeof err),
                     0);
    /* the same config */
    assert_string_equal(c.data_dir, d.data_dir);
    assert_int_equal(c.nnetworks, d.nnetworks);
    assert_string_equal(c.networks[0].name, d.networks[0].name);
    assert_int_equal(c.turn_timeout, d.turn_timeout);
    config_free(&c);
    config_free(&d);
}

static void test_config_check_names_every_problem(void **state)
{
    (void)state;
    struct problems p;
    char err[ERRLEN];
    int rc = check_text("[bot]\nlog_level = \"loud\"\ncolours = true\n"
                        "colours = true\n"
                        "[[irc]]\nname = \"n\"\nhost = \"h\"\nnick = \"a b\"\n"
                        "[[irc]]\nname = \"m\"\n"
                        "[bot]\ndata_dir = \"elsewhere\"\n"
                        "[game]\nturn_timeout = 1\nturn_timeout = 9\n",
                        &p, err, sizeof err);
    if (rc != 8)
        fail_msg("%d problems:\n%s", rc, p.all);
    const char *const want[] = {
        ":2:13: 'log_level' must be",
        ":3:1: unknown key 'colours' in [bot]",
        ":4:1: unknown key 'colours' in [bot]",
        ":8:8: 'nick' contains a space",
        /* the second [[irc]] is whole but for its host: named at its
         * header, once its table ends */
        ":9:1: this [[irc]] has no 'host'",
        ":11:1: [bot] is defined twice",
        ":14:16: 'turn_timeout' must be between 5 and 86400",
        ":15:1: duplicate key 'turn_timeout'",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(p.all, want[i]))
            fail_msg("no \"%s\" in:\n%s", want[i], p.all);
    /* the first [[irc]], with a bad value, is not judged as a whole: no
     * "has no" for it */
    assert_null(strstr(p.all, ":5:1: "));
    /* a key under the refused [bot] is passed over, not judged */
    assert_null(strstr(p.all, ":12:"));
}

static void test_config_check_stops_at_broken_text(void **state)
{
    (void)state;
    struct problems p;
    char err[ERRLEN];
    int rc = check_text("[bot]\nlog_level = \"loud\"\ncolors = tru\n"
                        "command_prefix = 5\n",
                        &p, err, sizeof err);
    assert_int_equal(rc, -1);
    assert_int_equal(p.n, 2);
    assert_non_null(strstr(p.all, ":2:13: "));
    assert_non_null(strstr(p.all, ":3:10: expected a value"));
    assert_null(strstr(p.all, ":4:"));
    /* a file that cannot be read: one problem */
    memset(&p, 0, sizeof p);
    struct config c;
    assert_int_equal(config_check("/nonexistent/bot.toml", registry_protocols,
                                  &c, note_problem, &p),
                     -1);
    assert_int_equal(p.n, 1);
    assert_non_null(strstr(p.first, "cannot open"));
}

static void test_config_free_zeroes(void **state)
{
    (void)state;
    struct config c;
    parse_ok("[bot]\nadmins = [\"a\"]\n[[irc]]\nname=\"n\"\nhost=\"h\"\n"
             "nick=\"k\"\nchannels=[\"#a omnibus\"]\n",
             &c);
    assert_non_null(c.networks);
    config_free(&c);
    struct config zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&c, &zero, sizeof c);
    config_free(&c); /* twice, and on a zeroed struct: a no-op */
    config_free(NULL);
    assert_memory_equal(&c, &zero, sizeof c);
}

/* A reload keeps the running networks and hands the ones the file read
 * to the old config, which frees them (a leak on every SIGHUP before). */
static void test_config_keep_networks_swaps(void **state)
{
    (void)state;
    struct config running, fresh;
    parse_ok("[[irc]]\nname = \"one\"\nhost = \"h\"\nnick = \"k\"\n", &running);
    parse_ok("[[irc]]\nname = \"two\"\nhost = \"h\"\nnick = \"k\"\n"
             "[[irc]]\nname = \"three\"\nhost = \"h\"\nnick = \"k\"\n",
             &fresh);
    int nrun = count_irc(&running), nfresh = count_irc(&fresh);
    config_keep_networks(&fresh, &running);
    assert_int_equal(count_irc(&fresh), nrun);
    assert_string_equal(irc_at(&fresh, nrun - 1)->name, "one");
    assert_int_equal(count_irc(&running), nfresh);
    assert_string_equal(irc_at(&running, nfresh - 1)->name, "three");
    config_free(&running);
    config_free(&fresh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_keep_networks_swaps),
        cmocka_unit_test(test_config_load_example),
        cmocka_unit_test(test_config_parse_empty_file),
        cmocka_unit_test(test_config_parse_values),
        cmocka_unit_test(test_config_parse_site),
        cmocka_unit_test(test_config_parse_range_bounds),
        cmocka_unit_test(test_config_parse_crlf),
        cmocka_unit_test(test_config_parse_bom),
        cmocka_unit_test(test_config_parse_comments_everywhere),
        cmocka_unit_test(test_config_parse_refused),
        cmocka_unit_test(test_config_parse_nul_byte),
        cmocka_unit_test(test_config_parse_error_keeps_out),
        cmocka_unit_test(test_config_parse_no_err_buffer),
        cmocka_unit_test(test_config_parse_too_large),
        cmocka_unit_test(test_config_parse_limits),
        cmocka_unit_test(test_config_load_errors),
        cmocka_unit_test(test_config_check_first_problem_is_the_loads_error),
        cmocka_unit_test(test_config_check_accepts_what_load_accepts),
        cmocka_unit_test(test_config_check_names_every_problem),
        cmocka_unit_test(test_config_check_stops_at_broken_text),
        cmocka_unit_test(test_config_free_zeroes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
