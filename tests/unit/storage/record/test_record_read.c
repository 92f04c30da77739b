/*
 * Tests of storage/record/record_read.c on lines that must be refused: an
 * unknown format, option or value, a bad card text, and a table of
 * malformed lines (truncated, wrong types in every field, huge numbers,
 * junk, garbage bytes, deep nesting, huge lines) that must all be refused
 * cleanly, with a message naming where. Run under ASan and valgrind by
 * the CI.
 */
#include "storage/record/record.h"
#include "tests/support/record_cases.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* ---- The record's head ------------------------------------------------ */

static void test_record_parse_unknown_format(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rc_refused_field(rec, -1, "format", "\"hearts-record/2\"",
                     "format: 'hearts-record/2' is not hearts-record/1");
    rc_refused_field(rec, -1, "format", NULL, "format");
    rc_refused_field(rec, -1, "format", "1", "format");
    record_free(rec);
}

static void test_record_parse_unknown_option_names_nearest(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rc_refused_field(rec, -1, "options", "{\"mooon\":\"subtract\"}",
                     "options: unknown option 'mooon' (did you mean 'moon'?)");
    rc_refused_field(rec, -1, "options", "{\"moon\":\"sometimes\"}",
                     "bad value 'sometimes' for moon");
    rc_refused_field(rec, -1, "options", "{\"target\":0}",
                     "bad value '0' for target");
    rc_refused_field(rec, -1, "options", "{\"target\":[100]}",
                     "options: target: a string or a whole number, not a list");
    rc_refused_field(rec, -1, "options", "{\"players\":5}",
                     "options: players is 5 but the record names 4 players");
    rc_refused_field(rec, -1, "preset", "\"standrd\"",
                     "preset: unknown preset 'standrd' (did you mean "
                     "'standard'?)");
    rc_refused_field(rec, -1, "players", "[\"a\",\"b\"]",
                     "rules: standard is for 3 to 7 players, not 2");
    rc_refused_field(rec, -1, "colour", "\"red\"", "unknown field 'colour'");
    rc_refused_field(rec, 0, "colour", "\"red\"",
                     "hand 1: unknown field 'colour'");
    record_free(rec);
}

/* "hints" (the table allowed hints) is true or false, written only when
 * true, and read back. */
static void test_record_hints(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rc_refused_field(rec, -1, "hints", "\"yes\"",
                     "hints: true or false is needed");
    rc_refused_field(rec, -1, "hints", "1", "hints: true or false is needed");
    char *plain = record_to_json(rec);
    assert_null(strstr(plain, "hints"));
    rec->hints = true;
    char *json = record_to_json(rec);
    assert_non_null(strstr(json, "\"hints\":true"));
    struct record *back;
    char err[200];
    assert_int_equal(record_parse(json, strlen(json), &back, err, sizeof err),
                     0);
    assert_true(back->hints);
    record_free(back);
    assert_int_equal(record_parse(plain, strlen(plain), &back, err, sizeof err),
                     0);
    assert_false(back->hints);
    record_free(back);
    free(json);
    free(plain);
    record_free(rec);
}

static void test_record_parse_options_repeating_the_preset(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    char *json = rc_with_field(
        rec, -1, "options",
        "{\"moon\":\"choice\",\"target\":\"100\",\"players\":4,"
        "\"pass_cycle\":\"left,right,across,hold\",\"joker\":false}");
    rc_accepted_line(json);
    free(json);
    record_free(rec);
}

static void test_record_parse_bad_card_text(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    char *json = record_to_json(rec);
    /* the first play of hand 1 is the 2C: write it as junk */
    char *p = strstr(json, "\"plays\":[\"2C\"");
    assert_non_null(p);
    memcpy(p + 10, "ZZ", 2);
    rc_refused_line(json, strlen(json), "hand 1: plays[0]: 'ZZ' is not a card");
    free(json);
    record_free(rec);
}

/* ---- Malformed lines -------------------------------------------------- */

static void test_record_parse_every_truncation_refused(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->nhands = 2; /* a shorter line keeps this quick under valgrind */
    rec->has_totals = rec->has_winners = false;
    char *json = record_to_json(rec);
    size_t len = strlen(json);
    rc_accepted_line(json);
    for (size_t cut = 0; cut < len; cut++) {
        char err[256] = "";
        struct record *out = (struct record *)&err; /* must stay */
        if (record_parse(json, cut, &out, err, sizeof err) == 0)
            fail_msg("a record cut at %zu parsed", cut);
        assert_ptr_equal(out, (struct record *)&err);
        assert_true(err[0] != '\0');
    }
    free(json);
    record_free(rec);
}

static void test_record_parse_wrong_types_in_every_field(void **state)
{
    (void)state;
    static const char *const junk[] = {"null",
                                       "true",
                                       "0",
                                       "-1",
                                       "1.5",
                                       "\"x\"",
                                       "[]",
                                       "{}",
                                       "[1]",
                                       "[[]]",
                                       "[null]",
                                       "[\"QS\"]",
                                       "1e400",
                                       "99999999999999999999",
                                       "18446744073709551615",
                                       "-9223372036854775809",
                                       "[-1]",
                                       "[4]",
                                       "[{}]",
                                       "\"\""};
    static const char *const top[] = {"format", "preset", "options", "players",
                                      "hands",  "totals", "winners"};
    static const char *const hand[] = {"dealer", "pass",  "deal",    "rest",
                                       "passed", "blind", "discard", "plays",
                                       "moon",   "points"};
    /* what may legitimately stand in hand 1 of this record: null for
     * optional fields, empty lists where nothing was there */
    static const char *const fine[] = {
        "options=null", "options={}",   "totals=null", "winners=null",
        "pass=null",    "rest=null",    "rest=[]",     "blind=null",
        "blind=[]",     "discard=null", "discard=[]",  "moon=null",
        "points=null",  "dealer=0"};
    struct record *rec = rc_standard_record();
    assert_int_equal(rec->hands[0].dealer, 0);
    assert_int_equal(rec->nwinners, 1);
    char right_winner[32];
    snprintf(right_winner, sizeof right_winner, "winners=[%d]",
             rec->winners[0]);
    for (int where = -1; where <= 0; where++) {
        const char *const *keys = where < 0 ? top : hand;
        size_t nkeys = where < 0 ? sizeof top / sizeof top[0]
                                 : sizeof hand / sizeof hand[0];
        for (size_t k = 0; k < nkeys; k++) {
            for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++) {
                char name[64];
                snprintf(name, sizeof name, "%s=%s", keys[k], junk[j]);
                bool ok = false;
                for (size_t f = 0; f < sizeof fine / sizeof fine[0]; f++)
                    ok = ok || !strcmp(name, fine[f]);
                ok = ok || !strcmp(name, right_winner);
                char *json = rc_with_field(rec, where, keys[k], junk[j]);
                char err[512] = "";
                int rc = record_check(json, strlen(json), err, sizeof err);
                if ((rc == 0) != ok)
                    fail_msg("%s: %s", name, rc ? err : "accepted");
                free(json);
            }
        }
    }
    record_free(rec);
}

static void test_record_parse_malformed_lines_refused(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "",
        "   ",
        "{",
        "}",
        "null",
        "42",
        "\"record\"",
        "[{\"format\":\"hearts-record/1\"}]",
        "{\"format\":\"hearts-record/1\"}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\"}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{\"dealer\":-1,"
        "\"deal\":[[],[],[],[]],\"plays\":[]}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{\"dealer\":4,"
        "\"deal\":[[],[],[],[]],\"plays\":[]}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[{\"dealer\":0,"
        "\"deal\":[[],[],[],[]],\"plays\":[]}]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[],\"winners\":"
        "[0,0]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[],\"totals\":"
        "[1,2,3,4]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\","
        "\"i\",\"j\",\"k\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\\u0000b\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[],}",
        "{'format':'hearts-record/1'}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"\xff\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]} trailing",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"\":1},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"card_points\":\"QS:99999999999999999999\"},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"pass_cycle\":\",,,\"},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
        "{\"format\":\"hearts-record/1\",\"preset\":\"standard\","
        "\"options\":{\"target\":1e400},"
        "\"players\":[\"a\",\"b\",\"c\",\"d\"],\"hands\":[]}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char err[512] = "";
        if (record_check(lines[i], strlen(lines[i]), err, sizeof err) == 0)
            fail_msg("accepted: %s", lines[i]);
        assert_true(err[0] != '\0');
        for (const char *p = err; *p; p++)
            assert_true((unsigned char)*p >= 0x20);
    }
}

/* A line of `count` copies of `item` inside "...hands":[ ... ]}". */
static char *hands_of(const char *item, int count)
{
    const char *head = "{\"format\":\"hearts-record/1\",\"preset\":"
                       "\"standard\",\"players\":[\"a\",\"b\",\"c\",\"d\"],"
                       "\"hands\":[";
    size_t len = strlen(head) + (strlen(item) + 1) * (size_t)count + 3;
    char *s = malloc(len);
    assert_non_null(s);
    size_t pos = (size_t)snprintf(s, len, "%s", head);
    for (int i = 0; i < count; i++)
        pos += (size_t)snprintf(s + pos, len - pos, "%s%s", i ? "," : "", item);
    snprintf(s + pos, len - pos, "]}");
    return s;
}

static void test_record_parse_many_junk_hands_refused(void **state)
{
    (void)state;
    static const char *const items[] = {
        "[1,2,3]",
        "{}",
        "null",
        "\"hand\"",
        "{\"dealer\":0,\"deal\":[[\"QS\"],[],[],[]],\"plays\":[1]}",
        "{\"dealer\":0,\"deal\":[[],[],[],[]],\"plays\":[\"QS\",\"QS\"]}"};
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        char *line = hands_of(items[i], 200);
        char err[256] = "";
        assert_int_equal(record_check(line, strlen(line), err, sizeof err), -1);
        assert_non_null(strstr(err, "hand 1"));
        free(line);
    }
    char *line = hands_of("{}", RECORD_MAX_HANDS + 1);
    rc_refused_line(line, strlen(line), "hands: 1001 hands, more than 1000");
    free(line);
}

static void test_record_parse_limits(void **state)
{
    (void)state;
    /* nesting deeper than any record */
    char deep[20001];
    memset(deep, '[', 10000);
    memset(deep + 10000, ']', 10000);
    deep[20000] = '\0';
    rc_refused_line(deep, 20000, "nesting too deep");
    /* a line beyond the cap is refused before it is parsed */
    size_t big = RECORD_MAX_LINE + 1;
    char *huge = malloc(big);
    assert_non_null(huge);
    memset(huge, ' ', big);
    rc_refused_line(huge, big, "longer than");
    free(huge);
    /* a NUL inside the line */
    static const char nul[] = "{\"format\":\"hearts-record/1\"\0}";
    rc_refused_line(nul, sizeof nul - 1, "NUL byte");
    /* a card far too long, a name far too long */
    struct record *rec = rc_standard_record();
    char card[400] = "[[\"";
    memset(card + 3, 'Q', 300);
    strcpy(card + 303, "\"],[],[],[]]");
    rc_refused_field(rec, 0, "deal", card, "hand 1: deal[0][0]: 'QQQQ");
    char name[400] = "[\"";
    memset(name + 2, 'n', RECORD_MAX_NAME + 1);
    strcpy(name + 2 + RECORD_MAX_NAME + 1, "\",\"b\",\"c\",\"d\"]");
    rc_refused_field(rec, -1, "players", name, "players[0]: a name of at most");
    record_free(rec);
}

static void test_record_parse_garbage_bytes_refused(void **state)
{
    (void)state;
    struct engine_prng rng;
    engine_prng_seed(&rng, 77);
    struct record *rec = rc_standard_record();
    char *json = record_to_json(rec);
    size_t len = strlen(json);
    char *buf = malloc(len);
    assert_non_null(buf);
    for (int i = 0; i < 300; i++) {
        /* random bytes, and the record with random bytes changed */
        size_t n;
        if (i % 2) {
            n = engine_prng_below(&rng, 2000);
            for (size_t j = 0; j < n; j++)
                buf[j] = (char)engine_prng_below(&rng, 256);
        } else {
            n = len;
            memcpy(buf, json, len);
            for (int j = 0; j < 3; j++)
                buf[engine_prng_below(&rng, (uint32_t)len)] =
                    (char)engine_prng_below(&rng, 256);
        }
        char err[256] = "";
        struct record *out = NULL;
        if (record_parse(buf, n, &out, err, sizeof err) == 0) {
            /* a change inside a name or a card's case may still parse;
             * the replay must then still not crash */
            record_replay(out, NULL, NULL, NULL, NULL, err, sizeof err);
            record_free(out);
        } else {
            assert_true(err[0] != '\0');
        }
    }
    free(buf);
    free(json);
    record_free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_parse_unknown_format),
        cmocka_unit_test(test_record_parse_unknown_option_names_nearest),
        cmocka_unit_test(test_record_hints),
        cmocka_unit_test(test_record_parse_options_repeating_the_preset),
        cmocka_unit_test(test_record_parse_bad_card_text),
        cmocka_unit_test(test_record_parse_every_truncation_refused),
        cmocka_unit_test(test_record_parse_wrong_types_in_every_field),
        cmocka_unit_test(test_record_parse_malformed_lines_refused),
        cmocka_unit_test(test_record_parse_many_junk_hands_refused),
        cmocka_unit_test(test_record_parse_limits),
        cmocka_unit_test(test_record_parse_garbage_bytes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
