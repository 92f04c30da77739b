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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_casemap_parse_values),
        cmocka_unit_test(test_ircad_isupport_parse_defaults),
        cmocka_unit_test(test_ircad_isupport_parse_ngircd_line),
        cmocka_unit_test(test_ircad_isupport_parse_negation_and_junk),
        cmocka_unit_test(test_ircad_isupport_parse_switches_comparison),
        cmocka_unit_test(test_ircad_isupport_parse_whox),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
