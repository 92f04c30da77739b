/*
 * IRCv3 capability negotiation and SASL (cap.h), a state machine with no
 * I/O of its own.
 *
 * The flow: "CAP LS 302"; the server's LS reply, possibly over several
 * lines (a "*" before the list means more follows), gives the offered
 * capabilities; when the last LS line arrives we REQ what the bot uses
 * among them: "sasl" alone on its own line (so that a NAK of any other
 * capability cannot take SASL down with it) and the rest together. Once
 * every REQ is answered (ACK or NAK; a NAK is accepted, never retried) and
 * SASL is enabled and configured, "AUTHENTICATE <MECH>"; on the server's
 * "AUTHENTICATE +" the payload goes out in 400-byte chunks (a final "+"
 * when its length is a multiple of 400, "+" alone when it is empty, as
 * for EXTERNAL). 903 (or 907, already logged in) ends SASL; 902, 904,
 * 905, 906 and 908 fail it. Then "CAP END".
 *
 * A failed or unavailable SASL sets `why`: if SASL is required the state
 * becomes FAILED (the caller closes; `permanent` says whether a retry can
 * help: bad credentials or a missing mechanism cannot, services that are
 * down or an aborted exchange can), else negotiation goes on with "CAP
 * END" and the bot runs unauthenticated.
 *
 * A server without CAP answers 421 (or 410) or simply registers (001):
 * negotiation is over, with nothing enabled.
 *
 * After registration, cap-notify's NEW makes us REQ what we want among the
 * new capabilities (never sasl: the bot is registered by then), DEL drops
 * them, and ACK/NAK answer those REQs. 900/901 track the bot's account at
 * any time.
 *
 * Every line is hostile: parameters are counted before use, capability
 * lists are scanned in place, the LS text is taken up to CAP_LS_MAX bytes,
 * server text copied into `why` is cut and cleaned of control bytes, and
 * the password is scrubbed from it. Every line sent is built here from
 * constants, our capability names and base64, and checked once more before
 * it goes out. Each server line makes at most a handful of lines go out,
 * and nothing is sent again in answer to our own output.
 *
 * Specs: https://ircv3.net/specs/extensions/capability-negotiation,
 * https://ircv3.net/specs/extensions/sasl-3.1 and sasl-3.2 (read, not
 * copied).
 */
#include "adapters/irc/cap.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/utf8.h"

/* The longest line we send, CR LF not counted. */
#define CAP_LINE_MAX 510
/* The LS text we read; capabilities beyond are ignored. */
#define CAP_LS_MAX 8192
/* AUTHENTICATE carries at most this many bytes of payload per line. */
#define SASL_CHUNK 400
/* Server text kept in `why`. */
#define CAP_TEXT_MAX 120

enum sasl_step {
    SASL_IDLE,         /* not started (or not configured) */
    SASL_MECH_SENT,    /* AUTHENTICATE <MECH> sent, waiting for "+" */
    SASL_PAYLOAD_SENT, /* credentials sent, waiting for 90x */
    SASL_ABORTING,     /* AUTHENTICATE * sent after a surprise */
    SASL_SUCCEEDED,
    SASL_GAVE_UP
};

enum cap_flag {
    F_LS_DONE = 1u << 0,      /* the last LS line arrived */
    F_REQ_SENT = 1u << 1,     /* the first REQs went out */
    F_MECH_OK = 1u << 2,      /* the sasl value lists our mechanism */
    F_CRED_TOO_LONG = 1u << 3 /* the username or password did not fit */
};

static const struct {
    const char *name;
    unsigned bit;
} cap_names[] = {
    {"sasl", IRCAD_CAP_SASL},
    {"account-tag", IRCAD_CAP_ACCOUNT_TAG},
    {"account-notify", IRCAD_CAP_ACCOUNT_NOTIFY},
    {"extended-join", IRCAD_CAP_EXTENDED_JOIN},
    {"message-tags", IRCAD_CAP_MESSAGE_TAGS},
    {"server-time", IRCAD_CAP_SERVER_TIME},
    {"cap-notify", IRCAD_CAP_CAP_NOTIFY},
};
#define CAP_COUNT (sizeof cap_names / sizeof *cap_names)

/* What to do with one capability of a list. */
enum cap_verb { CAP_OFFER, CAP_ACK, CAP_NAK, CAP_DEL };

static const char *mech_name(enum ircad_sasl_mech m)
{
    return m == IRCAD_SASL_EXTERNAL ? "EXTERNAL" : "PLAIN";
}

static const char *param(const struct ircad_line *l, unsigned i)
{
    if (i >= l->nparams || i >= IRCAD_PARAMS_MAX)
        return NULL;
    return l->params[i];
}

/* Sends a line, unless it is one no server should get (cannot happen by
 * construction; the check keeps it so). */
static void emit(const char *line, ircad_cap_send_fn send, void *ctx)
{
    size_t n = strlen(line);
    if (n == 0 || n > CAP_LINE_MAX || strpbrk(line, "\r\n"))
        return;
    send(ctx, line);
}

/* Copies server text for the log: printable bytes only, at most
 * CAP_TEXT_MAX of them, cut at a UTF-8 boundary. */
static void clean_text(char *dst, size_t size, const char *src)
{
    size_t n = 0;
    if (!src)
        src = "";
    for (; *src && n + 1 < size && n < CAP_TEXT_MAX; src++) {
        unsigned char ch = (unsigned char)*src;
        if (ch >= 0x20 && ch != 0x7f)
            dst[n++] = (char)ch;
    }
    if (*src)
        n = utf8_trim(dst, n); /* cut: no partial character at the end */
    dst[n] = '\0';
}

/* Replaces every occurrence of the password in why by "***". */
static void scrub_password(struct ircad_cap *c)
{
    size_t plen = strlen(c->password);
    if (plen == 0)
        return;
    char out[sizeof c->why];
    size_t o = 0;
    const char *s = c->why;
    while (*s && o + 1 < sizeof out) {
        if (strncmp(s, c->password, plen) == 0) {
            for (const char *r = "***"; *r && o + 1 < sizeof out; r++)
                out[o++] = *r;
            s += plen;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = '\0';
    memcpy(c->why, out, o + 1);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
set_why(struct ircad_cap *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    scrub_password(c);
}

static bool sasl_configured(const struct ircad_cap *c)
{
    return c->cfg.mech == IRCAD_SASL_PLAIN ||
           c->cfg.mech == IRCAD_SASL_EXTERNAL;
}

static bool sasl_busy(const struct ircad_cap *c)
{
    return c->sasl_step == SASL_MECH_SENT ||
           c->sasl_step == SASL_PAYLOAD_SENT || c->sasl_step == SASL_ABORTING;
}

static unsigned cap_lookup(const char *name, size_t len)
{
    for (size_t i = 0; i < CAP_COUNT; i++)
        if (strlen(cap_names[i].name) == len &&
            memcmp(cap_names[i].name, name, len) == 0)
            return cap_names[i].bit;
    return 0;
}

/* Whether the comma-separated list v (len bytes) names mechanism m. */
static bool list_has(const char *v, size_t len, const char *m)
{
    size_t mlen = strlen(m);
    size_t i = 0;
    while (i <= len) {
        size_t j = i;
        while (j < len && v[j] != ',')
            j++;
        if (j - i == mlen && strncasecmp(v + i, m, mlen) == 0)
            return true;
        i = j + 1;
    }
    return false;
}

/* The server's sasl capability, with its value (NULL: none given). Keeps
 * for the log the whole mechanisms of the value that fit, cleaned. */
static void note_sasl_value(struct ircad_cap *c, const char *v, size_t len)
{
    c->sasl_mechs[0] = '\0';
    if (!v) {
        c->flags |= F_MECH_OK; /* sasl-3.1: no list, try ours */
        return;
    }
    if (sasl_configured(c) && list_has(v, len, mech_name(c->cfg.mech)))
        c->flags |= F_MECH_OK;
    else
        c->flags &= ~(unsigned)F_MECH_OK;
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && v[j] != ',')
            j++;
        size_t need = (j - i) + (n > 0);
        if (j == i || n + need >= sizeof c->sasl_mechs) {
            i = j + 1;
            continue;
        }
        if (n > 0)
            c->sasl_mechs[n++] = ',';
        for (size_t k = i; k < j; k++) {
            char ch = v[k];
            bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
            c->sasl_mechs[n++] = ok ? ch : '?';
        }
        i = j + 1;
    }
    c->sasl_mechs[n] = '\0';
}

/* Applies one capability list (a space-separated parameter) to c; returns
 * the bits named in it. */
static unsigned apply_list(struct ircad_cap *c, const char *list,
                           enum cap_verb verb)
{
    unsigned named = 0;
    const char *p = list ? list : "";
    while (*p) {
        while (*p == ' ')
            p++;
        const char *tok = p;
        while (*p && *p != ' ')
            p++;
        size_t len = (size_t)(p - tok);
        if (len == 0)
            continue;
        bool minus = tok[0] == '-';
        if (minus) {
            tok++;
            len--;
        }
        const char *eq = memchr(tok, '=', len);
        size_t nlen = eq ? (size_t)(eq - tok) : len;
        unsigned bit = cap_lookup(tok, nlen);
        if (!bit)
            continue;
        named |= bit;
        switch (verb) {
        case CAP_OFFER:
            c->offered |= bit;
            if (bit == IRCAD_CAP_SASL)
                note_sasl_value(c, eq ? eq + 1 : NULL, eq ? len - nlen - 1 : 0);
            break;
        case CAP_ACK:
            if (minus) {
                c->enabled &= ~bit;
            } else if (c->asked & bit) {
                c->enabled |= bit; /* only what we asked for */
            }
            c->asked &= ~bit;
            break;
        case CAP_NAK:
            c->asked &= ~bit;
            break;
        case CAP_DEL:
            c->offered &= ~bit;
            c->enabled &= ~bit;
            c->asked &= ~bit;
            if (bit == IRCAD_CAP_SASL) {
                c->sasl_mechs[0] = '\0';
                c->flags &= ~(unsigned)F_MECH_OK;
            }
            break;
        }
    }
    return named;
}

/* The bits worth asking for now among `bits`. */
static unsigned wanted(const struct ircad_cap *c, unsigned bits)
{
    unsigned w = bits & ~c->enabled & ~c->asked;
    bool sasl_ok = c->state == IRCAD_CAP_NEGOTIATING &&
                   c->sasl_step == SASL_IDLE && sasl_configured(c) &&
                   (c->flags & F_MECH_OK) && !(c->flags & F_CRED_TOO_LONG);
    if (!sasl_ok)
        w &= ~(unsigned)IRCAD_CAP_SASL;
    return w;
}

/* Sends "CAP REQ" lines for `bits`, as few as fit in CAP_LINE_MAX. */
static void send_req(struct ircad_cap *c, unsigned bits, ircad_cap_send_fn send,
                     void *ctx)
{
    static const char head[] = "CAP REQ :";
    char line[CAP_LINE_MAX + 1];
    size_t n = 0;
    for (size_t i = 0; i < CAP_COUNT; i++) {
        if (!(bits & cap_names[i].bit))
            continue;
        size_t len = strlen(cap_names[i].name);
        if (n > 0 && n + 1 + len > CAP_LINE_MAX) {
            line[n] = '\0';
            emit(line, send, ctx);
            n = 0;
        }
        if (n == 0) {
            memcpy(line, head, sizeof head - 1);
            n = sizeof head - 1;
        } else {
            line[n++] = ' ';
        }
        memcpy(line + n, cap_names[i].name, len);
        n += len;
        c->asked |= cap_names[i].bit;
    }
    if (n > 0) {
        line[n] = '\0';
        emit(line, send, ctx);
    }
}

/* REQs the wanted bits among `bits`: sasl on a line of its own. */
static void request(struct ircad_cap *c, unsigned bits, ircad_cap_send_fn send,
                    void *ctx)
{
    unsigned w = wanted(c, bits);
    if (w & IRCAD_CAP_SASL)
        send_req(c, IRCAD_CAP_SASL, send, ctx);
    send_req(c, w & ~(unsigned)IRCAD_CAP_SASL, send, ctx);
}

static void cap_end(struct ircad_cap *c, ircad_cap_send_fn send, void *ctx)
{
    emit("CAP END", send, ctx);
    c->state = IRCAD_CAP_DONE;
}

/* SASL did not work out: FAILED if required (the caller closes), else the
 * caller goes on without it (advance() then ends negotiation). `why` is
 * set by the caller. */
static void give_up(struct ircad_cap *c, bool permanent)
{
    c->sasl_step = SASL_GAVE_UP;
    if (c->cfg.required) {
        c->state = IRCAD_CAP_FAILED;
        c->permanent = permanent;
    }
}

/* The server has SASL, but not with our mechanism: a config matter. */
static void no_such_mech(struct ircad_cap *c)
{
    set_why(c, "SASL %s is not available: the server offers SASL only with %s",
            mech_name(c->cfg.mech),
            c->sasl_mechs[0] ? c->sasl_mechs : "other mechanisms");
    give_up(c, true);
}

/* Why SASL cannot even start; then give_up(). */
static void sasl_unavailable(struct ircad_cap *c)
{
    const char *m = mech_name(c->cfg.mech);
    if (c->flags & F_CRED_TOO_LONG) {
        set_why(c,
                "SASL %s is impossible: the username or password is "
                "longer than %zu bytes",
                m, sizeof c->username - 1);
        give_up(c, true);
    } else if (!(c->offered & IRCAD_CAP_SASL)) {
        set_why(c,
                "the server does not offer SASL, so the bot cannot log in "
                "with %s (services may be down)",
                m);
        give_up(c, false);
    } else if (!(c->flags & F_MECH_OK)) {
        no_such_mech(c);
    } else {
        set_why(c,
                "the server refused the sasl capability, so the bot cannot "
                "log in with %s",
                m);
        give_up(c, false);
    }
}

/* Moves negotiation on once nothing is awaited: starts SASL, or ends. */
static void advance(struct ircad_cap *c, ircad_cap_send_fn send, void *ctx)
{
    if (c->state != IRCAD_CAP_NEGOTIATING || !(c->flags & F_LS_DONE) ||
        c->asked != 0 || sasl_busy(c))
        return;
    if (c->sasl_step == SASL_IDLE && sasl_configured(c)) {
        if ((c->enabled & IRCAD_CAP_SASL) && !(c->flags & F_CRED_TOO_LONG)) {
            char line[64];
            snprintf(line, sizeof line, "AUTHENTICATE %s",
                     mech_name(c->cfg.mech));
            emit(line, send, ctx);
            c->sasl_step = SASL_MECH_SENT;
            return;
        }
        sasl_unavailable(c);
        if (c->state == IRCAD_CAP_FAILED)
            return;
    }
    cap_end(c, send, ctx);
}

/* Negotiation ends without CAP END (no CAP at the server, or it
 * registered us anyway). */
static void end_without_cap(struct ircad_cap *c, const char *how)
{
    if (sasl_configured(c) && c->sasl_step != SASL_SUCCEEDED &&
        c->sasl_step != SASL_GAVE_UP) {
        set_why(c, "%s, so the bot cannot log in with SASL %s", how,
                mech_name(c->cfg.mech));
        give_up(c, false);
        if (c->state == IRCAD_CAP_FAILED)
            return;
    }
    c->state = IRCAD_CAP_DONE;
}

static size_t base64(const unsigned char *in, size_t n, char *out)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

/* The answer to "AUTHENTICATE +": the credentials in 400-byte chunks. */
static void send_payload(struct ircad_cap *c, ircad_cap_send_fn send, void *ctx)
{
    unsigned char raw[sizeof c->username + sizeof c->password + 2];
    char b64[(sizeof raw + 2) / 3 * 4 + 1];
    size_t len = 0;
    if (c->cfg.mech == IRCAD_SASL_PLAIN) {
        /* authzid (empty) NUL authcid NUL password */
        size_t u = strlen(c->username), p = strlen(c->password);
        raw[0] = '\0';
        memcpy(raw + 1, c->username, u);
        raw[1 + u] = '\0';
        memcpy(raw + 2 + u, c->password, p);
        len = base64(raw, 2 + u + p, b64);
        memset(raw, 0, sizeof raw);
    }
    /* EXTERNAL: an empty response (the certificate says who we are) */
    char line[16 + SASL_CHUNK];
    for (size_t off = 0; off < len; off += SASL_CHUNK) {
        size_t n = len - off < SASL_CHUNK ? len - off : SASL_CHUNK;
        snprintf(line, sizeof line, "AUTHENTICATE %.*s", (int)n, b64 + off);
        emit(line, send, ctx);
    }
    if (len % SASL_CHUNK == 0)
        emit("AUTHENTICATE +", send, ctx);
    memset(b64, 0, sizeof b64);
    memset(line, 0, sizeof line);
    c->sasl_step = SASL_PAYLOAD_SENT;
}

static void on_authenticate(struct ircad_cap *c, const struct ircad_line *l,
                            ircad_cap_send_fn send, void *ctx)
{
    const char *arg = param(l, 0);
    if (c->sasl_step == SASL_MECH_SENT && arg && strcmp(arg, "+") == 0) {
        send_payload(c, send, ctx);
    } else if (c->sasl_step == SASL_MECH_SENT ||
               c->sasl_step == SASL_PAYLOAD_SENT) {
        /* a challenge neither PLAIN nor EXTERNAL has: abort, once; the
         * server answers 906 */
        emit("AUTHENTICATE *", send, ctx);
        c->sasl_step = SASL_ABORTING;
    }
}

/* The server's text of a numeric: its last parameter after the target. */
static void numeric_text(const struct ircad_line *l, char *dst, size_t size)
{
    const char *t = l->nparams >= 2 ? param(l, l->nparams - 1) : NULL;
    clean_text(dst, size, t && *t ? t : "no reason given");
}

static void on_logged_in(struct ircad_cap *c, const struct ircad_line *l)
{
    c->logged_in = true;
    c->account[0] = '\0';
    const char *a = param(l, 2);
    size_t n = a ? strlen(a) : 0;
    if (n == 0 || n >= sizeof c->account || strpbrk(a, " \r\n"))
        return; /* logged in, under a name we cannot use */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)a[i] < 0x20 || a[i] == 0x7f)
            return;
    memcpy(c->account, a, n + 1);
}

static void on_sasl_numeric(struct ircad_cap *c, const struct ircad_line *l,
                            ircad_cap_send_fn send, void *ctx)
{
    const char *m = mech_name(c->cfg.mech);
    char text[CAP_TEXT_MAX + 1];
    numeric_text(l, text, sizeof text);
    switch (l->numeric) {
    case 900: /* RPL_LOGGEDIN */
        on_logged_in(c, l);
        return;
    case 901: /* RPL_LOGGEDOUT */
        c->logged_in = false;
        c->account[0] = '\0';
        return;
    case 908: { /* RPL_SASLMECHS: <nick> <mechs> :text */
        const char *mechs = param(l, 1);
        if (mechs && l->nparams >= 3)
            note_sasl_value(c, mechs, strlen(mechs));
        if (!sasl_busy(c))
            return;
        no_such_mech(c);
        break;
    }
    default:
        if (!sasl_busy(c))
            return; /* not ours, or too late to matter */
        switch (l->numeric) {
        case 903: /* RPL_SASLSUCCESS */
        case 907: /* ERR_SASLALREADY: logged in already, fine */
            c->sasl_step = SASL_SUCCEEDED;
            break;
        case 902: /* ERR_NICKLOCKED */
            set_why(c,
                    "SASL %s failed: the account is locked or the nick is "
                    "not the account's (902: %s)",
                    m, text);
            give_up(c, true);
            break;
        case 904: /* ERR_SASLFAIL */
        case 905: /* ERR_SASLTOOLONG */
            set_why(c, "SASL %s failed: the server said \"%s\" (%d)", m, text,
                    l->numeric);
            give_up(c, true);
            break;
        case 906: /* ERR_SASLABORTED */
            set_why(c, "SASL %s was aborted: the server said \"%s\" (906)", m,
                    text);
            give_up(c, false);
            break;
        default:
            return;
        }
    }
    advance(c, send, ctx);
}

static void on_cap(struct ircad_cap *c, const struct ircad_line *l,
                   ircad_cap_send_fn send, void *ctx)
{
    const char *sub = param(l, 1);
    if (!sub)
        return;
    /* "CAP <nick> <sub> [*] :list": a "*" before the list means more
     * lines follow (LS, LIST, and long ACKs) */
    const char *p2 = param(l, 2);
    bool more = p2 && strcmp(p2, "*") == 0 && l->nparams >= 4;
    const char *list = more ? param(l, 3) : p2;
    if (!list)
        list = "";

    if (strcasecmp(sub, "LS") == 0) {
        if (c->flags & F_LS_DONE)
            return; /* we asked once */
        size_t len = strlen(list);
        if (c->ls_bytes < CAP_LS_MAX && len <= CAP_LS_MAX - c->ls_bytes) {
            c->ls_bytes += len;
            apply_list(c, list, CAP_OFFER);
        } else {
            c->ls_bytes = CAP_LS_MAX; /* enough: the rest is ignored */
        }
        if (more)
            return;
        c->flags |= F_LS_DONE;
        if (c->state == IRCAD_CAP_NEGOTIATING && !(c->flags & F_REQ_SENT)) {
            c->flags |= F_REQ_SENT;
            request(c, c->offered, send, ctx);
        }
    } else if (strcasecmp(sub, "ACK") == 0) {
        apply_list(c, list, CAP_ACK);
    } else if (strcasecmp(sub, "NAK") == 0) {
        apply_list(c, list, CAP_NAK);
    } else if (strcasecmp(sub, "NEW") == 0) {
        unsigned named = apply_list(c, list, CAP_OFFER);
        /* before the LS ends, its REQ will cover them */
        if (c->flags & F_REQ_SENT && c->state != IRCAD_CAP_FAILED)
            request(c, named & c->offered, send, ctx);
    } else if (strcasecmp(sub, "DEL") == 0) {
        apply_list(c, list, CAP_DEL);
    } else {
        return; /* LIST (we never ask), or junk */
    }
    advance(c, send, ctx);
}

/* 410 ERR_INVALIDCAPCMD, or 421 ERR_UNKNOWNCOMMAND about a command of
 * ours. */
static void on_cap_error(struct ircad_cap *c, const struct ircad_line *l,
                         ircad_cap_send_fn send, void *ctx)
{
    const char *cmd = param(l, 1);
    if (l->numeric == 421 && cmd && strcasecmp(cmd, "AUTHENTICATE") == 0) {
        if (sasl_busy(c)) {
            set_why(c,
                    "the server offered SASL but does not know "
                    "AUTHENTICATE, so the bot cannot log in with %s",
                    mech_name(c->cfg.mech));
            give_up(c, false);
            advance(c, send, ctx);
        }
        return;
    }
    if (c->state != IRCAD_CAP_NEGOTIATING)
        return;
    if (l->numeric == 421) {
        end_without_cap(c, "the server does not support CAP");
        return;
    }
    /* 410: the server has CAP but refused a command of ours; take what
     * we have and end (it still waits for CAP END) */
    c->flags |= F_LS_DONE | F_REQ_SENT;
    c->asked = 0;
    advance(c, send, ctx);
}

void ircad_cap_init(struct ircad_cap *c, const struct ircad_cap_config *cfg)
{
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    if (c->cfg.mech != IRCAD_SASL_PLAIN && c->cfg.mech != IRCAD_SASL_EXTERNAL)
        c->cfg.mech = IRCAD_SASL_NONE;
    const char *u = cfg->username ? cfg->username : "";
    const char *p = cfg->password ? cfg->password : "";
    if (strlen(u) < sizeof c->username && strlen(p) < sizeof c->password) {
        memcpy(c->username, u, strlen(u) + 1);
        memcpy(c->password, p, strlen(p) + 1);
    } else if (c->cfg.mech == IRCAD_SASL_PLAIN) {
        c->flags |= F_CRED_TOO_LONG;
    }
    c->cfg.username = c->username;
    c->cfg.password = c->password;
    c->state = IRCAD_CAP_NEGOTIATING;
    c->sasl_step = SASL_IDLE;
}

void ircad_cap_start(struct ircad_cap *c, ircad_cap_send_fn send, void *ctx)
{
    (void)c;
    emit("CAP LS 302", send, ctx);
}

/* Whether l is a line of negotiation (consumed whatever the state). */
static bool is_ours(const struct ircad_line *l)
{
    if (l->numeric >= 900 && l->numeric <= 908)
        return true;
    if (l->numeric == 410)
        return true;
    if (l->numeric == 421) {
        const char *cmd = param(l, 1);
        return cmd && (strcasecmp(cmd, "CAP") == 0 ||
                       strcasecmp(cmd, "AUTHENTICATE") == 0);
    }
    if (l->numeric != 0 || !l->command)
        return false;
    return strcasecmp(l->command, "CAP") == 0 ||
           strcasecmp(l->command, "AUTHENTICATE") == 0;
}

bool ircad_cap_feed(struct ircad_cap *c, const struct ircad_line *l,
                    ircad_cap_send_fn send, void *ctx)
{
    if (!l)
        return false;
    if (l->numeric == 1) {
        /* registered: a server without CAP, or one that did not wait */
        if (c->state == IRCAD_CAP_NEGOTIATING)
            end_without_cap(c, "the server registered the bot without "
                               "CAP negotiation");
        return false;
    }
    if (!is_ours(l))
        return false;
    if (c->state == IRCAD_CAP_FAILED)
        return true; /* the caller closes */
    if (l->numeric >= 900)
        on_sasl_numeric(c, l, send, ctx);
    else if (l->numeric != 0)
        on_cap_error(c, l, send, ctx);
    else if (strcasecmp(l->command, "CAP") == 0)
        on_cap(c, l, send, ctx);
    else
        on_authenticate(c, l, send, ctx);
    return true;
}

bool ircad_cap_has(const struct ircad_cap *c, unsigned bit)
{
    return bit != 0 && (c->enabled & bit) == bit;
}
