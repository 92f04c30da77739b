/*
 * Tests of adapters/irc/nick.c: casemapping, origin parsing (well formed
 * and malformed), nick validation and the alternatives tried when the
 * nick is taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/nick.h"

static void test_ircad_name_equal_rfc1459(void **state)
{
    (void)state;
    const enum ircad_casemap m = IRCAD_CASEMAP_RFC1459;
    assert_true(ircad_name_equal(m, "Alice", "aLICE"));
    assert_true(ircad_name_equal(m, "[foo]\\", "{FOO}|"));
    assert_true(ircad_name_equal(m, "a^b", "A~B"));
    assert_true(ircad_name_equal(m, "#Hearts", "#hearts"));
    assert_false(ircad_name_equal(m, "alice", "alicia"));
    assert_false(ircad_name_equal(m, "alice", "alice_"));
    assert_false(ircad_name_equal(m, "", "a"));
    assert_false(ircad_name_equal(m, NULL, "a"));
    assert_false(ircad_name_equal(m, "a", NULL));
}

static void test_ircad_name_equal_ascii(void **state)
{
    (void)state;
    const enum ircad_casemap m = IRCAD_CASEMAP_ASCII;
    assert_true(ircad_name_equal(m, "Alice", "aLICE"));
    assert_false(ircad_name_equal(m, "[foo]", "{foo}"));
    assert_false(ircad_name_equal(m, "a\\b", "a|b"));
    assert_false(ircad_name_equal(m, "a^b", "a~b"));
    /* bytes above ASCII are compared as they are */
    assert_false(ircad_name_equal(m, "\xC3\x89", "\xC3\xA9"));
}

static void test_ircad_name_equal_strict_rfc1459(void **state)
{
    (void)state;
    const enum ircad_casemap m = IRCAD_CASEMAP_STRICT_RFC1459;
    assert_true(ircad_name_equal(m, "[x]\\", "{X}|"));
    assert_false(ircad_name_equal(m, "a^b", "a~b"));
}

static void test_ircad_fold_each_casemapping(void **state)
{
    (void)state;
    char out[32];
    ircad_fold(IRCAD_CASEMAP_RFC1459, "#Foo[]\\^~", out, sizeof out);
    assert_string_equal(out, "#foo{}|~~");
    ircad_fold(IRCAD_CASEMAP_STRICT_RFC1459, "#Foo[]\\^~", out, sizeof out);
    assert_string_equal(out, "#foo{}|^~");
    ircad_fold(IRCAD_CASEMAP_ASCII, "#Foo[]\\^~", out, sizeof out);
    assert_string_equal(out, "#foo[]\\^~");
    /* cut short, never past out */
    char small[4] = "xyz";
    ircad_fold(IRCAD_CASEMAP_ASCII, "ABCDEF", small, sizeof small);
    assert_string_equal(small, "abc");
    ircad_fold(IRCAD_CASEMAP_ASCII, NULL, out, sizeof out);
    assert_string_equal(out, "");
}

static void test_ircad_origin_parse_full(void **state)
{
    (void)state;
    char nick[32], id[64];
    assert_int_equal(ircad_origin_parse("alice!~al@example.org", nick,
                                        sizeof nick, id, sizeof id),
                     0);
    assert_string_equal(nick, "alice");
    assert_string_equal(id, "~al@example.org");
}

static void test_ircad_origin_parse_malformed(void **state)
{
    (void)state;
    const char *bad[] = {
        "",                /* empty */
        "irc.example.org", /* a server */
        "alice",           /* nick only */
        "alice!al",        /* no host */
        "alice@host",      /* no user */
        "!al@host",        /* empty nick */
        "alice!@host",     /* empty user */
        "alice!al@",       /* empty host */
        "alice!al@h@x",    /* two '@' */
        "alice!a!l@host",  /* two '!' */
        "ali ce!al@host",  /* a space */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char nick[32] = "untouched", id[64] = "untouched";
        assert_int_equal(
            ircad_origin_parse(bad[i], nick, sizeof nick, id, sizeof id), -1);
        assert_string_equal(nick, "untouched");
        assert_string_equal(id, "untouched");
    }
    char nick[32], id[64];
    assert_int_equal(ircad_origin_parse(NULL, nick, sizeof nick, id, sizeof id),
                     -1);
}

static void test_ircad_origin_parse_too_long(void **state)
{
    (void)state;
    char nick[6], id[8];
    /* nick of 6 needs 7 bytes */
    assert_int_equal(
        ircad_origin_parse("abcdef!u@h", nick, sizeof nick, id, sizeof id), -1);
    assert_int_equal(ircad_origin_parse("abc!user@host.example", nick,
                                        sizeof nick, id, sizeof id),
                     -1);
    assert_int_equal(
        ircad_origin_parse("abcde!u@h", nick, sizeof nick, id, sizeof id), 0);
    assert_string_equal(nick, "abcde");
}

static void test_ircad_nick_valid_table(void **state)
{
    (void)state;
    const struct {
        const char *nick;
        bool ok;
    } cases[] = {
        {"hearts", true},
        {"Hearts_Bot", true},
        {"[bot]", true},
        {"a-b^c`d|e{f}", true},
        {"h3", true},
        {"h\xC3\xA9", true}, /* UTF-8: the server decides */
        {"", false},
        {"3hearts", false},
        {"-hearts", false},
        {"#hearts", false},
        {"&hearts", false},
        {"he arts", false},
        {"hearts%s", false},
        {"hearts!", false},
        {"hearts@x", false},
        {"a,b", false},
        {"a:b", false},
        {"a*", false},
        {"a\tb", false},
        {"a\x7f", false},
        {"a234567890123456789012345678901", false}, /* 31 bytes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_int_equal(ircad_nick_valid(cases[i].nick), cases[i].ok);
    assert_false(ircad_nick_valid(NULL));
}

static void test_ircad_nick_variant_sequence(void **state)
{
    (void)state;
    char out[32];
    ircad_nick_variant("hearts", 0, 7, 30, out, sizeof out);
    assert_string_equal(out, "hearts");
    ircad_nick_variant("hearts", 1, 7, 30, out, sizeof out);
    assert_string_equal(out, "hearts_");
    ircad_nick_variant("hearts", 2, 7, 30, out, sizeof out);
    assert_string_equal(out, "hearts__");
    ircad_nick_variant("hearts", 3, 7, 30, out, sizeof out);
    assert_string_equal(out, "hearts007");
    ircad_nick_variant("hearts", 4, 1234, 30, out, sizeof out);
    assert_string_equal(out, "hearts234");
}

static void test_ircad_nick_variant_shortens_to_maxlen(void **state)
{
    (void)state;
    char out[32];
    ircad_nick_variant("heartsbot", 1, 0, 9, out, sizeof out);
    assert_string_equal(out, "heartsbo_");
    ircad_nick_variant("heartsbot", 2, 0, 9, out, sizeof out);
    assert_string_equal(out, "heartsb__");
    ircad_nick_variant("heartsbot", 3, 42, 9, out, sizeof out);
    assert_string_equal(out, "hearts042");
    ircad_nick_variant("heartsbot", 0, 0, 9, out, sizeof out);
    assert_string_equal(out, "heartsbot");
    /* the output buffer bounds it too */
    char small[6];
    ircad_nick_variant("heartsbot", 1, 0, 30, small, sizeof small);
    assert_string_equal(small, "hear_");
}

static void test_ircad_mask_match_services(void **state)
{
    (void)state;
    const enum ircad_casemap m = IRCAD_CASEMAP_RFC1459;
    const char *mask = "NickServ!*@services.*";
    assert_true(
        ircad_mask_match(m, mask, "NickServ!NickServ@services.libera.chat"));
    assert_true(
        ircad_mask_match(m, mask, "nickserv!services@services.oftc.net"));
    assert_false(ircad_mask_match(m, mask, "NickServ!evil@127.0.0.1"));
    assert_false(ircad_mask_match(m, mask, "NickServ!x@evil.services.com"));
    assert_false(ircad_mask_match(m, mask, "NickServX!x@services.a"));
    assert_true(ircad_mask_match(m, "a?c*", "abcdef"));
    assert_false(ircad_mask_match(m, "a?c", "ac"));
    assert_true(ircad_mask_match(m, "*", ""));
    assert_false(ircad_mask_match(m, "", "x"));
    assert_true(ircad_mask_match(m, "x[y]", "X{Y}"));
    assert_true(ircad_mask_match(m, "*a*a*a*b", "aaaaaaaaaaaaab"));
    assert_false(ircad_mask_match(m, "*a*a*a*b", "aaaaaaaaaaaaaa"));
    assert_false(ircad_mask_match(m, NULL, "x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_name_equal_rfc1459),
        cmocka_unit_test(test_ircad_name_equal_ascii),
        cmocka_unit_test(test_ircad_name_equal_strict_rfc1459),
        cmocka_unit_test(test_ircad_fold_each_casemapping),
        cmocka_unit_test(test_ircad_origin_parse_full),
        cmocka_unit_test(test_ircad_origin_parse_malformed),
        cmocka_unit_test(test_ircad_origin_parse_too_long),
        cmocka_unit_test(test_ircad_nick_valid_table),
        cmocka_unit_test(test_ircad_nick_variant_sequence),
        cmocka_unit_test(test_ircad_mask_match_services),
        cmocka_unit_test(test_ircad_nick_variant_shortens_to_maxlen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
