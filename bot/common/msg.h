/*
 * The message catalogue: every text a person reads, in their language.
 *
 * A message is English text with named placeholders, marked in the source
 * so that xgettext finds it (the build makes po/heartsbot.pot from the
 * sources; translators fill po/LANG.po; docs/translating.md):
 *
 *     msg_add(&sb, lang, M("Not your turn: {player} plays now."),
 *             MSG_S("player", name), MSG_END);
 *     msg_addn(&sb, lang, MN("{n} card left.", "{n} cards left."), n,
 *              MSG_I("n", n), MSG_END);
 *
 * A placeholder is {name} (letters, digits, '_'); "{{" is a literal '{'.
 * A placeholder without a value stays as written. Values are inserted as
 * they are: the caller renders cards and escapes names first.
 *
 * The catalogue is compiled into the program (msg_data.h): no files to
 * find and no locales needed where the bot runs, nothing parsed at start.
 * Language 0 is English, the source text.
 */
#ifndef HEARTS_COMMON_MSG_H
#define HEARTS_COMMON_MSG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "bot/common/strbuf.h"

/* Marks a message for the catalogue; the text is the English source. */
#define M(text) text
/* A message whose English text means different things in different
 * places: the context tells translators (and the catalogue) which. */
#define MC(context, text) context "\004" text
/* A message with a plural: the English singular and plural. */
#define MN(one, many) one, many

/* English: the source language. */
#define MSG_EN 0

/* One placeholder's value: a string or a number. */
struct msg_arg {
    const char *name; /* NULL: the end of the list */
    const char *s;    /* the text, or NULL for the number */
    long long i;
};
#define MSG_S(name, text) ((struct msg_arg){(name), (text), 0})
#define MSG_I(name, num) ((struct msg_arg){(name), NULL, (long long)(num)})
#define MSG_END ((struct msg_arg){NULL, NULL, 0})

/* The languages: 0 (English) to msg_lang_count() - 1. */
int msg_lang_count(void);
/* "en", "de", ...; NULL for a bad index. */
const char *msg_lang_code(int lang);
/* The language's name in itself ("Deutsch"); NULL for a bad index. */
const char *msg_lang_name(int lang);
/* The language whose code or own name is `word` (either case), or -1. */
int msg_lang_find(const char *word);

/* The template of message id in lang: its translation, else the English
 * (its context dropped). A bad lang is English. */
const char *msg_template(int lang, const char *id);

/* Appends message id in lang with its placeholders filled from the
 * arguments (struct msg_arg, up to MSG_END), cut like strbuf_add.
 * Returns false if the builder is cut. */
bool msg_add(struct strbuf *sb, int lang, const char *id, ...);

/* The same for a message with a plural: the form lang uses for n. */
bool msg_addn(struct strbuf *sb, int lang, const char *one, const char *many,
              unsigned long n, ...);

/* msg_add and msg_addn with the arguments in a va_list (for functions
 * that take a message and its arguments and add where it goes). */
bool msg_vadd(struct strbuf *sb, int lang, const char *id, va_list ap);
bool msg_vaddn(struct strbuf *sb, int lang, const char *one, const char *many,
               unsigned long n, va_list ap);

#endif
