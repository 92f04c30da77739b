/*
 * The game manager (manager.h): tables, seats and the people in them, the
 * flow of a game through the rules engine, computer players, timers, and
 * every message the bot sends about a game. The commands people type are
 * parsed in commands.c, which calls into the functions of table.h.
 *
 * A table lives in one room of one adapter. Its seats hold people (bound
 * to their nick, followed through nick changes, and to their identity,
 * user@host on IRC, so a nick taken over by someone else does not own the
 * seat) or computer players. An absent person's seat is played by a
 * computer player: after timeouts, after leaving, until "back".
 *
 * Tables are freed only between loop rounds (a before-sleep hook), never
 * inside an engine or adapter callback that may still touch them.
 */
#include "bot/manager/manager.h"
#include "bot/manager/journal.h"
#include "bot/manager/table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "engine/ai/ai.h"
#include "bot/manager/limit.h"
#include "bot/common/log.h"
#include "storage/record/record.h"
#include "bot/manager/records.h"
#include "bot/manager/played.h"
#include "bot/manager/render.h"
#include "bot/think.h"

/* ---- Small helpers ---------------------------------------------------- */

void *mgr_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        abort();
    return p;
}

static void sb_advance(struct sbuf *sb, size_t need);

void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
    if (sb->len >= sizeof sb->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(sb->buf + sb->len, sizeof sb->buf - sb->len, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    sb->len += (size_t)w;
    if (sb->len >= sizeof sb->buf)
        sb->len = sizeof sb->buf - 1;
}

/* After a render_* call at sb->len that returned `need`: the renderers
 * may cut shorter than the room left, so a cut is measured. */
static void sb_advance(struct sbuf *sb, size_t need)
{
    if (sb->len + need < sizeof sb->buf)
        sb->len += need;
    else
        sb->len = strlen(sb->buf);
}

void sb_card(struct sbuf *sb, const struct table *t, int card)
{
    sb_advance(sb, render_card(sb->buf + sb->len, sizeof sb->buf - sb->len,
                               card, table_style(t)));
}

void sb_cards(struct sbuf *sb, const struct table *t, const uint8_t *cards,
              int n)
{
    sb_advance(sb, render_cards(sb->buf + sb->len, sizeof sb->buf - sb->len,
                                cards, n, table_style(t)));
}

void sb_hand(struct sbuf *sb, const struct table *t,
             const struct engine_cards *hand, uint64_t mark)
{
    sb_advance(sb, render_hand(sb->buf + sb->len, sizeof sb->buf - sb->len,
                               hand, mark, table_style(t)));
}

/* A person's user ID for a pill (render.h), NULL for a computer. On
 * Matrix, the only network with pills, the nick and the id are both the
 * user ID; the id has room for the longer ones. */
static const char *seat_user_id(const struct table *t, int seat)
{
    const struct seat *st = &t->seats[seat];
    if (!st->human)
        return NULL;
    return st->id[0] == '@' ? st->id : st->nick;
}

void sb_seat(struct sbuf *sb, const struct table *t, int seat, bool notify)
{
    if (table_style(t) != CHAT_STYLE_MARKUP || !seat_user_id(t, seat)) {
        sb_printf(sb, "%s", seat_name(t, seat));
        return;
    }
    sb_advance(sb, render_mention(sb->buf + sb->len, sizeof sb->buf - sb->len,
                                  seat_user_id(t, seat), seat_name(t, seat),
                                  notify, CHAT_STYLE_MARKUP));
}

enum chat_style table_style(const struct table *t)
{
    if (t->a->style == CHAT_STYLE_IRC && !t->m->cfg->colors)
        return CHAT_STYLE_PLAIN;
    return t->a->style;
}

void table_say(struct table *t, const char *text)
{
    if (t->m->restoring)
        return;
    /* what the channel hears of the seats is journaled first */
    journal_sync_seats(t);
    if (t->a->ops->tell_tracked) {
        /* a room is a target like a nick: its lines are reported sent */
        t->said_pending = ++t->m->cookies;
        t->a->ops->tell_tracked(t->a, t->room, text, CHAT_NORMAL,
                                t->said_pending);
    } else {
        t->a->ops->say(t->a, t->room, text, CHAT_NORMAL);
    }
}

/* How often a seat that may not be told anything has its nick checked. */
#define VERIFY_EVERY_MS 3000

static void verify_seat(struct table *t, int seat, bool now);

static void verify_again(struct loop *l, void *ctx)
{
    (void)l;
    struct grace *gr = ctx;
    struct seat *s = &gr->t->seats[gr->seat];
    s->verify_timer = 0;
    if (s->human && !s->away && (s->gone || s->unconfirmed))
        verify_seat(gr->t, gr->seat, true);
}

/* Asks the adapter who holds a seat's nick now (the answer comes as a
 * CHAT_IDENTITY, manager_identity); unless `now`, at most every
 * VERIFY_EVERY_MS, the last wish kept for then. */
static void verify_seat(struct table *t, int seat, bool now)
{
    struct seat *s = &t->seats[seat];
    int64_t at = loop_now(t->m->loop);
    if (!t->a->ops->verify || !t->online)
        return;
    int64_t wait = s->verify_asked ? s->verify_asked + VERIFY_EVERY_MS - at : 0;
    if (!now && wait > 0) {
        if (!s->verify_timer) {
            t->graces[seat].t = t;
            t->graces[seat].seat = seat;
            s->verify_timer =
                loop_timer(t->m->loop, wait, verify_again, &t->graces[seat]);
        }
        return;
    }
    s->verify_asked = at;
    t->a->ops->verify(t->a, s->nick);
}

void table_tell(struct table *t, int seat, const char *text,
                enum chat_priority prio)
{
    /* whatever goes privately to a seat may show its cards: never to a
     * nick whose person left (someone else may hold it now) or, after a
     * reconnect, before the adapter confirmed who holds it; they get what
     * they need again when they are back (table_seat_ready) */
    struct seat *s = &t->seats[seat];
    if (!s->human || t->m->restoring)
        return;
    if (s->gone || s->unconfirmed) {
        /* they may be back unseen (their JOIN came before ours after a
         * server restart): if the network confirms them, they are told */
        verify_seat(t, seat, false);
        return;
    }
    if (t->a->ops->tell_tracked) {
        s->pending = ++t->m->cookies;
        t->a->ops->tell_tracked(t->a, s->nick, text, prio, s->pending);
    } else {
        t->a->ops->tell(t->a, s->nick, text, prio);
    }
}

void mgr_reply(struct chat_adapter *a, const char *nick, const char *fmt, ...)
{
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    a->ops->tell(a, nick, text, CHAT_NORMAL);
}

const char *room_label(const struct chat_adapter *a, const char *room,
                       char *out, size_t outlen)
{
    if (a->ops->room_label)
        a->ops->room_label(a, room, out, outlen);
    else
        snprintf(out, outlen, "%s", room);
    /* a room's name is the network's (a Matrix room's, anyone's to set):
     * nothing in it may hide or reorder the line it is put in */
    render_clean_text(out);
    return out;
}

const char *seat_name(const struct table *t, int seat)
{
    return t->seats[seat].shown;
}

bool seat_is_you(const struct table *t, int seat)
{
    return t->a->solo && t->seats[seat].human;
}

/* What a seat's name is made from: the display name, else the nick. */
static const char *seat_source(const struct seat *st)
{
    return st->display[0] ? st->display : st->nick;
}

void seat_set_name(struct seat *st, const char *nick, const char *display)
{
    if (nick != st->nick)
        snprintf(st->nick, sizeof st->nick, "%s", nick);
    size_t n = display ? strlen(display) : 0;
    if (n >= sizeof st->display) {
        n = sizeof st->display - 1;
        while (n > 0 && ((unsigned char)display[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(st->display, display ? display : "", n);
    st->display[n] = '\0';
    render_name(st->shown, sizeof st->shown, seat_source(st));
}

void seat_set_nick(struct seat *st, const char *nick)
{
    seat_set_name(st, nick, NULL);
}

void manager_display(struct manager *m, struct chat_adapter *a,
                     const char *room, const struct chat_user *u, bool clear,
                     bool if_unknown)
{
    if (!u->display && !clear)
        return;
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing ||
            (room && !a->ops->same_nick(a, t->room, room)))
            continue;
        bool changed = false;
        for (int s = 0; s < t->capacity; s++) {
            struct seat *st = &t->seats[s];
            if (!st->used || !same_person(t, s, u) ||
                (if_unknown && st->display[0]) ||
                strcmp(st->display, u->display ? u->display : "") == 0)
                continue;
            seat_set_name(st, st->nick, u->display);
            changed = true;
        }
        if (changed)
            table_names_unique(t);
    }
}

bool seat_computer(const struct table *t, int seat)
{
    const struct seat *s = &t->seats[seat];
    return !s->human || s->away;
}

/* Whether `account` names the seat's account; false if either is not
 * known. Accounts compare case aside (services fold them). */
static bool seat_account_is(const struct seat *s, const char *account)
{
    return s->account[0] && account && *account &&
           strcasecmp(s->account, account) == 0;
}

/* Whether (id, account) is the seat's person, the nick aside: with both
 * accounts known the account decides, else the user@host. A person who
 * logged out (no account) is still known by their user@host. */
static bool seat_holder(const struct seat *s, const char *id,
                        const char *account)
{
    if (s->account[0] && account && *account)
        return seat_account_is(s, account);
    return id && strcmp(s->id, id) == 0;
}

bool same_person(const struct table *t, int seat, const struct chat_user *u)
{
    const struct seat *s = &t->seats[seat];
    return s->human && t->a->ops->same_nick(t->a, s->nick, u->nick) &&
           seat_holder(s, u->id, u->account);
}

/* Notes the account of u on a seat of theirs that had none; before the
 * first hand is scored their results count for the account too. */
static void seat_learn_account(struct table *t, int seat,
                               const struct chat_user *u)
{
    struct seat *st = &t->seats[seat];
    if (st->account[0] || !u->account || !*u->account ||
        strlen(u->account) >= sizeof st->account)
        return;
    snprintf(st->account, sizeof st->account, "%s", u->account);
    if (strncmp(st->key, "n:", 2) == 0 && t->nhist == 0)
        records_key(t->a, u, st->key, sizeof st->key);
    log_info("table %s: %s is logged in as %s", t->room, st->shown,
             st->account);
}

/* A seat left within its grace period goes to the holder of its account
 * under another nick; the room is told. Not if that nick is seated. */
static bool seat_reclaim(struct manager *m, struct table *t, int seat,
                         const struct chat_user *u)
{
    struct seat *st = &t->seats[seat];
    int other;
    if (!st->human || !st->gone || st->away ||
        !seat_account_is(st, u->account) ||
        t->a->ops->same_nick(t->a, st->nick, u->nick) ||
        strlen(u->nick) >= sizeof st->nick || strlen(u->id) >= sizeof st->id ||
        table_of_person(m, t->a, u->nick, &other))
        return false;
    char was[sizeof st->shown];
    snprintf(was, sizeof was, "%s", st->shown);
    seat_set_name(st, u->nick, u->display);
    snprintf(st->id, sizeof st->id, "%s", u->id);
    table_names_unique(t);
    char text[800];
    snprintf(text, sizeof text, "%s is back as %s.", was, st->shown);
    table_say(t, text);
    return true;
}

void manager_seen(struct manager *m, struct chat_adapter *a,
                  const struct chat_user *u)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        for (int s = 0; s < t->capacity; s++) {
            struct seat *st = &t->seats[s];
            if (!st->used || !st->human)
                continue;
            if (!same_person(t, s, u) && !seat_reclaim(m, t, s, u))
                continue;
            seat_learn_account(t, s, u);
            if (strcmp(st->id, u->id) != 0 && strlen(u->id) < sizeof st->id) {
                /* the account matched: they came back from elsewhere */
                log_info("table %s: %s is back from another host", t->room,
                         st->shown);
                snprintf(st->id, sizeof st->id, "%s", u->id);
            }
        }
    }
}

/* ---- Tables ----------------------------------------------------------- */

struct table *table_find(struct manager *m, struct chat_adapter *a,
                         const char *room)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a == a && !t->closing && t->m == m &&
            a->ops->same_nick(a, t->room, room))
            return t;
    }
    return NULL;
}

struct table *table_of_person(struct manager *m, struct chat_adapter *a,
                              const char *nick, int *seat)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        for (int s = 0; s < t->capacity; s++) {
            if (t->seats[s].used && t->seats[s].human &&
                a->ops->same_nick(a, t->seats[s].nick, nick)) {
                *seat = s;
                return t;
            }
        }
    }
    return NULL;
}

static void cancel_turn(struct table *t)
{
    t->turn_deferred = false;
    loop_cancel(t->m->loop, t->turn_timer);
    loop_cancel(t->m->loop, t->reminder_timer);
    t->turn_timer = t->reminder_timer = 0;
}

static void cancel_all(struct table *t)
{
    cancel_turn(t);
    loop_cancel(t->m->loop, t->lobby_timer);
    loop_cancel(t->m->loop, t->deal_timer);
    loop_cancel(t->m->loop, t->unattended_timer);
    t->lobby_timer = t->deal_timer = t->unattended_timer = 0;
    for (int s = 0; s < ENGINE_MAX_PLAYERS; s++) {
        loop_cancel(t->m->loop, t->seats[s].grace_timer);
        loop_cancel(t->m->loop, t->seats[s].verify_timer);
        t->seats[s].grace_timer = t->seats[s].verify_timer = 0;
    }
}

void table_close(struct table *t)
{
    if (t->closing)
        return;
    cancel_all(t);
    journal_table_closed(t);
    t->closing = true;
    t->m->closing++;
}

static void table_free(struct table *t)
{
    record_writer_free(t->rec);
    free(t->journal_seats);
    free(t->hist);
    free(t);
}

/* The before-sleep hook: frees tables closed during the round. */
static void reap(struct loop *l, void *ctx)
{
    (void)l;
    struct manager *m = ctx;
    /* seat changes no channel line told (a nick, autoplay) */
    for (int i = 0; i < m->ntables; i++)
        journal_sync_seats(m->tables[i]);
    if (!m->closing)
        return;
    int k = 0;
    for (int i = 0; i < m->ntables; i++) {
        if (m->tables[i]->closing)
            table_free(m->tables[i]);
        else
            m->tables[k++] = m->tables[i];
    }
    m->ntables = k;
    m->closing = 0;
}

static void lobby_expired(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->lobby_timer = 0;
    table_say(t, "The table closes: nobody started a game. !hearts opens "
                 "another.");
    table_close(t);
}

struct table *table_open(struct manager *m, struct chat_adapter *a,
                         const char *room, const struct engine_rules *r,
                         const char *rules_text)
{
    if (m->ntables == m->captables) {
        m->captables = m->captables ? m->captables * 2 : 8;
        m->tables =
            realloc(m->tables, sizeof *m->tables * (size_t)m->captables);
        if (!m->tables)
            abort();
    }
    struct table *t = mgr_xcalloc(1, sizeof *t);
    t->m = m;
    t->a = a;
    snprintf(t->room, sizeof t->room, "%s", room);
    t->rules = *r;
    snprintf(t->rules_text, sizeof t->rules_text, "%s", rules_text);
    t->capacity = r->players;
    t->opener = -1;
    t->prompted_seat = -1;
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = (uint64_t)loop_now(m->loop) * 2654435761u;
    engine_prng_seed(&t->rng, seed);
    uint64_t id;
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
        id = engine_prng_next(&t->rng);
    snprintf(t->game_id, sizeof t->game_id, "%016llx", (unsigned long long)id);
    t->lobby_timer = loop_timer(m->loop, (int64_t)m->cfg->lobby_timeout * 1000,
                                lobby_expired, t);
    m->tables[m->ntables++] = t;
    journal_table_opened(t);
    return t;
}

int table_seated(const struct table *t)
{
    int k = 0;
    for (int s = 0; s < t->capacity; s++)
        k += t->seats[s].used;
    return k;
}

int table_humans(const struct table *t)
{
    int k = 0;
    for (int s = 0; s < t->capacity; s++)
        k += t->seats[s].used && t->seats[s].human;
    return k;
}

/* The first free seat, cleared and taken, or -1 if the table is full. */
static int claim_seat(struct table *t)
{
    for (int s = 0; s < t->capacity; s++) {
        struct seat *st = &t->seats[s];
        if (st->used)
            continue;
        memset(st, 0, sizeof *st);
        st->used = true;
        return s;
    }
    return -1;
}

int table_sit(struct table *t, const struct chat_user *u)
{
    int s = claim_seat(t);
    if (s < 0)
        return -1;
    struct seat *st = &t->seats[s];
    st->human = true;
    seat_set_name(st, u->nick, u->display);
    snprintf(st->id, sizeof st->id, "%s", u->id);
    if (u->account && strlen(u->account) < sizeof st->account)
        snprintf(st->account, sizeof st->account, "%s", u->account);
    records_key(t->a, u, st->key, sizeof st->key);
    if (t->opener < 0)
        t->opener = s;
    table_names_unique(t);
    /* the deal must not wait for a private line's room to be made */
    if (t->a->ops->prepare)
        t->a->ops->prepare(t->a, st->nick);
    return s;
}

/* ---- Names at a table ------------------------------------------------- */

/* Whether two display names read the same (case aside). */
static bool same_name(const struct table *t, const char *x, const char *y)
{
    return strcasecmp(x, y) == 0 || t->a->ops->same_nick(t->a, x, y);
}

/* Whether another seat than `except` shows `name`. */
static bool name_taken(const struct table *t, int except, const char *name)
{
    for (int o = 0; o < t->capacity; o++)
        if (o != except && t->seats[o].used &&
            same_name(t, t->seats[o].shown, name))
            return true;
    return false;
}

/* Names a computer seat "botN", the lowest N no other seat shows. */
static void name_computer(struct table *t, int s)
{
    for (int k = 1; k < 1000; k++) {
        char name[16];
        snprintf(name, sizeof name, "bot%d", k);
        if (!name_taken(t, s, name)) {
            seat_set_nick(&t->seats[s], name);
            return;
        }
    }
}

/* Whether a person's name shows as it is (nothing invisible stripped). */
static bool plain_nick(const struct seat *st)
{
    return strcmp(st->shown, seat_source(st)) == 0;
}

/* Gives the person at s a name no seat in done[] (or computer) shows:
 * their nick, else the nick with "(2)", "(3)" ... (never a nick on IRC). */
static void name_person(struct table *t, int s, const bool *done)
{
    struct seat *st = &t->seats[s];
    /* room for "(NN)" after the name, cut on a UTF-8 boundary */
    size_t n = strlen(st->shown);
    if (n > sizeof st->shown - 5) {
        n = sizeof st->shown - 5;
        while (n > 0 && ((unsigned char)st->shown[n] & 0xC0) == 0x80)
            n--;
    }
    for (int k = 2; k < 100; k++) {
        bool clash = false;
        for (int o = 0; o < t->capacity; o++)
            if (o != s && t->seats[o].used && (done[o] || !t->seats[o].human) &&
                same_name(t, t->seats[o].shown, st->shown))
                clash = true;
        if (!clash)
            return;
        snprintf(st->shown + n, 5, "(%d)", k);
    }
}

void table_names_unique(struct table *t)
{
    bool done[ENGINE_MAX_PLAYERS] = {false};
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && t->seats[s].human)
            render_name(t->seats[s].shown, sizeof t->seats[s].shown,
                        seat_source(&t->seats[s]));
    /* before the game a computer gives way to a person of its name */
    for (int s = 0; s < t->capacity && !t->playing; s++) {
        struct seat *st = &t->seats[s];
        if (st->used && !st->human && name_taken(t, s, st->shown)) {
            st->shown[0] = '\0';
            name_computer(t, s);
        }
    }
    /* people whose nick shows as it is first: a look-alike gets the
     * suffix, never the plain nick */
    for (int pass = 0; pass < 2; pass++) {
        for (int s = 0; s < t->capacity; s++) {
            struct seat *st = &t->seats[s];
            if (!st->used || !st->human || done[s] ||
                plain_nick(st) != (pass == 0))
                continue;
            name_person(t, s, done);
            done[s] = true;
        }
    }
}

int table_add_computer(struct table *t, int level)
{
    int s = claim_seat(t);
    if (s < 0)
        return -1;
    struct seat *st = &t->seats[s];
    st->level = level;
    name_computer(t, s);
    return s;
}

void table_stand(struct table *t, int seat)
{
    /* its timers point into this table: none may outlive the seat */
    loop_cancel(t->m->loop, t->seats[seat].grace_timer);
    loop_cancel(t->m->loop, t->seats[seat].verify_timer);
    memset(&t->seats[seat], 0, sizeof t->seats[seat]);
    if (t->opener == seat) {
        t->opener = -1;
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used && t->seats[s].human) {
                t->opener = s;
                break;
            }
    }
}

/* ---- The game --------------------------------------------------------- */

static void advance(struct table *t);

/* Everything the engine tells happens here: the channel's lines, the
 * private ones, and the record (a second sink). */
static void on_engine(void *ctx, const struct engine_game *g,
                      const struct engine_event *ev);

static void act(struct table *t, const struct engine_action *a)
{
    struct engine_refusal_detail d;
    enum engine_refusal why = engine_act(&t->game, a, &t->sink, &d);
    if (why) /* a computer player's choice is always legal */
        log_error("table %s: action refused: %s", t->room,
                  engine_refusal_text(why));
}

/* Whether a computer makes the seat's decision: a computer's seat, an
 * absent person's, or a person's whose time is up. */
static bool computer_turn(const struct table *t, int seat)
{
    return seat_computer(t, seat) || t->seats[seat].overdue != SEAT_ON_TIME;
}

/* The level deciding for the seat, and its budget from the config. */
static int seat_level(const struct table *t, int seat)
{
    const struct seat *s = &t->seats[seat];
    return s->human ? t->m->ai_level : s->level;
}

static int level_budget(const struct config *cfg, int level)
{
    switch (level) {
    case AI_NORMAL:
        return cfg->normal_playouts;
    case AI_HARD:
        return cfg->hard_playouts;
    default:
        return 0;
    }
}

static void sb_action(struct sbuf *sb, const struct table *t,
                      const struct engine_action *a);

/* A computer's decision for the seat is made: for a person whose time was
 * up they are told what it was (before the action: a pass's confirmation
 * follows), then it is the seat's action. */
static void computer_applies(struct table *t, int seat,
                             const struct engine_action *a)
{
    struct seat *st = &t->seats[seat];
    if (st->human && st->overdue != SEAT_ON_TIME) {
        bool away = st->overdue == SEAT_OVERDUE_AWAY;
        struct sbuf sb = {.len = 0};
        sb_printf(&sb, "%s: a computer player ",
                  away ? "You timed out again" : "Time is up");
        sb_action(&sb, t, a);
        sb_printf(&sb, " for you");
        if (away)
            sb_printf(&sb, " and has your seat now. Tell me \"back\" to "
                           "take it again.");
        else
            sb_printf(&sb, ".");
        table_tell(t, seat, sb.buf, CHAT_HIGH);
    }
    st->overdue = SEAT_ON_TIME;
    act(t, a);
}

static void thought(void *ctx, const struct think_result *r);

/*
 * A computer decides for the seat. A level that takes microseconds decides
 * here and the seat acts: true. A searching one (think.h) is asked of the
 * worker, once per position, and the seat acts when the result is back
 * (thought): false, the table waits. The table's PRNG gives the job its
 * seed with one draw, so a replay of the same events draws the same.
 */
static bool computer_acts(struct table *t, int seat)
{
    int level = seat_level(t, seat);
    int budget = level_budget(t->m->cfg, level);
    if (!think_offloads(level, budget)) {
        struct engine_action a;
        if (ai_act_for(level, &t->game, seat, &t->rng, &a) == 0)
            computer_applies(t, seat, &a);
        return true;
    }
    if (t->think_id && t->think_gen == t->gen && t->think_seat == seat)
        return false; /* asked already */
    struct manager *m = t->m;
    if (!m->think)
        m->think =
            think_new_workers(m->loop, thought, m, m->cfg->think_threads);
    struct think_job job = {.id = ++m->think_ids,
                            .level = level,
                            .budget = budget,
                            .seat = seat,
                            .rules = t->rules,
                            .game = t->game};
    engine_prng_seed(&job.rng, engine_prng_next(&t->rng));
    think_submit(m->think, &job);
    t->think_id = m->think_ids;
    t->think_seat = seat;
    t->think_gen = t->gen;
    return false;
}

/* A decision is back from the worker: the seat acts if its table still
 * waits for it, in the same position; otherwise it is dropped and the
 * table goes on from where it is (asking again if it must). */
static void thought(void *ctx, const struct think_result *r)
{
    struct manager *m = ctx;
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->closing || t->think_id != r->id)
            continue;
        t->think_id = 0;
        if (!t->playing || t->paused)
            return;
        int s = t->think_seat;
        bool fresh = t->think_gen == t->gen && computer_turn(t, s) &&
                     engine_may_act(&t->game, s);
        if (fresh && r->rc != 0) {
            /* asking again would get the same: the table waits for a
             * person's command or a timer */
            log_error("table %s: no computer decision for seat %d", t->room, s);
            return;
        }
        if (fresh)
            computer_applies(t, s, &r->action);
        if (!t->closing)
            advance(t);
        return;
    }
}

/* What a computer player did for a person: "played 5♣". */
static void sb_action(struct sbuf *sb, const struct table *t,
                      const struct engine_action *a)
{
    switch (a->kind) {
    case ENGINE_ACT_PLAY:
        sb_printf(sb, "played ");
        sb_card(sb, t, a->cards[0]);
        break;
    case ENGINE_ACT_DISCARD:
        sb_printf(sb, "discarded ");
        sb_cards(sb, t, a->cards, a->ncards);
        break;
    case ENGINE_ACT_MOON:
        sb_printf(sb, "chose \"moon %s\"",
                  a->moon == ENGINE_MOON_SUBTRACT ? "subtract" : "add");
        break;
    case ENGINE_ACT_PASS: {
        uint8_t cards[ENGINE_MAX_ACT_CARDS];
        int n =
            a->ncards < ENGINE_MAX_ACT_CARDS ? a->ncards : ENGINE_MAX_ACT_CARDS;
        memcpy(cards, a->cards, (size_t)n);
        render_sort(cards, n);
        sb_printf(sb, "passes ");
        sb_cards(sb, t, cards, n);
        break;
    }
    default:
        sb_printf(sb, "passes");
        break;
    }
}

/* The prompt of the seat to act, and its timers. */
static void prompt(struct table *t, int seat);
static void arm_turn(struct table *t);

static void deal_now(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->deal_timer = 0;
    engine_deal(&t->game, &t->sink);
    advance(t);
}

/* The plays the bot makes for a person at their turn without asking: the
 * card they queued (if legal now; else it is dropped with a note), and
 * under `autoplay` the hand's last card or the only legal one. Returns
 * whether it played. */
static void sb_received(struct sbuf *sb, struct table *t, int seat);
static void sb_passing(struct table *t, int seat, struct sbuf *sb,
                       const char *verb);
static void tell_received(struct table *t, int except);
static bool received_to_tell(struct table *t, int seat);

static bool plays_unasked(struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    struct seat *st = &t->seats[seat];
    if (engine_phase(g) != ENGINE_PHASE_PLAY)
        return false;
    uint64_t legal = engine_legal_plays(g);
    struct engine_action a = {.kind = ENGINE_ACT_PLAY, .ncards = 1};
    a.seat = (uint8_t)seat;
    struct sbuf sb = {.len = 0};
    if (st->queued) {
        st->queued = false;
        a.cards[0] = st->queued_card;
        if (legal & ENGINE_BIT(st->queued_card)) {
            act(t, &a);
            return true;
        }
        sb_printf(&sb, "You queued ");
        sb_card(&sb, t, st->queued_card);
        sb_printf(&sb, ", but it is not a legal play now: dropped.");
        table_tell(t, seat, sb.buf, CHAT_HIGH);
        return false;
    }
    struct engine_cards hand = engine_hand(g, seat);
    bool last = engine_cards_count(&hand) == 1;
    bool forced = (legal & (legal - 1)) == 0;
    if (!(last && st->autoplay != SEAT_AUTOPLAY_OFF) &&
        !(forced && st->autoplay == SEAT_AUTOPLAY_FORCED))
        return false;
    a.cards[0] = (uint8_t)__builtin_ctzll(legal);
    if (!last) {
        /* the last card shows in the trick line; a forced one is told */
        if (received_to_tell(t, seat))
            sb_received(&sb, t, seat);
        sb_printf(&sb, "Autoplay: ");
        sb_card(&sb, t, a.cards[0]);
        sb_printf(&sb, ", your only legal card.");
        table_tell(t, seat, sb.buf, CHAT_HIGH);
    }
    act(t, &a);
    return true;
}

/* ---- Nobody at the table ---------------------------------------------- */

/* Whether a person is at the table: neither away nor gone. */
static bool attended(const struct table *t)
{
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        if (st->used && st->human && !st->away && !st->gone)
            return true;
    }
    return false;
}

static void unattended_over(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->unattended_timer = 0;
    table_stop(t, "Nobody came back to the table: the game ends unscored.");
}

static void pause_now(struct table *t)
{
    const struct config *cfg = t->m->cfg;
    t->paused = true;
    cancel_turn(t);
    loop_cancel(t->m->loop, t->deal_timer);
    loop_cancel(t->m->loop, t->unattended_timer);
    t->deal_timer = 0;
    t->unattended_timer = loop_timer(
        t->m->loop, (int64_t)cfg->unattended_end * 1000, unattended_over, t);
    char text[800];
    int min = (cfg->unattended_end + 59) / 60;
    snprintf(text, sizeof text,
             "Nobody is at the table, so the game pauses. Tell me \"back\" "
             "to go on; it ends in %d minute%s otherwise.",
             min, min == 1 ? "" : "s");
    table_say(t, text);
}

static void pause_due(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->unattended_timer = 0;
    if (!t->paused && !attended(t))
        pause_now(t);
}

/* Whether the game waits because nobody is at the table. Computer players
 * alone go on for unattended_pause seconds, never into a new hand; then
 * the table pauses, and ends after unattended_end. A walk-away table
 * would otherwise play thousands of hands and take the network's output. */
static bool unattended_hold(struct table *t)
{
    if (attended(t)) {
        loop_cancel(t->m->loop, t->unattended_timer);
        t->unattended_timer = 0;
        if (t->paused) {
            t->paused = false;
            table_say(t, "The game goes on.");
        }
        return false;
    }
    if (t->paused)
        return true;
    if (t->m->cfg->unattended_pause == 0 ||
        engine_phase(&t->game) == ENGINE_PHASE_DEAL) {
        pause_now(t);
        return true;
    }
    if (!t->unattended_timer)
        t->unattended_timer =
            loop_timer(t->m->loop, (int64_t)t->m->cfg->unattended_pause * 1000,
                       pause_due, t);
    return false;
}

/* Which of t->trick_said the next trick waits for: [1], trick N's line;
 * [0], trick N-1's, where the network makes each message cost a slot. */
static int trick_lag(const struct table *t)
{
    return t->a->ops->limited && t->a->ops->limited(t->a) ? 0 : 1;
}

static void advance(struct table *t)
{
    cancel_turn(t);
    for (int guard = 0; guard < 10000 && !t->closing; guard++) {
        struct engine_game *g = &t->game;
        if (engine_phase(g) != ENGINE_PHASE_GAME_OVER && unattended_hold(t))
            return;
        switch (engine_phase(g)) {
        case ENGINE_PHASE_GAME_OVER:
            table_game_over(t);
            return;
        case ENGINE_PHASE_DEAL:
            /* the hand's last trick and scores reach the channel before
             * the next deal reaches anyone: the delay starts then */
            if (t->said_pending) {
                t->deal_deferred = true;
                return;
            }
            if (!t->deal_timer)
                t->deal_timer = loop_timer(
                    t->m->loop, (int64_t)t->m->cfg->next_hand_delay * 1000,
                    deal_now, t);
            return;
        case ENGINE_PHASE_PASS: {
            bool acted = false;
            for (int s = 0; s < g->n; s++) {
                if (engine_may_act(g, s) && computer_turn(t, s)) {
                    if (!computer_acts(t, s))
                        return; /* thinking: thought() goes on */
                    acted = true;
                    break;
                }
            }
            if (acted)
                continue;
            arm_turn(t);
            return;
        }
        default: {
            /* trick N+1 begins only once the channel has trick N (N-1
             * where each message costs a slot: one line for two tricks) */
            if (t->trick_said[trick_lag(t)]) {
                t->trick_deferred = true;
                return;
            }
            int s = engine_turn(g);
            if (s < 0)
                return;
            tell_received(t, seat_computer(t, s) ? -1 : s);
            if (computer_turn(t, s)) {
                if (!computer_acts(t, s))
                    return; /* thinking: thought() goes on */
                continue;
            }
            if (plays_unasked(t, s))
                continue;
            prompt(t, s);
            arm_turn(t);
            return;
        }
        }
    }
}

static void reminder(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->reminder_timer = 0;
    int left = t->m->cfg->turn_timeout - t->m->cfg->turn_timeout / 2;
    struct sbuf sb = {.len = 0};
    for (int s = 0; s < t->game.n; s++) {
        if (engine_may_act(&t->game, s) && !seat_computer(t, s)) {
            char text[800], label[256];
            snprintf(text, sizeof text,
                     "Reminder: the table at %s waits for you (%d s left).",
                     room_label(t->a, t->room, label, sizeof label), left);
            table_tell(t, s, text, CHAT_HIGH);
            sb_printf(&sb, "%s", sb.len ? ", " : "The table waits for ");
            sb_seat(&sb, t, s, true);
        }
    }
    /* once a turn, the channel knows whom it waits for */
    if (sb.len) {
        sb_printf(&sb, " (%d s left).", left);
        table_say(t, sb.buf);
    }
}

static void timed_out(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->turn_timer = 0;
    for (int s = 0; s < t->game.n && !t->closing; s++) {
        if (!engine_may_act(&t->game, s) || seat_computer(t, s))
            continue;
        struct seat *st = &t->seats[s];
        st->timeouts++;
        bool away = st->timeouts >= t->m->cfg->max_timeouts;
        if (away) {
            char text[800];
            st->away = true;
            if (seat_is_you(t, s))
                snprintf(text, sizeof text, "You are away.");
            else
                snprintf(text, sizeof text,
                         "%s is away: a computer player plays for them "
                         "until they tell me \"back\".",
                         st->shown);
            table_say(t, text);
        }
        /* advance() has a computer decide for them, and tells them */
        st->overdue = away ? SEAT_OVERDUE_AWAY : SEAT_OVERDUE;
    }
    if (!t->closing)
        advance(t);
}

/* Whether a person who must act has not yet been sent their last line
 * (the prompt, the deal): their time starts when it leaves. */
static bool turn_waits_for_lines(const struct table *t)
{
    /* nothing goes to a seat that is gone or not yet confirmed: its timer
     * runs (a computer acts for it in time), whatever was in flight */
    for (int s = 0; s < t->game.n; s++) {
        const struct seat *st = &t->seats[s];
        if (st->pending && !st->gone && !st->unconfirmed &&
            engine_may_act(&t->game, s) && !seat_computer(t, s))
            return true;
    }
    return false;
}

static void arm_turn(struct table *t)
{
    cancel_turn(t);
    if (!t->online)
        return; /* no timeouts while the bot itself is away */
    if (turn_waits_for_lines(t)) {
        t->turn_deferred = true; /* manager_sent arms it */
        return;
    }
    int64_t ms = (int64_t)t->m->cfg->turn_timeout * 1000;
    t->turn_timer = loop_timer(t->m->loop, ms, timed_out, t);
    t->reminder_timer = loop_timer(t->m->loop, ms / 2, reminder, t);
}

/* "Trick 5: alice 7♣, bob K♣. " for the trick in progress. */
static void trick_so_far(struct sbuf *sb, const struct table *t)
{
    const struct engine_game *g = &t->game;
    if (g->trick_len == 0) {
        sb_printf(sb, "You lead trick %d.", g->trick_no + 1);
        return;
    }
    sb_printf(sb, "Trick %d:", g->trick_no + 1);
    for (int i = 0; i < g->trick_len; i++) {
        sb_printf(sb, "%s %s ", i ? "," : "", seat_name(t, g->trick_seat[i]));
        sb_card(sb, t, g->trick[i]);
    }
    sb_printf(sb, ".");
}

/* "bob took trick 3 with A♠. " while trick 4 is played. */
static void last_trick(struct sbuf *sb, const struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    if (t->last_trick_no == 0 || t->last_trick_no != g->trick_no)
        return;
    if (t->last_winner < 0) {
        sb_printf(sb, "Trick %d was set aside. ", t->last_trick_no);
        return;
    }
    sb_printf(sb, "%s took trick %d with ",
              t->last_winner == seat ? "You" : seat_name(t, t->last_winner),
              t->last_trick_no);
    sb_card(sb, t, t->last_card);
    sb_printf(sb, ". ");
}

/* The legal cards in words, not only marked: "Play one of: ♣ 2 8." or
 * "Only legal: 2♣." */
static void legal_cards(struct sbuf *sb, const struct table *t, uint64_t legal)
{
    if ((legal & (legal - 1)) == 0) {
        sb_printf(sb, "Only legal: ");
        sb_card(sb, t, __builtin_ctzll(legal));
    } else {
        struct engine_cards set = {.one = legal, .two = 0};
        sb_printf(sb, "Play one of: ");
        sb_hand(sb, t, &set, 0);
    }
    sb_printf(sb, ".");
}

/* Who passed the cards a seat received (through seats that pass blind),
 * or -1 (a scatter pass: from everyone). */
static int passer_of(const struct engine_game *g, int seat)
{
    if (g->pass_dir == ENGINE_PASS_SCATTER)
        return -1;
    int to = seat;
    for (int hops = 0; hops < g->n; hops++) {
        int from = -1;
        for (int s = 0; s < g->n; s++)
            if (s != to && engine_pass_target(g, s, g->pass_dir) == to)
                from = s;
        if (from < 0 || from == seat)
            return -1;
        if (!(g->blind_mask >> from & 1))
            return from;
        to = from;
    }
    return -1;
}

/* "You received Q♣ K♣ K♦ from bob. " (nothing when nothing came), after
 * "You passed ... to carol. " when that confirmation was taken back. */
static void sb_received(struct sbuf *sb, struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    if (t->seats[seat].passing_untold) {
        t->seats[seat].passing_untold = false;
        sb_passing(t, seat, sb, "You passed");
        sb_printf(sb, ". ");
    }
    uint8_t got[ENGINE_MAX_ACT_CARDS];
    int k = engine_received_cards(g, seat, got);
    if (k <= 0)
        return;
    int from = passer_of(g, seat);
    render_sort(got, k);
    sb_printf(sb, "You received ");
    sb_cards(sb, t, got, k);
    if (from >= 0)
        sb_printf(sb, " from %s", seat_name(t, from));
    sb_printf(sb, ". ");
}

/* After the passes: every person but `except` (about to be prompted, which
 * says it) hears what they received and their hand. At normal priority:
 * the leader's prompt (high) goes first. */
static void tell_received(struct table *t, int except)
{
    const struct engine_game *g = &t->game;
    for (int s = 0; s < g->n; s++) {
        struct seat *st = &t->seats[s];
        if (s == except || !st->received_untold)
            continue;
        if (g->trick_no > 0) { /* old news after a restart */
            st->received_untold = st->passing_untold = false;
            continue;
        }
        st->received_untold = false;
        struct sbuf sb = {.len = 0};
        struct engine_cards hand = engine_hand(g, s);
        sb_received(&sb, t, s);
        sb_printf(&sb, "Your hand: ");
        sb_hand(&sb, t, &hand, 0);
        uint64_t before = st->pending;
        table_tell(t, s, sb.buf, CHAT_NORMAL);
        if (st->gone || st->unconfirmed)
            st->received_untold = true; /* not sent: the prompt says it */
        else if (st->pending != before)
            st->received_cookie = st->pending;
    }
}

/* Whether the seat's prompt must say what it received: not said yet, or
 * said in a line still waiting in the adapter's queue, taken back so that
 * the prompt does not wait behind it (one line instead of two). */
static bool received_to_tell(struct table *t, int seat)
{
    struct seat *st = &t->seats[seat];
    if (t->game.trick_no > 0) {
        /* news of the first trick only (a restart may find it older) */
        st->received_untold = st->passing_untold = false;
        st->received_cookie = 0;
        return false;
    }
    if (st->received_cookie && t->a->ops->retract &&
        t->a->ops->retract(t->a, st->received_cookie))
        st->received_untold = true;
    st->received_cookie = 0;
    bool tell = st->received_untold;
    st->received_untold = false;
    return tell;
}

static void prompt(struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    uint32_t key = (uint32_t)g->hand_no << 20 | (uint32_t)g->nplays << 4 |
                   (uint32_t)engine_phase(g);
    if (t->prompted_seat == seat && t->prompted_key == key)
        return; /* this turn was prompted already */
    struct sbuf sb = {.len = 0};
    struct engine_cards hand = engine_hand(g, seat);
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PLAY: {
        uint64_t legal = engine_legal_plays(g);
        if (received_to_tell(t, seat))
            sb_received(&sb, t, seat);
        char label[256];
        sb_printf(&sb, "Your turn at %s. ",
                  room_label(t->a, t->room, label, sizeof label));
        last_trick(&sb, t, seat);
        trick_so_far(&sb, t);
        sb_printf(&sb, " ");
        legal_cards(&sb, t, legal);
        sb_printf(&sb, " Your hand: ");
        sb_hand(&sb, t, &hand, legal);
        break;
    }
    case ENGINE_PHASE_DISCARD:
        sb_printf(&sb,
                  "You took the kitty. Discard %d cards into your tricks "
                  "(discard C1 C2 ...): ",
                  engine_discard_count(g));
        sb_hand(&sb, t, &hand, 0);
        break;
    case ENGINE_PHASE_MOON:
        sb_printf(&sb,
                  "You shot the %s! Tell me \"moon subtract\" (you score "
                  "-%d) or \"moon add\" (everyone else +%d).",
                  g->moon_sun ? "sun" : "moon",
                  t->rules.moon_points * (g->moon_sun ? 2 : 1),
                  t->rules.moon_points * (g->moon_sun ? 2 : 1));
        break;
    default:
        return;
    }
    /* a prompt withheld (the seat is gone or not confirmed yet) is
     * sent when they are confirmed */
    struct seat *st = &t->seats[seat];
    if (!st->gone && !st->unconfirmed) {
        t->prompted_seat = seat;
        t->prompted_key = key;
    }
    /* a person gets the hand before being asked to play it: the same
     * priority keeps them in order */
    table_tell(t, seat, sb.buf, st->deal_unread ? CHAT_NORMAL : CHAT_HIGH);
    st->deal_unread = false;
}

/* The private message after a deal: the hand and what to pass. */
static void tell_deal(struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    struct sbuf sb = {.len = 0};
    struct engine_cards hand = engine_hand(g, seat);
    char label[256];
    sb_printf(&sb, "Hand %d at %s. Your cards: ", g->hand_no,
              room_label(t->a, t->room, label, sizeof label));
    sb_hand(&sb, t, &hand, 0);
    bool blind;
    int k = engine_pass_count(g, seat, &blind);
    if (k > 0) {
        if (g->pass_dir == ENGINE_PASS_SCATTER)
            sb_printf(&sb,
                      " | Pass %d cards, %d to each other player from your "
                      "left on: pass C1 C2 ...",
                      k, k / (g->n - 1));
        else
            sb_printf(&sb, " | Pass %d cards to %s: pass C1 C2 ...%s", k,
                      seat_name(t, engine_pass_target(g, seat, g->pass_dir)),
                      blind ? " (or \"pass blind\")" : "");
    }
    /* the deal waits behind the channel's lines of the hand before; on a
     * hand without passing the first prompt waits behind the deal */
    t->seats[seat].deal_unread = k == 0;
    table_tell(t, seat, sb.buf, CHAT_NORMAL);
}

static const char *dir_word(int dir)
{
    switch (dir) {
    case ENGINE_PASS_LEFT:
        return "left";
    case ENGINE_PASS_RIGHT:
        return "right";
    case ENGINE_PASS_ACROSS:
        return "across";
    case ENGINE_PASS_SCATTER:
        return "to everyone";
    case ENGINE_PASS_LEFT2:
        return "two to the left";
    case ENGINE_PASS_RIGHT2:
        return "two to the right";
    default:
        return "none";
    }
}

void table_sb_passing(struct table *t, int seat, struct sbuf *sb)
{
    sb_passing(t, seat, sb, "Passing");
}

/* "<verb> Q♣ K♣ K♦ to bob" (or "<verb> blind ..."). */
static void sb_passing(struct table *t, int seat, struct sbuf *sb,
                       const char *verb)
{
    const struct engine_game *g = &t->game;
    int k = t->rules.pass_count;
    if (g->blind_mask >> seat & 1) {
        sb_printf(sb, "%s blind", verb);
    } else {
        uint8_t cards[ENGINE_MAX_ACT_CARDS];
        if (k > ENGINE_MAX_ACT_CARDS)
            k = ENGINE_MAX_ACT_CARDS;
        memcpy(cards, g->pass_cards[seat], (size_t)k);
        render_sort(cards, k);
        sb_printf(sb, "%s ", verb);
        sb_cards(sb, t, cards, k);
    }
    if (g->pass_dir == ENGINE_PASS_SCATTER)
        sb_printf(sb, " to the others");
    else
        sb_printf(sb, " to %s",
                  seat_name(t, engine_pass_target(g, seat, g->pass_dir)));
}

/* "; waiting for carol, dave." or "." when every seat has passed. */
static void sb_waiting_for_passes(struct sbuf *sb, const struct table *t)
{
    const struct engine_game *g = &t->game;
    bool first = true;
    for (int s = 0; s < g->n; s++) {
        if (!engine_may_act(g, s))
            continue;
        sb_printf(sb, "%s%s", first ? "; waiting for " : ", ", seat_name(t, s));
        first = false;
    }
    sb_printf(sb, ".");
}

void table_scoreline(struct table *t, struct sbuf *sb)
{
    const struct engine_game *g = &t->game;
    for (int s = 0; s < g->n; s++)
        sb_printf(sb, "%s%s %d", s ? ", " : "", seat_name(t, s),
                  (int)g->totals[s]);
}

void table_send_scores(struct table *t, const char *nick)
{
    const char *names[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < t->capacity; s++)
        names[s] = seat_name(t, s);
    const int32_t *rows[512];
    int nrows = t->nhist < 512 ? t->nhist : 512;
    for (int i = 0; i < nrows; i++)
        rows[i] = t->hist[t->nhist - nrows + i];
    char text[2048];
    render_scores(text, sizeof text, names, t->capacity, rows, nrows,
                  t->game.totals, nick ? 0 : RENDER_SCORES_LAST,
                  table_style(t));
    /* one message per line of the sheet */
    char *line = text;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (nick)
            t->a->ops->tell(t->a, nick, line, CHAT_NORMAL);
        else
            table_say(t, line);
        line = nl ? nl + 1 : NULL;
    }
}

static void keep_history(struct table *t, const struct engine_game *g)
{
    if (t->nhist == t->caphist) {
        t->caphist = t->caphist ? t->caphist * 2 : 16;
        t->hist = realloc(t->hist, sizeof *t->hist * (size_t)t->caphist);
        if (!t->hist)
            abort();
    }
    memcpy(t->hist[t->nhist++], g->points, sizeof t->hist[0]);
}

static void on_engine(void *ctx, const struct engine_game *g,
                      const struct engine_event *ev)
{
    struct table *t = ctx;
    struct sbuf sb = {.len = 0};
    t->gen++; /* a decision asked before is about another position */
    if (t->rec) {
        const struct engine_sink *rec = record_writer_sink(t->rec);
        rec->emit(rec->ctx, g, ev);
    }
    journal_game_event(t, g, ev);
    switch (ev->kind) {
    case ENGINE_EV_DEALT:
        t->last_trick_no = 0;
        for (int s = 0; s < g->n; s++) {
            t->seats[s].queued = false;
            t->seats[s].received_untold = false;
            t->seats[s].received_cookie = 0;
            t->seats[s].passing_cookie = 0;
            t->seats[s].passing_untold = false;
        }
        if (g->pass_dir == ENGINE_PASS_HOLD)
            sb_printf(&sb, "Hand %d: no passing.", g->hand_no);
        else
            sb_printf(&sb, "Hand %d: pass %d %s.", g->hand_no,
                      t->rules.pass_count, dir_word(g->pass_dir));
        if (!t->a->solo)
            sb_printf(&sb, " Your cards are in private messages%s",
                      g->pass_dir == ENGINE_PASS_HOLD ? "."
                                                      : "; pass privately.");
        table_say(t, sb.buf);
        for (int s = 0; s < g->n; s++)
            if (!seat_computer(t, s))
                tell_deal(t, s);
        break;
    case ENGINE_EV_PASS_CHOSEN:
        /* a confirmation at once, also of a pass chosen for a person who
         * timed out; the last to pass hears what came instead, at once */
        if (!seat_computer(t, ev->seat) && g->passed_mask != (1u << g->n) - 1) {
            struct seat *st = &t->seats[ev->seat];
            table_sb_passing(t, ev->seat, &sb);
            sb_waiting_for_passes(&sb, t);
            uint64_t before = st->pending;
            table_tell(t, ev->seat, sb.buf, CHAT_HIGH);
            if (st->pending != before)
                st->passing_cookie = st->pending;
        }
        break;
    case ENGINE_EV_PASSED:
        /* told by advance(): the leader in the first prompt; a pass
         * confirmation not yet written is taken back */
        for (int s = 0; s < g->n; s++) {
            struct seat *st = &t->seats[s];
            st->received_untold = !seat_computer(t, s);
            st->passing_untold = st->passing_cookie && t->a->ops->retract &&
                                 t->a->ops->retract(t->a, st->passing_cookie);
            st->passing_cookie = 0;
        }
        break;
    case ENGINE_EV_DRAWN:
        if (!seat_computer(t, ev->seat)) {
            sb_printf(&sb, "You drew ");
            sb_card(&sb, t, ev->card);
            sb_printf(&sb, " from the stock.");
            table_tell(t, ev->seat, sb.buf, CHAT_NORMAL);
        }
        break;
    case ENGINE_EV_TRICK: {
        /* the trick's cards are the last ones played */
        int n = g->trick_size ? g->trick_size : g->n;
        if (n > g->nplays)
            n = g->nplays;
        t->last_trick_no = g->trick_no;
        t->last_winner = ev->seat < 0 ? -1 : ev->seat;
        for (int i = g->nplays - n; i < g->nplays; i++)
            if (g->play_seat[i] == ev->seat)
                t->last_card = g->plays[i];
        const char *names[ENGINE_MAX_PLAYERS];
        const char *ids[ENGINE_MAX_PLAYERS]; /* the taker's pill */
        for (int s = 0; s < g->n; s++) {
            names[s] = seat_name(t, s);
            ids[s] = seat_user_id(t, s);
        }
        sb_advance(
            &sb, render_trick_ids(sb.buf, sizeof sb.buf, g->trick_no,
                                  g->plays + g->nplays - n,
                                  g->play_seat + g->nplays - n, n, names, ids,
                                  ev->seat < 0 ? RENDER_TRICK_ASIDE : ev->seat,
                                  ev->value, table_style(t)));
        table_say(t, sb.buf);
        if (!t->m->restoring) {
            t->trick_said[0] = t->trick_said[1];
            t->trick_said[1] = t->said_pending;
        }
        break;
    }
    case ENGINE_EV_REST_TAKEN: {
        int len;
        const uint8_t *rest = engine_rest(g, &len);
        if (t->rules.odd_cards == ENGINE_ODD_FACEUP_LEFTOVER) {
            sb_printf(&sb,
                      "%s takes the leftover cards: ", seat_name(t, ev->seat));
            sb_cards(&sb, t, rest, len);
        } else {
            sb_printf(
                &sb, "%s takes the %s (%d cards).", seat_name(t, ev->seat),
                t->rules.odd_cards == ENGINE_ODD_WIDOW ? "widow" : "kitty",
                len);
            struct sbuf p = {.len = 0};
            sb_printf(&p, "The %s holds: ",
                      t->rules.odd_cards == ENGINE_ODD_WIDOW ? "widow"
                                                             : "kitty");
            sb_cards(&p, t, rest, len);
            table_tell(t, ev->seat, p.buf, CHAT_NORMAL);
        }
        table_say(t, sb.buf);
        break;
    }
    case ENGINE_EV_OUT:
        sb_printf(&sb, "%s has played out.", seat_name(t, ev->seat));
        table_say(t, sb.buf);
        break;
    case ENGINE_EV_MOON_PENDING:
        if (seat_is_you(t, ev->seat))
            break; /* their prompt says it */
        sb_printf(&sb, "%s shot the %s! Waiting for their choice.",
                  seat_name(t, ev->seat), ev->value ? "sun" : "moon");
        table_say(t, sb.buf);
        break;
    case ENGINE_EV_MOON: {
        int amount = t->rules.moon_points * (ev->card ? 2 : 1);
        sb_printf(&sb, "%s shot the %s: %s.", seat_name(t, ev->seat),
                  ev->card ? "sun" : "moon",
                  ev->value == ENGINE_MOON_SUBTRACT ? "their score drops"
                                                    : "everyone else scores");
        sb_printf(&sb, " (%d)", amount);
        table_say(t, sb.buf);
        break;
    }
    case ENGINE_EV_HAND_SCORED:
        keep_history(t, g);
        sb_printf(&sb, "Hand %d scores:", g->hand_no);
        for (int s = 0; s < g->n; s++)
            sb_printf(&sb, "%s %s %+d", s ? "," : "", seat_name(t, s),
                      (int)g->points[s]);
        sb_printf(&sb, " | Totals: ");
        table_scoreline(t, &sb);
        table_say(t, sb.buf);
        break;
    case ENGINE_EV_GAME_OVER:
        sb_printf(&sb, "Game over! ");
        for (int i = 0; i < g->nwinners; i++)
            sb_printf(&sb, "%s%s",
                      i ? (i + 1 == g->nwinners ? " and " : ", ") : "",
                      seat_name(t, g->winners[i]));
        sb_printf(&sb, " win%s. Final: ",
                  g->nwinners == 1 && !seat_is_you(t, g->winners[0]) ? "s"
                                                                     : "");
        table_scoreline(t, &sb);
        table_say(t, sb.buf);
        table_send_scores(t, NULL);
        sb.len = 0;
        sb_printf(&sb, "Another game? %shearts opens a table.",
                  t->m->cfg->command_prefix);
        table_say(t, sb.buf);
        break;
    default:
        break;
    }
}

void table_game_over(struct table *t)
{
    /* !stats of a person finds the key they played under, whatever
     * their nick now */
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && t->seats[s].key[0])
            played_add(t->m->played, t->a, t->seats[s].nick, t->seats[s].id,
                       t->seats[s].key);
    table_archive(t, true);
    table_close(t);
}

void table_begin(struct table *t)
{
    struct manager *m = t->m;
    for (int s = 0; s < t->capacity; s++)
        if (!t->seats[s].used)
            table_add_computer(t, m->ai_level);
    loop_cancel(m->loop, t->lobby_timer);
    t->lobby_timer = 0;
    t->playing = true;
    t->online = true;
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = engine_prng_next(&t->rng);
    int dealer = (int)engine_prng_below(&t->rng, (uint32_t)t->capacity);
    engine_game_init(&t->game, &t->rules, seed, dealer);
    const char *names[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < t->capacity; s++)
        names[s] = t->seats[s].nick;
    t->rec = record_writer_new(&t->rules, names, t->capacity);
    if (!t->rec)
        log_error("table %s: cannot record this game", t->room);
    t->sink.emit = on_engine;
    t->sink.ctx = t;
}

void table_start(struct table *t)
{
    table_begin(t);
    journal_game_started(t);
    struct sbuf sb = {.len = 0};
    sb_printf(&sb, "The game begins: ");
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        sb_printf(&sb, "%s%s", s ? ", " : "", st->shown);
        if (!st->human)
            sb_printf(&sb, " (%s)", ai_level_name(st->level));
    }
    if (t->a->solo)
        sb_printf(&sb,
                  ". Rules: %s. Type \"help\" for the commands, a card "
                  "to play it.",
                  t->rules_text);
    else
        sb_printf(&sb,
                  ". Rules: %s. Hands, passes and plays go by private "
                  "message to me.",
                  t->rules_text);
    table_say(t, sb.buf);
    engine_deal(&t->game, &t->sink);
    advance(t);
}

enum engine_refusal table_act(struct table *t, int seat,
                              struct engine_action *a,
                              struct engine_refusal_detail *d)
{
    a->seat = (uint8_t)seat;
    enum engine_refusal why = engine_act(&t->game, a, &t->sink, d);
    if (why == ENGINE_OK) {
        t->seats[seat].timeouts = 0;
        t->seats[seat].overdue = SEAT_ON_TIME;
        if (!t->closing)
            advance(t);
    }
    return why;
}

void table_resume(struct table *t)
{
    if (!t->playing || t->closing)
        return;
    advance(t);
}

void table_back(struct table *t, int seat)
{
    struct seat *st = &t->seats[seat];
    st->away = false;
    st->gone = false;
    st->timeouts = 0;
    /* a decision a computer had still to make for them (it thinks, or the
     * table paused first) is theirs again, prompted again */
    if (st->overdue != SEAT_ON_TIME && t->prompted_seat == seat)
        t->prompted_seat = -1;
    st->overdue = SEAT_ON_TIME;
    loop_cancel(t->m->loop, st->grace_timer);
    st->grace_timer = 0;
    if (t->playing) {
        if (engine_phase(&t->game) == ENGINE_PHASE_PASS &&
            engine_may_act(&t->game, seat))
            tell_deal(t, seat);
        advance(t);
    }
}

static void grace_expired(struct loop *l, void *ctx)
{
    (void)l;
    struct grace *gr = ctx;
    struct table *t = gr->t;
    struct seat *st = &t->seats[gr->seat];
    st->grace_timer = 0;
    if (!st->gone)
        return;
    if (!t->playing) {
        char text[800];
        snprintf(text, sizeof text, "%s left; their seat is free.", st->shown);
        table_stand(t, gr->seat);
        table_say(t, text);
        if (table_humans(t) == 0) {
            table_say(t, "Nobody is left at the table; it closes.");
            table_close(t);
        }
        return;
    }
    st->away = true;
    char text[800];
    snprintf(text, sizeof text,
             "%s has not come back: a computer player takes the seat.",
             st->shown);
    table_say(t, text);
    advance(t);
}

void table_person_left(struct table *t, int seat)
{
    struct seat *st = &t->seats[seat];
    if (st->gone)
        return;
    st->gone = true;
    /* gone from the network, they may have missed their prompt */
    if (t->prompted_seat == seat)
        t->prompted_seat = -1;
    struct grace *gr = &t->graces[seat];
    gr->t = t;
    gr->seat = seat;
    st->grace_timer = loop_timer(
        t->m->loop, (int64_t)t->m->cfg->grace_period * 1000, grace_expired, gr);
    /* a turn timer that waited for their prompt to leave runs now */
    if (t->turn_deferred && !turn_waits_for_lines(t))
        arm_turn(t);
}

void table_stop(struct table *t, const char *why)
{
    table_say(t, why);
    /* archived unfinished: it counts for nobody; not a game whose
     * journal stays for the next start (a shutdown): it goes on then */
    if (t->playing && !t->closing && !(t->m->keep_journals && t->journal[0]))
        table_archive(t, false);
    table_close(t);
}

void table_set_online(struct table *t, bool online)
{
    t->online = online;
    struct chat_adapter *a = t->a;
    if (!online) {
        cancel_turn(t);
        /* the adapter drops the private lines it held: none will be
         * reported sent */
        for (int s = 0; s < t->capacity; s++)
            t->seats[s].pending = 0;
        /* quits and nick changes may go unseen until we are back: who
         * holds each seat's nick then is to be confirmed */
        if (a->ops->verify)
            for (int s = 0; s < t->capacity; s++)
                if (t->seats[s].used && t->seats[s].human && !t->seats[s].gone)
                    t->seats[s].unconfirmed = true;
        return;
    }
    /* who holds each seat's nick now: the unconfirmed, and those seen
     * leaving, who may be back before us (their JOIN went unseen) */
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        if (st->used && st->human && !st->away && (st->unconfirmed || st->gone))
            verify_seat(t, s, true);
    }
    journal_back_online(t);
    table_resume(t);
}

void table_seat_ready(struct table *t, int seat)
{
    if (!t->playing || t->closing || seat_computer(t, seat))
        return;
    journal_seat_ready(t, seat);
    bool acts = engine_may_act(&t->game, seat);
    if (acts && engine_phase(&t->game) == ENGINE_PHASE_PASS)
        tell_deal(t, seat);
    /* a table paused because nobody was there goes on, whoever's turn */
    if (acts || t->paused)
        advance(t);
}

void manager_identity(struct manager *m, struct chat_adapter *a,
                      const char *nick, const char *id, const char *account)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        for (int s = 0; s < t->capacity; s++) {
            struct seat *st = &t->seats[s];
            if (!st->used || !st->human || !(st->unconfirmed || st->gone) ||
                !a->ops->same_nick(a, st->nick, nick))
                continue;
            bool was_unconfirmed = st->unconfirmed;
            st->unconfirmed = false;
            if (id && seat_holder(st, id, account)) {
                if (strcmp(id, st->id) != 0 && strlen(id) < sizeof st->id)
                    snprintf(st->id, sizeof st->id, "%s", id);
                if (st->gone && !st->away) {
                    /* back, unseen: as if they had joined */
                    st->gone = false;
                    st->lost_unseen = false;
                    loop_cancel(m->loop, st->grace_timer);
                    st->grace_timer = 0;
                }
                table_seat_ready(t, s);
            } else {
                if (was_unconfirmed) {
                    log_info("table %s: %s is not who sat down (%s): seat "
                             "held for them",
                             t->room, st->shown,
                             id ? "another person" : "gone");
                    table_person_left(t, s);
                    st->lost_unseen = true;
                }
                /* they may come back before the bot sees them (their
                 * JOIN before ours): ask again now and then, within
                 * the grace period */
                if (st->lost_unseen && !st->away)
                    verify_seat(t, s, false);
            }
        }
    }
}

void manager_sent(struct manager *m, struct chat_adapter *a, uint64_t cookie)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        if (cookie &&
            (t->said_pending == cookie || t->trick_said[0] == cookie ||
             t->trick_said[1] == cookie)) {
            /* the channel's lines leave in order: earlier ones are out */
            for (int k = 0; k < 2; k++)
                if (t->trick_said[k] <= cookie)
                    t->trick_said[k] = 0;
            if (t->said_pending == cookie)
                t->said_pending = 0;
            if (t->deal_deferred && !t->said_pending) {
                t->deal_deferred = false;
                advance(t);
            } else if (t->trick_deferred && !t->trick_said[trick_lag(t)]) {
                t->trick_deferred = false;
                advance(t);
            }
            continue;
        }
        for (int s = 0; s < t->capacity; s++) {
            if (cookie && t->seats[s].received_cookie == cookie)
                t->seats[s].received_cookie = 0;
            if (cookie && t->seats[s].passing_cookie == cookie)
                t->seats[s].passing_cookie = 0;
            if (!cookie || t->seats[s].pending != cookie)
                continue;
            t->seats[s].pending = 0;
            if (t->turn_deferred && !turn_waits_for_lines(t))
                arm_turn(t);
        }
    }
}

/* ---- The manager ------------------------------------------------------ */

struct manager *manager_new(struct loop *l, const struct config *cfg)
{
    struct manager *m = mgr_xcalloc(1, sizeof *m);
    m->loop = l;
    m->limit = limit_new();
    m->played = played_new();
    manager_storage_init(m);
    manager_reload(m, cfg);
    loop_before_sleep(l, reap, m);
    return m;
}

void manager_reload(struct manager *m, const struct config *cfg)
{
    m->cfg = cfg;
    m->ai_level = ai_level_find(cfg->bot_level);
    if (m->ai_level < 0)
        m->ai_level = AI_EASY;
}

int manager_tables(const struct manager *m)
{
    int k = 0;
    for (int i = 0; i < m->ntables; i++)
        k += !m->tables[i]->closing;
    return k;
}

void manager_shutdown(struct manager *m, const char *why)
{
    m->keep_journals = true;
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->closing)
            continue;
        /* a game journaled goes on at the next start */
        if (t->playing && t->journal[0])
            table_stop(t, "heartsbot is shutting down: this game goes on "
                          "when it is back.");
        else if (t->playing)
            table_stop(t, why);
        else
            table_close(t);
    }
}

void manager_free(struct manager *m)
{
    if (!m)
        return;
    /* first: no decision comes back to a table freed */
    think_free(m->think);
    for (int i = 0; i < m->ntables; i++) {
        cancel_all(m->tables[i]);
        table_free(m->tables[i]);
    }
    free(m->tables);
    records_free(m);
    free(m->notices);
    loop_remove_hook(m->loop, reap, m);
    limit_free(m->limit);
    played_free(m->played);
    manager_storage_free(m);
    free(m);
}

int manager_thinking(const struct manager *m)
{
    return m->think ? think_pending(m->think) : 0;
}
