/*
 * Tests of adapters/irc/cap.c: CAP LS (one line and several), the REQ of
 * offered capabilities only, ACK/NAK, SASL PLAIN (exact bytes, 400-byte
 * chunks, the final "+" of an exact multiple) and EXTERNAL, every SASL
 * failure numeric with required and optional SASL, servers without CAP,
 * cap-notify after registration, and hostile lines. Lines are built by a
 * small splitter here (line.c is not needed: cap.c reads only the parsed
 * struct).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/cap.h"

/* ---- helpers ---------------------------------------------------------- */

#define SENT_MAX 64

struct sent {
    char lines[SENT_MAX][600];
    int n;
};

static void record(void *ctx, const char *line)
{
    struct sent *s = ctx;
    size_t len = strlen(line);
    /* what a server may get: no CR, LF or NUL, at most 510 bytes */
    assert_true(len > 0 && len <= 510);
    assert_null(strpbrk(line, "\r\n"));
    assert_true(s->n < SENT_MAX);
    memcpy(s->lines[s->n++], line, len + 1);
}

/* Splits raw ("[:prefix] COMMAND params... [:trailing]") into a line the
 * way the real parser would, into its store. */
static struct ircad_line *mk(const char *raw)
{
    static struct ircad_line l;
    memset(&l, 0, sizeof l);
    size_t n = strlen(raw);
    assert_true(n < sizeof l.store);
    memcpy(l.store, raw, n + 1);
    char *p = l.store;
    if (*p == ':') {
        l.prefix = ++p;
        p = strchr(p, ' ');
        assert_non_null(p);
        *p++ = '\0';
    }
    l.command = p;
    p = strchr(p, ' ');
    if (p)
        *p++ = '\0';
    if (strlen(l.command) == 3 && l.command[0] >= '0' && l.command[0] <= '9')
        l.numeric = atoi(l.command);
    while (p && *p && l.nparams < IRCAD_PARAMS_MAX) {
        if (*p == ':') {
            l.params[l.nparams++] = p + 1;
            break;
        }
        l.params[l.nparams++] = p;
        p = strchr(p, ' ');
        if (p)
            *p++ = '\0';
    }
    return &l;
}

static bool feed(struct ircad_cap *c, struct sent *s, const char *raw)
{
    return ircad_cap_feed(c, mk(raw), record, s);
}

static void setup(struct ircad_cap *c, struct sent *s,
                  enum ircad_sasl_mech mech, const char *user, const char *pass,
                  bool required)
{
    struct ircad_cap_config cfg = {mech, user, pass, required};
    ircad_cap_init(c, &cfg);
    memset(s, 0, sizeof *s);
    ircad_cap_start(c, record, s);
    assert_int_equal(s->n, 1);
    assert_string_equal(s->lines[0], "CAP LS 302");
    s->n = 0;
}

static int b64val(char ch)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = strchr(tab, ch);
    return ch && p ? (int)(p - tab) : -1;
}

/* Decodes base64 into out; returns its length. */
static size_t unbase64(const char *in, unsigned char *out)
{
    size_t n = strlen(in), o = 0;
    assert_int_equal(n % 4, 0);
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++)
            v[k] = in[i + k] == '=' ? 0 : b64val(in[i + k]);
        for (int k = 0; k < 4; k++)
            assert_true(v[k] >= 0);
        unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 |
                     (unsigned)v[2] << 6 | (unsigned)v[3];
        out[o++] = (unsigned char)(w >> 16);
        if (in[i + 2] != '=')
            out[o++] = (unsigned char)(w >> 8);
        if (in[i + 3] != '=')
            out[o++] = (unsigned char)w;
    }
    return o;
}

/* LS with sasl, ACK of it and of account-tag, up to AUTHENTICATE <MECH>. */
static void to_authenticate(struct ircad_cap *c, struct sent *s,
                            const char *mech)
{
    assert_true(feed(c, s, ":srv CAP * LS :sasl account-tag"));
    assert_int_equal(s->n, 2);
    assert_string_equal(s->lines[0], "CAP REQ :sasl");
    assert_string_equal(s->lines[1], "CAP REQ :account-tag");
    assert_true(feed(c, s, ":srv CAP * ACK :sasl"));
    assert_true(feed(c, s, ":srv CAP * ACK :account-tag"));
    assert_int_equal(s->n, 3);
    char want[64];
    snprintf(want, sizeof want, "AUTHENTICATE %s", mech);
    assert_string_equal(s->lines[2], want);
    s->n = 0;
}

/* The payload sent in s->lines[from..], joined, checked chunk by chunk. */
static size_t payload_of(const struct sent *s, int from, char *out)
{
    size_t n = 0;
    for (int i = from; i < s->n; i++) {
        const char *l = s->lines[i];
        assert_memory_equal(l, "AUTHENTICATE ", 13);
        if (strcmp(l + 13, "+") == 0) {
            assert_int_equal(i, s->n - 1);
            break;
        }
        size_t len = strlen(l + 13);
        /* every chunk but the last is exactly 400 bytes */
        if (i < s->n - 1)
            assert_int_equal(len, 400);
        else
            assert_true(len < 400);
        memcpy(out + n, l + 13, len);
        n += len;
    }
    out[n] = '\0';
    return n;
}

static void fill(char *buf, size_t n, char ch)
{
    memset(buf, ch, n);
    buf[n] = '\0';
}

/* ---- LS and REQ ------------------------------------------------------- */

static void test_ircad_cap_feed_ls_single_line_reqs_offered(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_true(feed(&c, &s,
                     ":srv CAP * LS :multi-prefix account-tag away-notify "
                     "server-time=1 sasl=PLAIN batch"));
    /* no sasl: none configured; nothing that was not offered */
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP REQ :account-tag server-time");
    assert_int_equal(c.offered, IRCAD_CAP_ACCOUNT_TAG | IRCAD_CAP_SERVER_TIME |
                                    IRCAD_CAP_SASL);
    assert_int_equal(c.state, IRCAD_CAP_NEGOTIATING);
}

static void test_ircad_cap_feed_ls_multiline_waits_for_last(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_true(feed(&c, &s, ":srv CAP * LS * :account-notify extended-join"));
    assert_true(feed(&c, &s, ":srv CAP * LS * :message-tags"));
    assert_int_equal(s.n, 0);
    assert_true(feed(&c, &s, ":srv CAP * LS :cap-notify chghost"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP REQ :account-notify extended-join "
                                    "message-tags cap-notify");
}

static void test_ircad_cap_feed_ls_empty_ends(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_true(feed(&c, &s, ":srv CAP * LS :"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
}

/* ---- ACK and NAK ------------------------------------------------------ */

static void test_ircad_cap_feed_ack_enables_and_ends(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    feed(&c, &s, ":srv CAP * LS :account-tag extended-join server-time");
    s.n = 0;
    assert_true(feed(&c, &s, ":srv CAP * ACK * :account-tag"));
    assert_int_equal(s.n, 0); /* extended-join and server-time unanswered */
    assert_true(
        feed(&c, &s, ":srv CAP * ACK :extended-join -server-time sasl"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    assert_true(ircad_cap_has(&c, IRCAD_CAP_ACCOUNT_TAG));
    assert_true(ircad_cap_has(&c, IRCAD_CAP_EXTENDED_JOIN));
    /* acknowledged as disabled; sasl never asked for */
    assert_false(ircad_cap_has(&c, IRCAD_CAP_SERVER_TIME));
    assert_false(ircad_cap_has(&c, IRCAD_CAP_SASL));
    assert_false(ircad_cap_has(&c, 0));
}

static void test_ircad_cap_feed_nak_goes_on(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    feed(&c, &s, ":srv CAP * LS :account-tag message-tags");
    s.n = 0;
    assert_true(feed(&c, &s, ":srv CAP * NAK :account-tag message-tags"));
    /* no second REQ: straight on */
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.enabled, 0);
    assert_int_equal(c.state, IRCAD_CAP_DONE);
}

static void test_ircad_cap_feed_nak_of_others_keeps_sasl(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    feed(&c, &s, ":srv CAP * LS :sasl=PLAIN account-tag message-tags");
    assert_int_equal(s.n, 2);
    assert_string_equal(s.lines[0], "CAP REQ :sasl");
    s.n = 0;
    feed(&c, &s, ":srv CAP * NAK :account-tag message-tags");
    assert_int_equal(s.n, 0);
    feed(&c, &s, ":srv CAP * ACK :sasl");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "AUTHENTICATE PLAIN");
}

/* ---- SASL PLAIN and EXTERNAL ------------------------------------------ */

static void test_ircad_cap_feed_plain_payload_exact(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "heartsbot", "s3cret pass", true);
    to_authenticate(&c, &s, "PLAIN");
    assert_true(feed(&c, &s, "AUTHENTICATE +"));
    assert_int_equal(s.n, 1);
    char b64[1024];
    payload_of(&s, 0, b64);
    unsigned char raw[1024];
    size_t n = unbase64(b64, raw);
    static const char want[] = "\0heartsbot\0s3cret pass";
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(raw, want, n);
    s.n = 0;
    assert_true(feed(&c, &s,
                     ":srv 900 heartsbot heartsbot!b@h HeartsAcct "
                     ":You are now logged in as HeartsAcct"));
    assert_true(c.logged_in);
    assert_string_equal(c.account, "HeartsAcct");
    assert_int_equal(s.n, 0);
    assert_true(feed(&c, &s, ":srv 903 heartsbot :SASL successful"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    assert_string_equal(c.why, "");
    assert_true(ircad_cap_has(&c, IRCAD_CAP_SASL | IRCAD_CAP_ACCOUNT_TAG));
}

static void test_ircad_cap_feed_plain_chunks_at_400(void **state)
{
    (void)state;
    char user[301], pass[301];
    fill(user, 300, 'u');
    fill(pass, 300, 'p');
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, user, pass, true);
    to_authenticate(&c, &s, "PLAIN");
    feed(&c, &s, "AUTHENTICATE +");
    /* 602 bytes -> 804 base64: 400, 400, 4, no "+" */
    assert_int_equal(s.n, 3);
    assert_int_equal(strlen(s.lines[2]), 13 + 4);
    char b64[1024];
    assert_int_equal(payload_of(&s, 0, b64), 804);
    unsigned char raw[1024];
    assert_int_equal(unbase64(b64, raw), 602);
    assert_int_equal(raw[0], 0);
    assert_memory_equal(raw + 1, user, 300);
    assert_int_equal(raw[301], 0);
    assert_memory_equal(raw + 302, pass, 300);
}

static void
test_ircad_cap_feed_plain_exact_multiple_ends_with_plus(void **state)
{
    (void)state;
    char user[299], pass[301];
    fill(user, 298, 'u');
    fill(pass, 300, 'p');
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, user, pass, false);
    to_authenticate(&c, &s, "PLAIN");
    feed(&c, &s, "AUTHENTICATE +");
    /* 600 bytes -> 800 base64: 400, 400, then "+" */
    assert_int_equal(s.n, 3);
    assert_string_equal(s.lines[2], "AUTHENTICATE +");
    char b64[1024];
    assert_int_equal(payload_of(&s, 0, b64), 800);
    unsigned char raw[1024];
    assert_int_equal(unbase64(b64, raw), 600);
    assert_memory_equal(raw + 300, pass, 300);
}

static void test_ircad_cap_feed_external_sends_plus(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_EXTERNAL, NULL, NULL, true);
    to_authenticate(&c, &s, "EXTERNAL");
    feed(&c, &s, "AUTHENTICATE +");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "AUTHENTICATE +");
    s.n = 0;
    /* already logged in counts as success */
    assert_true(feed(&c, &s, ":srv 907 bot :You have already authenticated"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
}

static void test_ircad_cap_feed_sasl_value_lists_mech(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_EXTERNAL, NULL, NULL, true);
    feed(&c, &s, ":srv CAP * LS :sasl=PLAIN,EXTERNAL,SCRAM-SHA-256");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP REQ :sasl");
    assert_string_equal(c.sasl_mechs, "PLAIN,EXTERNAL,SCRAM-SHA-256");
}

/* ---- SASL failures ---------------------------------------------------- */

static void test_ircad_cap_feed_904_required_fails_permanent(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "hunter2", true);
    to_authenticate(&c, &s, "PLAIN");
    feed(&c, &s, "AUTHENTICATE +");
    s.n = 0;
    /* a server that echoes the password must not get it into the log */
    assert_true(
        feed(&c, &s, ":srv 904 bot :SASL authentication failed (hunter2)"));
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_true(c.permanent);
    assert_non_null(strstr(c.why, "PLAIN"));
    assert_non_null(strstr(c.why, "SASL authentication failed"));
    assert_null(strstr(c.why, "hunter2"));
    assert_false(c.logged_in);
    /* later lines are taken but change nothing */
    assert_true(feed(&c, &s, ":srv 903 bot :SASL successful"));
    assert_true(feed(&c, &s, ":srv CAP * NEW :account-tag"));
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
}

/* A long failure text is cut for the log on a character boundary: no
 * torn character at the end, and a whole one is kept. */
static void test_ircad_cap_feed_904_long_text_cut_whole_characters(void **state)
{
    (void)state;
    for (int pad = 0; pad < 4; pad++) {
        struct ircad_cap c;
        struct sent s;
        setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "hunter2", true);
        to_authenticate(&c, &s, "PLAIN");
        feed(&c, &s, "AUTHENTICATE +");
        char line[512];
        int n = snprintf(line, sizeof line, ":srv 904 bot :%.*s", pad, "xxx");
        for (int k = 0; k < 80; k++)
            n += snprintf(line + n, sizeof line - (size_t)n, "\xe2\x99\xa0");
        assert_true(feed(&c, &s, line));
        assert_int_equal(c.state, IRCAD_CAP_FAILED);
        const char *t = strstr(c.why, "\xe2\x99\xa0");
        assert_non_null(t);
        size_t spades = 0;
        while (strncmp(t + 3 * spades, "\xe2\x99\xa0", 3) == 0)
            spades++;
        /* the text kept is whole spades, as many as 120 bytes hold */
        assert_int_equal(spades, (size_t)(120 - pad) / 3);
        const char *end = t + 3 * spades;
        assert_true(*end == '\0' || (unsigned char)*end < 0x80);
    }
}

static void test_ircad_cap_feed_904_optional_ends(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", false);
    to_authenticate(&c, &s, "PLAIN");
    feed(&c, &s, "AUTHENTICATE +");
    s.n = 0;
    feed(&c, &s, ":srv 904 bot :SASL authentication failed");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    assert_non_null(strstr(c.why, "PLAIN"));
    /* a late 904 after CAP END changes nothing */
    s.n = 0;
    assert_true(feed(&c, &s, ":srv 904 bot :again"));
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_DONE);
}

static void test_ircad_cap_feed_905_906_902(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        bool permanent;
    } cases[] = {
        {":srv 905 bot :SASL message too long", true},
        {":srv 906 bot :SASL authentication aborted", false},
        {":srv 902 bot :You must use a nick assigned to you", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct ircad_cap c;
        struct sent s;
        setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
        to_authenticate(&c, &s, "PLAIN");
        feed(&c, &s, "AUTHENTICATE +");
        s.n = 0;
        assert_true(feed(&c, &s, cases[i].line));
        assert_int_equal(c.state, IRCAD_CAP_FAILED);
        assert_int_equal(c.permanent, cases[i].permanent);
        assert_true(c.why[0] != '\0');
        assert_int_equal(s.n, 0);
    }
}

static void test_ircad_cap_feed_908_names_the_mechanisms(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    to_authenticate(&c, &s, "PLAIN");
    assert_true(feed(&c, &s,
                     ":srv 908 bot EXTERNAL,SCRAM-SHA-1 :are available SASL "
                     "mechanisms"));
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_true(c.permanent);
    assert_non_null(strstr(c.why, "EXTERNAL,SCRAM-SHA-1"));
    assert_true(feed(&c, &s, ":srv 904 bot :SASL authentication failed"));
    assert_non_null(strstr(c.why, "EXTERNAL,SCRAM-SHA-1"));
    assert_int_equal(s.n, 0);
}

static void test_ircad_cap_feed_sasl_not_offered(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    feed(&c, &s, ":srv CAP * LS :account-tag");
    feed(&c, &s, ":srv CAP * ACK :account-tag");
    assert_int_equal(s.n, 1); /* the REQ; no CAP END */
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_false(c.permanent);
    assert_non_null(strstr(c.why, "does not offer SASL"));

    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", false);
    feed(&c, &s, ":srv CAP * LS :account-tag");
    feed(&c, &s, ":srv CAP * ACK :account-tag");
    assert_int_equal(s.n, 2);
    assert_string_equal(s.lines[1], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    assert_non_null(strstr(c.why, "does not offer SASL"));
}

static void test_ircad_cap_feed_sasl_other_mechanisms_only(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    feed(&c, &s, ":srv CAP * LS :sasl=EXTERNAL");
    /* sasl is not asked for: nothing to ask, so it fails at once */
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_true(c.permanent);
    assert_non_null(strstr(c.why, "EXTERNAL"));
    assert_non_null(strstr(c.why, "PLAIN"));

    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", false);
    feed(&c, &s, ":srv CAP * LS :sasl=EXTERNAL server-time");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP REQ :server-time");
    feed(&c, &s, ":srv CAP * ACK :server-time");
    assert_string_equal(s.lines[1], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
}

static void test_ircad_cap_feed_sasl_refused(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_EXTERNAL, NULL, NULL, true);
    feed(&c, &s, ":srv CAP * LS :sasl");
    feed(&c, &s, ":srv CAP * NAK :sasl");
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_false(c.permanent);
    assert_non_null(strstr(c.why, "refused"));
}

static void test_ircad_cap_init_credentials_too_long(void **state)
{
    (void)state;
    char user[400];
    fill(user, 399, 'u');
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, user, "pw", true);
    feed(&c, &s, ":srv CAP * LS :sasl");
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_true(c.permanent);
    assert_non_null(strstr(c.why, "longer than"));
}

static void test_ircad_cap_feed_unexpected_challenge_aborts_once(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    to_authenticate(&c, &s, "PLAIN");
    assert_true(feed(&c, &s, "AUTHENTICATE Zm9v"));
    assert_true(feed(&c, &s, "AUTHENTICATE Zm9v"));
    assert_true(feed(&c, &s, "AUTHENTICATE +"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "AUTHENTICATE *");
    feed(&c, &s, ":srv 906 bot :SASL authentication aborted");
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_false(c.permanent);
}

/* ---- servers without CAP ---------------------------------------------- */

static void test_ircad_cap_feed_421_no_cap(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_true(feed(&c, &s, ":srv 421 * CAP :Unknown command"));
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    assert_int_equal(c.enabled, 0);

    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    assert_true(feed(&c, &s, ":srv 421 * CAP :Unknown command"));
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_false(c.permanent);
    assert_non_null(strstr(c.why, "CAP"));

    /* a 421 about another command is not ours */
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_false(feed(&c, &s, ":srv 421 bot FOO :Unknown command"));
    assert_int_equal(c.state, IRCAD_CAP_NEGOTIATING);
}

static void test_ircad_cap_feed_001_no_cap(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_false(feed(&c, &s, ":srv 001 bot :Welcome"));
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_DONE);

    setup(&c, &s, IRCAD_SASL_EXTERNAL, NULL, NULL, true);
    assert_false(feed(&c, &s, ":srv 001 bot :Welcome"));
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_false(c.permanent);

    setup(&c, &s, IRCAD_SASL_EXTERNAL, NULL, NULL, false);
    assert_false(feed(&c, &s, ":srv 001 bot :Welcome"));
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    assert_true(c.why[0] != '\0');
}

static void test_ircad_cap_feed_410_ends(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_true(feed(&c, &s, ":srv 410 * LS :Invalid CAP command"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
}

/* ---- cap-notify after registration ------------------------------------ */

static void test_ircad_cap_feed_new_del_after_done(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", false);
    feed(&c, &s, ":srv CAP * LS :cap-notify");
    feed(&c, &s, ":srv CAP * ACK :cap-notify");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    s.n = 0;
    assert_true(feed(&c, &s, ":srv CAP bot NEW :account-notify sasl batch"));
    /* never sasl after registration */
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP REQ :account-notify");
    assert_true(feed(&c, &s, ":srv CAP bot ACK :account-notify"));
    assert_true(ircad_cap_has(&c, IRCAD_CAP_ACCOUNT_NOTIFY));
    assert_int_equal(s.n, 1); /* no second CAP END */
    assert_true(feed(&c, &s, ":srv CAP bot DEL :account-notify sasl"));
    assert_false(ircad_cap_has(&c, IRCAD_CAP_ACCOUNT_NOTIFY));
    assert_int_equal(c.offered & (IRCAD_CAP_ACCOUNT_NOTIFY | IRCAD_CAP_SASL),
                     0);
    assert_true(ircad_cap_has(&c, IRCAD_CAP_CAP_NOTIFY));
    /* an enabled cap offered again is not asked for again */
    assert_true(feed(&c, &s, ":srv CAP bot NEW :cap-notify"));
    assert_int_equal(s.n, 1);
}

static void test_ircad_cap_feed_900_901_any_time(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    feed(&c, &s, ":srv CAP * LS :");
    assert_true(feed(&c, &s, ":srv 900 bot bot!u@h acct :logged in"));
    assert_true(c.logged_in);
    assert_string_equal(c.account, "acct");
    assert_true(feed(&c, &s, ":srv 901 bot bot!u@h :logged out"));
    assert_false(c.logged_in);
    assert_string_equal(c.account, "");
}

/* ---- hostile lines ---------------------------------------------------- */

static void test_ircad_cap_feed_missing_params(void **state)
{
    (void)state;
    static const char *lines[] = {
        "CAP",
        "CAP *",
        "CAP * LS",
        "CAP * ACK",
        "CAP * NAK",
        "CAP * NEW",
        "CAP * DEL",
        "CAP * LS *",
        "AUTHENTICATE",
        ":srv 900",
        ":srv 900 bot",
        ":srv 903",
        ":srv 904",
        ":srv 908",
        ":srv 908 bot",
        ":srv 410",
        ":srv 421",
        ":srv 421 bot",
        "CAP * FROB :x",
        "CAP * LIST :sasl",
        "CAP * ACK :-",
        "CAP * LS :=== = -",
        "CAP * ACK :sasl=x",
    };
    for (int mech = 0; mech < 3; mech++) {
        struct ircad_cap c;
        struct sent s;
        setup(&c, &s, (enum ircad_sasl_mech)mech, "bot", "pw", false);
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
            ircad_cap_feed(&c, mk(lines[i]), record, &s);
        assert_true(s.n <= 4);
        assert_int_equal(c.enabled & IRCAD_CAP_SASL, 0);
        /* and it still works after */
        setup(&c, &s, (enum ircad_sasl_mech)mech, "bot", "pw", false);
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
            if (strncmp(lines[i], "CAP * LS", 8) != 0 &&
                strstr(lines[i], "410") == NULL)
                ircad_cap_feed(&c, mk(lines[i]), record, &s);
        feed(&c, &s, "CAP * LS :server-time");
        feed(&c, &s, "CAP * ACK :server-time");
        assert_true(ircad_cap_has(&c, IRCAD_CAP_SERVER_TIME));
        assert_int_equal(c.state, IRCAD_CAP_DONE);
    }
    /* a hand-made line with no command at all */
    struct ircad_line *l = mk("X");
    l->command = NULL;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_false(ircad_cap_feed(&c, l, record, &s));
    assert_false(ircad_cap_feed(&c, NULL, record, &s));
}

static void test_ircad_cap_feed_other_lines_not_consumed(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    assert_false(feed(&c, &s, ":a!b@c PRIVMSG #x :CAP * LS :sasl"));
    assert_false(feed(&c, &s, ":srv 433 * bot :Nickname is already in use"));
    assert_false(feed(&c, &s, "PING :srv"));
    assert_false(feed(&c, &s, ":srv 909 bot :not ours"));
    assert_false(feed(&c, &s, ":srv NOTICE * :*** Looking up your hostname"));
    assert_int_equal(s.n, 0);
    assert_int_equal(c.state, IRCAD_CAP_NEGOTIATING);
}

static void test_ircad_cap_feed_ack_of_unasked_ignored(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    feed(&c, &s, ":srv CAP * LS :server-time");
    s.n = 0;
    feed(&c, &s, ":srv CAP * ACK :sasl account-tag");
    assert_int_equal(c.enabled, 0);
    assert_int_equal(s.n, 0); /* still waiting for server-time */
    feed(&c, &s, ":srv CAP * ACK :server-time");
    assert_int_equal(c.enabled, IRCAD_CAP_SERVER_TIME);
    /* a second LS is not answered with a second REQ */
    s.n = 0;
    feed(&c, &s, ":srv CAP * LS :account-tag");
    assert_int_equal(s.n, 0);
    assert_int_equal(c.offered, IRCAD_CAP_SERVER_TIME);
}

static void test_ircad_cap_feed_huge_ls_is_bounded(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    /* lines of junk caps up to the limit and far beyond, then our caps:
     * ignored, so SASL is not offered */
    static char line[600];
    char junk[500];
    fill(junk, sizeof junk - 1, 'x');
    for (int i = 0; i < 200; i++) {
        snprintf(line, sizeof line, ":srv CAP * LS * :%s", junk);
        assert_true(feed(&c, &s, line));
    }
    assert_true(feed(&c, &s, ":srv CAP * LS :sasl account-tag"));
    assert_int_equal(c.offered, 0);
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_non_null(strstr(c.why, "does not offer SASL"));

    /* caps within the limit count */
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    for (int i = 0; i < 4; i++) {
        snprintf(line, sizeof line, ":srv CAP * LS * :%s", junk);
        feed(&c, &s, line);
    }
    feed(&c, &s, ":srv CAP * LS :account-tag");
    assert_int_equal(c.offered, IRCAD_CAP_ACCOUNT_TAG);
}

static void test_ircad_cap_feed_hostile_sasl_value_and_text(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", true);
    /* a value longer than sasl_mechs, with our mechanism at its end and
     * junk bytes in it */
    static char line[1200];
    char mechs[800];
    size_t n = 0;
    for (int i = 0; i < 80; i++)
        n += (size_t)snprintf(mechs + n, sizeof mechs - n, "M\x01%03d,", i);
    snprintf(mechs + n, sizeof mechs - n, "PLAIN");
    snprintf(line, sizeof line, ":srv CAP * LS :sasl=%s", mechs);
    feed(&c, &s, line);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP REQ :sasl");
    assert_true(strlen(c.sasl_mechs) < sizeof c.sasl_mechs);
    assert_null(strchr(c.sasl_mechs, '\x01'));
    s.n = 0;
    feed(&c, &s, ":srv CAP * ACK :sasl");
    feed(&c, &s, "AUTHENTICATE +");
    /* server text with control bytes and far too long */
    char text[1000];
    fill(text, 999, 'y');
    text[3] = '\x07';
    snprintf(line, sizeof line, ":srv 904 bot :%s", text);
    feed(&c, &s, line);
    assert_int_equal(c.state, IRCAD_CAP_FAILED);
    assert_null(strchr(c.why, '\x07'));
    assert_true(strlen(c.why) < sizeof c.why);
    /* a 900 with an account that does not fit or holds junk */
    setup(&c, &s, IRCAD_SASL_NONE, NULL, NULL, false);
    char acct[300];
    fill(acct, 299, 'a');
    snprintf(line, sizeof line, ":srv 900 bot bot!u@h %s :in", acct);
    feed(&c, &s, line);
    assert_true(c.logged_in);
    assert_string_equal(c.account, "");
    feed(&c, &s, ":srv 900 bot bot!u@h a\x01 :in");
    assert_string_equal(c.account, "");
}

static void test_ircad_cap_feed_421_authenticate_fails_sasl(void **state)
{
    (void)state;
    struct ircad_cap c;
    struct sent s;
    setup(&c, &s, IRCAD_SASL_PLAIN, "bot", "pw", false);
    to_authenticate(&c, &s, "PLAIN");
    assert_true(feed(&c, &s, ":srv 421 bot AUTHENTICATE :Unknown command"));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "CAP END");
    assert_int_equal(c.state, IRCAD_CAP_DONE);
    assert_non_null(strstr(c.why, "AUTHENTICATE"));
}

static uint32_t rnd(uint32_t *x)
{
    /* xorshift32: fixed seed, the same lines every run */
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

#define PICK(x, arr) (arr)[rnd(x) % (sizeof(arr) / sizeof *(arr))]

/* Random lines in the shapes of real ones (CAP with a subcommand and a
 * list, AUTHENTICATE, the numerics), over many connections: every line
 * sent is clean (record() checks), a line makes few lines go out, and
 * `why` never holds the password. Counts how far the connections get,
 * so the test cannot pass by never reaching SASL. */
static void test_ircad_cap_feed_random_lines(void **state)
{
    (void)state;
    static const char *nums[] = {"900", "901", "902", "903", "904",
                                 "905", "906", "907", "908", "410",
                                 "421", "001", "909", "000"};
    static const char *subs[] = {"LS",   "ACK", "NAK", "NEW", "DEL",
                                 "LIST", "END", "ls",  "",    "*"};
    static const char *caps[] = {"sasl",
                                 "sasl=PLAIN",
                                 "sasl=EXTERNAL",
                                 "sasl=EXTERNAL,PLAIN",
                                 "-sasl",
                                 "account-tag",
                                 "-account-tag",
                                 "server-time",
                                 "cap-notify",
                                 "message-tags",
                                 "extended-join",
                                 "account-notify",
                                 "=",
                                 "-",
                                 "\xff\xfe",
                                 "batch"};
    static const char *args[] = {
        "+",    "*", "bot", "CAP", "AUTHENTICATE", ":text", "a!b@c acct :in",
        "Zm9v", ""};
    uint32_t x = 2463534242u;
    int authenticated = 0, payloads = 0, done = 0, failed = 0;
    for (int conn = 0; conn < 2000; conn++) {
        struct ircad_cap c;
        struct sent s;
        setup(&c, &s, (enum ircad_sasl_mech)(conn % 3), "bot", "pw",
              conn % 2 == 0);
        bool paid = false;
        for (int i = 0; i < 40; i++) {
            char line[512];
            size_t n;
            uint32_t kind = rnd(&x) % 10;
            if (kind < 6) {
                n = (size_t)snprintf(line, sizeof line,
                                     "CAP * %s%s :", PICK(&x, subs),
                                     rnd(&x) % 4 ? "" : " *");
                for (uint32_t k = rnd(&x) % 5; k > 0; k--)
                    n += (size_t)snprintf(line + n, sizeof line - n, "%s ",
                                          PICK(&x, caps));
            } else if (kind < 8) {
                n = (size_t)snprintf(line, sizeof line, "AUTHENTICATE %s",
                                     PICK(&x, args));
            } else {
                n = (size_t)snprintf(line, sizeof line, ":s %s %s %s",
                                     PICK(&x, nums), PICK(&x, args),
                                     PICK(&x, args));
            }
            assert_true(n < sizeof line);
            s.n = 0;
            ircad_cap_feed(&c, mk(line), record, &s);
            assert_true(s.n <= 4);
            for (int k = 0; k < s.n; k++) {
                authenticated +=
                    strncmp(s.lines[k], "AUTHENTICATE P", 14) == 0 ||
                    strncmp(s.lines[k], "AUTHENTICATE E", 14) == 0;
                paid |= strcmp(s.lines[k], "AUTHENTICATE AGJvdABwdw==") == 0 ||
                        strcmp(s.lines[k], "AUTHENTICATE +") == 0;
            }
            assert_int_equal(c.enabled & ~0x7fu, 0);
            assert_true(strlen(c.why) < sizeof c.why);
            assert_null(strstr(c.why, "pw"));
        }
        payloads += paid;
        done += c.state == IRCAD_CAP_DONE;
        failed += c.state == IRCAD_CAP_FAILED;
    }
    assert_true(authenticated > 20);
    assert_true(payloads >= 3);
    assert_true(done > 200);
    assert_true(failed > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_cap_feed_ls_single_line_reqs_offered),
        cmocka_unit_test(test_ircad_cap_feed_ls_multiline_waits_for_last),
        cmocka_unit_test(test_ircad_cap_feed_ls_empty_ends),
        cmocka_unit_test(test_ircad_cap_feed_ack_enables_and_ends),
        cmocka_unit_test(test_ircad_cap_feed_nak_goes_on),
        cmocka_unit_test(test_ircad_cap_feed_nak_of_others_keeps_sasl),
        cmocka_unit_test(test_ircad_cap_feed_plain_payload_exact),
        cmocka_unit_test(test_ircad_cap_feed_plain_chunks_at_400),
        cmocka_unit_test(
            test_ircad_cap_feed_plain_exact_multiple_ends_with_plus),
        cmocka_unit_test(test_ircad_cap_feed_external_sends_plus),
        cmocka_unit_test(test_ircad_cap_feed_sasl_value_lists_mech),
        cmocka_unit_test(test_ircad_cap_feed_904_required_fails_permanent),
        cmocka_unit_test(test_ircad_cap_feed_904_optional_ends),
        cmocka_unit_test(
            test_ircad_cap_feed_904_long_text_cut_whole_characters),
        cmocka_unit_test(test_ircad_cap_feed_905_906_902),
        cmocka_unit_test(test_ircad_cap_feed_908_names_the_mechanisms),
        cmocka_unit_test(test_ircad_cap_feed_sasl_not_offered),
        cmocka_unit_test(test_ircad_cap_feed_sasl_other_mechanisms_only),
        cmocka_unit_test(test_ircad_cap_feed_sasl_refused),
        cmocka_unit_test(test_ircad_cap_init_credentials_too_long),
        cmocka_unit_test(test_ircad_cap_feed_unexpected_challenge_aborts_once),
        cmocka_unit_test(test_ircad_cap_feed_421_no_cap),
        cmocka_unit_test(test_ircad_cap_feed_001_no_cap),
        cmocka_unit_test(test_ircad_cap_feed_410_ends),
        cmocka_unit_test(test_ircad_cap_feed_new_del_after_done),
        cmocka_unit_test(test_ircad_cap_feed_900_901_any_time),
        cmocka_unit_test(test_ircad_cap_feed_missing_params),
        cmocka_unit_test(test_ircad_cap_feed_other_lines_not_consumed),
        cmocka_unit_test(test_ircad_cap_feed_ack_of_unasked_ignored),
        cmocka_unit_test(test_ircad_cap_feed_huge_ls_is_bounded),
        cmocka_unit_test(test_ircad_cap_feed_hostile_sasl_value_and_text),
        cmocka_unit_test(test_ircad_cap_feed_421_authenticate_fails_sasl),
        cmocka_unit_test(test_ircad_cap_feed_random_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
