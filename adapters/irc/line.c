/*
 * Server lines before anything else reads them (line.h): the framer, the
 * parser with its checks, and the clean line handed to libircclient.
 *
 * libircclient 1.9 parses in place with few checks (see
 * ../shared/STYLE.md): a NICK without a prefix, the numeric 000, a NOTICE
 * with one parameter, a line that is only a prefix, a numeric with
 * nothing after it, a text that is a lone \x01 and a CTCP DCC each crash
 * it; an empty line or one over its 1 KiB buffer stalls it; it reads past
 * the end of a line whose command has no parameters after it; it keeps 10
 * parameters and knows no tags. So every line is parsed here, refused if
 * nobody could act on it, and rebuilt in the one shape that parser reads
 * safely: single spaces, no tags, a trailing parameter marked with ':'
 * only where it must be, at most 10 parameters and IRCAD_LIB_LINE_MAX
 * bytes.
 */
#include "adapters/irc/line.h"

#include <string.h>
#include <strings.h>

#include "bot/common/utf8.h"

/* The longest line kept, its ending not counted: IRCAD_FRAME_MAX is the
 * IRCv3 limit with CR LF included. */
#define LINE_MAX_CONTENT (IRCAD_FRAME_MAX - 2)
/* libircclient keeps at most this many parameters. */
#define LIB_PARAMS_MAX 10

/* ---- the framer ------------------------------------------------------ */

/*
 * buf[start, start + len) holds bytes not yet returned; the first
 * `scanned` of them are known to hold no line end, so a line trickling in
 * byte by byte is scanned once, not once per byte. The buffer is compacted
 * only when its end is reached: each byte is moved at most once (a line
 * that still has no end when the buffer is full is too long and dropped).
 */

static bool is_eol(char c)
{
    return c == '\r' || c == '\n';
}

void ircad_framer_init(struct ircad_framer *f)
{
    f->start = 0;
    f->len = 0;
    f->scanned = 0;
    f->overlong = false;
    f->overlong_lines = 0;
}

/* Forgets every byte held. */
static void framer_clear(struct ircad_framer *f)
{
    f->start = 0;
    f->len = 0;
    f->scanned = 0;
}

char *ircad_framer_space(struct ircad_framer *f, size_t *room)
{
    size_t cap = sizeof f->buf;
    if (f->len == 0) {
        framer_clear(f);
    } else if (f->start + f->len == cap) {
        if (f->start > 0) {
            memmove(f->buf, f->buf + f->start, f->len);
            f->start = 0;
        } else {
            /* full without the lines being taken: what is held is lost,
             * and an unfinished line at its end is dropped whole */
            f->overlong = !is_eol(f->buf[cap - 1]);
            f->overlong_lines++;
            framer_clear(f);
        }
    }
    *room = cap - f->start - f->len;
    return f->buf + f->start + f->len;
}

void ircad_framer_added(struct ircad_framer *f, size_t n)
{
    size_t cap = sizeof f->buf;
    if (n > cap - f->start - f->len)
        n = cap - f->start - f->len;
    f->len += n;
}

/* The offset from start of the first line end at or after `from`, or
 * f->len if none. */
static size_t find_eol(const struct ircad_framer *f, size_t from)
{
    const char *p = f->buf + f->start;
    while (from < f->len && !is_eol(p[from]))
        from++;
    return from;
}

/* Drops the first n + 1 bytes held (a line and its end). */
static void framer_consume(struct ircad_framer *f, size_t n)
{
    f->start += n + 1;
    f->len -= n + 1;
    f->scanned = 0;
}

const char *ircad_framer_next(struct ircad_framer *f, size_t *len)
{
    for (;;) {
        size_t end = find_eol(f, f->scanned);
        if (end == f->len) {
            /* no complete line: remember what was scanned, and drop an
             * unfinished line that is already too long */
            f->scanned = end;
            if (f->overlong) {
                framer_clear(f);
            } else if (end > LINE_MAX_CONTENT) {
                f->overlong = true;
                f->overlong_lines++;
                framer_clear(f);
            }
            return NULL;
        }
        char *line = f->buf + f->start;
        bool drop = f->overlong || end == 0 || end > LINE_MAX_CONTENT;
        if (!f->overlong && end > LINE_MAX_CONTENT)
            f->overlong_lines++;
        f->overlong = false;
        line[end] = '\0';
        framer_consume(f, end);
        if (!drop) {
            *len = end;
            return line;
        }
    }
}

size_t ircad_framer_pending(const struct ircad_framer *f)
{
    const char *p = f->buf + f->start;
    size_t i = f->len;
    while (i > f->scanned && !is_eol(p[i - 1]))
        i--;
    return i > f->scanned ? f->len - i : f->len;
}

/* ---- parsing ----------------------------------------------------------- */

/* Where a line is copied to while it is parsed. */
struct store {
    char *buf;
    size_t cap;
    size_t used;
};

/* Copies s[0..n) to the store with each maximal invalid UTF-8 subpart
 * replaced by U+FFFD, NUL-terminated; the copy, or NULL if it does not
 * fit. */
static const char *store_text(struct store *st, const char *s, size_t n)
{
    char *dst = st->buf + st->used;
    size_t w = st->used;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_decode(s + i, n - i, NULL);
        const char *src = k ? s + i : UTF8_REPLACEMENT;
        size_t m = k ? k : sizeof UTF8_REPLACEMENT - 1;
        if (m >= st->cap - w)
            return NULL;
        memcpy(st->buf + w, src, m);
        w += m;
        i += k ? k : utf8_bad_len(s + i, n - i);
    }
    if (w >= st->cap)
        return NULL;
    st->buf[w++] = '\0';
    st->used = w;
    return dst;
}

/*
 * Unescapes an IRCv3 tag value s[0..n) into out (cap bytes with the NUL);
 * its length, or -1 if it does not fit.
 */
static long tag_unescape(const char *s, size_t n, char *out, size_t cap)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\') {
            if (++i == n)
                break; /* a lone \ at the end is dropped */
            c = s[i];
            c = c == ':'   ? ';'
                : c == 's' ? ' '
                : c == 'r' ? '\r'
                : c == 'n' ? '\n'
                           : c;
        }
        if (w + 1 >= cap)
            return -1;
        out[w++] = c;
    }
    out[w] = '\0';
    return (long)w;
}

/* Whether s[0..n) is fit to be an account name: not empty, UTF-8, no
 * space and no control byte. */
static bool account_ok(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
            return false;
    return utf8_valid(s, n, NULL);
}

/* Whether s[0..n) is fit to be a server-time: printable ASCII. */
static bool time_ok(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return false;
    return true;
}

/* Reads the tags we use from s[0..n) (without the '@'); a tag given twice
 * counts as its last value, a bad value as no tag. */
static void parse_tags(const char *s, size_t n, struct ircad_line *l)
{
    size_t i = 0;
    while (i < n) {
        size_t end = i;
        while (end < n && s[end] != ';')
            end++;
        size_t eq = i;
        while (eq < end && s[eq] != '=')
            eq++;
        size_t klen = eq - i;
        const char *val = eq < end ? s + eq + 1 : s + end;
        size_t vlen = eq < end ? end - eq - 1 : 0;
        if (klen == 7 && memcmp(s + i, "account", 7) == 0) {
            long k = tag_unescape(val, vlen, l->account, sizeof l->account);
            l->has_account = k >= 0 && account_ok(l->account, (size_t)k);
        } else if (klen == 4 && memcmp(s + i, "time", 4) == 0) {
            long k = tag_unescape(val, vlen, l->time, sizeof l->time);
            l->has_time = k >= 0 && time_ok(l->time, (size_t)k);
        }
        i = end + 1;
    }
    if (!l->has_account)
        l->account[0] = '\0';
    if (!l->has_time)
        l->time[0] = '\0';
}

/* Commands only a person sends: refused without a prefix saying who. */
static const char *const PERSON_COMMANDS[] = {
    "PRIVMSG", "NICK",  "JOIN",   "PART",    "QUIT", "KICK",
    "MODE",    "TOPIC", "INVITE", "ACCOUNT", "AWAY", "CHGHOST",
};

/* The fewest parameters a command needs to be acted on. */
static const struct {
    const char *command;
    unsigned min;
} MIN_PARAMS[] = {
    {"PRIVMSG", 2},      {"NOTICE", 2},  {"NICK", 1}, {"JOIN", 1},
    {"PART", 1},         {"KICK", 2},    {"PING", 1}, {"CAP", 2},
    {"AUTHENTICATE", 1}, {"ACCOUNT", 1},
};

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Upper-cases the command s[0..n) into cmd (NUL-terminated), and its
 * numeric in *numeric; NULL, or why it is refused. */
static const char *read_command(const char *s, size_t n, char *cmd,
                                int *numeric)
{
    if (n == 0)
        return "no command";
    *numeric = 0;
    if (n == 3 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2])) {
        *numeric = (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
        if (*numeric == 0)
            return "numeric 000";
    } else {
        for (size_t i = 0; i < n; i++)
            if (!is_letter(s[i]))
                return "command neither letters nor three digits";
    }
    for (size_t i = 0; i < n; i++)
        cmd[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 'a' + 'A') : s[i];
    cmd[n] = '\0';
    return NULL;
}

/* The checks on a parsed line: NULL, or why nobody could act on it. */
static const char *check_line(const struct ircad_line *l)
{
    const char *cmd = l->command;
    if (!l->prefix) {
        for (size_t i = 0; i < sizeof PERSON_COMMANDS / sizeof *PERSON_COMMANDS;
             i++)
            if (strcmp(cmd, PERSON_COMMANDS[i]) == 0)
                return "a person's command without a prefix";
    }
    unsigned min = l->numeric ? 1 : 0;
    for (size_t i = 0; i < sizeof MIN_PARAMS / sizeof *MIN_PARAMS; i++)
        if (strcmp(cmd, MIN_PARAMS[i].command) == 0)
            min = MIN_PARAMS[i].min;
    if (l->nparams < min)
        return "too few parameters";
    if (strcmp(cmd, "PRIVMSG") == 0 || strcmp(cmd, "NOTICE") == 0) {
        /* libircclient reads the text as params[1] */
        const char *text = l->params[1];
        if (strcmp(text, "\x01") == 0)
            return "CTCP that is a lone \\x01";
        if (text[0] == '\x01' && strncasecmp(text + 1, "DCC ", 4) == 0)
            return "CTCP DCC";
    }
    return NULL;
}

/* Skips spaces from s[i]; the index of the first other byte. */
static size_t skip_spaces(const char *s, size_t len, size_t i)
{
    while (i < len && s[i] == ' ')
        i++;
    return i;
}

/* The end of the word at s[i]: the next space or the end. */
static size_t word_end(const char *s, size_t len, size_t i)
{
    while (i < len && s[i] != ' ')
        i++;
    return i;
}

/* Parses raw into l (whose store is empty); NULL, or why it is refused. */
static const char *parse_into(const char *raw, size_t len, struct ircad_line *l)
{
    struct store st = {l->store, sizeof l->store, 0};
    static const char no_fit[] = "line too long after invalid UTF-8 replaced";
    size_t i = skip_spaces(raw, len, 0);
    if (i < len && raw[i] == '@') {
        size_t end = word_end(raw, len, i);
        parse_tags(raw + i + 1, end - i - 1, l);
        i = skip_spaces(raw, len, end);
    }
    if (i < len && raw[i] == ':') {
        size_t end = word_end(raw, len, i);
        if (end == i + 1)
            return "empty prefix";
        l->prefix = store_text(&st, raw + i + 1, end - i - 1);
        if (!l->prefix)
            return no_fit;
        i = skip_spaces(raw, len, end);
    }
    size_t cend = word_end(raw, len, i);
    if (cend - i >= st.cap - st.used)
        return "command too long";
    char *cmd = st.buf + st.used;
    const char *bad = read_command(raw + i, cend - i, cmd, &l->numeric);
    if (bad)
        return bad;
    l->command = cmd;
    st.used += cend - i + 1;
    i = cend;
    for (;;) {
        i = skip_spaces(raw, len, i);
        if (i >= len)
            break;
        if (l->nparams == IRCAD_PARAMS_MAX)
            return "too many parameters";
        bool trailing = raw[i] == ':';
        size_t start = trailing ? i + 1 : i;
        size_t end = trailing ? len : word_end(raw, len, i);
        const char *p = store_text(&st, raw + start, end - start);
        if (!p)
            return no_fit;
        l->params[l->nparams++] = p;
        i = end;
    }
    return check_line(l);
}

int ircad_line_parse(const char *raw, size_t len, struct ircad_line *out,
                     const char **why)
{
    struct ircad_line l; /* the store is written before it is read */
    l.has_account = false;
    l.account[0] = '\0';
    l.has_time = false;
    l.time[0] = '\0';
    l.prefix = NULL;
    l.command = NULL;
    l.numeric = 0;
    l.nparams = 0;
    const char *bad = NULL;
    if (len > IRCAD_FRAME_MAX)
        bad = "line too long";
    else if (memchr(raw, '\0', len))
        bad = "NUL byte in line";
    else
        bad = parse_into(raw, len, &l);
    if (bad) {
        if (why)
            *why = bad;
        return -1;
    }
    /* copy the fields and the used store, and point into out's store */
    out->has_account = l.has_account;
    memcpy(out->account, l.account, sizeof out->account);
    out->has_time = l.has_time;
    memcpy(out->time, l.time, sizeof out->time);
    out->numeric = l.numeric;
    out->nparams = l.nparams;
    out->prefix = NULL;
    if (l.prefix)
        out->prefix = out->store + (l.prefix - l.store);
    out->command = out->store + (l.command - l.store);
    for (unsigned k = 0; k < IRCAD_PARAMS_MAX; k++)
        out->params[k] =
            k < l.nparams ? out->store + (l.params[k] - l.store) : NULL;
    const char *last = l.nparams ? l.params[l.nparams - 1] : l.command;
    size_t used = (size_t)(last - l.store) + strlen(last) + 1;
    memcpy(out->store, l.store, used);
    return 0;
}

/* ---- the line for libircclient ------------------------------------------ */

/* A line being written, at most `cap` bytes without the NUL. */
struct out {
    char buf[IRCAD_LIB_LINE_MAX + 1];
    size_t len;
    size_t cap;
};

static bool out_fits(const struct out *o, size_t n)
{
    return n <= o->cap - o->len;
}

/* Appends s[0..n): the caller checked it fits. */
static void out_put(struct out *o, const char *s, size_t n)
{
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

/* Appends " word", if it fits; false if it does not. */
static bool out_word(struct out *o, const char *s)
{
    size_t n = strlen(s);
    if (!out_fits(o, n + 1))
        return false;
    out_put(o, " ", 1);
    out_put(o, s, n);
    return true;
}

/* ":prefix COMMAND", or false if it does not fit. */
static bool out_head(struct out *o, const struct ircad_line *l)
{
    if (l->prefix) {
        size_t n = strlen(l->prefix);
        if (!out_fits(o, n + 1))
            return false;
        out_put(o, ":", 1);
        out_put(o, l->prefix, n);
        if (!out_fits(o, 1))
            return false;
        out_put(o, " ", 1);
    }
    size_t n = strlen(l->command);
    if (!out_fits(o, n))
        return false;
    out_put(o, l->command, n);
    return true;
}

/* Whether a last parameter needs the ':' that marks it as trailing. */
static bool needs_colon(const char *s, size_t n)
{
    return n == 0 || s[0] == ':' || memchr(s, ' ', n);
}

/*
 * Appends the last parameter, cut at a UTF-8 boundary if it does not fit
 * whole; false if not even " :" fits. The ':' goes by the same rule after
 * a cut, so the line rebuilt from this one is this one.
 */
static bool out_last(struct out *o, const char *s)
{
    size_t n = strlen(s);
    if (!out_fits(o, 1 + needs_colon(s, n) + n)) {
        if (!out_fits(o, 2))
            return false;
        n = utf8_cut(s, n, o->cap - o->len - 2);
        /* a cut that leaves a lone \x01 would crash libircclient's
         * CTCP reader */
        if (n == 1 && s[0] == '\x01')
            n = 0;
    }
    bool colon = needs_colon(s, n);
    out_put(o, colon ? " :" : " ", colon ? 2 : 1);
    out_put(o, s, n);
    return true;
}

/*
 * RPL_ISUPPORT in parts: each part is the nick, as many tokens as fit in
 * LIB_PARAMS_MAX parameters and in half the room left after the head
 * (at least), and the trailing text; a token too long for a part on its
 * own is left out. Whether the part exists (and was written).
 */
static bool isupport_part(const struct ircad_line *l, unsigned part,
                          struct out *o)
{
    if (!out_head(o, l) || !out_word(o, l->params[0]))
        return false;
    if (o->cap - o->len < 4)
        return false;
    const char *trail = l->params[l->nparams - 1];
    size_t room = o->cap - o->len;
    size_t reserve = strlen(trail) + 2;
    if (reserve > room / 2)
        reserve = room / 2;
    size_t budget = room - reserve;
    unsigned last = l->nparams - 1, i = 1, from = 1, to = 1;
    for (unsigned k = 0; k <= part; k++) {
        while (i < last && strlen(l->params[i]) + 1 > budget)
            i++;
        if (k > 0 && i == last)
            return false;
        from = i;
        size_t used = 0;
        unsigned count = 0;
        while (i < last && count < LIB_PARAMS_MAX - 2) {
            size_t n = strlen(l->params[i]) + 1;
            if (n > budget) {
                i++;
                continue;
            }
            if (used + n > budget)
                break;
            used += n;
            count++;
            i++;
        }
        to = i;
    }
    for (unsigned k = from; k < to; k++)
        if (strlen(l->params[k]) + 1 <= budget)
            out_word(o, l->params[k]);
    return out_last(o, trail);
}

/* Any other line: the first LIB_PARAMS_MAX - 1 parameters and the last. */
static bool plain_line(const struct ircad_line *l, struct out *o)
{
    if (!out_head(o, l))
        return false;
    if (l->nparams == 0) {
        /* libircclient reads past the end of a command with nothing
         * after it: a space ends the command and the line holds none */
        if (!out_fits(o, 1))
            return false;
        out_put(o, " ", 1);
        return true;
    }
    unsigned last = l->nparams - 1;
    unsigned middles = last;
    if (middles > LIB_PARAMS_MAX - 1)
        middles = LIB_PARAMS_MAX - 1;
    for (unsigned k = 0; k < middles; k++)
        if (!out_word(o, l->params[k]))
            return false;
    return out_last(o, l->params[last]);
}

int ircad_line_for_library(const struct ircad_line *l, unsigned part, char *out,
                           size_t outlen)
{
    if (outlen == 0 || !l->command)
        return 0;
    struct out o;
    o.len = 0;
    o.cap = outlen - 1 < IRCAD_LIB_LINE_MAX ? outlen - 1 : IRCAD_LIB_LINE_MAX;
    bool ok;
    if (l->numeric == 5 && l->nparams >= 3)
        ok = isupport_part(l, part, &o);
    else
        ok = part == 0 && plain_line(l, &o);
    if (!ok)
        return 0;
    memcpy(out, o.buf, o.len);
    out[o.len] = '\0';
    return 1;
}
