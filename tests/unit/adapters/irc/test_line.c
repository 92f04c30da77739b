/*
 * Tests of adapters/irc/line.c: framing (LF, CR LF, lone CR, empty lines,
 * over-long lines dropped whole, NUL kept for the parser to refuse, the
 * same lines whatever the chunks), parsing (every refusal of line.h, tags
 * unescaped, invalid UTF-8 replaced, commands upper-cased) and the line
 * given to libircclient (normalised, cut at a UTF-8 boundary, 005 in
 * parts, never a shape that crashes it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/line.h"

/* ---- helpers ----------------------------------------------------------- */

#define LINES_MAX 64

struct lines {
    char *v[LINES_MAX];
    size_t len[LINES_MAX];
    int n;
};

static void lines_free(struct lines *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

/* Takes every complete line from f into l. */
static void take(struct ircad_framer *f, struct lines *l)
{
    const char *line;
    size_t len;
    while ((line = ircad_framer_next(f, &len)) != NULL) {
        assert_true(l->n < LINES_MAX);
        assert_int_equal(line[len], '\0');
        l->v[l->n] = malloc(len + 1);
        assert_non_null(l->v[l->n]);
        memcpy(l->v[l->n], line, len + 1);
        l->len[l->n] = len;
        l->n++;
    }
}

/* Feeds data to f in chunks of `chunk` bytes (0: as much as fits), taking
 * lines after each. */
static void feed(struct ircad_framer *f, const char *data, size_t n,
                 size_t chunk, struct lines *l)
{
    size_t i = 0;
    while (i < n) {
        size_t room;
        char *dst = ircad_framer_space(f, &room);
        assert_true(room > 0);
        size_t k = n - i < room ? n - i : room;
        if (chunk && k > chunk)
            k = chunk;
        memcpy(dst, data + i, k);
        ircad_framer_added(f, k);
        i += k;
        take(f, l);
    }
}

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* Parses raw (a C string) and asserts it is accepted. */
static void parse_ok(const char *raw, struct ircad_line *l)
{
    const char *why = NULL;
    int rc = ircad_line_parse(raw, strlen(raw), l, &why);
    if (rc != 0)
        fail_msg("refused \"%s\": %s", raw, why);
}

/* The library line for part 0 of raw, into buf (IRCAD_LIB_LINE_MAX + 1). */
static void rebuild(const char *raw, char *buf)
{
    static struct ircad_line l;
    parse_ok(raw, &l);
    assert_int_equal(ircad_line_for_library(&l, 0, buf, IRCAD_LIB_LINE_MAX + 1),
                     1);
}

/* ---- the framer -----------------------------------------------------------
 */

static void test_ircad_framer_next_ends_lines_at_lf_crlf_and_cr(void **state)
{
    (void)state;
    static struct ircad_framer f;
    struct lines l = {0};
    ircad_framer_init(&f);
    const char in[] = "one\ntwo\r\nthree\rfour\n\n\r\n\r\r\nfive";
    feed(&f, in, sizeof in - 1, 0, &l);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.v[0], "one");
    assert_string_equal(l.v[1], "two");
    assert_string_equal(l.v[2], "three");
    assert_string_equal(l.v[3], "four");
    assert_int_equal(ircad_framer_pending(&f), 4);
    feed(&f, "\r", 1, 0, &l);
    assert_int_equal(l.n, 5);
    assert_string_equal(l.v[4], "five");
    assert_int_equal(ircad_framer_pending(&f), 0);
    /* the LF of a CR LF split across reads is an empty line: skipped */
    feed(&f, "\nsix\n", 5, 0, &l);
    assert_int_equal(l.n, 6);
    assert_string_equal(l.v[5], "six");
    assert_int_equal(f.overlong_lines, 0);
    lines_free(&l);
}

static void test_ircad_framer_next_skips_empty_lines(void **state)
{
    (void)state;
    static struct ircad_framer f;
    struct lines l = {0};
    ircad_framer_init(&f);
    feed(&f, "\r\n\n\r\r\n", 6, 0, &l);
    assert_int_equal(l.n, 0);
    assert_int_equal(ircad_framer_pending(&f), 0);
    feed(&f, "PING x\r\n", 8, 0, &l);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0], "PING x");
    lines_free(&l);
}

static void test_ircad_framer_next_ends_a_ping_at_a_raw_cr(void **state)
{
    (void)state;
    /* a CR inside a PING's parameter ends the line: what follows is a
     * line of its own, and no CR can reach a PONG */
    static struct ircad_framer f;
    struct lines l = {0};
    ircad_framer_init(&f);
    const char in[] = "PING :abc\rQUIT :x\r\n";
    feed(&f, in, sizeof in - 1, 0, &l);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.v[0], "PING :abc");
    assert_string_equal(l.v[1], "QUIT :x");
    char buf[IRCAD_LIB_LINE_MAX + 1];
    rebuild(l.v[0], buf);
    assert_string_equal(buf, "PING abc");
    assert_int_equal(ircad_framer_pending(&f), 0);
    lines_free(&l);
}

static void test_ircad_framer_next_returns_nul_inside_a_line(void **state)
{
    (void)state;
    static struct ircad_framer f;
    static struct ircad_line pl;
    struct lines l = {0};
    ircad_framer_init(&f);
    feed(&f, "PING a\0b\r\n", 10, 0, &l);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.len[0], 8);
    assert_memory_equal(l.v[0], "PING a\0b", 8);
    const char *why = NULL;
    assert_int_equal(ircad_line_parse(l.v[0], l.len[0], &pl, &why), -1);
    assert_non_null(why);
    lines_free(&l);
}

static void test_ircad_framer_next_keeps_the_longest_line(void **state)
{
    (void)state;
    static struct ircad_framer f;
    struct lines l = {0};
    ircad_framer_init(&f);
    char *body = repeat('x', IRCAD_FRAME_MAX - 2);
    feed(&f, body, strlen(body), 0, &l);
    feed(&f, "\r\n", 2, 0, &l);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.len[0], IRCAD_FRAME_MAX - 2);
    assert_int_equal(f.overlong_lines, 0);
    free(body);
    lines_free(&l);
}

static void test_ircad_framer_next_drops_overlong_line_whole(void **state)
{
    (void)state;
    static const size_t sizes[] = {IRCAD_FRAME_MAX - 1, IRCAD_FRAME_MAX,
                                   IRCAD_FRAME_MAX + 1, 3 * IRCAD_FRAME_MAX};
    static const size_t chunks[] = {0, 1, 7, 4096};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            static struct ircad_framer f;
            struct lines l = {0};
            ircad_framer_init(&f);
            char *body = repeat('y', sizes[s]);
            feed(&f, "PING a\r\n", 8, chunks[c], &l);
            feed(&f, body, sizes[s], chunks[c], &l);
            feed(&f, "\r\nPING b\r\n", 10, chunks[c], &l);
            assert_int_equal(l.n, 2);
            assert_string_equal(l.v[0], "PING a");
            assert_string_equal(l.v[1], "PING b");
            assert_int_equal(f.overlong_lines, 1);
            free(body);
            lines_free(&l);
        }
    }
}

/* The framer's lines for data fed in chunks of `chunk`, as one string. */
static char *framed(const char *data, size_t n, size_t chunk,
                    unsigned long *overlong)
{
    static struct ircad_framer f;
    struct lines l = {0};
    ircad_framer_init(&f);
    size_t i = 0;
    uint32_t seed = 12345;
    while (i < n) {
        /* chunk 0: pseudo-random sizes 1..300 */
        size_t c = chunk;
        if (!c) {
            seed = seed * 1103515245u + 12345u;
            c = 1 + (seed >> 16) % 300;
        }
        c = c < n - i ? c : n - i;
        feed(&f, data + i, c, 0, &l);
        i += c;
    }
    size_t total = 0;
    for (int j = 0; j < l.n; j++)
        total += l.len[j] + 1;
    char *out = malloc(total + 1);
    assert_non_null(out);
    size_t w = 0;
    for (int j = 0; j < l.n; j++) {
        memcpy(out + w, l.v[j], l.len[j]);
        w += l.len[j];
        out[w++] = '|';
    }
    out[w] = '\0';
    *overlong = f.overlong_lines;
    lines_free(&l);
    return out;
}

static void test_ircad_framer_next_byte_by_byte_equals_bulk(void **state)
{
    (void)state;
    /* short lines, every ending, empty lines, NUL, an over-long line and
     * a line at the limit */
    size_t cap = 4 * IRCAD_FRAME_MAX;
    char *in = malloc(cap);
    assert_non_null(in);
    size_t n = 0;
    const char head[] = ":s 001 me :hi\r\nPING a\n\n\rPING b\r\r\nX\0Y\n";
    memcpy(in, head, sizeof head - 1);
    n += sizeof head - 1;
    memset(in + n, 'z', IRCAD_FRAME_MAX + 5);
    n += IRCAD_FRAME_MAX + 5;
    in[n++] = '\r';
    memset(in + n, 'w', IRCAD_FRAME_MAX - 2);
    n += IRCAD_FRAME_MAX - 2;
    in[n++] = '\n';
    memcpy(in + n, "PING c\r\nPING d", 14);
    n += 14;

    unsigned long o_bulk, o_one, o_rand, o_7;
    char *bulk = framed(in, n, n, &o_bulk);
    char *one = framed(in, n, 1, &o_one);
    char *rnd = framed(in, n, 0, &o_rand);
    char *seven = framed(in, n, 7, &o_7);
    assert_string_equal(bulk, one);
    assert_string_equal(bulk, rnd);
    assert_string_equal(bulk, seven);
    assert_int_equal(o_bulk, 1);
    assert_int_equal(o_one, 1);
    assert_int_equal(o_rand, 1);
    assert_int_equal(o_7, 1);
    /* the lines themselves: ":s 001 me :hi", "PING a", "PING b", "X\0Y"
     * (shown up to the NUL), the line at the limit, "PING c" */
    assert_true(strncmp(bulk, ":s 001 me :hi|PING a|PING b|X", 29) == 0);
    free(bulk);
    free(one);
    free(rnd);
    free(seven);
    free(in);
}

static void test_ircad_framer_space_never_gives_no_room(void **state)
{
    (void)state;
    static struct ircad_framer f;
    ircad_framer_init(&f);
    /* complete lines that nobody takes: the buffer still takes bytes */
    for (int i = 0; i < 3 * IRCAD_FRAME_MAX / 8; i++) {
        size_t room;
        char *dst = ircad_framer_space(&f, &room);
        assert_true(room > 0);
        size_t k = room < 8 ? room : 8;
        memcpy(dst, "PING x\r\n", k);
        ircad_framer_added(&f, k);
    }
    /* what is held now are whole lines "PING x" */
    const char *line;
    size_t len;
    int n = 0;
    while ((line = ircad_framer_next(&f, &len)) != NULL) {
        assert_int_equal(len, 6);
        assert_string_equal(line, "PING x");
        n++;
    }
    assert_true(n >= 1);
}

static void test_ircad_framer_pending_counts_the_unfinished_line(void **state)
{
    (void)state;
    static struct ircad_framer f;
    ircad_framer_init(&f);
    size_t room;
    char *dst = ircad_framer_space(&f, &room);
    memcpy(dst, "PING a\r\nPIN", 11);
    ircad_framer_added(&f, 11);
    /* before the lines are taken, and after */
    assert_int_equal(ircad_framer_pending(&f), 3);
    struct lines l = {0};
    take(&f, &l);
    assert_int_equal(l.n, 1);
    assert_int_equal(ircad_framer_pending(&f), 3);
    lines_free(&l);
}

/* ---- parsing ------------------------------------------------------------ */

struct refusal {
    const char *raw;
    size_t len; /* 0: strlen(raw) */
};

static void test_ircad_line_parse_refuses_lines_nobody_can_act_on(void **state)
{
    (void)state;
    static const struct refusal cases[] = {
        {"", 0},
        {"   ", 0},
        {"NICK x", 0},     /* irc_target_get_nick(NULL) */
        {"000 me :hi", 0}, /* command NULL in libircclient */
        {":s 000 me :hi", 0},
        {":s NOTICE me", 0}, /* strlen(params[1] = NULL) */
        {"NOTICE", 0},
        {":foo", 0}, /* only a prefix */
        {":foo   ", 0},
        {"001", 0}, /* p += 4 past the NUL */
        {":s 001", 0},
        {":s 001 ", 0},
        {"@a=b", 0},             /* tags only */
        {"@a=b :x", 0},          /* tags and prefix only */
        {": PRIVMSG #c :hi", 0}, /* empty prefix */
        {"PRIVMSG #c :hi", 0},   /* a person's command without prefix */
        {"JOIN #c", 0},
        {"PART #c", 0},
        {"QUIT :bye", 0},
        {"KICK #c x", 0},
        {"MODE #c +o x", 0},
        {"TOPIC #c :t", 0},
        {"INVITE me #c", 0},
        {"ACCOUNT bob", 0},
        {"AWAY :gone", 0},
        {"CHGHOST u h", 0},
        {":n!u@h PRIVMSG #c", 0}, /* too few parameters */
        {":n!u@h NICK", 0},
        {":n!u@h JOIN", 0},
        {":n!u@h PART", 0},
        {":n!u@h KICK #c", 0},
        {"PING", 0},
        {"CAP *", 0},
        {"AUTHENTICATE", 0},
        {":n!u@h ACCOUNT", 0},
        {":n!u@h PRIVMSG #c :\x01", 0}, /* CTCP length underflow */
        {":n!u@h NOTICE me :\x01", 0},
        {":n!u@h PRIVMSG me :\x01"
         "DCC SEND f 1 2 3\x01",
         0},
        {":n!u@h PRIVMSG me :\x01"
         "dcc chat x\x01",
         0},
        {":n!u@h PRIVMSG me :\x01"
         "DCC SEND unterminated",
         0},
        {"12 x", 0}, /* neither letters nor three digits */
        {"1234 x", 0},
        {"PRIV-MSG x", 0},
        {"PRIVMSG1 x", 0},
        {"PING a\0b", 8}, /* NUL */
        {"\0", 1},
        {"CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", 0}, /* 16 params */
        {"CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 :16 x", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static struct ircad_line l, sentinel;
        memset(&l, 0x5a, sizeof l);
        memset(&sentinel, 0x5a, sizeof sentinel);
        const char *why = NULL;
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].raw);
        int rc = ircad_line_parse(cases[i].raw, len, &l, &why);
        if (rc != -1)
            fail_msg("accepted case %zu \"%s\"", i, cases[i].raw);
        assert_non_null(why);
        assert_true(strlen(why) > 0);
        /* a refused line leaves out as it was */
        assert_memory_equal(&l, &sentinel, sizeof l);
    }
}

static void test_ircad_line_parse_refuses_a_line_over_the_frame(void **state)
{
    (void)state;
    static struct ircad_line l;
    char *raw = repeat('a', IRCAD_FRAME_MAX + 1);
    const char *why = NULL;
    assert_int_equal(ircad_line_parse(raw, IRCAD_FRAME_MAX + 1, &l, &why), -1);
    assert_non_null(why);
    free(raw);
}

struct accepted {
    const char *raw;
    const char *prefix; /* NULL: none */
    const char *command;
    int numeric;
    unsigned nparams;
    const char *params[4]; /* the first ones */
};

static void test_ircad_line_parse_reads_prefix_command_params(void **state)
{
    (void)state;
    static const struct accepted cases[] = {
        {"PING :abc def", NULL, "PING", 0, 1, {"abc def"}},
        {"ping abc", NULL, "PING", 0, 1, {"abc"}},
        {":s 001 me :Welcome home", "s", "001", 1, 2, {"me", "Welcome home"}},
        {":s 007 me x", "s", "007", 7, 2, {"me", "x"}},
        {":s 999 me", "s", "999", 999, 1, {"me"}},
        {":n!u@h privmsg   #c    :hi  there ",
         "n!u@h",
         "PRIVMSG",
         0,
         2,
         {"#c", "hi  there "}},
        {":n!u@h  PRIVMSG #c hi", "n!u@h", "PRIVMSG", 0, 2, {"#c", "hi"}},
        {":n!u@h PRIVMSG #c :", "n!u@h", "PRIVMSG", 0, 2, {"#c", ""}},
        {":n!u@h PRIVMSG #c ::)", "n!u@h", "PRIVMSG", 0, 2, {"#c", ":)"}},
        {":n!u@h PRIVMSG #c :\x01\x01",
         "n!u@h",
         "PRIVMSG",
         0,
         2,
         {"#c", "\x01\x01"}},
        {":n!u@h PRIVMSG #c :\x01"
         "ACTION waves\x01",
         "n!u@h",
         "PRIVMSG",
         0,
         2,
         {"#c", "\x01"
                "ACTION waves\x01"}},
        {"NOTICE * :*** Looking up your hostname",
         NULL,
         "NOTICE",
         0,
         2,
         {"*", "*** Looking up your hostname"}},
        {"PING x   ", NULL, "PING", 0, 1, {"x"}},
        {"  PING x", NULL, "PING", 0, 1, {"x"}},
        {":n!u@h AWAY", "n!u@h", "AWAY", 0, 0, {NULL}},
        {":n!u@h QUIT", "n!u@h", "QUIT", 0, 0, {NULL}},
        {"@time=x;account=y  :n!u@h JOIN #c", "n!u@h", "JOIN", 0, 1, {"#c"}},
        {"@ PING x", NULL, "PING", 0, 1, {"x"}},
        {"CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 :15 x",
         NULL,
         "CMD",
         0,
         15,
         {"1", "2", "3", "4"}},
        {"CAP * LS :sasl", NULL, "CAP", 0, 3, {"*", "LS", "sasl"}},
        {"AUTHENTICATE +", NULL, "AUTHENTICATE", 0, 1, {"+"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static struct ircad_line l;
        const struct accepted *c = &cases[i];
        parse_ok(c->raw, &l);
        if (c->prefix)
            assert_string_equal(l.prefix, c->prefix);
        else
            assert_null(l.prefix);
        assert_string_equal(l.command, c->command);
        assert_int_equal(l.numeric, c->numeric);
        assert_int_equal(l.nparams, c->nparams);
        for (unsigned k = 0; k < c->nparams && k < 4; k++)
            assert_string_equal(l.params[k], c->params[k]);
    }
}

struct tagcase {
    const char *tags;    /* without '@' */
    const char *account; /* NULL: absent */
    const char *time;    /* NULL: absent */
};

static void test_ircad_line_parse_unescapes_tags(void **state)
{
    (void)state;
    static char long_account[IRCAD_ACCOUNT_MAX + 16];
    static char max_account[IRCAD_ACCOUNT_MAX + 16];
    /* IRCAD_ACCOUNT_MAX bytes: one too many; one fewer: kept */
    memcpy(long_account, "account=", 8);
    memset(long_account + 8, 'b', IRCAD_ACCOUNT_MAX);
    long_account[8 + IRCAD_ACCOUNT_MAX] = '\0';
    memcpy(max_account, "account=", 8);
    memset(max_account + 8, 'b', IRCAD_ACCOUNT_MAX - 1);
    max_account[8 + IRCAD_ACCOUNT_MAX - 1] = '\0';
    static const struct tagcase cases[] = {
        {"account=bob", "bob", NULL},
        {"time=2024-05-01T12:00:00.000Z", NULL, "2024-05-01T12:00:00.000Z"},
        {"time=2024-05-01T12:00:00.000Z;account=bob;msgid=x", "bob",
         "2024-05-01T12:00:00.000Z"},
        {"account=a\\:b", "a;b", NULL},
        {"account=a\\\\b", "a\\b", NULL},
        {"account=a\\xb", "axb", NULL},
        {"account=bob\\", "bob", NULL}, /* a trailing lone \ dropped */
        {"account=a\\sb", NULL, NULL},  /* \s is a space: not an account */
        {"account=a\\nb", NULL, NULL},
        {"account=a\\rb", NULL, NULL},
        {"account=a\x01"
         "b",
         NULL, NULL},
        {"account=", NULL, NULL},
        {"account", NULL, NULL},
        {"account=\\", NULL, NULL},
        {"account=\xff", NULL, NULL},
        {"account=caf\xc3\xa9", "caf\xc3\xa9", NULL},
        {"+account=bob", NULL, NULL}, /* client-only: someone else's tag */
        {"draft/account=bob", NULL, NULL},
        {"accountx=bob;xaccount=bob", NULL, NULL},
        {"account=a;account=b", "b", NULL}, /* the last one counts */
        {"account=a;account=", NULL, NULL},
        {";;=x;account=c;", "c", NULL},
        {"time=0123456789012345678901234567890123456789", NULL, NULL},
        {"time=012345678901234567890123456789012345678", NULL,
         "012345678901234567890123456789012345678"},
        {"time=a\\sb", NULL, NULL},
        {"time=a\\:b", NULL, "a;b"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases + 2; i++) {
        struct tagcase c =
            i < sizeof cases / sizeof *cases ? cases[i]
            : i == sizeof cases / sizeof *cases
                ? (struct tagcase){long_account, NULL, NULL}
                : (struct tagcase){max_account, max_account + 8, NULL};
        static char raw[512];
        snprintf(raw, sizeof raw, "@%s :n!u@h PRIVMSG #c :hi", c.tags);
        static struct ircad_line l;
        parse_ok(raw, &l);
        if (c.account) {
            if (!l.has_account)
                fail_msg("no account from \"%s\"", c.tags);
            assert_string_equal(l.account, c.account);
        } else {
            if (l.has_account)
                fail_msg("account \"%s\" from \"%s\"", l.account, c.tags);
        }
        if (c.time) {
            assert_true(l.has_time);
            assert_string_equal(l.time, c.time);
        } else {
            assert_false(l.has_time);
        }
        assert_string_equal(l.params[1], "hi");
    }
}

struct utf8case {
    const char *raw_text;
    const char *text;
};

static void test_ircad_line_parse_replaces_invalid_utf8(void **state)
{
    (void)state;
#define FFFD "\xef\xbf\xbd"
    static const struct utf8case cases[] = {
        {"caf\xc3\xa9 \xe2\x99\xa5 \xf0\x9f\x82\xa1", /* valid: kept */
         "caf\xc3\xa9 \xe2\x99\xa5 \xf0\x9f\x82\xa1"},
        {"a\xff"
         "b",
         "a" FFFD "b"},
        {"\xc3", FFFD},
        {"\xc3(", FFFD "("},
        {"\xe2\x82", FFFD}, /* a cut sequence: one U+FFFD */
        {"\xe2\x82(", FFFD "("},
        {"\xf0\x9f\x82", FFFD},
        {"\xf0\x80\x80\x80", FFFD FFFD FFFD FFFD}, /* overlong form */
        {"\xc0\xaf", FFFD FFFD},
        {"\xed\xa0\x80", FFFD FFFD FFFD},          /* a surrogate */
        {"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD}, /* above U+10FFFF */
        {"\xf5", FFFD},
        {"\x80\x80", FFFD FFFD},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static char raw[128];
        snprintf(raw, sizeof raw, ":n\xffx!u@h PRIVMSG #c\xc3 :%s",
                 cases[i].raw_text);
        static struct ircad_line l;
        parse_ok(raw, &l);
        assert_string_equal(l.prefix, "n" FFFD "x!u@h");
        assert_string_equal(l.params[0], "#c" FFFD);
        assert_string_equal(l.params[1], cases[i].text);
    }
#undef FFFD
}

static void
test_ircad_line_parse_refuses_when_replacement_overflows(void **state)
{
    (void)state;
    static struct ircad_line l;
    /* every \xff becomes three bytes: 8000 of them do not fit */
    static char raw[IRCAD_FRAME_MAX];
    size_t n = (size_t)snprintf(raw, sizeof raw, ":n!u@h PRIVMSG #c :");
    memset(raw + n, 0xff, 8000);
    n += 8000;
    const char *why = NULL;
    assert_int_equal(ircad_line_parse(raw, n, &l, &why), -1);
    assert_non_null(why);
    /* 2800 of them do */
    n -= 8000 - 2800;
    assert_int_equal(ircad_line_parse(raw, n, &l, &why), 0);
    assert_int_equal(strlen(l.params[1]), 3 * 2800);
}

static void test_ircad_line_parse_copies_are_self_contained(void **state)
{
    (void)state;
    /* parsing into out from a local and back: out's pointers point into
     * out's own store */
    static struct ircad_line l;
    parse_ok("@account=bob :n!u@h PRIVMSG #c :hello", &l);
    assert_true(l.prefix >= l.store && l.prefix < l.store + sizeof l.store);
    assert_true(l.command >= l.store && l.command < l.store + sizeof l.store);
    for (unsigned k = 0; k < l.nparams; k++)
        assert_true(l.params[k] >= l.store &&
                    l.params[k] < l.store + sizeof l.store);
}

/* ---- the line for libircclient ---------------------------------------- */

struct rebuilt {
    const char *raw;
    const char *lib;
};

static void test_ircad_line_for_library_normalises(void **state)
{
    (void)state;
    static const struct rebuilt cases[] = {
        {"@account=x;time=t :n!u@h privmsg  #c   :hello world",
         ":n!u@h PRIVMSG #c :hello world"},
        {"PING :abc", "PING abc"},
        {"PING :a b", "PING :a b"},
        {":s 001 me :Welcome", ":s 001 me Welcome"},
        {":s 001 me :Welcome home", ":s 001 me :Welcome home"},
        {":n!u@h PRIVMSG #c ::)", ":n!u@h PRIVMSG #c ::)"},
        {":n!u@h PRIVMSG #c :", ":n!u@h PRIVMSG #c :"},
        {":n!u@h PRIVMSG #c :   ", ":n!u@h PRIVMSG #c :   "},
        {":n!u@h JOIN :#c", ":n!u@h JOIN #c"},
        /* nothing after the command: a space, so libircclient stops */
        {":n!u@h AWAY", ":n!u@h AWAY "},
        {"@a=b FOO", "FOO "},
        /* more than 10 parameters: the first 9 and the last */
        {"CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 :last one",
         "CMD 1 2 3 4 5 6 7 8 9 :last one"},
        {":s 004 me a b c d e f g h i j", ":s 004 me a b c d e f g h j"},
        {":s 005 me A B :are supported", ":s 005 me A B :are supported"},
        {":s 005 me :are supported", ":s 005 me :are supported"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[IRCAD_LIB_LINE_MAX + 1];
        rebuild(cases[i].raw, buf);
        assert_string_equal(buf, cases[i].lib);
    }
    /* only 005 comes in parts */
    static struct ircad_line l;
    char buf[IRCAD_LIB_LINE_MAX + 1];
    parse_ok("CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 :last", &l);
    assert_int_equal(ircad_line_for_library(&l, 1, buf, sizeof buf), 0);
}

/* Counts the parameters of a rebuilt line by parsing it again. */
static unsigned reparsed_params(const char *lib, struct ircad_line *l)
{
    parse_ok(lib, l);
    return l->nparams;
}

static void test_ircad_line_for_library_splits_isupport(void **state)
{
    (void)state;
    static char raw[1024];
    size_t n = (size_t)snprintf(raw, sizeof raw, ":s 005 me");
    for (int i = 0; i < 13; i++)
        n += (size_t)snprintf(raw + n, sizeof raw - n, " T%d=%d", i, i);
    snprintf(raw + n, sizeof raw - n, " :are supported by this server");
    static struct ircad_line l, again;
    parse_ok(raw, &l);
    assert_int_equal(l.nparams, 15);
    char buf[IRCAD_LIB_LINE_MAX + 1];
    assert_int_equal(ircad_line_for_library(&l, 0, buf, sizeof buf), 1);
    assert_string_equal(buf, ":s 005 me T0=0 T1=1 T2=2 T3=3 T4=4 T5=5 T6=6 "
                             "T7=7 :are supported by this server");
    assert_int_equal(ircad_line_for_library(&l, 1, buf, sizeof buf), 1);
    assert_string_equal(buf, ":s 005 me T8=8 T9=9 T10=10 T11=11 T12=12 "
                             ":are supported by this server");
    assert_int_equal(reparsed_params(buf, &again), 7);
    assert_int_equal(ircad_line_for_library(&l, 2, buf, sizeof buf), 0);
}

static void test_ircad_line_for_library_splits_isupport_by_length(void **state)
{
    (void)state;
    /* 8 tokens of 200 bytes fit 10 parameters but not 1000 bytes */
    static char raw[4096];
    size_t n = (size_t)snprintf(raw, sizeof raw, ":s 005 me");
    for (int i = 0; i < 8; i++) {
        n += (size_t)snprintf(raw + n, sizeof raw - n, " K%d=", i);
        memset(raw + n, 'v', 196);
        n += 196;
    }
    snprintf(raw + n, sizeof raw - n, " :are supported by this server");
    static struct ircad_line l, again;
    parse_ok(raw, &l);
    char buf[IRCAD_LIB_LINE_MAX + 1];
    unsigned tokens = 0, part = 0;
    while (ircad_line_for_library(&l, part, buf, sizeof buf)) {
        assert_true(strlen(buf) <= IRCAD_LIB_LINE_MAX);
        unsigned np = reparsed_params(buf, &again);
        assert_string_equal(again.params[0], "me");
        assert_string_equal(again.params[np - 1],
                            "are supported by this server");
        for (unsigned k = 1; k + 1 < np; k++) {
            char want[8];
            snprintf(want, sizeof want, "K%u=", tokens);
            assert_true(strncmp(again.params[k], want, strlen(want)) == 0);
            tokens++;
        }
        part++;
        assert_true(part < 10);
    }
    assert_int_equal(tokens, 8);
    assert_true(part >= 2);
}

static void test_ircad_line_for_library_cuts_at_utf8_boundary(void **state)
{
    (void)state;
    /* a text of 600 hearts (3 bytes each) is cut before 1000 bytes, at a
     * character's start, whatever the prefix's length */
    for (int pad = 0; pad < 3; pad++) {
        static char raw[4096];
        size_t n = (size_t)snprintf(raw, sizeof raw,
                                    ":n%.*s!u@h PRIVMSG #c :", pad, "xx");
        for (int i = 0; i < 600; i++)
            n += (size_t)snprintf(raw + n, sizeof raw - n, "\xe2\x99\xa5");
        char buf[IRCAD_LIB_LINE_MAX + 1];
        rebuild(raw, buf);
        size_t len = strlen(buf);
        assert_true(len <= IRCAD_LIB_LINE_MAX);
        assert_true(len >= IRCAD_LIB_LINE_MAX - 3);
        const char *text = strstr(buf, " #c ") + 4;
        assert_int_equal(strlen(text) % 3, 0);
        assert_true(strncmp(text, strstr(raw, " :") + 2, strlen(text)) == 0);
    }
}

static void test_ircad_line_for_library_never_leaves_a_lone_ctcp(void **state)
{
    (void)state;
    /* the head leaves room for " :" and one byte: the cut text would be
     * a lone \x01, which libircclient misreads; it is cut to nothing */
    static char raw[2048];
    const char *tail = " PRIVMSG #c";
    size_t plen = IRCAD_LIB_LINE_MAX - 3 - 1 - strlen(tail);
    raw[0] = ':';
    memset(raw + 1, 'p', plen);
    snprintf(raw + 1 + plen, sizeof raw - 1 - plen,
             "%s :\x01"
             "ACTION x\x01",
             tail);
    char buf[IRCAD_LIB_LINE_MAX + 1];
    rebuild(raw, buf);
    size_t len = strlen(buf);
    assert_int_equal(len, IRCAD_LIB_LINE_MAX - 1);
    assert_string_equal(buf + len - 4, "#c :");
    static struct ircad_line again;
    assert_int_equal(reparsed_params(buf, &again), 2);
}

static void
test_ircad_line_for_library_gives_nothing_when_head_too_long(void **state)
{
    (void)state;
    /* a prefix or middle parameters that alone pass the limit: the line
     * is not given at all (never a cut prefix or target) */
    static char raw[4096];
    raw[0] = ':';
    memset(raw + 1, 'p', 1200);
    snprintf(raw + 1201, sizeof raw - 1201, " PRIVMSG #c :hi");
    static struct ircad_line l;
    char buf[IRCAD_LIB_LINE_MAX + 1];
    memcpy(buf, "untouched", 10);
    parse_ok(raw, &l);
    assert_int_equal(ircad_line_for_library(&l, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "untouched");
    size_t n = (size_t)snprintf(raw, sizeof raw, ":n!u@h KICK #");
    memset(raw + n, 'c', 1200);
    snprintf(raw + n + 1200, sizeof raw - n - 1200, " x :bye");
    parse_ok(raw, &l);
    assert_int_equal(ircad_line_for_library(&l, 0, buf, sizeof buf), 0);
}

static void test_ircad_line_for_library_fits_a_small_buffer(void **state)
{
    (void)state;
    static struct ircad_line l;
    parse_ok(":n!u@h PRIVMSG #c :hello there world", &l);
    char buf[24];
    assert_int_equal(ircad_line_for_library(&l, 0, buf, sizeof buf), 1);
    /* cut, and no ':' needed: none given */
    assert_string_equal(buf, ":n!u@h PRIVMSG #c hell");
    assert_int_equal(ircad_line_for_library(&l, 0, buf, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_framer_next_ends_lines_at_lf_crlf_and_cr),
        cmocka_unit_test(test_ircad_framer_next_skips_empty_lines),
        cmocka_unit_test(test_ircad_framer_next_ends_a_ping_at_a_raw_cr),
        cmocka_unit_test(test_ircad_framer_next_returns_nul_inside_a_line),
        cmocka_unit_test(test_ircad_framer_next_keeps_the_longest_line),
        cmocka_unit_test(test_ircad_framer_next_drops_overlong_line_whole),
        cmocka_unit_test(test_ircad_framer_next_byte_by_byte_equals_bulk),
        cmocka_unit_test(test_ircad_framer_space_never_gives_no_room),
        cmocka_unit_test(test_ircad_framer_pending_counts_the_unfinished_line),
        cmocka_unit_test(test_ircad_line_parse_refuses_lines_nobody_can_act_on),
        cmocka_unit_test(test_ircad_line_parse_refuses_a_line_over_the_frame),
        cmocka_unit_test(test_ircad_line_parse_reads_prefix_command_params),
        cmocka_unit_test(test_ircad_line_parse_unescapes_tags),
        cmocka_unit_test(test_ircad_line_parse_replaces_invalid_utf8),
        cmocka_unit_test(
            test_ircad_line_parse_refuses_when_replacement_overflows),
        cmocka_unit_test(test_ircad_line_parse_copies_are_self_contained),
        cmocka_unit_test(test_ircad_line_for_library_normalises),
        cmocka_unit_test(test_ircad_line_for_library_splits_isupport),
        cmocka_unit_test(test_ircad_line_for_library_splits_isupport_by_length),
        cmocka_unit_test(test_ircad_line_for_library_cuts_at_utf8_boundary),
        cmocka_unit_test(test_ircad_line_for_library_never_leaves_a_lone_ctcp),
        cmocka_unit_test(
            test_ircad_line_for_library_gives_nothing_when_head_too_long),
        cmocka_unit_test(test_ircad_line_for_library_fits_a_small_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
