/*
 * The heartsbot binary a test runs (unit/bot/test_main.c, test_check.c):
 * $HEARTSBOT, made absolute, since the bot runs in a directory of its
 * own; without one the test is skipped (exit 77, which ctest counts as
 * skipped).
 */
#ifndef HEARTS_TEST_BOT_BINARY_H
#define HEARTS_TEST_BOT_BINARY_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* $HEARTSBOT as an absolute path into out; skips the test `name` (exit
 * 77) when there is none to run. */
static inline void bot_binary(const char *name, char *out, size_t len)
{
    const char *b = getenv("HEARTSBOT");
    if (!b || !*b || access(b, X_OK) != 0) {
        fprintf(stderr, "%s: no $HEARTSBOT to run: skipped\n", name);
        exit(77);
    }
    char cwd[512] = "";
    if (b[0] != '/')
        assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(out, len, "%s%s%s", cwd, *cwd ? "/" : "", b);
}

#endif
