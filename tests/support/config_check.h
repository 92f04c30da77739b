/*
 * For the tests of the config and of the protocols' tables
 * (tests/unit/bot/test_config.c, tests/unit/adapters/irc/test_irc_config.c,
 * ...matrix/test_matrix_config.c): a config text that must be read, or refused
 * at a line and column with a message, through config_parse with the bot's
 * protocols. Include after cmocka.h.
 */
#ifndef HEARTS_TEST_CONFIG_CHECK_H
#define HEARTS_TEST_CONFIG_CHECK_H

#include <stdio.h>
#include <string.h>

#include "tests/support/networks.h"

#define ERRLEN 512

/* Parses text that must be accepted; the caller frees *c. */
static inline void parse_ok(const char *text, struct config *c)
{
    char err[ERRLEN] = "";
    int rc = config_parse(text, strlen(text), "test.toml", registry_protocols,
                          c, err, sizeof err);
    if (rc)
        print_error("unexpected error: %s\n", err);
    assert_int_equal(rc, 0);
}

/* Parses text that must be refused at "LINE:COL" with a message holding
 * `fragment`, and checks *out was not touched. */
static inline void parse_bad(const char *text, size_t len, const char *at,
                             const char *fragment)
{
    struct config c, sentinel;
    memset(&c, 0xa5, sizeof c);
    memset(&sentinel, 0xa5, sizeof sentinel);
    char err[ERRLEN] = "";
    char prefix[64];
    snprintf(prefix, sizeof prefix, "test.toml:%s: ", at);
    int rc = config_parse(text, len, "test.toml", registry_protocols, &c, err,
                          sizeof err);
    if (rc != -1 || strncmp(err, prefix, strlen(prefix)) != 0 ||
        !strstr(err + strlen(prefix), fragment))
        print_error("input:\n%s\nwant: %s...%s\ngot:  %s\n", text, prefix,
                    fragment, err);
    assert_int_equal(rc, -1);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err + strlen(prefix), fragment));
    assert_memory_equal(&c, &sentinel, sizeof c);
}

/* Literal text that must be refused, NUL bytes and all. */
#define BAD(lit, at, fragment) parse_bad(lit, sizeof(lit) - 1, at, fragment)

/* A text refused at LINE:COL with a message holding fragment. */
struct bad_case {
    const char *text;
    const char *at; /* LINE:COL */
    const char *fragment;
};

static inline void parse_bad_cases(const struct bad_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        parse_bad(cases[i].text, strlen(cases[i].text), cases[i].at,
                  cases[i].fragment);
}

/* An integer key of a table and its range. */
struct int_key {
    const char *table, *key;
    int min, max;
    size_t off; /* in struct config, or in the protocol's struct */
};

/* Each key at both ends of its range, then just past them (refused at
 * its value with the range in the message). With a protocol, the key is
 * in the first network of it, whose table starts with the lines of
 * `required` (its required keys). */
static inline void check_int_ranges(const struct int_key *keys, size_t n,
                                    const struct protocol *proto,
                                    const char *required)
{
    int line = 2;
    for (const char *p = required; *p; p++)
        line += *p == '\n';
    for (size_t i = 0; i < n; i++) {
        const int ends[2] = {keys[i].min, keys[i].max};
        for (int e = 0; e < 2; e++) {
            char text[256], at[32];
            snprintf(text, sizeof text, "%s\n%s%s = %d\n", keys[i].table,
                     required, keys[i].key, ends[e]);
            struct config c;
            parse_ok(text, &c);
            const char *base = proto
                                   ? (const char *)config_section(&c, proto, 0)
                                   : (const char *)&c;
            int got;
            memcpy(&got, base + keys[i].off, sizeof got);
            assert_int_equal(got, ends[e]);
            config_free(&c);

            int past = e == 0 ? keys[i].min - 1 : keys[i].max + 1;
            snprintf(text, sizeof text, "%s\n%s%s = %d\n", keys[i].table,
                     required, keys[i].key, past);
            snprintf(at, sizeof at, "%d:%d", line,
                     (int)strlen(keys[i].key) + 4);
            char want[128];
            snprintf(want, sizeof want, "'%s' must be between %d and %d",
                     keys[i].key, keys[i].min, keys[i].max);
            parse_bad(text, strlen(text), at, want);
        }
    }
}

#endif
