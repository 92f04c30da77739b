/*
 * The console adapter (console.h). Input is read without blocking from
 * the loop and cut into lines (a line longer than 4 KiB is dropped whole);
 * output is queued and written in the loop's before-sleep hook, like every
 * adapter's, and the prompt is written there too, once the queue is empty.
 * With colours the manager writes render.h's markup (CHAT_STYLE_MARKUP),
 * which becomes ANSI codes here.
 */
#include "adapters/console/console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"

#define LINE_MAX_BYTES 4096
#define OUT_MAX_BYTES (1 << 20)

/* ANSI (ECMA-48) codes: red and bold on and off, everything off, and
 * from the cursor to the end of the line erased. */
#define ANSI_RED "\x1b[31m"
#define ANSI_DEFAULT_COLOUR "\x1b[39m"
#define ANSI_BOLD "\x1b[1m"
#define ANSI_NOT_BOLD "\x1b[22m"
#define ANSI_RESET "\x1b[0m"
#define ANSI_ERASE_LINE "\x1b[K"

struct console {
    struct chat_adapter base;
    struct loop *loop;
    int in_fd, out_fd;
    int in_flags; /* in_fd's file status flags before start, or -1 */
    unsigned features;
    char prefix[16];
    void (*on_end)(void *, const char *);
    void *end_ctx;
    char line[LINE_MAX_BYTES];
    size_t len;
    bool overlong;
    bool watching;     /* the loop watches in_fd */
    bool ended;        /* the input ended, or "quit" was typed */
    bool stopped;      /* console_stop was called */
    bool gone;         /* the terminal cannot be written anymore */
    bool at_prompt;    /* the prompt was the last thing written */
    bool prompt_due;   /* a line was written or read since the prompt */
    struct strbuf out; /* queued output, at most OUT_MAX_BYTES - 1 bytes */
};

unsigned console_features(bool in_tty, bool out_tty, const char *term,
                          const char *no_color)
{
    bool ansi = out_tty && term && *term && strcmp(term, "dumb") != 0;
    unsigned f = 0;
    if (ansi)
        f |= CONSOLE_ANSI;
    if (ansi && !(no_color && *no_color))
        f |= CONSOLE_COLOUR;
    if (in_tty && out_tty)
        f |= CONSOLE_PROMPT;
    return f;
}

/* The control characters a line may not carry: all but tab and newline. */
static const char controls[] = "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c"
                               "\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16"
                               "\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f";

/* text with every control character but tab and newline a space. */
static void put_plain(struct strbuf *sb, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, controls);
        strbuf_add(sb, p, n);
        p += n;
        if (*p) {
            strbuf_addc(sb, ' ');
            p++;
        }
    }
}

/* The digits of an IRC colour code after its \x03 ("NN[,NN]"): how many
 * bytes they take, and the foreground in *fg (-1: none). */
static size_t colour_args(const char *s, int *fg)
{
    size_t i = 0;
    *fg = -1;
    while (i < 2 && s[i] >= '0' && s[i] <= '9')
        *fg = (*fg < 0 ? 0 : *fg * 10) + (s[i++] - '0');
    if (i && s[i] == ',' && s[i + 1] >= '0' && s[i + 1] <= '9') {
        i += 2;
        if (s[i] >= '0' && s[i] <= '9')
            i++;
    }
    return i;
}

/*
 * render.h's markup as a terminal shows it: a red run red, bold bold
 * (ANSI), a marked card in [brackets] as in plain text, a mention as its
 * name, no cell marks; any other control character a space. Whatever is
 * still on at the end is turned off there.
 */
static void put_markup(struct strbuf *sb, const char *text)
{
    bool red = false, bold = false, card = false;
    int pill = 0; /* 0: none; 1: in its id (not shown); 2: in its name */
    for (const char *p = text; *p; p++) {
        int fg;
        switch (*p) {
        case CHAT_MARKUP_PILL:
            pill = (pill + 1) % 3;
            continue;
        case CHAT_MARKUP_COLOUR:
            p += colour_args(p + 1, &fg);
            red = fg == 4;
            strbuf_addstr(sb, red ? ANSI_RED : ANSI_DEFAULT_COLOUR);
            continue;
        case CHAT_MARKUP_BOLD:
            bold = !bold;
            strbuf_addstr(sb, bold ? ANSI_BOLD : ANSI_NOT_BOLD);
            continue;
        case CHAT_MARKUP_RESET:
            if (red || bold)
                strbuf_addstr(sb, ANSI_RESET);
            red = bold = false;
            continue;
        case CHAT_MARKUP_CARD:
            card = !card;
            strbuf_addc(sb, card ? '[' : ']');
            continue;
        case CHAT_MARKUP_CELL:
            continue;
        default:
            break;
        }
        if (pill == 1)
            continue;
        if (*p != '\t' && *p != '\n' && strchr(controls, *p))
            strbuf_addc(sb, ' ');
        else
            strbuf_addc(sb, *p);
    }
    if (red || bold)
        strbuf_addstr(sb, ANSI_RESET);
}

/* Queues what erases the prompt from the terminal's last line. */
static void put_erase(struct console *c)
{
    strbuf_addc(&c->out, '\r');
    if (c->features & CONSOLE_ANSI) {
        strbuf_addstr(&c->out, ANSI_ERASE_LINE);
        return;
    }
    strbuf_addrep(&c->out, ' ', strlen(CONSOLE_PROMPT_TEXT));
    strbuf_addc(&c->out, '\r');
}

static void append(struct console *c, const char *head, const char *text)
{
    /* a whole line or nothing: a stuck terminal must not grow us without
     * end */
    size_t was = c->out.len;
    if (c->at_prompt)
        put_erase(c);
    strbuf_addstr(&c->out, head);
    if (c->features & CONSOLE_COLOUR)
        put_markup(&c->out, text);
    else
        put_plain(&c->out, text);
    strbuf_addc(&c->out, '\n');
    if (c->out.cut) {
        strbuf_truncate(&c->out, was);
        return;
    }
    c->at_prompt = false;
    c->prompt_due = true;
}

/* Writes what is queued, as far as the terminal takes it now. */
static void write_out(struct console *c)
{
    size_t done = 0;
    while (done < c->out.len) {
        ssize_t w = write(c->out_fd, c->out.buf + done, c->out.len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN) {
                strbuf_reset(&c->out); /* the terminal is gone */
                c->gone = true;
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

static void flush(struct loop *l, void *ctx)
{
    (void)l;
    struct console *c = ctx;
    write_out(c);
    /* everything is out and a line is awaited: the prompt, again after
     * each line written or read. One still shown (a line typed before it
     * came, whose echo it then followed) is erased first: the terminal
     * shows one prompt, at the end. */
    if (c->out.len == 0 && c->prompt_due && (c->features & CONSOLE_PROMPT) &&
        !c->ended && !c->stopped && !c->gone) {
        if (c->at_prompt)
            put_erase(c);
        strbuf_addstr(&c->out, CONSOLE_PROMPT_TEXT);
        c->at_prompt = true;
        c->prompt_due = false;
        write_out(c);
    }
}

/* The session ends from the terminal's side: no more input is read. */
static void end(struct console *c, const char *why)
{
    if (c->ended)
        return;
    c->ended = true;
    if (c->watching)
        loop_unwatch(c->loop, c->in_fd);
    c->watching = false;
    if (c->on_end)
        c->on_end(c->end_ctx, why);
}

/* Whether a line (from its first non-blank) is "quit" or "exit", alone,
 * in any case, with or without the prefix. */
static bool is_quit(const struct console *c, const char *p)
{
    size_t plen = strlen(c->prefix);
    if (plen && strncmp(p, c->prefix, plen) == 0)
        p += plen;
    size_t n = strcspn(p, " \t");
    if (p[n + strspn(p + n, " \t")] != '\0')
        return false;
    return n == 4 &&
           (strncasecmp(p, "quit", 4) == 0 || strncasecmp(p, "exit", 4) == 0);
}

static void emit_line(struct console *c, const char *text)
{
    struct chat_event ev = {
        .kind = CHAT_MESSAGE,
        .from = {.nick = CONSOLE_NICK,
                 .id = "console",
                 .display = msg_template(c->base.lang, CHAT_SOLO_NAME)},
        .text = text};
    size_t plen = strlen(c->prefix);
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p || c->ended)
        return;
    if (is_quit(c, p)) {
        end(c, "quit");
        return;
    }
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
    (void)l;
    (void)events;
    struct console *c = ctx;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        end(c, "end of input");
        return;
    }
    for (ssize_t i = 0; i < n && !c->ended; i++) {
        char ch = buf[i];
        if (ch == '\n') {
            c->prompt_due = true;
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
    if (fl >= 0 && !(fl & O_NONBLOCK) &&
        fcntl(c->in_fd, F_SETFL, fl | O_NONBLOCK) == 0)
        c->in_flags = fl;
    loop_watch(c->loop, c->in_fd, LOOP_READ, readable, c);
    c->watching = true;
    struct chat_event ev = {.kind = CHAT_CONNECTED};
    a->on_event(a->ctx, a, &ev);
    return 0;
}

static void console_stop(struct chat_adapter *a, const char *goodbye)
{
    struct console *c = (struct console *)a;
    c->stopped = true;
    if (goodbye)
        append(c, "", goodbye);
    else if (c->at_prompt)
        put_erase(c);
    c->at_prompt = false;
    flush(c->loop, c);
    if (c->watching)
        loop_unwatch(c->loop, c->in_fd);
    c->watching = false;
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
    /* a terminal is shared with the shell that waits for us: it gets it
     * back blocking, as it gave it */
    if (c->in_flags >= 0)
        fcntl(c->in_fd, F_SETFL, c->in_flags);
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
                                 unsigned features, const char *prefix,
                                 chat_event_fn on_event, void *ctx,
                                 void (*on_end)(void *, const char *why),
                                 void *end_ctx)
{
    struct console *c = xcalloc(1, sizeof *c);
    c->base.ops = &console_ops;
    c->base.network = "console";
    /* colours: the manager's markup, turned into ANSI codes here */
    c->base.style =
        features & CONSOLE_COLOUR ? CHAT_STYLE_MARKUP : CHAT_STYLE_PLAIN;
    c->base.solo = true;
    c->base.on_event = on_event;
    c->base.ctx = ctx;
    c->loop = l;
    c->in_fd = in_fd;
    c->in_flags = -1;
    c->out_fd = out_fd;
    c->features = features;
    c->prompt_due = true;
    snprintf(c->prefix, sizeof c->prefix, "%s", prefix);
    c->on_end = on_end;
    c->end_ctx = end_ctx;
    strbuf_init_heap(&c->out, OUT_MAX_BYTES - 1);
    loop_before_sleep(l, flush, c);
    return &c->base;
}
