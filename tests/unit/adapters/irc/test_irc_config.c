/*
 * Tests of adapters/irc/irc_config.c, the [[irc]] table, read through
 * config_parse with the bot's protocols: the defaults of keys left out,
 * TLS and SASL, and the values and missing keys it refuses with their
 * line, column and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "tests/support/config_check.h"

static void test_irc_config_defaults(void **state)
{
    (void)state;
    struct config c;
    parse_ok("[[irc]]\nname = \"net\"\nhost = \"irc.example\"\n"
             "nick = \"hb\"\n",
             &c);
    assert_int_equal(count_irc(&c), 1);
    assert_string_equal(irc_at(&c, 0)->name, "net");
    assert_string_equal(irc_at(&c, 0)->host, "irc.example");
    assert_string_equal(irc_at(&c, 0)->nick, "hb");
    assert_int_equal(irc_at(&c, 0)->port, 6667);
    assert_string_equal(irc_at(&c, 0)->username, "hb"); /* = nick */
    assert_string_equal(irc_at(&c, 0)->realname, "heartsbot");
    assert_string_equal(irc_at(&c, 0)->password, "");
    assert_string_equal(irc_at(&c, 0)->nickserv_password, "");
    assert_int_equal(irc_at(&c, 0)->nchannels, 0);
    assert_null(irc_at(&c, 0)->channels);
    assert_int_equal(irc_at(&c, 0)->flood_burst, 4);
    assert_int_equal(irc_at(&c, 0)->flood_interval_ms, 1100);
    assert_false(irc_at(&c, 0)->tls);
    assert_true(irc_at(&c, 0)->tls_verify);
    assert_string_equal(irc_at(&c, 0)->tls_ca_file, "");
    assert_string_equal(irc_at(&c, 0)->sasl_mechanism, "none");
    assert_true(irc_at(&c, 0)->sasl_required);
    assert_string_equal(irc_at(&c, 0)->answers, "notice");
    assert_string_equal(irc_at(&c, 0)->invites, "admins");
    assert_string_equal(irc_at(&c, 0)->admin_contact, "");
    config_free(&c);
}

/* TLS moves the default port to 6697; a port written stays. */
static void test_irc_config_tls_sasl(void **state)
{
    (void)state;
    struct config c;
    parse_ok("[[irc]]\nname = \"net\"\nhost = \"irc.example\"\n"
             "nick = \"hb\"\ntls = true\nsasl_mechanism = \"plain\"\n"
             "sasl_password = \"s3 cret\"\nsasl_required = false\n"
             "tls_ca_file = \"/etc/my ca.pem\"\n",
             &c);
    assert_true(irc_at(&c, 0)->tls);
    assert_int_equal(irc_at(&c, 0)->port, 6697);
    assert_string_equal(irc_at(&c, 0)->sasl_mechanism, "plain");
    assert_string_equal(irc_at(&c, 0)->sasl_password, "s3 cret");
    assert_string_equal(irc_at(&c, 0)->tls_ca_file, "/etc/my ca.pem");
    assert_false(irc_at(&c, 0)->sasl_required);
    config_free(&c);
    parse_ok("[[irc]]\nname = \"net\"\nhost = \"h\"\nnick = \"hb\"\n"
             "port = 7000\ntls = true\ntls_cert_file = \"c.pem\"\n"
             "sasl_mechanism = \"external\"\n",
             &c);
    assert_int_equal(irc_at(&c, 0)->port, 7000);
    assert_string_equal(irc_at(&c, 0)->tls_cert_file, "c.pem");
    config_free(&c);
}

/* Every [[irc]] key written, in two networks. */
static void test_irc_config_values(void **state)
{
    (void)state;
    struct config c;
    parse_ok("[[irc]]\n"
             "name = \"one\"\n"
             "host = \"a.example\"\n"
             "nick = \"hb\"\n"
             "username = \"hbu\"\n"
             "realname = \"q\\\"\\\\ \\u00e9 \\U0001F0A1 caf\xc3\xa9\"\n"
             "password = \"s3%ncret\"\n"
             "nickserv_password = \"100%\"\n"
             "channels = [\"#a\", \"&b   omnibus  target=50  \"]\n"
             "port = 6697\n"
             "flood_burst = 100\n"
             "flood_interval_ms = 60000\n"
             "flood_min_interval_ms = 70\n"
             "services_mask = \"NickServ!NickServ@localhost\"\n"
             "nickserv_account = \"hb\"\n"
             "answers = \"privmsg\"\n"
             "invites = \"ops\"\n"
             "admin_contact = \"ops@example.org\"\n"
             "[[irc]]\n"
             "name = \"two\"\n"
             "host = \"b.example\"\n"
             "nick = \"hb2\"\n"
             "channels = []\n",
             &c);
    assert_int_equal(count_irc(&c), 2);
    assert_string_equal(irc_at(&c, 0)->username, "hbu");
    assert_string_equal(irc_at(&c, 0)->realname,
                        "q\"\\ \xc3\xa9 \xf0\x9f\x82\xa1 caf\xc3\xa9");
    assert_string_equal(irc_at(&c, 0)->password, "s3%ncret");
    assert_string_equal(irc_at(&c, 0)->nickserv_password, "100%");
    assert_int_equal(irc_at(&c, 0)->nchannels, 2);
    assert_string_equal(irc_at(&c, 0)->channels[0].name, "#a");
    assert_null(irc_at(&c, 0)->channels[0].rules);
    assert_string_equal(irc_at(&c, 0)->channels[1].name, "&b");
    assert_string_equal(irc_at(&c, 0)->channels[1].rules, "omnibus  target=50");
    assert_int_equal(irc_at(&c, 0)->port, 6697);
    assert_int_equal(irc_at(&c, 0)->flood_burst, 100);
    assert_int_equal(irc_at(&c, 0)->flood_interval_ms, 60000);
    assert_int_equal(irc_at(&c, 0)->flood_min_interval_ms, 70);
    assert_int_equal(irc_at(&c, 0)->flood_max_interval_ms, 60000);
    assert_string_equal(irc_at(&c, 0)->services_mask,
                        "NickServ!NickServ@localhost");
    assert_string_equal(irc_at(&c, 0)->nickserv_account, "hb");
    assert_string_equal(irc_at(&c, 0)->answers, "privmsg");
    assert_string_equal(irc_at(&c, 0)->invites, "ops");
    assert_string_equal(irc_at(&c, 0)->admin_contact, "ops@example.org");
    assert_string_equal(irc_at(&c, 1)->name, "two");
    assert_string_equal(irc_at(&c, 1)->answers, "notice");
    assert_string_equal(irc_at(&c, 1)->username, "hb2");
    assert_int_equal(irc_at(&c, 1)->nchannels, 0);
    assert_int_equal(irc_at(&c, 1)->port, 6667);
    config_free(&c);
}

/* Every integer key at both ends of its range, then just past them. */
static void test_irc_config_range_bounds(void **state)
{
    (void)state;
    static const struct int_key keys[] = {
        {"[[irc]]", "port", 1, 65535, offsetof(struct irc_config, port)},
        {"[[irc]]", "flood_burst", 1, 100,
         offsetof(struct irc_config, flood_burst)},
        {"[[irc]]", "flood_interval_ms", 1, 60000,
         offsetof(struct irc_config, flood_interval_ms)},
    };
    check_int_ranges(keys, sizeof keys / sizeof keys[0], &irc_protocol,
                     "name=\"n\"\nhost=\"h\"\nnick=\"k\"\n");
}

static const struct bad_case bad_cases[] = {
    /* [[irc]] values */
    {"[[irc]]\nnick = \"a%sb\"\n", "2:8",
     "'nick' contains '%', the half-operator prefix, which IRC servers "
     "refuse in a nick"},
    {"[[irc]]\npassword = \"two words\"\n", "2:12", "contains a space"},
    {"[[irc]]\nnick = \"\"\n", "2:8", "'nick' is empty"},
    {"[[irc]]\nnick = \"a b\"\n", "2:8", "'nick' contains a space"},
    {"[[irc]]\nnick = \"a\\r\\nQUIT\"\n", "2:8", "control character"},
    {"[[irc]]\nnick = \"1234567890123456789012345678901\"\n", "2:8",
     "longer than 30 bytes"},
    {"[[irc]]\nusername = \"\"\n", "2:12", "'username' is empty"},
    {"[[irc]]\nusername = \"a b\"\n", "2:12", "contains a space"},
    {"[[irc]]\nhost = \"\"\n", "2:8", "'host' is empty"},
    {"[[irc]]\nname = \"\"\n", "2:8", "'name' is empty"},
    {"[[irc]]\nname = \"a/b\"\n", "2:8", "only letters, digits"},
    {"[[irc]]\nname=\"a\"\nhost=\"h\"\nnick=\"n\"\n[[irc]]\nname = \"A\"\n",
     "6:8", "another [[irc]] is already named 'A'"},
    {"[[irc]]\nchannels = [\"hearts\"]\n", "2:13",
     "channel 'hearts' must start with # or &"},
    {"[[irc]]\nchannels = [\"#a,#b\"]\n", "2:13", "contains a ','"},
    {"[[irc]]\nchannels = [\"#\"]\n", "2:13", "has no name"},
    {"[[irc]]\nchannels = [\"\"]\n", "2:13", "must start with the channel"},
    {"[[irc]]\nchannels = [\" #a\"]\n", "2:13", "must start with the channel"},
    {"[[irc]]\nchannels = [\"#a\\u0007\"]\n", "2:13", "control character"},
    {"[[irc]]\nchannels = [\"#12345678901234567890123456789012345678901234"
     "567890\"]\n",
     "2:13", "longer than 50 bytes"},
    {"[[irc]]\nchannels = [\"#a\", \"#b\", \"#A\"]\n", "2:25",
     "channel '#A' is listed twice"},
    {"[[irc]]\nchannels = [\"#a omnibus bogus=1\"]\n", "2:13",
     "the rules of #a: unknown option 'bogus'"},
    {"[[irc]]\nchannels = [\"#a standard players=9\"]\n", "2:13",
     "standard is for 3 to 7 players"},
    {"[[irc]]\nchannels = 5\n", "2:12", "must be an array of strings"},
    /* required [[irc]] keys */
    {"[[irc]]\n", "1:1", "this [[irc]] has no 'name'"},
    {"[[irc]]\nname = \"a\"\nnick = \"n\"\n", "1:1",
     "this [[irc]] has no 'host'"},
    {"[[irc]]\nname = \"a\"\nhost = \"h\"\n[game]\n", "1:1",
     "this [[irc]] has no 'nick'"},
    {"[bot]\n[[irc]]\nname = \"a\"\nhost = \"h\"\n[[irc]]\n", "2:1",
     "has no 'nick'"},
    /* TLS and SASL */
    {"[[irc]]\nsasl_mechanism = \"scram\"\n", "2:18",
     "must be none, plain or external"},
    {"[[irc]]\nname = \"n\"\nhost = \"h\"\nnick = \"n\"\n"
     "sasl_mechanism = \"plain\"\n",
     "1:1", "no 'sasl_password'"},
    {"[[irc]]\nname = \"n\"\nhost = \"h\"\nnick = \"n\"\ntls = true\n"
     "sasl_mechanism = \"external\"\n",
     "1:1", "no 'tls_cert_file'"},
    {"[[irc]]\nname = \"n\"\nhost = \"h\"\nnick = \"n\"\n"
     "tls_ca_file = \"ca.pem\"\n",
     "1:1", "names TLS files but has tls = false"},
    {"[[irc]]\ntls_cert_file = \"a\\tb\"\n", "2:17", "control character"},
    {"[[irc]]\ntls = \"yes\"\n", "2:7", "true or false"},
    /* how channel commands are answered */
    {"[[irc]]\nanswers = \"query\"\n", "2:11", "must be notice or privmsg"},
    {"[[irc]]\nanswers = true\n", "2:11", "must be a string"},
    {"[[irc]]\ninvites = \"all\"\n", "2:11", "must be off, ops or admins"},
    {"[[irc]]\nadmin_contact = \"a\\tb\"\n", "2:17", "control character"},
};

static void test_irc_config_refused(void **state)
{
    (void)state;
    parse_bad_cases(bad_cases, sizeof bad_cases / sizeof bad_cases[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_irc_config_defaults),
        cmocka_unit_test(test_irc_config_tls_sasl),
        cmocka_unit_test(test_irc_config_values),
        cmocka_unit_test(test_irc_config_range_bounds),
        cmocka_unit_test(test_irc_config_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
