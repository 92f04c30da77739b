/*
 * libFuzzer target for the Matrix rich text (adapters/matrix/format.c):
 * any bytes are a queued message, markup or not. format.c never crashes
 * or leaks, the body holds no control byte but '\n', the HTML has no
 * bare '<' or '>' outside the tags it makes and every tag it opens is
 * closed, and the mentions stay within the cap and are user IDs. Built
 * when HEARTS_FUZZ is on and the compiler is clang; run it as
 * `build/tests/fuzz_matrix_format -max_len=20000 DIR`
 * (tests/unit/adapters/matrix/test_format.c covers the hostile cases by name).
 */
#include "adapters/matrix/format.h"
#include "adapters/matrix/sync.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Opening and closing tags balance: a count of '<x' against '</x'. */
static void check_html(const char *html)
{
    long depth = 0;
    for (const char *p = html; *p; p++) {
        if (*p == '>')
            continue;
        if (*p != '<')
            continue;
        if (strncmp(p, "<br>", 4) == 0)
            continue;
        depth += p[1] == '/' ? -1 : 1;
        if (depth < 0)
            abort();
        const char *end = strchr(p, '>');
        if (!end)
            abort();
        p = end;
    }
    if (depth != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mx_format f;
    mx_format((const char *)data, size, &f);
    size_t n = strlen(f.body);
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)f.body[i] < 0x20 && f.body[i] != '\n') ||
            f.body[i] == 0x7f)
            abort();
    if (!mx_utf8_valid(f.body, n) || !mx_utf8_valid(f.html, strlen(f.html)))
        abort();
    check_html(f.html);
    if (f.nmentions > MX_MENTIONS_MAX)
        abort();
    for (size_t i = 0; i < f.nmentions; i++)
        if (!mx_is_user_id(f.mentions[i]))
            abort();
    mx_format_free(&f);
    return 0;
}
