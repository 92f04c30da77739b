/*
 * Where in a text file something is, for the messages of the readers of
 * hand-written files (the config, bot/common/toml.c; the Matrix registration,
 * adapters/matrix/registration.c): "PATH:LINE:COL: what is wrong", with
 * lines and columns counted from 1 and columns in characters of UTF-8
 * text, as editors count them.
 */
#ifndef HEARTS_BOT_TEXTPOS_H
#define HEARTS_BOT_TEXTPOS_H

#include <stdarg.h>
#include <stddef.h>

/* The line and column of byte `pos` of text (len bytes; the text before
 * pos is UTF-8, or columns count its bytes >= 0x80 as parts of
 * characters). */
void textpos_where(const char *text, size_t len, size_t pos, int *line,
                   int *col);

/* Writes "PATH:LINE:COL: " and the formatted message for byte `pos` of
 * text into err (errlen bytes; nothing if err is NULL or errlen 0). */
void textpos_vfail(char *err, size_t errlen, const char *path, const char *text,
                   size_t len, size_t pos, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

#endif
