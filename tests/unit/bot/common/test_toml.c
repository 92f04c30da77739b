/*
 * Tests of bot/common/toml.c without a schema: the visitor hears every
 * table end, header, key and value in the order of the text, values come
 * typed and unescaped, a visitor's refusal ends the read where it is, and
 * the reader's own refusals name the line and column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bot/common/toml.h"

/* What the visitor heard, one event per line. */
struct log {
    char text[1024];
    const char *refuse_key; /* the key to refuse, or NULL */
};

static void add(struct log *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add(struct log *l, const char *fmt, ...)
{
    size_t n = strlen(l->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text + n, sizeof l->text - n, fmt, ap);
    va_end(ap);
}

static int on_table_end(void *ctx, struct toml_reader *r)
{
    (void)r;
    add(ctx, "end\n");
    return 0;
}

static int on_table(void *ctx, struct toml_reader *r, const char *name,
                    size_t len, bool array, size_t start, size_t name_pos)
{
    add(ctx, "table %.*s%s at %zu/%zu line %d\n", (int)len, name,
        array ? " (array)" : "", start, name_pos, toml_line(r, start));
    return 0;
}

static int on_key(void *ctx, struct toml_reader *r, const char *key, size_t len,
                  size_t pos)
{
    struct log *l = ctx;
    add(l, "key %.*s at %zu\n", (int)len, key, pos);
    if (l->refuse_key && strlen(l->refuse_key) == len &&
        memcmp(l->refuse_key, key, len) == 0)
        return TOML_FAIL(r, pos, "no %s here", l->refuse_key);
    return 0;
}

static int on_value(void *ctx, struct toml_reader *r, struct toml_value *v)
{
    (void)r;
    switch (v->type) {
    case TOML_STRING:
        add(ctx, "string [%s]\n", v->s);
        break;
    case TOML_INT:
        add(ctx, "int %lld\n", v->i);
        break;
    case TOML_BOOL:
        add(ctx, "bool %d\n", v->b);
        break;
    case TOML_ARRAY:
        add(ctx, "array of %d:", v->n);
        for (int i = 0; i < v->n; i++)
            add(ctx, " [%s]", v->items[i].s);
        add(ctx, "\n");
        break;
    }
    return 0;
}

static const struct toml_visitor visitor = {on_table_end, on_table, on_key,
                                            on_value};

static int read_text(const char *text, struct log *l, char *err, size_t len)
{
    return toml_read(text, strlen(text), "t.toml", &visitor, l, err, len);
}

static void test_toml_events_in_text_order(void **state)
{
    (void)state;
    struct log l = {"", NULL};
    char err[256] = "";
    const char *text = "\xef\xbb\xbf# a comment\n"
                       "top = 1_000\n"
                       "[one]\n"
                       "s = \"a\\tb \\u00e9\" # after\r\n"
                       "[[two]]\n"
                       "list = [\n  \"x\", # between\n  \"y\",\n]\n"
                       "flag = false\n";
    assert_int_equal(read_text(text, &l, err, sizeof err), 0);
    assert_string_equal(l.text, "key top at 12\n"
                                "int 1000\n"
                                "end\n"
                                "table one at 24/25 line 3\n"
                                "key s at 30\n"
                                "string [a\tb \xc3\xa9]\n"
                                "end\n"
                                "table two (array) at 57/59 line 5\n"
                                "key list at 65\n"
                                "array of 2: [x] [y]\n"
                                "key flag at 100\n"
                                "bool 0\n"
                                "end\n");
}

/* The table before a header ends before the header is read: a bad
 * header is heard after the end of the table before it. */
static void test_toml_table_ends_before_header(void **state)
{
    (void)state;
    struct log l = {"", NULL};
    char err[256] = "";
    assert_int_equal(read_text("[a]\n[b.c]\n", &l, err, sizeof err), -1);
    assert_string_equal(l.text, "end\ntable a at 0/1 line 1\nend\n");
    assert_string_equal(
        err, "t.toml:2:3: dotted table names ([a.b]) are not supported");
}

/* A visitor's refusal ends the read: the value is not read. */
static void test_toml_visitor_refusal_stops(void **state)
{
    (void)state;
    struct log l = {"", "b"};
    char err[256] = "";
    assert_int_equal(
        read_text("a = 1\nb = \"never closed\nc = 2\n", &l, err, sizeof err),
        -1);
    assert_string_equal(l.text, "key a at 0\nint 1\nkey b at 6\n");
    assert_string_equal(err, "t.toml:2:1: no b here");
}

static void test_toml_reader_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *err;
    } cases[] = {
        {"a = 1.5\n", "t.toml:1:5: floats are not supported"},
        {"a = 'x'\n",
         "t.toml:1:5: literal strings ('...') are not supported: use \"...\""},
        {"a = x\n", "t.toml:1:5: expected a value: a \"string\", an integer, "
                    "true, false or an array of strings (strings need double "
                    "quotes)"},
        {"a = [1]\n", "t.toml:1:6: arrays hold only strings, not an integer"},
        {"a = 1 b\n", "t.toml:1:7: unexpected 'b' after the value (only a # "
                      "comment may follow it)"},
        {"a =\n", "t.toml:1:4: missing value after '='"},
        {"\"a\" = 1\n", "t.toml:1:1: quoted keys are not supported"},
        {"a = \"\\q\"\n", "t.toml:1:6: invalid escape '\\q' (TOML has \\\" "
                          "\\\\ \\b \\t \\n \\f \\r \\uXXXX \\UXXXXXXXX)"},
        {"x = \"\xff\"\n", "t.toml:1:6: invalid UTF-8"},
        {"a = 9223372036854775808\n",
         "t.toml:1:5: integer too large (over 64 bits)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct log l = {"", NULL};
        char err[256] = "";
        assert_int_equal(read_text(cases[i].text, &l, err, sizeof err), -1);
        assert_string_equal(err, cases[i].err);
    }
}

static void test_toml_integer_limits(void **state)
{
    (void)state;
    struct log l = {"", NULL};
    char err[256] = "";
    assert_int_equal(read_text("a = -9223372036854775808\nb = +7\nc = true\n",
                               &l, err, sizeof err),
                     0);
    assert_string_equal(l.text, "key a at 0\nint -9223372036854775808\n"
                                "key b at 25\nint 7\nkey c at 32\nbool 1\n"
                                "end\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toml_events_in_text_order),
        cmocka_unit_test(test_toml_table_ends_before_header),
        cmocka_unit_test(test_toml_visitor_refusal_stops),
        cmocka_unit_test(test_toml_reader_refusals),
        cmocka_unit_test(test_toml_integer_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
