/*
 * The fake adapter of tests/support/fake_chat.h.
 */
#include "tests/support/fake_chat.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct fake_chat_line *add_line(struct fake_chat *f, const char *to,
                                       bool private_, const char *text,
                                       enum chat_priority p)
{
    if (f->discard) { /* counted, not kept */
        f->n++;
        memset(&f->scratch, 0, sizeof f->scratch);
        return &f->scratch;
    }
    if (f->n == f->cap) {
        int cap = f->cap ? f->cap * 2 : 256;
        struct fake_chat_line *l = realloc(f->lines, (size_t)cap * sizeof *l);
        if (!l)
            abort();
        f->lines = l;
        f->cap = cap;
    }
    struct fake_chat_line *l = &f->lines[f->n++];
    memset(l, 0, sizeof *l);
    snprintf(l->to, sizeof l->to, "%s", to);
    l->private_ = private_;
    l->prio = p;
    snprintf(l->text, sizeof l->text, "%s", text);
    return l;
}

static const char *prio_name(enum chat_priority p)
{
    return p == CHAT_HIGH ? "high" : p == CHAT_LOW ? "low" : "normal";
}

static void fake_say(struct chat_adapter *a, const char *room, const char *text,
                     enum chat_priority p)
{
    struct fake_chat *f = (struct fake_chat *)a;
    add_line(f, room, false, text, p);
    if (f->echo)
        fprintf(f->echo, "say %s %s: %s\n", room, prio_name(p), text);
}

static void fake_tell(struct chat_adapter *a, const char *nick,
                      const char *text, enum chat_priority p)
{
    struct fake_chat *f = (struct fake_chat *)a;
    add_line(f, nick, true, text, p);
    if (f->echo)
        fprintf(f->echo, "tell %s %s: %s\n", nick, prio_name(p), text);
}

static void fake_notice(struct chat_adapter *a, const char *nick,
                        const char *text, enum chat_priority p)
{
    struct fake_chat *f = (struct fake_chat *)a;
    add_line(f, nick, true, text, p)->notice = true;
    if (f->echo)
        fprintf(f->echo, "notice %s %s: %s\n", nick, prio_name(p), text);
}

static void fake_tell_tracked(struct chat_adapter *a, const char *nick,
                              const char *text, enum chat_priority p,
                              uint64_t cookie)
{
    struct fake_chat *f = (struct fake_chat *)a;
    add_line(f, nick, true, text, p)->cookie = cookie;
    if (f->echo)
        fprintf(f->echo, "tell+ %s %s: %s\n", nick, prio_name(p), text);
}

static bool fake_same(const struct chat_adapter *a, const char *x,
                      const char *y)
{
    (void)a;
    return strcasecmp(x, y) == 0;
}

static bool fake_idle(const struct chat_adapter *a)
{
    return !((const struct fake_chat *)a)->busy;
}

static int fake_start(struct chat_adapter *a)
{
    (void)a;
    return 0;
}

static void fake_stop(struct chat_adapter *a, const char *goodbye)
{
    struct fake_chat *f = (struct fake_chat *)a;
    if (f->echo)
        fprintf(f->echo, "-- stop: %s\n", goodbye ? goodbye : "");
}

static void fake_free(struct chat_adapter *a)
{
    (void)a;
}

/* Names folded like IRC's ascii CASEMAPPING. */
static void fake_fold(const struct chat_adapter *a, const char *name, char *out,
                      size_t outlen)
{
    (void)a;
    size_t i = 0;
    for (; name[i] && i + 1 < outlen; i++)
        out[i] = (char)tolower((unsigned char)name[i]);
    out[i] = '\0';
}

static void fake_verify(struct chat_adapter *a, const char *nick)
{
    struct fake_chat *f = (struct fake_chat *)a;
    if (f->nverified < FAKE_CHAT_NAMES)
        snprintf(f->verified[f->nverified++], sizeof f->verified[0], "%s",
                 nick);
    if (f->echo)
        fprintf(f->echo, "-- verify %s\n", nick);
}

/* Names folded as rfc1459 CASEMAPPING: "[]\\" are the capitals of "{}|". */
static void fake_fold_rfc1459(const struct chat_adapter *a, const char *name,
                              char *out, size_t outlen)
{
    (void)a;
    size_t i = 0;
    for (; name[i] && i + 1 < outlen; i++) {
        char c = name[i];
        out[i] = c == '['    ? '{'
                 : c == ']'  ? '}'
                 : c == '\\' ? '|'
                             : (char)tolower((unsigned char)c);
    }
    out[i] = '\0';
}

static bool fake_same_rfc1459(const struct chat_adapter *a, const char *x,
                              const char *y)
{
    char fx[200], fy[200];
    fake_fold_rfc1459(a, x, fx, sizeof fx);
    fake_fold_rfc1459(a, y, fy, sizeof fy);
    return strcmp(fx, fy) == 0;
}

/* A tracked line not yet reported written can be taken back. */
static bool fake_retract(struct chat_adapter *a, uint64_t cookie)
{
    struct fake_chat *f = (struct fake_chat *)a;
    for (int i = 0; i < f->n; i++)
        if (f->lines[i].cookie == cookie && !f->lines[i].sent &&
            !f->lines[i].retracted) {
            f->lines[i].retracted = true;
            if (f->echo)
                fprintf(f->echo, "-- retract line %d\n", i);
            return true;
        }
    return false;
}

static void fake_prepare(struct chat_adapter *a, const char *nick)
{
    struct fake_chat *f = (struct fake_chat *)a;
    if (f->nprepared < FAKE_CHAT_NAMES) {
        f->lines_at_prepare[f->nprepared] = f->n;
        snprintf(f->prepared[f->nprepared++], sizeof f->prepared[0], "%s",
                 nick);
    }
    if (f->echo)
        fprintf(f->echo, "-- prepare %s\n", nick);
}

static void fake_room_label(const struct chat_adapter *a, const char *room,
                            char *out, size_t outlen)
{
    (void)a;
    snprintf(out, outlen, "%s", strcmp(room, "#h") == 0 ? "Card Club" : room);
}

static bool fake_limited(const struct chat_adapter *a)
{
    (void)a;
    return true;
}

static int present_at(const struct fake_chat *f, const char *room,
                      const char *nick)
{
    for (int i = 0; i < f->npresent; i++)
        if (strcasecmp(f->present[i].room, room) == 0 &&
            f->ops.same_nick(&f->base, f->present[i].nick, nick))
            return i;
    return -1;
}

static bool fake_present(struct chat_adapter *a, const char *room,
                         const char *nick)
{
    return present_at((struct fake_chat *)a, room, nick) >= 0;
}

void fake_chat_present(struct fake_chat *f, const char *room, const char *nick,
                       bool here)
{
    int i = present_at(f, room, nick);
    if (here && i < 0 && f->npresent < FAKE_CHAT_PRESENT) {
        snprintf(f->present[f->npresent].room,
                 sizeof f->present[f->npresent].room, "%s", room);
        snprintf(f->present[f->npresent].nick,
                 sizeof f->present[f->npresent].nick, "%s", nick);
        f->npresent++;
    } else if (!here && i >= 0) {
        f->present[i] = f->present[--f->npresent];
    }
}

void fake_chat_init(struct fake_chat *f, enum fake_chat_kind kind,
                    const char *network, chat_event_fn on_event, void *ctx)
{
    memset(f, 0, sizeof *f);
    fake_chat_set_kind(f, kind);
    f->base.network = network;
    f->base.style = CHAT_STYLE_PLAIN;
    f->base.on_event = on_event;
    f->base.ctx = ctx;
}

void fake_chat_set_kind(struct fake_chat *f, enum fake_chat_kind kind)
{
    f->kind = kind;
    f->ops = (struct chat_adapter_ops){.start = fake_start,
                                       .stop = fake_stop,
                                       .say = fake_say,
                                       .tell = fake_tell,
                                       .same_nick = fake_same,
                                       .idle = fake_idle,
                                       .free = fake_free,
                                       .fold = fake_fold,
                                       .notice = fake_notice,
                                       .present = fake_present};
    switch (kind) {
    case FAKE_CHAT_UNFOLDED:
        f->ops.fold = NULL;
        break;
    case FAKE_CHAT_RFC1459:
        f->ops.same_nick = fake_same_rfc1459;
        f->ops.fold = fake_fold_rfc1459;
        break;
    case FAKE_CHAT_IRC:
        f->ops.verify = fake_verify;
        f->ops.tell_tracked = fake_tell_tracked;
        f->ops.retract = fake_retract;
        break;
    case FAKE_CHAT_MATRIX:
    case FAKE_CHAT_MATRIX_LIMITED:
        /* Matrix folds no names: room IDs and user IDs as they are; it
         * has no notices */
        f->ops.fold = NULL;
        f->ops.notice = NULL;
        f->ops.tell_tracked = fake_tell_tracked;
        f->ops.retract = fake_retract;
        f->ops.prepare = fake_prepare;
        f->ops.room_label = fake_room_label;
        if (kind == FAKE_CHAT_MATRIX_LIMITED)
            f->ops.limited = fake_limited;
        break;
    default:
        break;
    }
    f->base.ops = &f->ops;
}

void fake_chat_clear(struct fake_chat *f)
{
    f->n = 0;
    f->nverified = 0;
    f->nprepared = 0;
}

void fake_chat_free(struct fake_chat *f)
{
    free(f->lines);
    f->lines = NULL;
    f->n = f->cap = 0;
}
