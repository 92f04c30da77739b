/*
 * The coalescing out-queue (adapters/matrix/outbox.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <json-c/json.h>

#include "adapters/matrix/format.h"
#include "adapters/matrix/outbox.h"

/* A taken message's msgtype, as JSON text. */
static void msgtype(const char *json, char *out, size_t len)
{
    struct json_object *o = json_tokener_parse(json), *v;
    assert_non_null(o);
    assert_true(json_object_object_get_ex(o, "msgtype", &v));
    snprintf(out, len, "%s", json_object_get_string(v));
    json_object_put(o);
}

/* The body and formatted_body of a taken message (an m.notice, or an
 * m.text when it mentions someone: see msgtype()). */
static void fields(char *json, char *body, size_t blen, char *html, size_t hlen)
{
    struct json_object *o = json_tokener_parse(json), *v;
    assert_non_null(o);
    assert_true(json_object_object_get_ex(o, "msgtype", &v));
    assert_true(json_object_object_get_ex(o, "format", &v));
    assert_string_equal(json_object_get_string(v), "org.matrix.custom.html");
    assert_true(json_object_object_get_ex(o, "body", &v));
    snprintf(body, blen, "%s", json_object_get_string(v));
    assert_true(json_object_object_get_ex(o, "formatted_body", &v));
    snprintf(html, hlen, "%s", json_object_get_string(v));
    json_object_put(o);
    free(json);
}

static void test_outbox_coalesces_per_room(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    assert_false(mx_outbox_waiting(o, NULL));
    mx_outbox_add(o, "!a:hs", "one");
    mx_outbox_add(o, "!b:hs", "other room");
    mx_outbox_add(o, "!a:hs", "two <b>&\nthree\n");
    assert_true(mx_outbox_waiting(o, "!a:hs"));
    assert_string_equal(mx_outbox_dest(o, 0), "!a:hs");
    assert_string_equal(mx_outbox_dest(o, 1), "!b:hs");
    assert_null(mx_outbox_dest(o, 2));
    char body[256], html[256];
    fields(mx_outbox_take(o, "!a:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "one\ntwo <b>&\nthree");
    assert_string_equal(html, "one<br>two &lt;b&gt;&amp;<br>three");
    assert_false(mx_outbox_waiting(o, "!a:hs"));
    assert_null(mx_outbox_take(o, "!a:hs"));
    assert_string_equal(mx_outbox_dest(o, 0), "!b:hs");
    mx_outbox_free(o);
}

static void test_outbox_cleans_lines(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    mx_outbox_add(o, "!a:hs", "a\rb\x01\tc \xff d \xe2\x99\xa5");
    char body[256], html[256];
    fields(mx_outbox_take(o, "!a:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "ab c \xef\xbf\xbd d \xe2\x99\xa5");
    /* a very long line is cut at a character boundary */
    char *big = malloc(3 * MX_LINE_MAX + 1);
    for (int i = 0; i < MX_LINE_MAX; i++)
        memcpy(big + 3 * i, "\xe2\x99\xa5", 3);
    big[3 * MX_LINE_MAX] = '\0';
    mx_outbox_add(o, "!a:hs", big);
    char *json = mx_outbox_take(o, "!a:hs");
    struct json_object *j = json_tokener_parse(json), *v;
    json_object_object_get_ex(j, "body", &v);
    size_t n = (size_t)json_object_get_string_len(v);
    assert_true(n <= MX_LINE_MAX && n % 3 == 0 && n > MX_LINE_MAX - 3);
    json_object_put(j);
    free(json);
    free(big);
    mx_outbox_free(o);
}

static void test_outbox_splits_past_the_cap(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    char line[1001];
    memset(line, 'x', 1000);
    line[1000] = '\0';
    int lines = 40; /* 40 KB: three messages of whole lines */
    for (int i = 0; i < lines; i++)
        mx_outbox_add(o, "!a:hs", line);
    int msgs = 0, seen = 0;
    char *json;
    while ((json = mx_outbox_take(o, "!a:hs"))) {
        struct json_object *j = json_tokener_parse(json), *v;
        json_object_object_get_ex(j, "body", &v);
        const char *b = json_object_get_string(v);
        assert_true(strlen(b) <= MX_MESSAGE_MAX);
        assert_int_equal((strlen(b) + 1) % 1001, 0);
        seen += (int)((strlen(b) + 1) / 1001);
        json_object_put(j);
        free(json);
        msgs++;
    }
    assert_int_equal(seen, lines);
    assert_int_equal(msgs, 3);
    mx_outbox_free(o);
}

/* The m.mentions object of a taken message, as JSON text. */
static void mentions(const char *json, char *out, size_t len)
{
    struct json_object *o = json_tokener_parse(json), *v;
    assert_non_null(o);
    assert_true(json_object_object_get_ex(o, "m.mentions", &v));
    assert_true(json_object_is_type(v, json_type_object));
    snprintf(out, len, "%s",
             json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
}

static void test_outbox_keeps_markup_for_html(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    /* the markup's bytes pass the cleaning, others still go */
    mx_outbox_add(o, "!a:hs",
                  "The table waits for \x01!@bob:hs\x01"
                  "bob\x01 (9 s left).");
    mx_outbox_add(o, "!a:hs",
                  "\x02"
                  "a\x02\x04 \x03"
                  "04\xe2\x99\xa5\x0F "
                  "\x05Q\x05\x1b");
    mx_outbox_add(o, "!a:hs", " hand\x1F  bob\n    1\x1F    3");
    mx_outbox_add(o, "!a:hs", "end");
    char *json = mx_outbox_take(o, "!a:hs");
    char men[256], body[512], html[1024], type[32];
    mentions(json, men, sizeof men);
    assert_string_equal(men, "{\"user_ids\":[\"@bob:hs\"]}");
    /* a mention notifies only in an m.text: push rules mute notices */
    msgtype(json, type, sizeof type);
    assert_string_equal(type, "m.text");
    fields(json, body, sizeof body, html, sizeof html);
    assert_string_equal(body, "The table waits for bob (9 s left).\n"
                              "a \xe2\x99\xa5 [Q]\n"
                              " hand  bob\n"
                              "    1    3\n"
                              "end");
    assert_string_equal(
        html, "The table waits for <a href=\"https://matrix.to/#/@bob:hs\">"
              "bob</a> (9 s left).<br><b>a</b> <font data-mx-color=\"" MX_RED
              "\" color=\"" MX_RED "\">\xe2\x99\xa5</font> <b>Q</b>"
              "<table><thead><tr><th>hand</th><th>bob</th></tr></thead>"
              "<tbody><tr><td>1</td><td>3</td></tr></tbody></table>end");
    /* no notifying pill: an empty m.mentions, so nobody is notified */
    mx_outbox_add(o, "!a:hs",
                  "\x01@bob:hs\x01"
                  "bob\x01 takes it");
    json = mx_outbox_take(o, "!a:hs");
    mentions(json, men, sizeof men);
    assert_string_equal(men, "{}");
    msgtype(json, type, sizeof type);
    assert_string_equal(type, "m.notice");
    free(json);
    mx_outbox_free(o);
}

static void test_outbox_html_stays_under_the_event_cap(void **state)
{
    (void)state;
    /* quotes are 6 bytes of HTML each: 16 lines of them fit the body cap
     * but not an event; they go in several messages, none lost */
    struct mx_outbox *o = mx_outbox_new();
    char line[1001];
    memset(line, '"', 1000);
    line[1000] = '\0';
    for (int i = 0; i < 15; i++)
        mx_outbox_add(o, "!a:hs", line);
    int msgs = 0;
    size_t seen = 0;
    char *json;
    while ((json = mx_outbox_take(o, "!a:hs"))) {
        assert_true(strlen(json) <= MX_CONTENT_MAX);
        struct json_object *j = json_tokener_parse(json), *v;
        json_object_object_get_ex(j, "body", &v);
        seen += strlen(json_object_get_string(v)) + 1;
        json_object_put(j);
        free(json);
        msgs++;
    }
    assert_int_equal(seen, 15 * 1001);
    assert_true(msgs >= 3);
    mx_outbox_free(o);
}

static void test_outbox_move_and_drop(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    mx_outbox_add(o, "!dm:hs", "first");
    mx_outbox_add(o, "@p:hs", "second");
    mx_outbox_move(o, "@p:hs", "!dm:hs");
    assert_false(mx_outbox_waiting(o, "@p:hs"));
    char body[256], html[256];
    fields(mx_outbox_take(o, "!dm:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "first\nsecond");
    mx_outbox_add(o, "!x:hs", "gone");
    mx_outbox_drop(o, "!x:hs");
    assert_false(mx_outbox_waiting(o, NULL));
    mx_outbox_free(o);
}

/* The cookies the last take or drop reported, as "1,2,3". */
static const char *removed(const struct mx_outbox *o)
{
    static char buf[256];
    const uint64_t *c;
    size_t n = mx_outbox_removed(o, &c), len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%llu",
                                i ? "," : "", (unsigned long long)c[i]);
    return buf;
}

static void test_outbox_reports_each_cookie_once(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    char body[256], html[256];
    /* three texts, one untracked, coalesced into one message */
    mx_outbox_add_tracked(o, "!a:hs", "one\ntwo", 1);
    mx_outbox_add(o, "!a:hs", "plain");
    mx_outbox_add_tracked(o, "!a:hs", "three", 2);
    mx_outbox_add_tracked(o, "!b:hs", "elsewhere", 3);
    fields(mx_outbox_take(o, "!a:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "one\ntwo\nplain\nthree");
    assert_string_equal(removed(o), "1,2");
    /* a later message reports only its own */
    mx_outbox_add_tracked(o, "!a:hs", "four", 4);
    fields(mx_outbox_take(o, "!a:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "four");
    assert_string_equal(removed(o), "4");
    fields(mx_outbox_take(o, "!b:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(removed(o), "3");
    /* a text for a person moves with its cookie onto their room */
    mx_outbox_add_tracked(o, "!dm:hs", "before", 5);
    mx_outbox_add_tracked(o, "@p:hs", "waited", 6);
    mx_outbox_move(o, "@p:hs", "!dm:hs");
    fields(mx_outbox_take(o, "!dm:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "before\nwaited");
    assert_string_equal(removed(o), "5,6");
    /* dropped texts are reported too */
    mx_outbox_add_tracked(o, "!x:hs", "lost", 7);
    mx_outbox_add_tracked(o, "!x:hs", "lost too", 8);
    mx_outbox_drop(o, "!x:hs");
    assert_string_equal(removed(o), "7,8");
    mx_outbox_drop(o, "!x:hs");
    assert_string_equal(removed(o), "");
    mx_outbox_free(o);
}

static void test_outbox_cookie_goes_with_the_last_line(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    char line[1001];
    memset(line, 'x', 1000);
    line[1000] = '\0';
    /* 20 lines of 1000 bytes: the text spans two messages */
    char *big = calloc(20 * 1001 + 1, 1); /* and the NUL */
    assert_non_null(big);
    for (int i = 0; i < 20; i++) {
        strcat(big, line);
        strcat(big, "\n");
    }
    mx_outbox_add_tracked(o, "!a:hs", big, 9);
    mx_outbox_add_tracked(o, "!a:hs", "after", 10);
    free(mx_outbox_take(o, "!a:hs"));
    assert_string_equal(removed(o), "");
    /* begun: it cannot be taken back any more */
    assert_false(mx_outbox_retract(o, 9));
    free(mx_outbox_take(o, "!a:hs"));
    assert_string_equal(removed(o), "9,10");
    free(big);
    mx_outbox_free(o);
}

static void test_outbox_retract_waiting_not_in_flight(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    char body[256], html[256];
    mx_outbox_add_tracked(o, "!a:hs", "in flight", 1);
    fields(mx_outbox_take(o, "!a:hs"), body, sizeof body, html, sizeof html);
    /* taken: in a message on its way */
    assert_false(mx_outbox_retract(o, 1));
    mx_outbox_add_tracked(o, "!a:hs", "first", 2);
    mx_outbox_add_tracked(o, "!a:hs", "you received\nthree cards", 3);
    mx_outbox_add_tracked(o, "!a:hs", "last", 4);
    assert_true(mx_outbox_retract(o, 3));
    assert_false(mx_outbox_retract(o, 3));
    assert_false(mx_outbox_retract(o, 99));
    assert_false(mx_outbox_retract(o, 0));
    fields(mx_outbox_take(o, "!a:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "first\nlast");
    assert_string_equal(removed(o), "2,4");
    /* the only text taken back: nothing waits */
    mx_outbox_add_tracked(o, "!a:hs", "alone", 5);
    assert_true(mx_outbox_retract(o, 5));
    assert_false(mx_outbox_waiting(o, NULL));
    mx_outbox_free(o);
}

static void test_outbox_urgency_most_urgent_and_oldest(void **state)
{
    (void)state;
    struct mx_outbox *o = mx_outbox_new();
    enum chat_priority prio;
    uint64_t seq, a_seq, b_seq;
    int64_t since;
    assert_false(mx_outbox_urgency(o, "!a:hs", &prio, &seq, &since));
    mx_outbox_add_prio(o, "!a:hs", "trick", 0, CHAT_NORMAL, 100);
    mx_outbox_add_prio(o, "@b:hs", "deal", 7, CHAT_NORMAL, 200);
    uint64_t between = mx_outbox_tick(o);
    mx_outbox_add_prio(o, "!a:hs", "prompt", 0, CHAT_HIGH, 300);
    mx_outbox_add_prio(o, "!a:hs", "help", 0, CHAT_LOW, 400);
    /* a's most urgent line is HIGH; its oldest came first of all */
    assert_true(mx_outbox_urgency(o, "!a:hs", &prio, &a_seq, &since));
    assert_int_equal(prio, CHAT_HIGH);
    assert_int_equal(since, 100);
    assert_true(mx_outbox_urgency(o, "@b:hs", &prio, &b_seq, &since));
    assert_int_equal(since, 200);
    assert_int_equal(prio, CHAT_NORMAL);
    assert_true(a_seq < b_seq);
    assert_true(b_seq < between);
    /* taken: nothing waits; a new line starts a new urgency */
    free(mx_outbox_take(o, "!a:hs"));
    assert_false(mx_outbox_urgency(o, "!a:hs", &prio, &seq, &since));
    /* untimed: the last time given */
    mx_outbox_add_prio(o, "!a:hs", "later", 0, CHAT_LOW, 500);
    mx_outbox_add(o, "!c:hs", "untimed");
    assert_true(mx_outbox_urgency(o, "!c:hs", &prio, &seq, &since));
    assert_int_equal(since, 500);
    free(mx_outbox_take(o, "!c:hs"));
    assert_true(mx_outbox_urgency(o, "!a:hs", &prio, &seq, &since));
    assert_int_equal(prio, CHAT_LOW);
    assert_true(seq > between);
    /* b's lines moved onto a: the older line and the more urgent prio */
    mx_outbox_move(o, "@b:hs", "!a:hs");
    assert_false(mx_outbox_urgency(o, "@b:hs", &prio, &seq, &since));
    assert_true(mx_outbox_urgency(o, "!a:hs", &prio, &seq, &since));
    assert_int_equal(prio, CHAT_NORMAL);
    assert_int_equal(seq, b_seq);
    assert_int_equal(since, 200);
    /* every line waiting goes as one message, in the order queued */
    char body[256], html[256];
    fields(mx_outbox_take(o, "!a:hs"), body, sizeof body, html, sizeof html);
    assert_string_equal(body, "later\ndeal");
    const uint64_t *cookies;
    assert_int_equal(mx_outbox_removed(o, &cookies), 1);
    assert_int_equal(cookies[0], 7);
    mx_outbox_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outbox_coalesces_per_room),
        cmocka_unit_test(test_outbox_cleans_lines),
        cmocka_unit_test(test_outbox_splits_past_the_cap),
        cmocka_unit_test(test_outbox_move_and_drop),
        cmocka_unit_test(test_outbox_keeps_markup_for_html),
        cmocka_unit_test(test_outbox_html_stays_under_the_event_cap),
        cmocka_unit_test(test_outbox_reports_each_cookie_once),
        cmocka_unit_test(test_outbox_cookie_goes_with_the_last_line),
        cmocka_unit_test(test_outbox_retract_waiting_not_in_flight),
        cmocka_unit_test(test_outbox_urgency_most_urgent_and_oldest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
