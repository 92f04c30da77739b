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

#endif
