/*
 * Tests of bot/common/section.c, through a one-table schema read with the
 * TOML reader: values land in their fields, types, ranges and duplicate
 * keys are refused by name, the shared checks (one of a list, a network's
 * name, rooms with rules) call the hooks and word their messages, and a
 * table remembers which keys it set and where.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/protocol.h"
#include "bot/common/section.h"
#include "bot/common/toml.h"

struct thing {
    char *name;
    char *kind;
    int size;
    bool on;
    struct protocol_room *rooms;
    int nrooms;
};

static int check_kind(struct section *s, const struct section_key *k,
                      struct toml_value *v)
{
    static const char *const names[] = {"red", "green", "blue"};
    return section_check_one_of(s, k, v, names, 3);
}

/* One entry of rooms: a name without '!', then rules. */
static int room_parse(struct section *s, const struct toml_value *it,
                      const struct protocol_room *prev, int nprev,
                      struct protocol_room *out)
{
    size_t n = strcspn(it->s, " ");
    if (memchr(it->s, '!', n))
        return TOML_FAIL(s->r, it->pos, "no '!' in a room");
    (void)prev;
    (void)nprev;
    return section_room_rules(s, it, n, out);
}

static int store_rooms(struct section *s, const struct section_key *k,
                       struct toml_value *v)
{
    (void)k;
    struct thing *t = s->base;
    return section_rooms(s, v, room_parse, "rooms", &t->rooms, &t->nrooms);
}

#define F(field) offsetof(struct thing, field)

static const struct section_key keys[] = {
    {"name", TOML_STRING, F(name), 0, 0, section_check_name},
    {"kind", TOML_STRING, F(kind), 0, 0, check_kind},
    {"size", TOML_INT, F(size), 1, 10, NULL},
    {"on", TOML_BOOL, F(on), 0, 0, NULL},
    {"rooms", TOML_ARRAY, 0, 0, 0, store_rooms},
};

/* The read: one [thing] table; what the hooks were asked. */
struct world {
    struct thing t;
    struct section sec;
    struct section_hooks hooks;
    int key;
    bool size_set;
    size_t size_where;
    char asked[128];
};

static int name_taken(void *ctx, struct section *s, const struct toml_value *v)
{
    struct world *w = ctx;
    snprintf(w->asked, sizeof w->asked, "name %s", v->s);
    if (strcmp(v->s, "taken") == 0)
        return TOML_FAIL(s->r, v->pos, "'%s' is taken", v->s);
    return 0;
}

static int lang_check(void *ctx, const char *code, char *msg, size_t msglen)
{
    (void)ctx;
    if (strcmp(code, "de") == 0)
        return 0;
    snprintf(msg, msglen, "'%s' is not a language", code);
    return -1;
}

static int rules_check(void *ctx, const char *text, char *msg, size_t msglen)
{
    struct world *w = ctx;
    snprintf(w->asked, sizeof w->asked, "rules %s", text);
    if (strcmp(text, "bad") == 0) {
        snprintf(msg, msglen, "unknown rules '%s'", text);
        return -1;
    }
    return 0;
}

static int on_table_end(void *ctx, struct toml_reader *r)
{
    (void)r;
    struct world *w = ctx;
    w->size_set = section_was_set(&w->sec, "size");
    w->size_where = section_where(&w->sec, "size");
    return 0;
}

static int on_table(void *ctx, struct toml_reader *r, const char *name,
                    size_t len, bool array, size_t start, size_t name_pos)
{
    (void)name;
    (void)len;
    (void)array;
    (void)name_pos;
    struct world *w = ctx;
    section_begin(&w->sec, r, "[thing]", keys, sizeof keys / sizeof keys[0],
                  &w->t, start, &w->hooks);
    return 0;
}

static int on_key(void *ctx, struct toml_reader *r, const char *key, size_t len,
                  size_t pos)
{
    struct world *w = ctx;
    w->key = section_index(&w->sec, key, len);
    if (w->key < 0)
        return TOML_FAIL(r, pos, "unknown");
    return section_mark(&w->sec, w->key, pos);
}

static int on_value(void *ctx, struct toml_reader *r, struct toml_value *v)
{
    (void)r;
    struct world *w = ctx;
    return section_store(&w->sec, w->key, v);
}

static const struct toml_visitor visitor = {on_table_end, on_table, on_key,
                                            on_value};

static void world_free(struct world *w)
{
    free(w->t.name);
    free(w->t.kind);
    section_rooms_free(w->t.rooms, w->t.nrooms);
}

/* Reads "[thing]\n" + body; returns toml_read's result. */
static int read_thing(struct world *w, const char *body, char *err,
                      size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->hooks = (struct section_hooks){w, name_taken, rules_check, lang_check};
    char text[512];
    snprintf(text, sizeof text, "[thing]\n%s", body);
    return toml_read(text, strlen(text), "s.toml", &visitor, w, err, errlen);
}

static void test_section_stores_values(void **state)
{
    (void)state;
    struct world w;
    char err[256] = "";
    assert_int_equal(
        read_thing(&w,
                   "name = \"n-1\"\nkind = \"green\"\n"
                   "size = 10\non = true\n"
                   "rooms = [\"a\", \"b  omnibus  \", "
                   "\"c lang=de\", \"d omnibus lang=de hands=2\"]\n",
                   err, sizeof err),
        0);
    assert_string_equal(w.t.name, "n-1");
    assert_string_equal(w.t.kind, "green");
    assert_int_equal(w.t.size, 10);
    assert_true(w.t.on);
    assert_int_equal(w.t.nrooms, 4);
    assert_string_equal(w.t.rooms[0].name, "a");
    assert_null(w.t.rooms[0].rules);
    assert_null(w.t.rooms[0].lang);
    assert_string_equal(w.t.rooms[1].name, "b");
    assert_string_equal(w.t.rooms[1].rules, "omnibus");
    assert_null(w.t.rooms[1].lang);
    /* lang= is the room's language, apart from its rules */
    assert_string_equal(w.t.rooms[2].name, "c");
    assert_null(w.t.rooms[2].rules);
    assert_string_equal(w.t.rooms[2].lang, "de");
    assert_string_equal(w.t.rooms[3].rules, "omnibus hands=2");
    assert_string_equal(w.t.rooms[3].lang, "de");
    assert_string_equal(w.asked, "rules omnibus hands=2");
    assert_true(w.size_set);
    assert_int_equal(w.size_where, 8 + 13 + 15);
    world_free(&w);
}

static void test_section_unset_key_is_at_header(void **state)
{
    (void)state;
    struct world w;
    char err[256] = "";
    assert_int_equal(read_thing(&w, "on = false\n", err, sizeof err), 0);
    assert_false(w.size_set);
    assert_int_equal(w.size_where, 0);
    world_free(&w);
}

static void test_section_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        const char *err;
    } cases[] = {
        {"size = \"3\"\n", "s.toml:2:8: 'size' must be an integer, not a "
                           "string"},
        {"on = 1\n", "s.toml:2:6: 'on' must be true or false, not an integer"},
        {"rooms = \"a\"\n", "s.toml:2:9: 'rooms' must be an array of "
                            "strings, not a string"},
        {"size = 11\n", "s.toml:2:8: 'size' must be between 1 and 10"},
        {"size = 2\nsize = 3\n", "s.toml:3:1: duplicate key 'size' (first "
                                 "set at line 2)"},
        {"kind = \"pink\"\n", "s.toml:2:8: 'kind' must be red, green or "
                              "blue"},
        {"kind = \"a\\nb\"\n", "s.toml:2:8: 'kind' contains a control "
                               "character"},
        {"name = \"\"\n", "s.toml:2:8: 'name' is empty"},
        {"name = \"a b\"\n", "s.toml:2:8: 'name' may hold only letters, "
                             "digits, '-', '_' and '.'"},
        {"name = \".a\"\n", "s.toml:2:8: 'name' may not start with '.'"},
        {"name = \"123456789012345678901234567890123\"\n",
         "s.toml:2:8: 'name' is longer than 32 characters"},
        {"name = \"taken\"\n", "s.toml:2:8: 'taken' is taken"},
        {"rooms = [\"a\", \"b!\"]\n", "s.toml:2:15: no '!' in a room"},
        {"rooms = [\"a bad\"]\n", "s.toml:2:10: the rules of a: unknown "
                                  "rules 'bad'"},
        {"rooms = [\"a lang=xx\"]\n", "s.toml:2:10: the language of a: 'xx' "
                                      "is not a language"},
        {"rooms = [\"a lang=de lang=de\"]\n",
         "s.toml:2:10: a: lang= is given twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct world w;
        char err[256] = "";
        assert_int_equal(read_thing(&w, cases[i].body, err, sizeof err), -1);
        assert_string_equal(err, cases[i].err);
        world_free(&w);
    }
}

static void test_section_at_most_256_rooms(void **state)
{
    (void)state;
    char body[4096] = "rooms = [";
    for (int i = 0; i < 257; i++)
        strcat(body, "\"r\",");
    strcat(body, "]\n");
    struct world w;
    memset(&w, 0, sizeof w);
    w.hooks = (struct section_hooks){&w, name_taken, rules_check, lang_check};
    char text[4200], err[256] = "";
    snprintf(text, sizeof text, "[thing]\n%s", body);
    assert_int_equal(
        toml_read(text, strlen(text), "s.toml", &visitor, &w, err, sizeof err),
        -1);
    assert_string_equal(err, "s.toml:2:1034: more than 256 rooms on one "
                             "network");
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section_stores_values),
        cmocka_unit_test(test_section_unset_key_is_at_header),
        cmocka_unit_test(test_section_refusals),
        cmocka_unit_test(test_section_at_most_256_rooms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
