/*
 * The console adapter (console.h). Input is read without blocking from
 * the loop and cut into lines (a line longer than 4 KiB is dropped whole);
 * output is queued and written in the loop's before-sleep hook, like every
 * adapter's.
 */
#include "adapters/console/console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/common/log.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"

#define LINE_MAX_BYTES 4096
#define OUT_MAX_BYTES (1 << 20)

struct console {
    struct chat_adapter base;
    struct loop *loop;
    int in_fd, out_fd;
    char prefix[16];
    void (*on_eof)(void *);
    void *eof_ctx;
    char line[LINE_MAX_BYTES];
    size_t len;
    bool overlong;
    bool eof;
    struct strbuf out; /* queued output, at most OUT_MAX_BYTES - 1 bytes */
};

/* The control characters a line may not carry: all but tab and newline. */
static const char controls[] = "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c"
                               "\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16"
                               "\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f";

static void append(struct console *c, const char *a, const char *b)
{
    /* a whole line or nothing: a stuck terminal must not grow us without
     * end */
    if (c->out.len + strlen(a) + strlen(b) + 1 > c->out.max)
        return;
    strbuf_addstr(&c->out, a);
    /* no control characters but the line ends we add */
    for (const char *p = b; *p;) {
        size_t n = strcspn(p, controls);
        strbuf_add(&c->out, p, n);
        p += n;
        if (*p) {
            strbuf_addc(&c->out, ' ');
            p++;
        }
    }
    strbuf_addc(&c->out, '\n');
}

static void flush(struct loop *l, void *ctx)
{
    (void)l;
    struct console *c = ctx;
    size_t done = 0;
    while (done < c->out.len) {
        ssize_t w = write(c->out_fd, c->out.buf + done, c->out.len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN) {
                strbuf_reset(&c->out); /* the terminal is gone */
                return;
            }
            break;
        }
        done += (size_t)w;
    }
    if (done) {
        memmove(c->out.buf, c->out.buf + done, c->out.len - done);
        strbuf_truncate(&c->out, c->out.len - done);
    }
}

static void emit_line(struct console *c, const char *text)
{
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .from = {.nick = CONSOLE_NICK, .id = "console"},
                            .text = text};
    size_t plen = strlen(c->prefix);
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return;
    if (strncmp(p, c->prefix, plen) == 0)
        ev.room = CONSOLE_ROOM;
    c->base.on_event(c->base.ctx, &c->base, &ev);
}

void console_inject(struct chat_adapter *a, const char *line)
{
    emit_line((struct console *)a, line);
}

static void readable(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    struct console *c = ctx;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        loop_unwatch(l, fd);
        c->eof = true;
        if (c->on_eof)
            c->on_eof(c->eof_ctx);
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        char ch = buf[i];
        if (ch == '\n') {
            c->line[c->len] = '\0';
            if (!c->overlong)
                emit_line(c, c->line);
            c->len = 0;
            c->overlong = false;
        } else if (ch == '\r' || ch == '\0') {
            continue;
        } else if (c->len + 1 < sizeof c->line) {
            c->line[c->len++] = ch;
        } else {
            c->overlong = true;
        }
    }
}

static int console_start(struct chat_adapter *a)
{
    struct console *c = (struct console *)a;
    int fl = fcntl(c->in_fd, F_GETFL);
    if (fl >= 0)
        fcntl(c->in_fd, F_SETFL, fl | O_NONBLOCK);
    loop_watch(c->loop, c->in_fd, LOOP_READ, readable, c);
    struct chat_event ev = {.kind = CHAT_CONNECTED};
    a->on_event(a->ctx, a, &ev);
    return 0;
}

static void console_stop(struct chat_adapter *a, const char *goodbye)
{
    struct console *c = (struct console *)a;
    if (goodbye)
        append(c, "", goodbye);
    flush(c->loop, c);
    if (!c->eof)
        loop_unwatch(c->loop, c->in_fd);
}

static void console_say(struct chat_adapter *a, const char *room,
                        const char *text, enum chat_priority prio)
{
    (void)prio;
    struct console *c = (struct console *)a;
    char head[80];
    snprintf(head, sizeof head, "[%.60s] ", room);
    append(c, head, text);
}

static void console_tell(struct chat_adapter *a, const char *nick,
                         const char *text, enum chat_priority prio)
{
    (void)prio;
    struct console *c = (struct console *)a;
    if (strcmp(nick, CONSOLE_NICK) == 0)
        append(c, "[" CONSOLE_NICK "] ", text);
}

static bool console_same_nick(const struct chat_adapter *a, const char *x,
                              const char *y)
{
    (void)a;
    return strcmp(x, y) == 0;
}

static bool console_idle(const struct chat_adapter *a)
{
    return ((const struct console *)a)->out.len == 0;
}

static void console_free(struct chat_adapter *a)
{
    struct console *c = (struct console *)a;
    if (!c)
        return;
    loop_remove_hook(c->loop, flush, c);
    strbuf_free(&c->out);
    free(c);
}

static const struct chat_adapter_ops console_ops = {
    .start = console_start,
    .stop = console_stop,
    .say = console_say,
    .tell = console_tell,
    .same_nick = console_same_nick,
    .idle = console_idle,
    .free = console_free,
};

struct chat_adapter *console_new(struct loop *l, int in_fd, int out_fd,
                                 const char *prefix, chat_event_fn on_event,
                                 void *ctx, void (*on_eof)(void *),
                                 void *eof_ctx)
{
    struct console *c = xcalloc(1, sizeof *c);
    c->base.ops = &console_ops;
    c->base.network = "console";
    c->base.style = CHAT_STYLE_PLAIN;
    c->base.solo = true;
    c->base.on_event = on_event;
    c->base.ctx = ctx;
    c->loop = l;
    c->in_fd = in_fd;
    c->out_fd = out_fd;
    snprintf(c->prefix, sizeof c->prefix, "%s", prefix);
    c->on_eof = on_eof;
    c->eof_ctx = eof_ctx;
    strbuf_init_heap(&c->out, OUT_MAX_BYTES - 1);
    loop_before_sleep(l, flush, c);
    return &c->base;
}
