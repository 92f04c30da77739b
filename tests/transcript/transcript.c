/*
 * The transcript test: scripted games through the fake adapter, whose whole
 * output (every line the bot says in a room or tells a person, with its
 * priority, and the adapter calls it makes) is compared with a transcript
 * saved from an earlier build (the .out file beside each script). It holds the
 * bot's behaviour still while its code is moved about.
 *
 *   transcript SCRIPT            writes the transcript to stdout
 *   transcript SCRIPT EXPECTED   compares; prints the first difference
 *
 * Randomness and both clocks are the script's: getrandom() and time() are
 * replaced in this program by a fixed sequence and a clock the script sets,
 * and the monotonic clock the loop's timers run on is virtual: it stands
 * still while the bot works and moves only while the loop would sleep
 * (poll() is replaced too: it looks without waiting, and when nothing is
 * ready the clock jumps by the time poll was given). Computer players
 * decide at once (think_test_inline). So the transcript does not depend on
 * how fast the machine is, or how loaded.
 *
 * A script is one directive a line ('#' starts a comment):
 *   config TOML-LINE       before the first event: a line of the config
 *   set KEY SECONDS        before the first event: a time of [game] set
 *                          below what the config allows (turn_timeout...)
 *   adapter plain|irc|matrix|limited   before the first event
 *   say NICK ROOM TEXT     NICK says TEXT in ROOM
 *   tell NICK TEXT         NICK tells the bot TEXT privately
 *   join|part NICK ROOM    NICK joins / leaves ROOM
 *   kick NICK ROOM BY      BY kicks NICK from ROOM
 *   quit NICK              NICK leaves the network
 *   nick OLD NEW           OLD is now called NEW
 *   account NICK ACCOUNT   NICK's services account from now on
 *   identities             the network answers every verify asked so far
 *                          (who holds each nick: its person, or nobody if
 *                          they quit)
 *   connected | disconnected
 *   wait MS                the loop runs MS milliseconds (timers fire)
 *   sent                   every tracked line is reported written
 *   busy on|off            whether the adapter's out-queue is busy
 *   clock SECONDS          what time() says from now on
 *   seed N                 getrandom()'s sequence starts again from N
 *   play NICK              NICK plays the first card of the last "Play one
 *                          of" / "Only legal" / "Any card" told to them
 *   pass NICK              NICK passes the first cards of their last deal
 *   auto [MOVES] NICK...   those people pass, discard, choose "moon add"
 *                          and play as above, each when asked, until
 *                          nobody is asked (a game) or MOVES were made
 *   restart                the bot dies and starts again (journals resume)
 *   shutdown TEXT          the bot stops cleanly and starts again
 *   reload TOML-LINE       a new config: the old one plus this line
 */
/* ppoll and syscall: the replaced poll and clock_gettime call through */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bot/common/msg.h"
#include "bot/config.h"
#include "tests/support/fake_chat.h"
#include "bot/common/loop.h"
#include "bot/manager/manager.h"
#include "bot/think.h"

/* ---- The script's randomness and clock ----------------------------------- */

#define RAND_START 0x2545F4914F6CDD1Dull
static uint64_t rand_state = RAND_START;
static time_t script_clock = 1764547200; /* 2025-12-01 00:00:00 UTC */

ssize_t getrandom(void *buf, size_t len, unsigned int flags);
ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
    (void)flags;
    unsigned char *p = buf;
    for (size_t i = 0; i < len; i++) {
        /* splitmix64, a byte at a time */
        uint64_t z = (rand_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        p[i] = (unsigned char)(z ^ (z >> 31));
    }
    return (ssize_t)len;
}

time_t time(time_t *t)
{
    if (t)
        *t = script_clock;
    return script_clock;
}

static int64_t virtual_ms = 1000000; /* the monotonic clock */

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (id != CLOCK_MONOTONIC)
        return (int)syscall(SYS_clock_gettime, id, ts);
    ts->tv_sec = (time_t)(virtual_ms / 1000);
    ts->tv_nsec = (long)(virtual_ms % 1000) * 1000000L;
    return 0;
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    struct timespec now = {0, 0};
    int rc = ppoll(fds, n, &now, NULL);
    if (rc == 0 && timeout > 0)
        virtual_ms += timeout;
    else if (rc == 0 && timeout < 0) {
        fprintf(stderr, "transcript: the loop would wait forever\n");
        exit(2);
    }
    return rc;
}

/* ---- The world ----------------------------------------------------------- */

#define MAX_PEOPLE 16
#define CONFIG_MAX 8192

struct person {
    char nick[64];
    char id[128];
    char account[64];   /* "" if none */
    bool gone;          /* quit the network */
    char legal[160][8]; /* the cards of their last prompt */
    int nlegal;
    char pass[32][8]; /* the cards to pass of their last deal */
    int npass;
    char discard[32][8]; /* the cards to discard of their last kitty */
    int ndiscard;
    bool moon; /* asked how to score a moon */
};

static struct {
    struct loop *loop;
    struct config cfg;
    struct manager *m;
    struct fake_chat fake;
    enum fake_chat_kind kind;
    char dir[64];
    char config_text[CONFIG_MAX];
    struct {
        char key[32];
        int value;
    } sets[8];
    int nsets;
    bool started;
    FILE *out;
    int seen; /* lines looked at for prompts */
    struct person people[MAX_PEOPLE];
    int npeople;
    int lineno;
} w;

static void die(const char *what)
{
    fprintf(stderr, "transcript: line %d: %s\n", w.lineno, what);
    exit(2);
}

static struct person *person(const char *nick)
{
    for (int i = 0; i < w.npeople; i++)
        if (strcasecmp(w.people[i].nick, nick) == 0)
            return &w.people[i];
    if (w.npeople == MAX_PEOPLE)
        die("too many people");
    struct person *p = &w.people[w.npeople++];
    memset(p, 0, sizeof *p);
    snprintf(p->nick, sizeof p->nick, "%s", nick);
    snprintf(p->id, sizeof p->id, "%s@host.test", nick);
    return p;
}

static void load_config(struct config *c)
{
    char err[512];
    if (config_parse(w.config_text, strlen(w.config_text), "transcript", NULL,
                     c, err, sizeof err) != 0) {
        fprintf(stderr, "transcript: config: %s\n", err);
        exit(2);
    }
    free(c->data_dir);
    c->data_dir = strdup(w.dir);
    /* times shorter than the config allows, as the manager's tests use */
    for (int i = 0; i < w.nsets; i++) {
        static const struct {
            const char *key;
            size_t off;
        } keys[] = {
            {"turn_timeout", offsetof(struct config, turn_timeout)},
            {"grace_period", offsetof(struct config, grace_period)},
            {"lobby_timeout", offsetof(struct config, lobby_timeout)},
            {"unattended_pause", offsetof(struct config, unattended_pause)},
            {"unattended_end", offsetof(struct config, unattended_end)},
        };
        size_t k = 0;
        while (k < sizeof keys / sizeof keys[0] &&
               strcmp(keys[k].key, w.sets[i].key) != 0)
            k++;
        if (k == sizeof keys / sizeof keys[0])
            die("set: unknown key");
        *(int *)((char *)c + keys[k].off) = w.sets[i].value;
    }
}

static void start_manager(void)
{
    w.m = manager_new(w.loop, &w.cfg);
    w.fake.base.ctx = w.m;
    char err[256];
    if (manager_storage_start(w.m, err, sizeof err) != 0)
        die(err);
    manager_restore(w.m, &w.fake.base);
}

static void start(void)
{
    if (w.started)
        return;
    w.started = true;
    load_config(&w.cfg);
    w.loop = loop_new();
    fake_chat_init(&w.fake, w.kind, "test", manager_on_event, NULL);
    w.fake.echo = w.out;
    start_manager();
}

/* ---- Reading the bot's lines --------------------------------------------- */

/* The card named by a rank token and a suit symbol, as "QS". A jack,
 * queen, king and ace may be in any language's letters (German B D K A,
 * French V D R A): no letter means two ranks among them. */
static bool card_word(const char *rank, size_t rlen, char suit, char *out)
{
    static const char *ranks[] = {"2", "3", "4", "5", "6", "7", "8", "9", "10"};
    static const struct {
        char shown, code;
    } faces[] = {{'J', 'J'}, {'B', 'J'}, {'V', 'J'}, {'Q', 'Q'},
                 {'D', 'Q'}, {'K', 'K'}, {'R', 'K'}, {'A', 'A'}};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
        if (strlen(ranks[i]) == rlen && strncmp(ranks[i], rank, rlen) == 0) {
            snprintf(out, 8, "%s%c", ranks[i], suit);
            return true;
        }
    for (size_t i = 0; rlen == 1 && i < sizeof faces / sizeof faces[0]; i++)
        if (faces[i].shown == rank[0]) {
            snprintf(out, 8, "%c%c", faces[i].code, suit);
            return true;
        }
    return false;
}

static char suit_of(const char *p, size_t *len)
{
    static const struct {
        const char *sym;
        char letter;
    } suits[] = {
        {"\u2663", 'C'}, {"\u2666", 'D'}, {"\u2665", 'H'}, {"\u2660", 'S'}};
    for (size_t i = 0; i < 4; i++)
        if (strncmp(p, suits[i].sym, strlen(suits[i].sym)) == 0) {
            *len = strlen(suits[i].sym);
            return suits[i].letter;
        }
    return 0;
}

/* Reads cards written as the bot writes a hand ("♣ 2 8  ♦ [3] J", "2♣",
 * "Joker", "Comodín") from text up to the first '|' or '.' that ends a word;
 * returns how many (at most max). */
static int read_cards(const char *text, char (*cards)[8], int max)
{
    int n = 0;
    char suit = 0;
    const char *p = text;
    while (*p && n < max) {
        while (*p == ' ' || *p == '[' || *p == ']' || *p == ',')
            p++;
        if (!*p || *p == '|')
            break;
        size_t sl;
        char s = suit_of(p, &sl);
        if (s) {
            suit = s;
            p += sl;
            continue;
        }
        if (strncmp(p, "Joker", 5) == 0) {
            snprintf(cards[n++], 8, "JK");
            p += 5;
        } else if (strncmp(p, "Comod\xc3\xadn", 8) == 0) {
            snprintf(cards[n++], 8, "JK");
            p += 8;
        } else {
            const char *r = p;
            while (*p && strchr("0123456789JQKABVDR", *p))
                p++;
            size_t rl = (size_t)(p - r);
            char s2 = suit_of(p, &sl);
            if (s2)
                p += sl;
            else
                s2 = suit;
            if (rl == 0 || !s2 || !card_word(r, rl, s2, cards[n]))
                break;
            n++;
        }
        if (*p == ']')
            p++;
        if (*p == '.')
            break;
    }
    return n;
}

/* Where in text the part of message id before its placeholder ph ends,
 * in any language (the text from the placeholder before ph, or from the
 * message's start, up to ph: "Play one of: "); NULL if text has none. */
static const char *after_marker(const char *text, const char *id,
                                const char *ph)
{
    for (int l = 0; l < msg_lang_count(); l++) {
        const char *t = msg_template(l, id);
        const char *at = strstr(t, ph);
        if (!at)
            continue;
        const char *from = t;
        for (const char *q = t; q < at; q++)
            if (*q == '}')
                from = q + 1;
        size_t len = (size_t)(at - from);
        char marker[200];
        if (len == 0 || len >= sizeof marker)
            continue;
        memcpy(marker, from, len);
        marker[len] = '\0';
        const char *found = strstr(text, marker);
        if (found)
            return found + len;
    }
    return NULL;
}

/* Notes the prompts told to the people since the last look: the bot's
 * messages in any of its languages, found by their English ids in the
 * catalogue (msg.h): a message changed in the bot must change here too,
 * which every transcript then shows. */
static void look(void)
{
    for (; w.seen < w.fake.n; w.seen++) {
        const struct fake_chat_line *l = &w.fake.lines[w.seen];
        if (!l->private_)
            continue;
        struct person *p = person(l->to);
        const char *q;
        if ((q = after_marker(l->text,
                              "Play one of: {legal}. Others: {others}.",
                              "{legal}")))
            p->nlegal = read_cards(q, p->legal, 160);
        else if ((q = after_marker(l->text,
                                   "Only legal: {card}. Others: {others}.",
                                   "{card}")))
            p->nlegal = read_cards(q, p->legal, 1);
        else if ((q = after_marker(l->text, "Any card: {hand}.", "{hand}")))
            p->nlegal = read_cards(q, p->legal, 160);
        /* a message with a plural is found by its singular */
        const char *kitty = "You took the kitty. Discard {n} card into your "
                            "tricks (discard C1 C2 ...): {hand}";
        if ((q = after_marker(l->text, kitty, "{n}"))) {
            int k = atoi(q);
            const char *h = after_marker(q, kitty, "{hand}");
            char all[40][8];
            int n = h ? read_cards(h, all, 40) : 0;
            p->ndiscard = k < n ? k : n;
            for (int i = 0; i < p->ndiscard; i++)
                memcpy(p->discard[i], all[i], 8);
        }
        if (after_marker(l->text,
                         "You shot the moon! Tell me \"moon subtract\" "
                         "(you score -{n}) or \"moon add\" (everyone else "
                         "+{n}).",
                         "{n}") ||
            after_marker(l->text,
                         "You shot the sun! Tell me \"moon subtract\" "
                         "(you score -{n}) or \"moon add\" (everyone else "
                         "+{n}).",
                         "{n}"))
            p->moon = true;
        const char *cards = after_marker(
            l->text, "Hand {hand} at {room}. Your cards: {cards}", "{cards}");
        const char *pass = strstr(l->text, "| ");
        if (cards && pass) {
            int k = atoi(pass + 2 + strcspn(pass + 2, "0123456789"));
            char all[40][8];
            int n = read_cards(cards, all, 40);
            p->npass = k < n ? k : n;
            for (int i = 0; i < p->npass; i++)
                memcpy(p->pass[i], all[i], 8);
        }
    }
}

/* ---- Events -------------------------------------------------------------- */

static void event(enum chat_event_kind k, const char *nick, const char *room,
                  const char *target, const char *text)
{
    start();
    struct chat_event ev = {
        .kind = k, .room = room, .target = target, .text = text};
    if (nick) {
        ev.from.nick = nick;
        struct person *p = person(nick);
        ev.from.id = p->id;
        ev.from.account = p->account[0] ? p->account : NULL;
        p->gone = k == CHAT_QUIT;
    }
    fprintf(w.out, ">> %d\n", w.lineno);
    manager_on_event(w.m, &w.fake.base, &ev);
}

static void stop_loop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

static void run_for(int64_t ms)
{
    loop_timer(w.loop, ms, stop_loop, NULL);
    loop_run(w.loop);
    look();
}

/* Runs the loop round by round until nothing is left to do now: no
 * computer decision on its way back, no timer due, no new line. A decision
 * comes back through the loop, one a round, so how far a game gets does not
 * depend on how fast this machine is. */
static void settle(void)
{
    for (int rounds = 0; rounds < 100000; rounds++) {
        int before = w.fake.n;
        run_for(0);
        if (manager_thinking(w.m) == 0 && w.fake.n == before) {
            run_for(0);
            if (manager_thinking(w.m) == 0 && w.fake.n == before)
                return;
        }
    }
    die("the bot did not settle");
}

static void all_sent(void)
{
    for (int i = 0; i < w.fake.n; i++) {
        struct fake_chat_line *l = &w.fake.lines[i];
        if (l->cookie && !l->sent && !l->retracted) {
            l->sent = true;
            struct chat_event ev = {.kind = CHAT_SENT, .cookie = l->cookie};
            manager_on_event(w.m, &w.fake.base, &ev);
        }
    }
}

/* A person's move, if they have one to make: true if made. */
static bool act(struct person *p)
{
    char text[400];
    if (p->npass > 0) {
        size_t pos = (size_t)snprintf(text, sizeof text, "pass");
        for (int i = 0; i < p->npass; i++)
            pos += (size_t)snprintf(text + pos, sizeof text - pos, " %s",
                                    p->pass[i]);
        p->npass = 0;
    } else if (p->ndiscard > 0) {
        size_t pos = (size_t)snprintf(text, sizeof text, "discard");
        for (int i = 0; i < p->ndiscard; i++)
            pos += (size_t)snprintf(text + pos, sizeof text - pos, " %s",
                                    p->discard[i]);
        p->ndiscard = 0;
    } else if (p->moon) {
        snprintf(text, sizeof text, "moon add");
        p->moon = false;
    } else if (p->nlegal > 0) {
        snprintf(text, sizeof text, "play %s", p->legal[0]);
        p->nlegal = 0;
    } else {
        return false;
    }
    event(CHAT_MESSAGE, p->nick, NULL, NULL, text);
    settle();
    if (w.kind != FAKE_CHAT_PLAIN)
        all_sent();
    settle();
    return true;
}

static void restart(bool clean, const char *why)
{
    start();
    if (clean)
        manager_shutdown(w.m, why);
    manager_free(w.m);
    fprintf(w.out, "-- restart\n");
    start_manager();
    settle();
}

/* ---- The script ---------------------------------------------------------- */

static char *word(char **s)
{
    while (**s == ' ')
        (*s)++;
    if (!**s)
        return NULL;
    char *start = *s;
    while (**s && **s != ' ')
        (*s)++;
    if (**s)
        *(*s)++ = '\0';
    return start;
}

static char *need(char **s)
{
    char *x = word(s);
    if (!x)
        die("a word is missing");
    return x;
}

static void directive(char *line)
{
    char *s = line;
    char *d = word(&s);
    if (!d || d[0] == '#')
        return;
    while (*s == ' ')
        s++;
    if (strcmp(d, "config") == 0) {
        if (w.started)
            die("config after the first event");
        size_t len = strlen(w.config_text);
        snprintf(w.config_text + len, sizeof w.config_text - len, "%s\n", s);
    } else if (strcmp(d, "set") == 0) {
        if (w.started || w.nsets == 8)
            die("set after the first event, or too many");
        snprintf(w.sets[w.nsets].key, sizeof w.sets[0].key, "%s", need(&s));
        w.sets[w.nsets++].value = atoi(need(&s));
    } else if (strcmp(d, "adapter") == 0) {
        if (w.started)
            die("adapter after the first event");
        char *k = need(&s);
        w.kind = strcmp(k, "irc") == 0       ? FAKE_CHAT_IRC
                 : strcmp(k, "matrix") == 0  ? FAKE_CHAT_MATRIX
                 : strcmp(k, "limited") == 0 ? FAKE_CHAT_MATRIX_LIMITED
                                             : FAKE_CHAT_PLAIN;
    } else if (strcmp(d, "say") == 0) {
        char *nick = need(&s), *room = need(&s);
        while (*s == ' ')
            s++;
        event(CHAT_MESSAGE, nick, room, NULL, s);
        settle();
    } else if (strcmp(d, "tell") == 0) {
        char *nick = need(&s);
        while (*s == ' ')
            s++;
        event(CHAT_MESSAGE, nick, NULL, NULL, s);
        settle();
    } else if (strcmp(d, "join") == 0 || strcmp(d, "part") == 0) {
        char *nick = need(&s), *room = need(&s);
        event(d[0] == 'j' ? CHAT_JOIN : CHAT_PART, nick, room, NULL, "");
        settle();
    } else if (strcmp(d, "kick") == 0) {
        char *nick = need(&s), *room = need(&s), *by = need(&s);
        event(CHAT_KICK, by, room, nick, "");
        settle();
    } else if (strcmp(d, "quit") == 0) {
        event(CHAT_QUIT, need(&s), NULL, NULL, "");
        settle();
    } else if (strcmp(d, "nick") == 0) {
        char *old = need(&s), *new_ = need(&s);
        struct person *p = person(old);
        event(CHAT_NICK, old, NULL, new_, NULL);
        struct person *q = person(new_);
        snprintf(q->id, sizeof q->id, "%s", p->id);
        snprintf(q->account, sizeof q->account, "%s", p->account);
        settle();
    } else if (strcmp(d, "account") == 0) {
        struct person *p = person(need(&s));
        snprintf(p->account, sizeof p->account, "%s", need(&s));
    } else if (strcmp(d, "identities") == 0) {
        start();
        /* the network's answers to every verify asked so far */
        int n = w.fake.nverified;
        w.fake.nverified = 0;
        for (int i = 0; i < n; i++) {
            struct person *p = person(w.fake.verified[i]);
            struct chat_event ev = {.kind = CHAT_IDENTITY};
            ev.from.nick = p->nick;
            ev.from.id = p->gone ? NULL : p->id;
            ev.from.account = p->account[0] ? p->account : NULL;
            fprintf(w.out, ">> %d\n", w.lineno);
            manager_on_event(w.m, &w.fake.base, &ev);
        }
        settle();
    } else if (strcmp(d, "connected") == 0) {
        event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
        settle();
    } else if (strcmp(d, "disconnected") == 0) {
        event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
        settle();
    } else if (strcmp(d, "wait") == 0) {
        start();
        run_for(atoi(need(&s)));
        settle();
    } else if (strcmp(d, "sent") == 0) {
        start();
        all_sent();
        settle();
    } else if (strcmp(d, "busy") == 0) {
        start();
        w.fake.busy = strcmp(need(&s), "on") == 0;
    } else if (strcmp(d, "seed") == 0) {
        rand_state = strtoull(need(&s), NULL, 0);
    } else if (strcmp(d, "clock") == 0) {
        script_clock = (time_t)atoll(need(&s));
    } else if (strcmp(d, "play") == 0 || strcmp(d, "pass") == 0) {
        start();
        look();
        struct person *p = person(need(&s));
        if (d[1] == 'l')
            p->npass = 0;
        else
            p->nlegal = 0;
        if (!act(p))
            die("nothing to do for them");
    } else if (strcmp(d, "auto") == 0) {
        start();
        struct person *ps[MAX_PEOPLE];
        int n = 0, moves = 5000;
        char *nick;
        while ((nick = word(&s)) && n < MAX_PEOPLE) {
            if (isdigit((unsigned char)nick[0]))
                moves = atoi(nick);
            else
                ps[n++] = person(nick);
        }
        while (moves > 0) {
            look();
            bool any = false;
            for (int i = 0; i < n && moves > 0; i++)
                if (act(ps[i])) {
                    any = true;
                    moves--;
                }
            if (!any)
                break;
        }
    } else if (strcmp(d, "restart") == 0) {
        restart(false, NULL);
    } else if (strcmp(d, "shutdown") == 0) {
        restart(true, s);
    } else if (strcmp(d, "reload") == 0) {
        start();
        size_t len = strlen(w.config_text);
        snprintf(w.config_text + len, sizeof w.config_text - len, "%s\n", s);
        struct config fresh;
        load_config(&fresh);
        manager_reload(w.m, &fresh);
        config_free(&w.cfg);
        w.cfg = fresh;
    } else {
        die("unknown directive");
    }
}

static int compare(const char *got, size_t glen, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "transcript: %s: %s\n", path, strerror(errno));
        return 1;
    }
    char *want = NULL;
    size_t wlen = 0, cap = 0;
    for (;;) {
        if (wlen == cap) {
            cap = cap ? cap * 2 : 65536;
            want = realloc(want, cap);
            if (!want)
                abort();
        }
        size_t k = fread(want + wlen, 1, cap - wlen, f);
        if (k == 0)
            break;
        wlen += k;
    }
    fclose(f);
    size_t i = 0, line = 1, at = 0;
    while (i < glen && i < wlen && got[i] == want[i]) {
        if (got[i] == '\n') {
            line++;
            at = i + 1;
        }
        i++;
    }
    int rc = 0;
    if (i < glen || i < wlen) {
        const char *ge = memchr(got + at, '\n', glen - at);
        const char *we = memchr(want + at, '\n', wlen > at ? wlen - at : 0);
        int gl = (int)(ge ? (size_t)(ge - got) - at : glen - at);
        int wl =
            (int)(we ? (size_t)(we - want) - at : (wlen > at ? wlen - at : 0));
        fprintf(stderr,
                "transcript: differs from %s at line %zu\n"
                "  want: %.*s\n  got:  %.*s\n",
                path, line, wl, want + at, gl, got + at);
        rc = 1;
    }
    free(want);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: transcript SCRIPT [EXPECTED]\n");
        return 2;
    }
    FILE *script = fopen(argv[1], "r");
    if (!script) {
        fprintf(stderr, "transcript: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    char *got = NULL;
    size_t glen = 0;
    w.out = open_memstream(&got, &glen);
    snprintf(w.dir, sizeof w.dir, "/tmp/hearts-transcript-XXXXXX");
    if (!mkdtemp(w.dir)) {
        perror("mkdtemp");
        return 2;
    }
    think_test_inline(true);
    /* what the C library or a sanitizer's runtime drew before main does
     * not move the script's sequence */
    rand_state = RAND_START;
    char line[4096];
    while (fgets(line, sizeof line, script)) {
        w.lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        directive(line);
    }
    fclose(script);
    if (w.started) {
        manager_free(w.m);
        loop_free(w.loop);
        config_free(&w.cfg);
        fake_chat_free(&w.fake);
    }
    fclose(w.out);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", w.dir);
    if (system(cmd) != 0)
        fprintf(stderr, "transcript: could not remove %s\n", w.dir);
    int rc = 0;
    if (argc == 3)
        rc = compare(got, glen, argv[2]);
    else
        fwrite(got, 1, glen, stdout);
    free(got);
    return rc;
}
