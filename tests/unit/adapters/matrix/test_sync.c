/*
 * The /sync parser (adapters/matrix/sync.c): a well-formed response in
 * neutral items, and hostile ones refused field by field.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "adapters/matrix/sync.h"

#define SELF "@bot:hs"

static int parse(const char *body, struct mx_sync *s)
{
    char err[128];
    int rc = mx_sync_parse(body, strlen(body), SELF, s, err, sizeof err);
    if (rc)
        print_message("%s\n", err);
    return rc;
}

/* A message event in room !r:hs; fields given raw so tests can break them. */
#define MSG(sender, id, body, ts)                                              \
    "{\"type\":\"m.room.message\",\"sender\":" sender ",\"event_id\":" id      \
    ",\"origin_server_ts\":" ts                                                \
    ",\"content\":{\"msgtype\":\"m.text\",\"body\":" body "}}"

#define ROOM(events)                                                           \
    "{\"next_batch\":\"s2\",\"rooms\":{\"join\":{\"!r:hs\":{\"timeline\":{"    \
    "\"events\":[" events "]}}}}}"

static void test_sync_parse_full_response(void **state)
{
    (void)state;
    const char *body =
        "{\"next_batch\":\"s72_5\",\"rooms\":{"
        "\"join\":{\"!r:hs\":{"
        "\"state\":{\"events\":[{\"type\":\"m.room.member\",\"sender\":"
        "\"@a:hs\",\"state_key\":\"@a:hs\",\"content\":{\"membership\":"
        "\"join\",\"displayname\":\"Alice\"}}]},"
        "\"timeline\":{\"events\":[" MSG(
            "\"@a:hs\"", "\"$e1\"", "\"!play 2c\\nmore\"",
            "1700") ","
                    "{\"type\":\"m.room.encrypted\",\"sender\":\"@b:hs\","
                    "\"event_id\":"
                    "\"$e2\",\"content\":{\"algorithm\":\"x\"}},"
                    "{\"type\":\"m.room.member\",\"sender\":\"@a:hs\",\"state_"
                    "key\":"
                    "\"@a:hs\",\"content\":{\"membership\":\"leave\"}}]}}},"
                    "\"invite\":{\"!dm:hs\":{\"invite_state\":{\"events\":["
                    "{\"type\":\"m.room.member\",\"sender\":\"@c:hs\",\"state_"
                    "key\":"
                    "\"" SELF
                    "\",\"content\":{\"membership\":\"invite\",\"is_direct\":"
                    "true}}]}}},"
                    "\"leave\":{\"!old:hs\":{}}},"
                    "\"account_data\":{\"events\":[{\"type\":\"m.direct\","
                    "\"content\":{"
                    "\"@c:hs\":[\"!dm:hs\",42],\"nobody\":[\"!x:hs\"]}}]}}";
    struct mx_sync s;
    assert_int_equal(parse(body, &s), 0);
    assert_string_equal(s.next_batch, "s72_5");
    assert_int_equal(s.nitems, 7);
    assert_int_equal(s.items[0].kind, MX_ITEM_JOINED);
    assert_string_equal(s.items[0].room, "!r:hs");
    assert_int_equal(s.items[1].kind, MX_ITEM_MEMBER);
    assert_string_equal(s.items[1].user, "@a:hs");
    assert_string_equal(s.items[1].membership, "join");
    assert_string_equal(s.items[1].name, "Alice");
    assert_int_equal(s.items[2].kind, MX_ITEM_MESSAGE);
    assert_string_equal(s.items[2].sender, "@a:hs");
    assert_string_equal(s.items[2].event_id, "$e1");
    assert_string_equal(s.items[2].msgtype, "m.text");
    assert_string_equal(s.items[2].body, "!play 2c\nmore");
    assert_int_equal(s.items[2].ts, 1700);
    assert_int_equal(s.items[3].kind, MX_ITEM_ENCRYPTED);
    assert_string_equal(s.items[3].sender, "@b:hs");
    assert_int_equal(s.items[4].kind, MX_ITEM_MEMBER);
    assert_string_equal(s.items[4].membership, "leave");
    assert_null(s.items[4].name);
    assert_int_equal(s.items[5].kind, MX_ITEM_INVITE);
    assert_string_equal(s.items[5].room, "!dm:hs");
    assert_string_equal(s.items[5].sender, "@c:hs");
    assert_true(s.items[5].is_direct);
    assert_int_equal(s.items[6].kind, MX_ITEM_LEFT);
    assert_string_equal(s.items[6].room, "!old:hs");
    assert_true(s.has_direct);
    assert_int_equal(s.ndirect, 1);
    assert_string_equal(s.direct[0].user, "@c:hs");
    assert_int_equal(s.direct[0].nrooms, 1);
    assert_string_equal(s.direct[0].rooms[0], "!dm:hs");
    assert_int_equal(s.refused, 2); /* the 42 and "nobody" */
    mx_sync_free(&s);
}

static void test_sync_left_rooms_say_who_and_how(void **state)
{
    (void)state;
    const char *body =
        "{\"next_batch\":\"s3\",\"rooms\":{\"leave\":{"
        "\"!kick:hs\":{\"timeline\":{\"events\":["
        "{\"type\":\"m.room.member\",\"sender\":\"@a:hs\",\"state_key\":"
        "\"@x:hs\",\"content\":{\"membership\":\"leave\"}},"
        "{\"type\":\"m.room.member\",\"sender\":\"@op:hs\",\"state_key\":"
        "\"" SELF "\",\"content\":{\"membership\":\"leave\"}}]}},"
        "\"!ban:hs\":{\"timeline\":{\"events\":["
        "{\"type\":\"m.room.member\",\"sender\":\"@op:hs\",\"state_key\":"
        "\"" SELF "\",\"content\":{\"membership\":\"ban\"}},"
        "{\"type\":\"m.room.member\",\"sender\":\"bad\",\"state_key\":"
        "\"" SELF "\",\"content\":{\"membership\":\"leave\"}}]}},"
        "\"!quiet:hs\":{\"timeline\":7}}}}";
    struct mx_sync s;
    assert_int_equal(parse(body, &s), 0);
    assert_int_equal(s.nitems, 3);
    for (size_t i = 0; i < s.nitems; i++) {
        const struct mx_item *it = &s.items[i];
        assert_int_equal(it->kind, MX_ITEM_LEFT);
        if (strcmp(it->room, "!kick:hs") == 0) {
            assert_string_equal(it->sender, "@op:hs");
            assert_string_equal(it->membership, "leave");
        } else if (strcmp(it->room, "!ban:hs") == 0) {
            /* the malformed later event is not taken */
            assert_string_equal(it->sender, "@op:hs");
            assert_string_equal(it->membership, "ban");
        } else {
            assert_string_equal(it->room, "!quiet:hs");
            assert_null(it->sender);
            assert_null(it->membership);
        }
    }
    mx_sync_free(&s);
}

static void test_sync_refuses_whole_bodies(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[]",
        "\"s1\"",
        "{}",
        "{\"next_batch\":7}",
        "{\"next_batch\":\"\"}",
        "{\"next_batch\":\"a\\u0000b\"}",
        "{\"next_batch\":\"a\\nb\"}",
        "{\"next_batch\":\"s1\"} trailing",
        "{\"next_batch\":\"s1\"",
        "{\"next_batch\":\"\xff\"}",
        "{\"next_batch\":\"\xed\xa0\x80\"}", /* a surrogate */
        "{\"next_batch\":\"s\",\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
        "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct mx_sync s;
        memset(&s, 0x5a, sizeof s);
        char err[128] = "";
        assert_int_equal(
            mx_sync_parse(bad[i], strlen(bad[i]), SELF, &s, err, sizeof err),
            -1);
        assert_true(err[0] != '\0');
        assert_int_equal(s.nitems, (size_t)0x5a5a5a5a5a5a5a5a);
    }
}

static void test_sync_refuses_events_field_by_field(void **state)
{
    (void)state;
    const char *body =
        ROOM(MSG("\"@a:hs\"", "\"$ok\"", "\"fine\"",
                 "1") "," MSG("7", "\"$e\"", "\"x\"", "1") "," /* sender type */
             MSG("\"a:hs\"", "\"$e\"", "\"x\"", "1") ","       /* not a user */
             MSG("\"@a:hs\"", "\"e\"", "\"x\"", "1") ","       /* not an ID */
             MSG("\"@a:hs\"", "\"$e\"", "[\"x\"]", "1") ","    /* body type */
             MSG("\"@a:hs\"", "\"$e\"", "\"x\"", "\"1\"") ","  /* ts type */
             MSG("\"@a:hs\"", "\"$e\"", "\"a\\u0000b\"", "1") "," /* NUL */
             MSG("\"@a:hs\"", "\"$e\"", "\"\xc0\xaf\"", "1") ","  /* overlong */
             MSG("\"@a:hs\"", "\"$e\"", "\"\xff\"", "1") "," /* not UTF-8 */
             MSG("\"@a b:hs\"", "\"$e\"", "\"x\"",
                 "1") "," /* a space */
                      "{\"type\":\"m.room.message\",\"sender\":\"@a:hs\"},"
                      "{\"type\":\"m.room.member\",\"sender\":\"@a:hs\","
                      "\"state_key\":"
                      "\"@a:hs\",\"content\":{\"membership\":\"dancing\"}},"
                      "{\"type\":\"m.room.member\",\"sender\":\"@a:hs\","
                      "\"state_key\":"
                      "\"@a:hs\",\"content\":{\"membership\":\"join\","
                      "\"displayname\":"
                      "\"A\\u0007\"}},"
                      "17,null,[],\"x\"");
    struct mx_sync s;
    assert_int_equal(parse(body, &s), 0);
    assert_int_equal(s.nitems, 3);
    assert_int_equal(s.items[1].kind, MX_ITEM_MESSAGE);
    assert_string_equal(s.items[1].body, "fine");
    /* the member event stays; the bad display name is dropped alone */
    assert_int_equal(s.items[2].kind, MX_ITEM_MEMBER);
    assert_null(s.items[2].name);
    assert_int_equal(s.refused, 15);
    mx_sync_free(&s);
}

/* A member event of @a:hs in !r:hs with a raw displayname value. */
#define MEMBER(name)                                                           \
    "{\"type\":\"m.room.member\",\"sender\":\"@a:hs\",\"state_key\":"          \
    "\"@a:hs\",\"content\":{\"membership\":\"join\",\"displayname\":" name     \
    "}}"

static void test_sync_hostile_display_names(void **state)
{
    (void)state;
    char long_name[MX_NAME_MAX + 8];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    char *body = malloc(4096);
    snprintf(body, 4096,
             ROOM(MEMBER("\"Al\\u202eice\"") "," /* bidi: kept, the bot
                                                    cleans it */
                  MEMBER("\"A\\nB\"") ","        /* a line break */
                  MEMBER("\"A\\u0000B\"") ","    /* a NUL */
                  MEMBER("\"\xff\xfe\"") ","     /* not UTF-8 */
                  MEMBER("\"\"") ","             /* empty */
                  MEMBER("null") "," MEMBER("42") "," MEMBER(
                      "\"%s\"") "," MEMBER("\"\xf0\x9f\x82\xa1 Ace\"")),
             long_name);
    struct mx_sync s;
    assert_int_equal(parse(body, &s), 0);
    /* every event stays a membership: only the name is refused */
    assert_int_equal(s.nitems, 10);
    assert_int_equal(s.refused, 0);
    assert_string_equal(s.items[1].name, "Al\xe2\x80\xae"
                                         "ice");
    for (int i = 2; i <= 8; i++) {
        assert_int_equal(s.items[i].kind, MX_ITEM_MEMBER);
        assert_null(s.items[i].name);
    }
    assert_string_equal(s.items[9].name, "\xf0\x9f\x82\xa1 Ace");
    mx_sync_free(&s);
    /* exactly the cap is a name */
    long_name[MX_NAME_MAX] = '\0';
    snprintf(body, 4096, ROOM(MEMBER("\"%s\"")), long_name);
    assert_int_equal(parse(body, &s), 0);
    assert_string_equal(s.items[1].name, long_name);
    mx_sync_free(&s);
    free(body);
}

static void test_member_parse(void **state)
{
    (void)state;
    char *m = NULL, *name = NULL;
    const char *ok = "{\"membership\":\"join\",\"displayname\":\"Bob\"}";
    assert_int_equal(mx_member_parse(ok, strlen(ok), &m, &name), 0);
    assert_string_equal(m, "join");
    assert_string_equal(name, "Bob");
    free(m);
    free(name);
    const char *bad_name =
        "{\"membership\":\"join\",\"displayname\":\"\\u0007\"}";
    assert_int_equal(mx_member_parse(bad_name, strlen(bad_name), &m, &name), 0);
    assert_null(name);
    free(m);
    const char *const refused[] = {"[]",
                                   "{}",
                                   "{\"membership\":\"dancing\"}",
                                   "{\"membership\":7}",
                                   "{\"membership\":\"join\"",
                                   "{\"membership\":\"join\"} x"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        m = name = NULL;
        assert_int_equal(
            mx_member_parse(refused[i], strlen(refused[i]), &m, &name), -1);
        assert_null(m);
        assert_null(name);
    }
}

static void test_sync_long_strings_refused(void **state)
{
    (void)state;
    size_t n = MX_BODY_MAX + 1;
    char *big = malloc(n + 1);
    memset(big, 'a', n);
    big[n] = '\0';
    char *body = malloc(n + 512);
    snprintf(body, n + 512, ROOM(MSG("\"@a:hs\"", "\"$e\"", "\"%s\"", "1")),
             big);
    struct mx_sync s;
    assert_int_equal(parse(body, &s), 0);
    assert_int_equal(s.nitems, 1); /* only JOINED */
    assert_int_equal(s.refused, 1);
    mx_sync_free(&s);
    big[MX_BODY_MAX] = '\0'; /* exactly the cap is fine */
    snprintf(body, n + 512, ROOM(MSG("\"@a:hs\"", "\"$e\"", "\"%s\"", "1")),
             big);
    assert_int_equal(parse(body, &s), 0);
    assert_int_equal(s.nitems, 2);
    assert_int_equal(strlen(s.items[1].body), MX_BODY_MAX);
    mx_sync_free(&s);
    /* a 300-byte room ID is no room */
    memset(big, 'r', 300);
    big[300] = '\0';
    snprintf(body, n + 512,
             "{\"next_batch\":\"s\",\"rooms\":{\"join\":{\"!%s:hs\":{}},"
             "\"leave\":{\"!%s\":{}}}}",
             big, big);
    assert_int_equal(parse(body, &s), 0);
    assert_int_equal(s.nitems, 0);
    assert_int_equal(s.refused, 2);
    mx_sync_free(&s);
    free(big);
    free(body);
}

static void test_sync_wrong_section_types_are_ignored(void **state)
{
    (void)state;
    static const char *const odd[] = {
        "{\"next_batch\":\"s\",\"rooms\":[]}",
        "{\"next_batch\":\"s\",\"rooms\":{\"join\":[],\"invite\":1}}",
        "{\"next_batch\":\"s\",\"rooms\":{\"join\":{\"!r:hs\":[]}}}",
        "{\"next_batch\":\"s\",\"rooms\":{\"join\":{\"!r:hs\":{\"timeline\":"
        "{\"events\":{}}}}}}",
        "{\"next_batch\":\"s\",\"account_data\":{\"events\":[{\"type\":"
        "\"m.direct\",\"content\":[]}]}}",
        "{\"next_batch\":\"s\",\"rooms\":{\"invite\":{\"!r:hs\":{"
        "\"invite_state\":{\"events\":[{\"type\":\"m.room.member\","
        "\"state_key\":\"@someone:hs\",\"sender\":\"@c:hs\",\"content\":{"
        "\"membership\":\"invite\"}}]}}}}}",
    };
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        struct mx_sync s;
        assert_int_equal(parse(odd[i], &s), 0);
        for (size_t j = 0; j < s.nitems; j++)
            assert_int_equal(s.items[j].kind, MX_ITEM_JOINED);
        assert_false(s.has_direct && s.ndirect > 0);
        mx_sync_free(&s);
    }
}

static void test_utf8_valid(void **state)
{
    (void)state;
    assert_true(mx_utf8_valid("h\xc3\xa9 \xe2\x99\xa5 \xf0\x9f\x82\xa1", 12));
    assert_false(mx_utf8_valid("\xc3", 1));             /* cut short */
    assert_false(mx_utf8_valid("\xe0\x80\xaf", 3));     /* overlong */
    assert_false(mx_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    assert_false(mx_utf8_valid("\x80", 1));
    assert_false(mx_utf8_valid("a\0b", 3));
}

static void test_ids(void **state)
{
    (void)state;
    assert_true(mx_is_user_id("@a:hs"));
    assert_false(mx_is_user_id("@:hs"));
    assert_false(mx_is_user_id("@a"));
    assert_false(mx_is_user_id("@a:"));
    assert_true(mx_is_room_id("!opaque"));
    assert_false(mx_is_room_id("!"));
    assert_true(mx_is_alias("#hearts:hs"));
    assert_false(mx_is_alias("#hearts"));
    assert_false(mx_is_alias(NULL));
}

static void test_direct_parse(void **state)
{
    (void)state;
    const char *body = "{\"@a:hs\":[\"!1:hs\",\"!2:hs\"],\"@b:hs\":\"!3\"}";
    struct mx_direct *d = NULL;
    size_t n = 0;
    assert_int_equal(mx_direct_parse(body, strlen(body), &d, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].nrooms, 2);
    assert_string_equal(d[0].rooms[1], "!2:hs");
    mx_direct_free(d, n);
    assert_int_equal(mx_direct_parse("[]", 2, &d, &n), -1);
}

static void test_sync_room_names_aliases_creators(void **state)
{
    (void)state;
    struct mx_sync s;
    assert_int_equal(
        parse(ROOM("{\"type\":\"m.room.name\",\"sender\":\"@a:hs\","
                   "\"state_key\":\"\",\"content\":{\"name\":\"Card Club\"}},"
                   "{\"type\":\"m.room.canonical_alias\",\"sender\":\"@a:hs\","
                   "\"state_key\":\"\",\"content\":{\"alias\":\"#c:hs\"}},"
                   "{\"type\":\"m.room.create\",\"sender\":\"@bot:hs\","
                   "\"state_key\":\"\",\"content\":{\"creator\":\"@bot:hs\"}},"
                   /* taken away, and broken ones: none */
                   "{\"type\":\"m.room.name\",\"sender\":\"@a:hs\","
                   "\"state_key\":\"\",\"content\":{}},"
                   "{\"type\":\"m.room.canonical_alias\",\"sender\":\"@a:hs\","
                   "\"state_key\":\"\",\"content\":{\"alias\":\"not one\"}},"
                   "{\"type\":\"m.room.name\",\"sender\":\"@a:hs\","
                   "\"state_key\":\"\",\"content\":{\"name\":\"a\\u0007b\"}},"
                   /* not the room's own state: refused */
                   "{\"type\":\"m.room.name\",\"sender\":\"@a:hs\","
                   "\"state_key\":\"x\",\"content\":{\"name\":\"Other\"}}"),
              &s),
        0);
    assert_int_equal(s.nitems, 7);
    assert_int_equal(s.items[1].kind, MX_ITEM_NAME);
    assert_string_equal(s.items[1].name, "Card Club");
    assert_int_equal(s.items[2].kind, MX_ITEM_ALIAS);
    assert_string_equal(s.items[2].name, "#c:hs");
    assert_int_equal(s.items[3].kind, MX_ITEM_CREATE);
    assert_string_equal(s.items[3].sender, "@bot:hs");
    for (size_t i = 4; i < 7; i++)
        assert_null(s.items[i].name);
    assert_int_equal(s.refused, 1);
    mx_sync_free(&s);
}

static void test_sync_an_event_given_twice_is_taken_once(void **state)
{
    (void)state;
    /* Synapse 1.67 gave a newly joined room's newest event in its state
     * and its timeline: a command there must not run twice */
    const char *body = "{\"next_batch\":\"s\",\"rooms\":{\"join\":{\"!r:hs\":{"
                       "\"state\":{\"events\":[" MEMBER(
                           "\"Ann\"") ",{\"type\":"
                                      "\"m.room.member\",\"sender\":\"@a:hs\","
                                      "\"state_key\":\"@a:hs\","
                                      "\"event_id\":\"$m\",\"content\":{"
                                      "\"membership\":\"join\"}}]},"
                                      "\"timeline\":{\"events\":["
                                      "{\"type\":\"m.room.member\",\"sender\":"
                                      "\"@a:hs\",\"state_key\":"
                                      "\"@a:hs\",\"event_id\":\"$m\","
                                      "\"content\":{\"membership\":"
                                      "\"join\"}}," MSG("\"@a:hs\"", "\"$x\"",
                                                        "\"!join\"", "1") ","
        /* a broken event does not hide a good one of its ID */
        MSG("7", "\"$y\"", "\"x\"", "1") "," MSG(
            "\"@a:hs\"", "\"$y\"", "\"!start\"",
            "2") "," MSG("\"@a:hs\"", "\"$x\"", "\"!join\"", "1") "]}}}}}";
    struct mx_sync s;
    assert_int_equal(parse(body, &s), 0);
    int messages = 0, members = 0;
    for (size_t i = 0; i < s.nitems; i++) {
        messages += s.items[i].kind == MX_ITEM_MESSAGE;
        members += s.items[i].kind == MX_ITEM_MEMBER;
    }
    assert_int_equal(messages, 2);
    assert_int_equal(members, 2); /* the one without an ID, and $m */
    mx_sync_free(&s);
}

static void test_sync_invite_to_an_encrypted_room(void **state)
{
    (void)state;
    struct mx_sync s;
    const char *body =
        "{\"next_batch\":\"s\",\"rooms\":{\"invite\":{\"!e:hs\":{"
        "\"invite_state\":{\"events\":["
        "{\"type\":\"m.room.encryption\",\"sender\":\"@c:hs\","
        "\"state_key\":\"\",\"content\":{\"algorithm\":\"m.megolm.v1\"}},"
        "{\"type\":\"m.room.member\",\"sender\":\"@c:hs\",\"state_key\":"
        "\"@bot:hs\",\"content\":{\"membership\":\"invite\",\"is_direct\":"
        "true}}]}}}}}";
    assert_int_equal(parse(body, &s), 0);
    assert_int_equal(s.nitems, 1);
    assert_int_equal(s.items[0].kind, MX_ITEM_INVITE);
    assert_true(s.items[0].is_direct);
    assert_true(s.items[0].encrypted);
    mx_sync_free(&s);
}

static void test_state_parse(void **state)
{
    (void)state;
    const char *body =
        "[{\"type\":\"m.room.create\",\"sender\":\"@bot:hs\",\"state_key\":"
        "\"\",\"content\":{}},"
        "{\"type\":\"m.room.member\",\"sender\":\"@bot:hs\",\"state_key\":"
        "\"@ann:hs\",\"content\":{\"membership\":\"invite\"}},"
        "{\"type\":\"m.room.encryption\",\"sender\":\"@ann:hs\",\"state_key\":"
        "\"\",\"content\":{\"algorithm\":\"x\"}},"
        "{\"type\":\"m.room.message\",\"sender\":\"@ann:hs\",\"state_key\":"
        "\"\",\"content\":{\"body\":\"hi\",\"msgtype\":\"m.text\"}},"
        "{\"type\":\"m.room.topic\",\"sender\":\"@ann:hs\",\"state_key\":\"\","
        "\"content\":{\"topic\":\"t\"}}, 7]";
    struct mx_sync s;
    char err[64];
    assert_int_equal(
        mx_state_parse(body, strlen(body), "!d:hs", &s, err, sizeof err), 0);
    assert_int_equal(s.nitems, 3);
    assert_int_equal(s.items[0].kind, MX_ITEM_CREATE);
    assert_int_equal(s.items[1].kind, MX_ITEM_MEMBER);
    assert_string_equal(s.items[1].user, "@ann:hs");
    assert_string_equal(s.items[1].room, "!d:hs");
    assert_int_equal(s.items[2].kind, MX_ITEM_ENCRYPTED);
    assert_null(s.items[2].event_id);
    assert_int_equal(s.refused, 2); /* the message, the 7 */
    mx_sync_free(&s);
    assert_int_equal(mx_state_parse("{}", 2, "!d:hs", &s, err, sizeof err), -1);
    assert_int_equal(mx_state_parse("[]", 2, "not a room", &s, err, sizeof err),
                     -1);
}

struct got {
    char users[4][32], names[4][32];
    int n;
};

static void joined_one(void *ctx, const char *user, const char *name)
{
    struct got *g = ctx;
    snprintf(g->users[g->n], sizeof g->users[0], "%s", user);
    snprintf(g->names[g->n], sizeof g->names[0], "%s", name ? name : "-");
    g->n++;
}

static void test_joined_parse(void **state)
{
    (void)state;
    const char *body = "{\"joined\":{\"@a:hs\":{\"display_name\":\"Ace\"},"
                       "\"@b:hs\":{\"display_name\":null},\"nobody\":{},"
                       "\"@c:hs\":{\"display_name\":\"x\\u0001y\"},\"@d:hs\":5,"
                       "\"@e:hs\":{\"display_name\":\"Ace\"}}}";
    struct got g = {0};
    assert_int_equal(mx_joined_parse(body, strlen(body), joined_one, &g, 3), 0);
    /* at most 3; bad entries skipped, bad names none */
    assert_int_equal(g.n, 3);
    assert_string_equal(g.users[0], "@a:hs");
    assert_string_equal(g.names[0], "Ace");
    assert_string_equal(g.names[1], "-");
    assert_string_equal(g.users[2], "@c:hs");
    assert_string_equal(g.names[2], "-");
    assert_int_equal(mx_joined_parse("[]", 2, joined_one, &g, 3), -1);
    assert_int_equal(mx_joined_parse("{}", 2, joined_one, &g, 3), -1);
}

/* Whether the filter's room.<section>.types holds type. */
static bool filter_has(const char *filter, const char *section,
                       const char *type)
{
    struct json_object *o = json_tokener_parse(filter), *room, *sec, *types;
    bool found = false;
    if (json_object_object_get_ex(o, "room", &room) &&
        json_object_object_get_ex(room, section, &sec) &&
        json_object_object_get_ex(sec, "types", &types))
        for (size_t i = 0; i < json_object_array_length(types); i++)
            found |= strcmp(json_object_get_string(
                                json_object_array_get_idx(types, i)),
                            type) == 0;
    json_object_put(o);
    return found;
}

static void test_sync_filter_is_json(void **state)
{
    (void)state;
    for (int history = 0; history < 2; history++) {
        const char *f = mx_sync_filter(history);
        /* a filter is no sync body, but it must parse as a JSON object */
        struct mx_direct *d = NULL;
        size_t n = 0;
        assert_int_equal(mx_direct_parse(f, strlen(f), &d, &n), 0);
        mx_direct_free(d, n);
        assert_true((strstr(f, "\"limit\":0") == NULL) == (history == 1));
        assert_non_null(strstr(f, "m.direct"));
        /* display names: members in state (lazily, each sender's always)
         * and in the timeline; what names a room, who made it, whether
         * it is encrypted, in both */
        assert_non_null(strstr(f, "\"lazy_load_members\":true"));
        assert_non_null(strstr(f, "\"include_redundant_members\":true"));
        static const char *const kept[] = {
            "m.room.member", "m.room.encryption", "m.room.name",
            "m.room.canonical_alias", "m.room.create"};
        for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
            assert_true(filter_has(f, "state", kept[i]));
            assert_true(filter_has(f, "timeline", kept[i]));
        }
        assert_true(filter_has(f, "timeline", "m.room.message"));
        assert_true(filter_has(f, "timeline", "m.room.encrypted"));
        assert_false(filter_has(f, "state", "m.room.message"));
    }
}

/* An application-service transaction: the bot's own membership becomes
 * INVITE, JOINED (with its MEMBER) and LEFT; the rest as a timeline's. */
static void test_txn_parse_items(void **state)
{
    (void)state;
    const char *body =
        "{\"events\":["
        "{\"room_id\":\"!dm:hs\",\"type\":\"m.room.member\",\"sender\":"
        "\"@a:hs\",\"state_key\":\"" SELF "\",\"event_id\":\"$1\","
        "\"content\":{\"membership\":\"invite\",\"is_direct\":true},"
        "\"unsigned\":{\"invite_room_state\":[{\"type\":"
        "\"m.room.encryption\",\"state_key\":\"\",\"content\":{}}]}},"
        "{\"room_id\":\"!dm:hs\",\"type\":\"m.room.member\",\"sender\":"
        "\"" SELF "\",\"state_key\":\"" SELF "\",\"event_id\":\"$2\","
        "\"content\":{\"membership\":\"join\"}},"
        "{\"room_id\":\"!r:hs\",\"type\":\"m.room.message\",\"sender\":"
        "\"@a:hs\",\"event_id\":\"$3\",\"origin_server_ts\":5,"
        "\"content\":{\"msgtype\":\"m.text\",\"body\":\"!hearts\"}},"
        "{\"room_id\":\"!r:hs\",\"type\":\"m.room.message\",\"sender\":"
        "\"@a:hs\",\"event_id\":\"$3\",\"origin_server_ts\":5,"
        "\"content\":{\"msgtype\":\"m.text\",\"body\":\"!hearts\"}},"
        "{\"room_id\":\"!r:hs\",\"type\":\"m.room.member\",\"sender\":"
        "\"@op:hs\",\"state_key\":\"" SELF "\",\"event_id\":\"$4\","
        "\"content\":{\"membership\":\"ban\"}},"
        "{\"type\":\"m.room.message\",\"sender\":\"@a:hs\"},"
        "{\"room_id\":\"nope\",\"type\":\"m.room.message\"}, 7]}";
    struct mx_sync s;
    char err[128];
    assert_int_equal(
        mx_txn_parse(body, strlen(body), SELF, &s, err, sizeof err), 0);
    assert_null(s.next_batch);
    assert_int_equal(s.refused, 3);
    assert_int_equal(s.nitems, 5);
    assert_int_equal(s.items[0].kind, MX_ITEM_INVITE);
    assert_string_equal(s.items[0].room, "!dm:hs");
    assert_string_equal(s.items[0].sender, "@a:hs");
    assert_true(s.items[0].is_direct);
    assert_true(s.items[0].encrypted);
    assert_int_equal(s.items[1].kind, MX_ITEM_JOINED);
    assert_int_equal(s.items[2].kind, MX_ITEM_MEMBER);
    assert_string_equal(s.items[2].user, SELF);
    assert_int_equal(s.items[3].kind, MX_ITEM_MESSAGE); /* once */
    assert_string_equal(s.items[3].body, "!hearts");
    assert_int_equal(s.items[4].kind, MX_ITEM_LEFT);
    assert_string_equal(s.items[4].sender, "@op:hs");
    assert_string_equal(s.items[4].membership, "ban");
    mx_sync_free(&s);
}

static void test_txn_parse_refuses_whole_bodies(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "nope",
        "[]",
        "{}",
        "{\"events\":{}}",
        "{\"events\":[]} x",
        "{\"events\":[",
        "{\"events\":7}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct mx_sync s;
        char err[128] = "";
        assert_int_equal(
            mx_txn_parse(bad[i], strlen(bad[i]), SELF, &s, err, sizeof err),
            -1);
        assert_true(err[0] != '\0');
    }
    struct mx_sync s;
    assert_int_equal(mx_txn_parse("{\"events\":[]}", 13, SELF, &s, NULL, 0), 0);
    assert_int_equal(s.nitems, 0);
    mx_sync_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_parse_full_response),
        cmocka_unit_test(test_sync_left_rooms_say_who_and_how),
        cmocka_unit_test(test_sync_refuses_whole_bodies),
        cmocka_unit_test(test_sync_refuses_events_field_by_field),
        cmocka_unit_test(test_sync_long_strings_refused),
        cmocka_unit_test(test_sync_hostile_display_names),
        cmocka_unit_test(test_member_parse),
        cmocka_unit_test(test_sync_wrong_section_types_are_ignored),
        cmocka_unit_test(test_utf8_valid),
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_direct_parse),
        cmocka_unit_test(test_sync_filter_is_json),
        cmocka_unit_test(test_sync_room_names_aliases_creators),
        cmocka_unit_test(test_sync_invite_to_an_encrypted_room),
        cmocka_unit_test(test_sync_an_event_given_twice_is_taken_once),
        cmocka_unit_test(test_state_parse),
        cmocka_unit_test(test_joined_parse),
        cmocka_unit_test(test_txn_parse_items),
        cmocka_unit_test(test_txn_parse_refuses_whole_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
