/*
 * A table's own turn length and slow games (slow.h).
 */
#include "bot/manager/slow.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
#include "bot/manager/render.h"
#include "bot/manager/say.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"
#include "storage/journal.h"

_Static_assert(SLOW_TURN_MIN == JOURNAL_TURN_MIN &&
                   SLOW_TURN_MAX == JOURNAL_TURN_MAX,
               "a journal reads every turn length a table may have");

int mgr_duration_parse(const char *s, int *out)
{
    static const struct {
        char unit;
        int seconds;
    } units[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};
    long long total = 0;
    int last = -1; /* the units in order, each once */
    const char *p = s;
    if (!*p)
        return -1;
    while (*p) {
        if (!isdigit((unsigned char)*p))
            return -1;
        long long v = 0;
        int digits = 0;
        while (isdigit((unsigned char)*p)) {
            if (++digits > 9)
                return -1;
            v = v * 10 + (*p++ - '0');
        }
        int u = 3; /* plain seconds, the last word */
        if (*p) {
            for (u = 0; u < 4 && units[u].unit != tolower((unsigned char)*p);
                 u++)
                ;
            if (u == 4)
                return -1;
            p++;
        } else if (last >= 0) {
            return -1; /* "1h30": say what the 30 is */
        }
        if (u <= last)
            return -1;
        last = u;
        total += v * units[u].seconds;
        if (total > 2LL * SLOW_TURN_MAX)
            total = 2LL * SLOW_TURN_MAX;
    }
    *out = (int)total;
    return 0;
}

char *mgr_duration_text(char *out, size_t len, int64_t seconds)
{
    static const struct {
        const char *unit;
        int64_t seconds;
    } units[] = {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}};
    struct strbuf sb;
    strbuf_init(&sb, out, len);
    if (seconds < 0)
        seconds = 0;
    for (int u = 0; u < 4; u++) {
        int64_t v = seconds / units[u].seconds;
        seconds %= units[u].seconds;
        if (v)
            strbuf_addf(&sb, "%lld%s", (long long)v, units[u].unit);
    }
    if (!sb.len)
        strbuf_addstr(&sb, "0s");
    return out;
}

int mgr_option_take(const char *args, const char *option, char *rest,
                    size_t restlen, char *value, size_t valuelen, bool *found)
{
    char name[64];
    snprintf(name, sizeof name, "%s=", option);
    size_t nlen = strlen(name);
    struct strbuf sb;
    strbuf_init(&sb, rest, restlen);
    *found = false;
    value[0] = '\0';
    const char *p = args;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        if (n >= nlen && strncasecmp(p, name, nlen) == 0) {
            /* a value too long to be one is kept as one that is none:
             * refused as a bad value, not as too many options */
            size_t vn = n - nlen;
            if (vn >= valuelen)
                vn = 0;
            memcpy(value, p + nlen, vn);
            value[vn] = '\0';
            *found = true;
        } else {
            if (sb.len)
                strbuf_addc(&sb, ' ');
            strbuf_add(&sb, p, n);
        }
        p += n;
    }
    return sb.len + 1 >= restlen ? -1 : 0;
}

int mgr_slow_take(const char *args, char *rest, size_t restlen, char *value,
                  size_t valuelen, bool *found)
{
    return mgr_option_take(args, SLOW_OPTION, rest, restlen, value, valuelen,
                           found);
}

int mgr_turn_seconds(const struct table *t)
{
    return t->turn_timeout ? t->turn_timeout : t->m->cfg->turn_timeout;
}

bool mgr_slow(const struct table *t)
{
    return t->turn_timeout >= SLOW_GAME_S;
}

int64_t mgr_wall(const struct manager *m)
{
    return m->wall ? m->wall() : (int64_t)time(NULL);
}

const char *mgr_table_rules_shown(const struct table *t, char *out, size_t len)
{
    char d[32];
    if (t->turn_timeout)
        snprintf(out, len, "%s " SLOW_OPTION "=%s%s", t->rules_text,
                 mgr_duration_text(d, sizeof d, t->turn_timeout),
                 t->hints ? " hints=on" : "");
    else
        snprintf(out, len, "%s%s", t->rules_text, t->hints ? " hints=on" : "");
    return out;
}

bool mgr_slow_current(const struct table *t)
{
    return mgr_slow(t) && t->playing && t->slow_deadline &&
           t->slow_key == mgr_slow_turn_key(t);
}

uint32_t mgr_slow_turn_key(const struct table *t)
{
    const struct engine_game *g = &t->game;
    return (uint32_t)g->hand_no << 20 | (uint32_t)g->nplays << 4 |
           (uint32_t)engine_phase(g);
}

/* The reminders of a turn: half way, and shortly before the end (an
 * hour, or an eighth of a shorter turn). */
#define REMIND_HALF 1
#define REMIND_LAST 2

static int64_t remind_at(const struct table *t, int which)
{
    int64_t T = mgr_turn_seconds(t);
    if (which == REMIND_HALF)
        return t->slow_deadline - T / 2;
    return t->slow_deadline - (T / 8 < 3600 ? T / 8 : 3600);
}

void mgr_slow_deadline_text(char *out, size_t len, int64_t when)
{
    time_t tt = (time_t)when;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(out, len, "?");
}

char *mgr_slow_left_text(char *out, size_t len, const struct table *t,
                         int64_t now)
{
    int64_t left = t->slow_deadline - now;
    return mgr_duration_text(out, len, left <= 0 ? 0 : (left + 59) / 60 * 60);
}

static void turn_journaled(struct table *t)
{
    int lost;
    if (mgr_journal_turn(t, &lost))
        mgr_table_journal_lost(t, lost);
}

/* A reminder to whoever must act, and the channel if it heard none for
 * SLOW_CHANNEL_GAP_S. */
static void remind(struct table *t, int64_t now)
{
    char left[32], when[64], label[256], names_text[MGR_TEXT_SIZE];
    mgr_slow_left_text(left, sizeof left, t, now);
    mgr_slow_deadline_text(when, sizeof when, t->slow_deadline);
    mgr_room_label(t->a, t->room, label, sizeof label);
    struct render_look look = mgr_look_room(t);
    struct strbuf names;
    strbuf_init(&names, names_text, sizeof names_text);
    for (int s = 0; s < t->game.n; s++) {
        if (!engine_may_act(&t->game, s) || mgr_seat_computer(t, s))
            continue;
        /* TRANSLATORS: a slow game: {room} is where the table is
         * ("#hearts"), {left} the time left ("11h30m": d, h, m and s are
         * the units people type, keep them), {time} when the turn ends
         * ("2026-12-03 10:00 UTC"). */
        mgr_table_tellm(t, s, CHAT_HIGH,
                        M("Reminder: the table at {room} waits for you: "
                          "{left} left, until {time}."),
                        MSG_S("room", label), MSG_S("left", left),
                        MSG_S("time", when), MSG_END);
        if (names.len)
            strbuf_addstr(&names, ", ");
        char name[MGR_TEXT_SIZE];
        strbuf_addstr(&names,
                      mgr_seat_text(name, sizeof name, t, s, true, look));
    }
    if (!names.len ||
        (t->slow_channel && now - t->slow_channel < SLOW_CHANNEL_GAP_S))
        return;
    t->slow_channel = now;
    /* TRANSLATORS: a slow game: {players} is a list of names ("alice,
     * bob"), {left} the time left ("11h30m"), {time} when the turn ends
     * ("2026-12-03 10:00 UTC"). */
    mgr_table_saym(t,
                   M("The table waits for {players}: {left} left, until "
                     "{time}."),
                   MSG_S("players", names_text), MSG_S("left", left),
                   MSG_S("time", when), MSG_END);
}

static void slow_due(struct loop *l, void *ctx);

/* The timer for what comes next: the next reminder not sent, or the
 * deadline; at most SLOW_CHECK_MS away, so that a clock that jumped (a
 * host that slept) is noticed. */
static void slow_timer(struct table *t, int64_t now)
{
    int64_t next = t->slow_deadline;
    for (int r = REMIND_HALF; r <= REMIND_LAST; r <<= 1)
        if (!(t->slow_reminded & r) && remind_at(t, r) < next)
            next = remind_at(t, r);
    int64_t ms = (next - now) * 1000;
    if (ms > t->m->slow_check_ms)
        ms = t->m->slow_check_ms;
    if (ms < 0)
        ms = 0;
    loop_cancel(t->m->loop, t->slow_timer);
    t->slow_timer = loop_timer(t->m->loop, ms, slow_due, t);
}

static void slow_due(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->slow_timer = 0;
    int64_t now = mgr_wall(t->m);
    if (now >= t->slow_deadline) {
        mgr_time_up(t);
        return;
    }
    /* one reminder at a time: those whose time passed unsent (the bot
     * was away) are not sent late, the latest due is */
    int due = 0;
    for (int r = REMIND_HALF; r <= REMIND_LAST; r <<= 1)
        if (!(t->slow_reminded & r) && now >= remind_at(t, r))
            due = r;
    if (due) {
        t->slow_reminded |= due | (due - 1);
        remind(t, now);
        turn_journaled(t);
    }
    if (!t->closing)
        slow_timer(t, now);
}

void mgr_slow_arm(struct table *t)
{
    int64_t now = mgr_wall(t->m);
    uint32_t key = mgr_slow_turn_key(t);
    if (!t->slow_deadline || t->slow_key != key) {
        t->slow_key = key;
        t->slow_deadline = now + mgr_turn_seconds(t);
        t->slow_reminded = 0;
        turn_journaled(t);
    }
    slow_timer(t, now);
}
