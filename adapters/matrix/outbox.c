/*
 * The coalescing out-queue (outbox.h): per destination, a buffer of clean
 * lines separated by '\n'.
 */
#include "adapters/matrix/outbox.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/format.h"
#include "bot/common/chat.h"
#include "bot/common/xalloc.h"

/* A tracked text: bytes [start, end) of its destination's text. */
struct mark {
    uint64_t cookie;
    size_t start, end;
    bool begun; /* some of it was taken already */
};

struct dest {
    char *name;
    char *text; /* lines, each ending with '\n' */
    size_t len, cap;
    struct mark *marks; /* in order of start */
    size_t nmarks;
    enum chat_priority prio; /* the most urgent of the waiting lines */
    uint64_t seq;            /* the order of the oldest of them */
    int64_t since;           /* and when it was queued */
};

struct mx_outbox {
    struct dest *d;
    size_t n;
    uint64_t *removed; /* cookies the last take or drop took off */
    size_t nremoved;
    uint64_t seq; /* texts queued so far */
    int64_t at;   /* the last time given */
};

struct mx_outbox *mx_outbox_new(void)
{
    return xcalloc(1, sizeof(struct mx_outbox));
}

void mx_outbox_free(struct mx_outbox *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++) {
        free(o->d[i].name);
        free(o->d[i].text);
        free(o->d[i].marks);
    }
    free(o->d);
    free(o->removed);
    free(o);
}

static struct dest *find(const struct mx_outbox *o, const char *name)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->d[i].name, name) == 0)
            return &o->d[i];
    return NULL;
}

static struct dest *get(struct mx_outbox *o, const char *name)
{
    struct dest *d = find(o, name);
    if (d)
        return d;
    o->d = xrealloc(o->d, (o->n + 1) * sizeof *o->d);
    d = &o->d[o->n++];
    memset(d, 0, sizeof *d);
    d->name = xstrdup(name);
    return d;
}

static void put(struct dest *d, const char *s, size_t n)
{
    if (d->len + n + 1 > d->cap) {
        d->cap = (d->len + n + 1) * 2;
        d->text = xrealloc(d->text, d->cap);
    }
    memcpy(d->text + d->len, s, n);
    d->len += n;
    d->text[d->len] = '\0';
}

static void mark_add(struct dest *d, uint64_t cookie, size_t start, size_t end)
{
    d->marks = xrealloc(d->marks, (d->nmarks + 1) * sizeof *d->marks);
    d->marks[d->nmarks++] = (struct mark){cookie, start, end, false};
}

/* The first `cut` bytes of d leave the queue: the texts ending within
 * them are reported (o->removed), the others move up. */
static void marks_cut(struct mx_outbox *o, struct dest *d, size_t cut)
{
    o->nremoved = 0;
    size_t k = 0;
    while (k < d->nmarks && d->marks[k].end <= cut)
        k++;
    if (k) {
        o->removed = xrealloc(o->removed, k * sizeof *o->removed);
        for (size_t i = 0; i < k; i++)
            o->removed[i] = d->marks[i].cookie;
        o->nremoved = k;
        /* (only then: with no marks at all, d->marks is NULL) */
        memmove(d->marks, d->marks + k, (d->nmarks - k) * sizeof *d->marks);
        d->nmarks -= k;
    }
    for (size_t i = 0; i < d->nmarks; i++) {
        if (d->marks[i].start < cut)
            d->marks[i].begun = true;
        d->marks[i].start =
            d->marks[i].start > cut ? d->marks[i].start - cut : 0;
        d->marks[i].end -= cut;
    }
}

/* The control bytes of the bot's markup (render.h), kept for format.c:
 * pill, bold, colour, marked card, reset, table cell. */
static bool markup_byte(unsigned char c)
{
    return c == CHAT_MARKUP_PILL || c == CHAT_MARKUP_BOLD ||
           c == CHAT_MARKUP_COLOUR || c == CHAT_MARKUP_CARD ||
           c == CHAT_MARKUP_RESET || c == CHAT_MARKUP_CELL;
}

/* Appends one line (n bytes), cleaned and cut, with its '\n'. */
static void add_line(struct dest *d, const char *s, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < MX_LINE_MAX;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = mx_utf8_seq_len(s + i, n - i);
        if (len == 0) {
            if (kept + 3 > MX_LINE_MAX)
                break;
            put(d, "\xef\xbf\xbd", 3); /* U+FFFD */
            kept += 3;
            i++;
            continue;
        }
        if (len == 1 && (c < 0x20 || c == 0x7f) && !markup_byte(c)) {
            if (c == '\t') {
                put(d, " ", 1);
                kept++;
            }
            i++;
            continue;
        }
        if (kept + len > MX_LINE_MAX)
            break;
        put(d, s + i, len);
        kept += len;
        i += len;
    }
    put(d, "\n", 1);
}

/* Queues text for dest at prio: the destination's urgency takes it in. */
static void add(struct mx_outbox *o, const char *dest, const char *text,
                enum chat_priority prio)
{
    if (!dest || !text)
        return;
    struct dest *d = get(o, dest);
    o->seq++;
    if (!d->len) {
        d->prio = prio;
        d->seq = o->seq;
        d->since = o->at;
    } else if (prio < d->prio) {
        d->prio = prio;
    }
    const char *p = text;
    for (;;) {
        size_t n = strcspn(p, "\n");
        add_line(d, p, n);
        if (!p[n])
            break;
        p += n + 1;
        if (!*p)
            break;
    }
}

void mx_outbox_add(struct mx_outbox *o, const char *dest, const char *text)
{
    add(o, dest, text, CHAT_NORMAL);
}

bool mx_outbox_urgency(const struct mx_outbox *o, const char *dest,
                       enum chat_priority *prio, uint64_t *seq, int64_t *since)
{
    const struct dest *d = find(o, dest);
    if (!d || !d->len)
        return false;
    *prio = d->prio;
    *seq = d->seq;
    *since = d->since;
    return true;
}

uint64_t mx_outbox_tick(struct mx_outbox *o)
{
    return ++o->seq;
}

bool mx_outbox_waiting(const struct mx_outbox *o, const char *dest)
{
    if (!dest) {
        for (size_t i = 0; i < o->n; i++)
            if (o->d[i].len)
                return true;
        return false;
    }
    const struct dest *d = find(o, dest);
    return d && d->len;
}

const char *mx_outbox_dest(const struct mx_outbox *o, size_t i)
{
    for (size_t k = 0; k < o->n; k++)
        if (o->d[k].len && i-- == 0)
            return o->d[k].name;
    return NULL;
}

/* The content for the lines text[0..n): an m.notice, as a bot's lines
 * are, unless it mentions someone. Then an m.text: every homeserver's
 * default push rules put .m.rule.suppress_notices before the mention
 * rules, so a notice never notifies anyone (Synapse 1.67 gave no
 * highlight for a !notify call sent as a notice). */
static char *content(const char *text, size_t n)
{
    struct mx_format f;
    mx_format(text, n, &f);
    struct json_object *c = json_object_new_object();
    json_object_object_add(
        c, "msgtype",
        json_object_new_string(f.nmentions > 0 ? "m.text" : "m.notice"));
    json_object_object_add(c, "body", json_object_new_string(f.body));
    json_object_object_add(c, "format",
                           json_object_new_string("org.matrix.custom.html"));
    json_object_object_add(c, "formatted_body", json_object_new_string(f.html));
    /* always there: without it clients notify whoever's display name
     * the body happens to contain */
    struct json_object *mentions = json_object_new_object();
    if (f.nmentions > 0) {
        struct json_object *ids = json_object_new_array();
        for (size_t i = 0; i < f.nmentions; i++)
            json_object_array_add(ids, json_object_new_string(f.mentions[i]));
        json_object_object_add(mentions, "user_ids", ids);
    }
    json_object_object_add(c, "m.mentions", mentions);
    char *out = xstrdup(json_object_to_json_string_ext(
        c, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(c);
    mx_format_free(&f);
    return out;
}

char *mx_outbox_take(struct mx_outbox *o, const char *dest)
{
    struct dest *d = find(o, dest);
    if (!d || !d->len)
        return NULL;
    /* whole lines up to the cap; one over-long line goes alone */
    size_t take = 0;
    while (take < d->len) {
        const char *nl = memchr(d->text + take, '\n', d->len - take);
        size_t end = (size_t)(nl - d->text) + 1;
        if (take && end > MX_MESSAGE_MAX)
            break;
        take = end;
    }
    char *out = content(d->text, take);
    /* HTML is longer than the body (escapes, colours, links): while the
     * event would pass the cap, take the first half of the lines */
    while (strlen(out) > MX_CONTENT_MAX) {
        const char *nl = memchr(d->text, '\n', take);
        size_t half = (size_t)(nl - d->text) + 1;
        while (half < take / 2) {
            nl = memchr(d->text + half, '\n', take - half);
            half = (size_t)(nl - d->text) + 1;
        }
        if (half >= take)
            break; /* one line: as long as a line may be, it fits */
        take = half;
        free(out);
        out = content(d->text, take);
    }
    marks_cut(o, d, take);
    memmove(d->text, d->text + take, d->len - take + 1);
    d->len -= take;
    return out;
}

void mx_outbox_move(struct mx_outbox *o, const char *from, const char *to)
{
    struct dest *f = find(o, from);
    if (!f || !f->len || strcmp(from, to) == 0)
        return;
    char *text = f->text;
    size_t len = f->len;
    f->text = NULL;
    f->len = f->cap = 0;
    struct mark *marks = f->marks;
    size_t nmarks = f->nmarks;
    f->marks = NULL;
    f->nmarks = 0;
    enum chat_priority prio = f->prio;
    uint64_t seq = f->seq;
    int64_t since = f->since;
    struct dest *t = get(o, to);
    if (!t->len || prio < t->prio)
        t->prio = prio;
    if (!t->len || seq < t->seq) {
        t->seq = seq;
        t->since = since;
    }
    for (size_t i = 0; i < nmarks; i++) {
        mark_add(t, marks[i].cookie, t->len + marks[i].start,
                 t->len + marks[i].end);
        t->marks[t->nmarks - 1].begun = marks[i].begun;
    }
    put(t, text, len);
    free(text);
    free(marks);
}

void mx_outbox_drop(struct mx_outbox *o, const char *dest)
{
    struct dest *d = find(o, dest);
    o->nremoved = 0;
    if (!d)
        return;
    marks_cut(o, d, d->len);
    d->len = 0;
}

void mx_outbox_add_tracked(struct mx_outbox *o, const char *dest,
                           const char *text, uint64_t cookie)
{
    mx_outbox_add_prio(o, dest, text, cookie, CHAT_NORMAL, o->at);
}

void mx_outbox_add_prio(struct mx_outbox *o, const char *dest, const char *text,
                        uint64_t cookie, enum chat_priority prio, int64_t at)
{
    o->at = at;
    const struct dest *before = dest ? find(o, dest) : NULL;
    size_t start = before ? before->len : 0;
    add(o, dest, text, prio);
    struct dest *d = dest ? find(o, dest) : NULL;
    if (cookie && d && d->len > start)
        mark_add(d, cookie, start, d->len);
}

size_t mx_outbox_removed(const struct mx_outbox *o, const uint64_t **cookies)
{
    *cookies = o->removed;
    return o->nremoved;
}

bool mx_outbox_retract(struct mx_outbox *o, uint64_t cookie)
{
    for (size_t i = 0; cookie && i < o->n; i++) {
        struct dest *d = &o->d[i];
        for (size_t k = 0; k < d->nmarks; k++) {
            if (d->marks[k].cookie != cookie)
                continue;
            if (d->marks[k].begun)
                return false;
            size_t start = d->marks[k].start, cut = d->marks[k].end - start;
            memmove(d->text + start, d->text + start + cut,
                    d->len - start - cut + 1);
            d->len -= cut;
            memmove(&d->marks[k], &d->marks[k + 1],
                    (d->nmarks - k - 1) * sizeof *d->marks);
            d->nmarks--;
            for (size_t j = k; j < d->nmarks; j++) {
                d->marks[j].start -= cut;
                d->marks[j].end -= cut;
            }
            return true;
        }
    }
    return false;
}
