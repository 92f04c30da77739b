/*
 * The message catalogue's data, as tools/catalogue_gen.c writes it from
 * the .po files at build time (docs/translating.md): for msg.c and its
 * test only.
 */
#ifndef HEARTS_COMMON_MSG_DATA_H
#define HEARTS_COMMON_MSG_DATA_H

#include <stddef.h>

/* One message of one language. */
struct msg_entry {
    const char *id;           /* msgctxt "\004" msgid, or the msgid */
    const char *const *forms; /* the translation; plural forms in order */
    int nforms;               /* 1, or the language's nplurals */
    int plural;               /* 1 if the message has a plural */
};

/* One language: its messages sorted by id (strcmp). */
struct msg_lang {
    const char *code;                         /* "de" */
    unsigned long (*plural)(unsigned long n); /* the form for n */
    int nplurals;
    const struct msg_entry *entries;
    size_t n;
};

/* English first: the source language, every message the sources mark. */
extern const struct msg_lang msg_langs[];
extern const int msg_nlangs;

#endif
