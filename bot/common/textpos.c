/*
 * Positions in a text file for messages (textpos.h).
 */
#include "bot/common/textpos.h"

#include <stdio.h>

void textpos_where(const char *text, size_t len, size_t pos, int *line,
                   int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < pos && i < len; i++) {
        unsigned ch = (unsigned char)text[i];
        if (ch == '\n')
            l++, c = 1;
        else if ((ch & 0xc0) != 0x80)
            c++;
    }
    *line = l;
    *col = c;
}

void textpos_vfail(char *err, size_t errlen, const char *path, const char *text,
                   size_t len, size_t pos, const char *fmt, va_list ap)
{
    if (!err || !errlen)
        return;
    int line, col;
    textpos_where(text, len, pos, &line, &col);
    int n = snprintf(err, errlen, "%s:%d:%d: ", path, line, col);
    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
}
