/*
 * Tests of adapters/irc/isupport.c: CASEMAPPING values, 005 lines as
 * libircclient hands them over (nick first, human text last, at most 10
 * parameters), negation and junk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/isupport.h"

static void test_ircad_casemap_parse_values(void **state)
{
    (void)state;
    enum ircad_casemap m = IRCAD_CASEMAP_RFC1459;
    assert_int_equal(ircad_casemap_parse("ascii", &m), 0);
    assert_int_equal(m, IRCAD_CASEMAP_ASCII);
    assert_int_equal(ircad_casemap_parse("RFC1459", &m), 0);
    assert_int_equal(m, IRCAD_CASEMAP_RFC1459);
    assert_int_equal(ircad_casemap_parse("strict-rfc1459", &m), 0);
    assert_int_equal(m, IRCAD_CASEMAP_STRICT_RFC1459);
    assert_int_equal(ircad_casemap_parse("rfc8265", &m), 0);
    assert_int_equal(m, IRCAD_CASEMAP_ASCII);
    m = IRCAD_CASEMAP_STRICT_RFC1459;
    assert_int_equal(ircad_casemap_parse("klingon", &m), -1);
    assert_int_equal(m, IRCAD_CASEMAP_STRICT_RFC1459);
    assert_int_equal(ircad_casemap_parse(NULL, &m), -1);
}

static void test_ircad_isupport_parse_defaults(void **state)
{
    (void)state;
    struct ircad_isupport s;
    ircad_isupport_init(&s);
    assert_int_equal(s.casemap, IRCAD_CASEMAP_RFC1459);
    assert_string_equal(s.chantypes, "#&");
    assert_int_equal(s.nicklen, 0);
}

static void test_ircad_isupport_parse_ngircd_line(void **state)
{
    (void)state;
    /* ngIRCd 26's first 005 line */
    const char *params[] = {"hearts",
                            "RFC2812",
                            "IRCD=ngIRCd",
                            "CHARSET=UTF-8",
                            "CASEMAPPING=ascii",
                            "PREFIX=(qaohv)~&@%+",
                            "CHANTYPES=#&+",
                            "CHANMODES=beI,k,l,imMnOPQRstVz",
                            "CHANLIMIT=#&+:10",
                            "are supported on this server"};
    struct ircad_isupport s;
    ircad_isupport_init(&s);
    ircad_isupport_parse(&s, params, 10);
    assert_int_equal(s.casemap, IRCAD_CASEMAP_ASCII);
    assert_string_equal(s.chantypes, "#&+");
    assert_int_equal(s.nicklen, 0);
    /* a later line adds the nick length and leaves the rest */
    const char *more[] = {"hearts", "NICKLEN=9", "TOPICLEN=490",
                          "are supported on this server"};
    ircad_isupport_parse(&s, more, 4);
    assert_int_equal(s.nicklen, 9);
    assert_int_equal(s.casemap, IRCAD_CASEMAP_ASCII);
}

static void test_ircad_isupport_parse_negation_and_junk(void **state)
{
    (void)state;
    struct ircad_isupport s;
    ircad_isupport_init(&s);
    const char *set[] = {"me", "CASEMAPPING=ascii", "CHANTYPES=#", "x"};
    ircad_isupport_parse(&s, set, 4);
    assert_int_equal(s.casemap, IRCAD_CASEMAP_ASCII);
    assert_string_equal(s.chantypes, "#");
    /* -KEY restores the default */
    const char *neg[] = {"me", "-CASEMAPPING", "-CHANTYPES", "x"};
    ircad_isupport_parse(&s, neg, 4);
    assert_int_equal(s.casemap, IRCAD_CASEMAP_RFC1459);
    assert_string_equal(s.chantypes, "#&");
    /* junk is ignored: unknown casemap, letters as channel prefixes, a bad
     * number, NULL parameters, a token in first position (our nick) */
    const char *junk[] = {"CASEMAPPING=ascii",
                          "CASEMAPPING=klingon",
                          "CHANTYPES=#a",
                          "NICKLEN=12abc",
                          NULL,
                          "NICKLEN=-3",
                          "CASEMAPPINGX=ascii",
                          "are supported"};
    ircad_isupport_parse(&s, junk, 8);
    assert_int_equal(s.casemap, IRCAD_CASEMAP_RFC1459);
    assert_string_equal(s.chantypes, "#&");
    assert_int_equal(s.nicklen, 0);
    /* nothing at all */
    ircad_isupport_parse(&s, NULL, 3);
    ircad_isupport_parse(&s, junk, 0);
    assert_int_equal(s.casemap, IRCAD_CASEMAP_RFC1459);
}

static void test_ircad_isupport_parse_switches_comparison(void **state)
{
    (void)state;
    struct ircad_isupport s;
    ircad_isupport_init(&s);
    assert_true(ircad_name_equal(s.casemap, "[bot]", "{bot}"));
    const char *p[] = {"me", "CASEMAPPING=ascii", "are supported"};
    ircad_isupport_parse(&s, p, 3);
    assert_false(ircad_name_equal(s.casemap, "[bot]", "{bot}"));
    assert_true(ircad_name_equal(s.casemap, "BOT", "bot"));
}

/* WHOX (InspIRCd, Solanum, Ergo): the adapter asks a channel's accounts */
static void test_ircad_isupport_parse_whox(void **state)
{
    (void)state;
    struct ircad_isupport s;
    ircad_isupport_init(&s);
    assert_false(s.whox);
    const char *p[] = {"me", "WHOXY", "x y"};
    ircad_isupport_parse(&s, p, 3);
    assert_false(s.whox); /* another token */
    const char *q[] = {"me", "WHOX", "x y"};
    ircad_isupport_parse(&s, q, 3);
    assert_true(s.whox);
    const char *n[] = {"me", "-WHOX", "x y"};
    ircad_isupport_parse(&s, n, 3);
    assert_false(s.whox);
}

/* PREFIX: ranks and their prefixes, malformed values ignored; BOT: one
 * letter or nothing. */
static void test_ircad_isupport_parse_prefix_and_bot(void **state)
{
    (void)state;
    struct ircad_isupport s;
    ircad_isupport_init(&s);
    assert_string_equal(s.prefix_modes, "ov");
    assert_string_equal(s.prefix_chars, "@+");
    assert_int_equal(s.bot_mode, 0);
    const char *p[] = {"me", "PREFIX=(qaohv)~&@%+", "BOT=B", "x y"};
    ircad_isupport_parse(&s, p, 4);
    assert_string_equal(s.prefix_modes, "qaohv");
    assert_string_equal(s.prefix_chars, "~&@%+");
    assert_int_equal(s.bot_mode, 'B');
    const char *bad[] = {
        "me", "PREFIX=(ov)@", "PREFIX=ov@+", "PREFIX=(o v)@ +", "PREFIX=(o1)@+",
        "x y"};
    ircad_isupport_parse(&s, bad, 6);
    assert_string_equal(s.prefix_modes, "qaohv");
    const char *nobot[] = {"me", "BOT=BB", "x y"};
    ircad_isupport_parse(&s, nobot, 3);
    assert_int_equal(s.bot_mode, 0);
    const char *neg[] = {"me", "-PREFIX", "BOT=b", "x y"};
    ircad_isupport_parse(&s, neg, 4);
    assert_string_equal(s.prefix_modes, "ov");
    assert_int_equal(s.bot_mode, 'b');
}

/* An operator's 319 entry: op or higher rank, the whole channel name
 * under the casemapping; '&' as a rank or as a channel's first byte. */
static void test_ircad_isupport_is_op(void **state)
{
    (void)state;
    struct ircad_isupport s;
    ircad_isupport_init(&s);
    assert_true(ircad_isupport_is_op(&s, "@#Games", "#games"));
    assert_true(ircad_isupport_is_op(&s, "@+#games", "#games"));
    assert_false(ircad_isupport_is_op(&s, "+#games", "#games"));
    assert_false(ircad_isupport_is_op(&s, "#games", "#games"));
    assert_false(ircad_isupport_is_op(&s, "@#xgames", "#games"));
    assert_false(ircad_isupport_is_op(&s, "@#x#games", "#games"));
    assert_false(ircad_isupport_is_op(&s, "@#games", ""));
    assert_false(ircad_isupport_is_op(&s, NULL, "#games"));
    const char *p[] = {"me", "PREFIX=(qaohv)~&@%+", "x y"};
    ircad_isupport_parse(&s, p, 3);
    assert_true(ircad_isupport_is_op(&s, "~#g", "#g"));
    assert_true(ircad_isupport_is_op(&s, "&#g", "#g"));
    assert_true(ircad_isupport_is_op(&s, "@&g", "&g"));
    assert_false(ircad_isupport_is_op(&s, "&g", "&g"));
    assert_false(ircad_isupport_is_op(&s, "%#g", "#g"));
    /* rfc1459: {} and [] are one letter's cases */
    assert_true(ircad_isupport_is_op(&s, "@#a{b}", "#A[B]"));
    /* no 'o' rank: only the highest counts */
    const char *q[] = {"me", "PREFIX=(yv)!+", "x y"};
    ircad_isupport_parse(&s, q, 3);
    assert_true(ircad_isupport_is_op(&s, "!#g", "#g"));
    assert_false(ircad_isupport_is_op(&s, "+#g", "#g"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_casemap_parse_values),
        cmocka_unit_test(test_ircad_isupport_parse_defaults),
        cmocka_unit_test(test_ircad_isupport_parse_ngircd_line),
        cmocka_unit_test(test_ircad_isupport_parse_negation_and_junk),
        cmocka_unit_test(test_ircad_isupport_parse_switches_comparison),
        cmocka_unit_test(test_ircad_isupport_parse_whox),
        cmocka_unit_test(test_ircad_isupport_parse_prefix_and_bot),
        cmocka_unit_test(test_ircad_isupport_is_op),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
