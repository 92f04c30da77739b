/*
 * One table of the config as a list of keys: each key's name, type, range
 * and check, and where in a struct its value goes. The bot's config
 * (bot/config.c) reads the file with the TOML reader (toml.h), finds each
 * key in its table's list and hands the value here; the core's [bot] and
 * [game] and every protocol's [[NAME]] (protocol.h) are read so. The
 * checks every section may use are here too: a network's name, a file's
 * path, a list of channels or rooms with their rules.
 *
 * Every message names the file, line and column (toml_fail), and the
 * checks return 0, or -1 after writing it.
 */
#ifndef HEARTS_BOT_SECTION_H
#define HEARTS_BOT_SECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/common/toml.h"

struct section;
struct section_key;
/* A channel or room to join, with its own default rules and language (or
 * NULL): the list of a protocol's table (protocol.h). */
struct protocol_room {
    char *name;
    char *rules;
    char *lang; /* the "lang=CODE" word of its entry, checked */
};

/* Checks a string value beyond its type (and may rewrite it in place);
 * for arrays, checks and stores. */
typedef int (*section_check_fn)(struct section *s, const struct section_key *k,
                                struct toml_value *v);

struct section_key {
    const char *name;
    enum toml_type type;
    size_t off;   /* of the field in the section's struct (section.base) */
    int min, max; /* TOML_INT: the range */
    section_check_fn check; /* NULL: none; arrays need one */
};

/* The off of a string key whose check stores what it means itself. */
#define SECTION_NO_FIELD ((size_t)-1)

/* The most keys one table may have. */
#define SECTION_MAX_KEYS 32

/* The most channels or rooms one network may list: far more than a bot
 * joins, and the check for duplicates (quadratic, on a list this short)
 * stays fast on any file. */
#define SECTION_MAX_ROOMS 256

/* What a section's checks ask of the whole config. */
struct section_hooks {
    void *ctx;
    /* -1 with the message at v->pos if another network of the config has
     * the name v->s already, else 0 */
    int (*name_taken)(void *ctx, struct section *s, const struct toml_value *v);
    /* 0 if `text` is rules the game accepts, else -1 with why in msg */
    int (*rules_check)(void *ctx, const char *text, char *msg, size_t msglen);
    /* 0 if `code` is a language the bot speaks, else -1 with why in msg */
    int (*lang_check)(void *ctx, const char *code, char *msg, size_t msglen);
};

/* A table being read: its keys, the struct they fill, which were set. */
struct section {
    struct toml_reader *r;
    const char *header; /* as messages show it: "[bot]", "[[irc]]" */
    const struct section_key *keys;
    int nkeys;
    void *base; /* the struct the keys' offsets point into */
    size_t pos; /* of the table's header */
    bool set[SECTION_MAX_KEYS];
    size_t set_pos[SECTION_MAX_KEYS];
    const struct section_hooks *hooks;
};

/* Starts reading a table whose header is at pos: no key set yet. */
void section_begin(struct section *s, struct toml_reader *r, const char *header,
                   const struct section_key *keys, int nkeys, void *base,
                   size_t pos, const struct section_hooks *hooks);

/* The index of key (n bytes) among the section's keys, or -1. */
int section_index(const struct section *s, const char *key, size_t n);

/* Notes that key `idx` is set at `pos`: -1 (with the message) if the
 * table set it already. */
int section_mark(struct section *s, int idx, size_t pos);

/* Checks value v of key `idx` (type, range, no control characters, the
 * key's check) and moves it into the struct. */
int section_store(struct section *s, int idx, struct toml_value *v);

/* Whether the table set the key `name` itself. */
bool section_was_set(const struct section *s, const char *name);

/* Where the table set `name`, or its header if it did not. */
size_t section_where(const struct section *s, const char *name);

/* *field = a copy of value, if the table left it unset (NULL). */
void section_default(char **field, const char *value);

/* Whether s holds a control character (a line break, say). */
bool section_has_control(const char *s);

/* Checks for string keys. */
int section_check_nonempty(struct section *s, const struct section_key *k,
                           struct toml_value *v);
/* Text without control characters, at most max bytes. */
int section_check_text(struct section *s, const struct section_key *k,
                       const struct toml_value *v, size_t max);
/* One of the n `names`; the message lists them ("'KEY' must be A, B or
 * C"). */
int section_check_one_of(struct section *s, const struct section_key *k,
                         const struct toml_value *v, const char *const *names,
                         int n);
/* "" (none) or a path of at most 1024 bytes. */
int section_check_path(struct section *s, const struct section_key *k,
                       struct toml_value *v);
/* A network's name: it names its files and log lines, so it is short,
 * plain and used once in the config (hooks->name_taken). */
int section_check_name(struct section *s, const struct section_key *k,
                       struct toml_value *v);

/* Reads one entry of a list of channels or rooms into *out, checked
 * against the `nprev` entries before it. */
typedef int (*section_room_fn)(struct section *s, const struct toml_value *it,
                               const struct protocol_room *prev, int nprev,
                               struct protocol_room *out);

/* Reads every entry of the array v (at most SECTION_MAX_ROOMS; `what`
 * names them: "channels") into *out and *nout. */
int section_rooms(struct section *s, struct toml_value *v,
                  section_room_fn parse, const char *what,
                  struct protocol_room **out, int *nout);

/* The end of an entry: its name is the first n bytes of it->s, optional
 * words follow: "lang=CODE" (checked, hooks->lang_check), the others its
 * rules (checked, hooks->rules_check). Fills *out. */
int section_room_rules(struct section *s, const struct toml_value *it, size_t n,
                       struct protocol_room *out);

/* Frees a list of rooms. */
void section_rooms_free(struct protocol_room *rooms, int n);

/* Takes the strings of the array v (checked already) into *out (NULL if
 * none) and *nout; v keeps none of them. */
void section_take_strings(struct toml_value *v, char ***out, int *nout);

#endif
