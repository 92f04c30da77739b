/*
 * The people at the tables and the network under them (presence.h).
 */
#include "bot/manager/presence.h"

#include <stdio.h>
#include <string.h>

#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/manager/deal.h"
#include "bot/manager/lang.h"
#include "bot/manager/life.h"
#include "bot/manager/render.h"
#include "bot/manager/say.h"
#include "bot/manager/slow.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"

static void restored_seat_ready(struct table *t, int seat);
static void restored_online(struct table *t);

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
        mgr_seat_key(t->a, u, st->key, sizeof st->key);
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
        !mgr_seat_account_is(st, u->account) ||
        t->a->ops->same_nick(t->a, st->nick, u->nick) ||
        strlen(u->nick) >= sizeof st->nick || strlen(u->id) >= sizeof st->id ||
        mgr_table_of_person(m, t->a, u->nick, &other))
        return false;
    char was[sizeof st->shown];
    snprintf(was, sizeof was, "%s", st->shown);
    mgr_seat_set_name(st, u->nick, u->display);
    snprintf(st->id, sizeof st->id, "%s", u->id);
    mgr_table_names_unique(t);
    /* TRANSLATORS: a player who left came back under another nick:
     * {player} the name they had, {name} the name they have now */
    mgr_table_saym(t, M("{player} is back as {name}."), MSG_S("player", was),
                   MSG_S("name", st->shown), MSG_END);
    return true;
}

void mgr_seen(struct manager *m, struct chat_adapter *a,
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
            if (!mgr_same_person(t, s, u) && !seat_reclaim(m, t, s, u))
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

void mgr_table_back(struct table *t, int seat)
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
            mgr_tell_deal(t, seat);
        mgr_advance(t);
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
        char was[sizeof st->shown];
        snprintf(was, sizeof was, "%s", st->shown);
        mgr_table_stand(t, gr->seat);
        /* TRANSLATORS: before a game: a seated person left the network
         * and did not come back in time */
        mgr_table_saym(t, M("{player} left; their seat is free."),
                       MSG_S("player", was), MSG_END);
        if (mgr_table_humans(t) == 0) {
            mgr_table_saym(t, M("Nobody is left at the table; it closes."),
                           MSG_END);
            mgr_table_close(t);
        }
        return;
    }
    if (mgr_slow(t))
        return; /* gone at !start: the seat waits (mgr_table_person_left) */
    st->away = true;
    mgr_table_saym(
        t, M("{player} has not come back: a computer player takes the seat."),
        MSG_S("player", st->shown), MSG_END);
    mgr_advance(t);
}

void mgr_table_person_left(struct table *t, int seat)
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
    /* a slow game's player keeps the seat while gone: their turns wait
     * for them, and a computer makes a decision only when one runs out;
     * its lobby keeps a seat as long as a turn */
    int grace = t->m->cfg->grace_period;
    if (mgr_slow(t) && t->playing)
        grace = -1;
    else if (mgr_slow(t) && t->turn_timeout > grace)
        grace = t->turn_timeout;
    if (grace >= 0)
        st->grace_timer =
            loop_timer(t->m->loop, (int64_t)grace * 1000, grace_expired, gr);
    /* a turn timer that waited for their prompt to leave runs now */
    if (t->turn_deferred && !mgr_turn_waits(t))
        mgr_arm_turn(t);
}

void mgr_table_set_online(struct table *t, bool online)
{
    t->online = online;
    struct chat_adapter *a = t->a;
    if (!online) {
        mgr_table_cancel_turn(t);
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
            mgr_seat_verify(t, s, true);
    }
    restored_online(t);
    mgr_table_resume(t);
}

void mgr_table_seat_ready(struct table *t, int seat)
{
    if (!t->playing || t->closing || mgr_seat_computer(t, seat))
        return;
    restored_seat_ready(t, seat);
    bool acts = engine_may_act(&t->game, seat);
    if (acts && engine_phase(&t->game) == ENGINE_PHASE_PASS)
        mgr_tell_deal(t, seat);
    /* a table paused because nobody was there goes on, whoever's turn */
    if (acts || t->paused)
        mgr_advance(t);
}

void mgr_identity(struct manager *m, struct chat_adapter *a, const char *nick,
                  const char *id, const char *account)
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
            if (id && mgr_seat_holder(st, id, account)) {
                if (strcmp(id, st->id) != 0 && strlen(id) < sizeof st->id)
                    snprintf(st->id, sizeof st->id, "%s", id);
                if (st->gone && !st->away) {
                    /* back, unseen: as if they had joined */
                    st->gone = false;
                    st->lost_unseen = false;
                    loop_cancel(m->loop, st->grace_timer);
                    st->grace_timer = 0;
                }
                mgr_table_seat_ready(t, s);
            } else {
                if (was_unconfirmed) {
                    log_info("table %s: %s is not who sat down (%s): seat "
                             "held for them",
                             t->room, st->shown,
                             id ? "another person" : "gone");
                    mgr_table_person_left(t, s);
                    st->lost_unseen = true;
                }
                /* they may come back before the bot sees them (their
                 * JOIN before ours): ask again now and then, within
                 * the grace period (a slow game has none: they are
                 * seen when they speak) */
                if (st->lost_unseen && !st->away &&
                    !(mgr_slow(t) && t->playing))
                    mgr_seat_verify(t, s, false);
            }
        }
    }
}

void mgr_sent(struct manager *m, struct chat_adapter *a, uint64_t cookie)
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
                mgr_advance(t);
            } else if (t->trick_deferred && !t->trick_said[mgr_trick_lag(t)]) {
                t->trick_deferred = false;
                mgr_advance(t);
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
            if (t->turn_deferred && !mgr_turn_waits(t))
                mgr_arm_turn(t);
        }
    }
}

/* The line a table rebuilt at start says in its room: what it waits
 * for. */
static void whose_turn(struct table *t, struct strbuf *sb)
{
    const struct engine_game *g = &t->game;
    int lang = mgr_lang_room(t->m, t->a, t->room);
    if (!t->playing) {
        msg_add(sb, lang,
                M("The table goes on after a restart: the table is open "
                  "({seated}/{seats} seated). !start deals."),
                MSG_I("seated", mgr_table_seated(t)),
                MSG_I("seats", t->capacity), MSG_END);
        return;
    }
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PASS: {
        char names[MGR_TEXT_SIZE];
        struct strbuf nb;
        strbuf_init(&nb, names, sizeof names);
        int k = 0;
        for (int s = 0; s < g->n; s++)
            if (engine_may_act(g, s))
                strbuf_addf(&nb, "%s%s", k++ ? ", " : "", mgr_seat_name(t, s));
        msg_add(sb, lang,
                /* TRANSLATORS: {players}: the names of those still to
                 * pass, joined with ", " */
                M("The game goes on after a restart: waiting for the passes "
                  "of {players}."),
                MSG_S("players", names), MSG_END);
        return;
    }
    case ENGINE_PHASE_PLAY:
    case ENGINE_PHASE_DISCARD:
    case ENGINE_PHASE_MOON: {
        enum engine_phase ph = engine_phase(g);
        const char *id =
            ph == ENGINE_PHASE_PLAY
                ? M("The game goes on after a restart: hand {hand}, {player} "
                    "to play.")
            : ph == ENGINE_PHASE_DISCARD
                ? M("The game goes on after a restart: hand {hand}, {player} "
                    "to discard.")
                /* TRANSLATORS: {player} shot the moon and chooses how
                 * it scores */
                : M("The game goes on after a restart: hand {hand}, {player} "
                    "to choose.");
        msg_add(sb, lang, id, MSG_I("hand", g->hand_no),
                MSG_S("player", mgr_seat_name(t, engine_turn(g))), MSG_END);
        return;
    }
    default:
        msg_add(sb, lang,
                M("The game goes on after a restart: the next hand is dealt."),
                MSG_END);
        return;
    }
}

/* A confirmed person at a table rebuilt at start: their hand, once. */
static void restored_seat_ready(struct table *t, int seat)
{
    struct seat *st = &t->seats[seat];
    if (!st->restored || !t->playing || mgr_seat_computer(t, seat) ||
        st->unconfirmed || st->gone)
        return;
    st->restored = false;
    /* one who must pass gets the deal again (mgr_table_seat_ready) */
    if (engine_phase(&t->game) == ENGINE_PHASE_PASS &&
        engine_may_act(&t->game, seat))
        return;
    struct engine_cards hand = engine_hand(&t->game, seat);
    char cards[MGR_TEXT_SIZE];
    struct render_look look = mgr_look_seat(t, seat);
    look.style = mgr_table_style(t); /* the config's colours */
    render_hand(cards, sizeof cards, &hand, 0, look);
    /* TRANSLATORS: {hand}: the cards, by suit */
    mgr_table_tellm(t, seat, CHAT_NORMAL, M("Your hand: {hand}"),
                    MSG_S("hand", cards), MSG_END);
}

/* The adapter is connected again: a table rebuilt at start tells the
 * channel once and every seated person their hand (people the adapter
 * must first confirm get it from mgr_table_seat_ready). */
static void restored_online(struct table *t)
{
    if (!t->restored)
        return;
    t->restored = false;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    whose_turn(t, &sb);
    mgr_table_say(t, sb.buf);
    /* those the adapter need not confirm get their hand (or deal) now */
    for (int s = 0; s < t->capacity && !t->closing; s++) {
        const struct seat *st = &t->seats[s];
        if (st->used && st->human && !st->unconfirmed && !st->gone)
            mgr_table_seat_ready(t, s);
    }
}

void mgr_on_gone(struct manager *m, struct chat_adapter *a, const char *room,
                 const char *nick)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        if (room && !a->ops->same_nick(a, t->room, room))
            continue;
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used && t->seats[s].human &&
                a->ops->same_nick(a, t->seats[s].nick, nick))
                mgr_table_person_left(t, s);
    }
}

/* The person of a seat is here (joined, or spoke): no grace period. With
 * `reprompt`, a seat that must act now is prompted again. */
static void present(struct manager *m, struct table *t, int s, bool reprompt)
{
    struct seat *st = &t->seats[s];
    /* nick and user@host match: who holds the nick is confirmed; one
     * waiting for that (a reconnect, a restart) is told what they missed,
     * as the adapter's answer would have (mgr_identity); before the
     * table is back online, restored_online does it */
    bool was_unconfirmed = st->unconfirmed;
    st->unconfirmed = false;
    if (!st->gone || st->away) {
        if (was_unconfirmed && t->online)
            mgr_table_seat_ready(t, s);
        return;
    }
    st->gone = false;
    loop_cancel(m->loop, st->grace_timer);
    st->grace_timer = 0;
    if (reprompt)
        mgr_table_seat_ready(t, s);
    if (t->paused)
        mgr_table_resume(t);
}

void mgr_on_join(struct manager *m, struct chat_adapter *a,
                 const struct chat_event *ev)
{
    struct table *t = mgr_table_find(m, a, ev->room);
    if (!t)
        return;
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && mgr_same_person(t, s, &ev->from))
            present(m, t, s, true);
}

/* Anything a seated person says shows they are here. */
void mgr_spoke(struct manager *m, struct chat_adapter *a,
               const struct chat_user *u)
{
    int s;
    struct table *t = mgr_table_of_person(m, a, u->nick, &s);
    if (t && mgr_same_person(t, s, u))
        present(m, t, s, false);
}

void mgr_on_nick(struct manager *m, struct chat_adapter *a,
                 const struct chat_event *ev)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used && mgr_same_person(t, s, &ev->from))
                mgr_seat_set_name(&t->seats[s], ev->target, ev->from.display);
        mgr_table_names_unique(t);
    }
}
