/*
 * Turns, timers and prompts (turn.h): the game moves on until a person
 * must act.
 */
#include "bot/manager/turn.h"

#include <stdio.h>
#include <string.h>

#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/manager/cmd_teach.h"
#include "bot/manager/deal.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
#include "bot/manager/life.h"
#include "bot/manager/say.h"
#include "bot/manager/slow.h"
#include "bot/manager/text.h"
#include "bot/think.h"
#include "engine/ai/ai.h"

static void thought(void *ctx, const struct think_result *r);
static void tell_computer_acted(struct table *t, int seat,
                                const struct engine_action *a, bool away);
/* The prompt of the seat to act. */
static void prompt(struct table *t, int seat);

static void act(struct table *t, const struct engine_action *a)
{
    struct engine_refusal_detail d;
    enum engine_refusal why = engine_act(&t->game, a, &t->sink, &d);
    char words[64];
    if (why) /* a computer player's choice is always legal */
        log_error("table %s: action refused: %s", t->room,
                  rule_words_refusal_text(words, sizeof words, MSG_EN, why));
}

/* Whether a computer makes the seat's decision: a computer's seat, an
 * absent person's, or a person's whose time is up. */
static bool computer_turn(const struct table *t, int seat)
{
    return mgr_seat_computer(t, seat) || t->seats[seat].overdue != SEAT_ON_TIME;
}

/* The level deciding for the seat, and its budget from the config. */
static int seat_level(const struct table *t, int seat)
{
    const struct seat *s = &t->seats[seat];
    return s->human ? t->m->ai_level : s->level;
}

/* What the computer players are told of the table: each computer seat's
 * level's rating; a person's seat is unknown (0), even while a computer
 * plays for them, since people are rated on a scale of their own. */
static void table_ratings(const struct table *t, struct ai_table *out)
{
    memset(out, 0, sizeof *out);
    for (int s = 0; s < t->game.n && s < ENGINE_MAX_PLAYERS; s++)
        if (t->seats[s].used && !t->seats[s].human)
            out->rating[s] = ai_level_rating(t->seats[s].level, NULL);
}

static int level_budget(const struct config *cfg, int level)
{
    return level >= 0 && level < ai_level_count() ? cfg->playouts[level] : 0;
}

/* A computer's decision for the seat is made: for a person whose time was
 * up they are told what it was (before the action: a pass's confirmation
 * follows), then it is the seat's action. */
static void computer_applies(struct table *t, int seat,
                             const struct engine_action *a)
{
    struct seat *st = &t->seats[seat];
    if (st->human && st->overdue != SEAT_ON_TIME)
        tell_computer_acted(t, seat, a, st->overdue == SEAT_OVERDUE_AWAY);
    st->overdue = SEAT_ON_TIME;
    act(t, a);
}

struct think *mgr_think_worker(struct manager *m)
{
    if (!m->think)
        m->think =
            think_new_workers(m->loop, thought, m, m->cfg->think_threads);
    return m->think;
}

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
    mgr_think_worker(m);
    struct think_job job = {.id = ++m->think_ids,
                            .level = level,
                            .budget = budget,
                            .seat = seat,
                            .rules = t->rules,
                            .game = t->game};
    table_ratings(t, &job.table);
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
    if (r->kind == THINK_EXPLAIN) {
        mgr_teach_thought(m, r);
        return;
    }
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
            mgr_advance(t);
        return;
    }
}

/* What a computer player did for a person whose time was up: "Time is
 * up: a computer player played 5♣ for you."; `away`, the second time in a
 * row: it has their seat now. */
static void tell_computer_acted(struct table *t, int seat,
                                const struct engine_action *a, bool away)
{
    struct render_look look = mgr_look_seat(t, seat);
    char cards[MGR_TEXT_SIZE] = "";
    /* each action's message: the first time, and away */
    const char *said[2];
    switch (a->kind) {
    case ENGINE_ACT_PLAY:
        mgr_card_text(cards, sizeof cards, look, a->cards[0]);
        said[0] = M("Time is up: a computer player played {card} for you.");
        said[1] = M("You timed out again: a computer player played {card} "
                    "for you and has your seat now. Tell me \"back\" to take "
                    "it again.");
        break;
    case ENGINE_ACT_DISCARD:
        mgr_cards_text(cards, sizeof cards, look, a->cards, a->ncards);
        said[0] = M("Time is up: a computer player discarded {cards} for you.");
        said[1] = M("You timed out again: a computer player discarded "
                    "{cards} for you and has your seat now. Tell me \"back\" "
                    "to take it again.");
        break;
    case ENGINE_ACT_MOON:
        /* TRANSLATORS: "moon subtract" and "moon add" are commands: keep
         * them. */
        said[0] = a->moon == ENGINE_MOON_SUBTRACT
                      ? M("Time is up: a computer player chose \"moon "
                          "subtract\" for you.")
                      : M("Time is up: a computer player chose \"moon add\" "
                          "for you.");
        said[1] = a->moon == ENGINE_MOON_SUBTRACT
                      ? M("You timed out again: a computer player chose "
                          "\"moon subtract\" for you and has your seat now. "
                          "Tell me \"back\" to take it again.")
                      : M("You timed out again: a computer player chose "
                          "\"moon add\" for you and has your seat now. Tell "
                          "me \"back\" to take it again.");
        break;
    case ENGINE_ACT_PASS: {
        uint8_t chosen[ENGINE_MAX_ACT_CARDS];
        int n =
            a->ncards < ENGINE_MAX_ACT_CARDS ? a->ncards : ENGINE_MAX_ACT_CARDS;
        memcpy(chosen, a->cards, (size_t)n);
        render_sort(chosen, n);
        mgr_cards_text(cards, sizeof cards, look, chosen, n);
        said[0] = M("Time is up: a computer player passes {cards} for you.");
        said[1] = M("You timed out again: a computer player passes {cards} "
                    "for you and has your seat now. Tell me \"back\" to take "
                    "it again.");
        break;
    }
    default: /* a blind pass */
        said[0] = M("Time is up: a computer player passes for you.");
        said[1] = M("You timed out again: a computer player passes for you "
                    "and has your seat now. Tell me \"back\" to take it "
                    "again.");
        break;
    }
    mgr_table_tellm(t, seat, CHAT_HIGH, said[away], MSG_S("card", cards),
                    MSG_S("cards", cards), MSG_END);
}

static void deal_now(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->deal_timer = 0;
    engine_deal(&t->game, &t->sink);
    mgr_advance(t);
}

static bool plays_unasked(struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    struct seat *st = &t->seats[seat];
    if (engine_phase(g) != ENGINE_PHASE_PLAY)
        return false;
    uint64_t legal = engine_legal_plays(g);
    struct engine_action a = {.kind = ENGINE_ACT_PLAY, .ncards = 1};
    a.seat = (uint8_t)seat;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    if (st->queued) {
        st->queued = false;
        a.cards[0] = st->queued_card;
        if (legal & ENGINE_BIT(st->queued_card)) {
            act(t, &a);
            return true;
        }
        char card[MGR_TEXT_SIZE];
        mgr_table_tellm(t, seat, CHAT_HIGH,
                        M("You queued {card}, but it is not a legal play "
                          "now: dropped."),
                        MSG_S("card", mgr_card_text(card, sizeof card,
                                                    mgr_look_seat(t, seat),
                                                    st->queued_card)),
                        MSG_END);
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
        if (mgr_received_to_tell(t, seat))
            mgr_sb_received(&sb, t, seat);
        struct render_look look = mgr_look_seat(t, seat);
        char card[MGR_TEXT_SIZE];
        msg_add(
            &sb, look.lang, M("Autoplay: {card}, your only legal card."),
            MSG_S("card", mgr_card_text(card, sizeof card, look, a.cards[0])),
            MSG_END);
        mgr_table_tell(t, seat, sb.buf, CHAT_HIGH);
    }
    act(t, &a);
    return true;
}

/* Whether a person is at the table: neither away nor gone. In a slow
 * game one who left the channel is still at it: people come and go over
 * days (a night offline is no reason to pause). */
static bool attended(const struct table *t)
{
    bool slow = mgr_slow(t);
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        if (st->used && st->human && !st->away && (!st->gone || slow))
            return true;
    }
    return false;
}

/* How long a paused table waits before it ends: a slow game at least a
 * turn. */
static int unattended_end(const struct table *t)
{
    int end = t->m->cfg->unattended_end;
    return mgr_slow(t) && t->turn_timeout > end ? t->turn_timeout : end;
}

static void unattended_over(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->unattended_timer = 0;
    mgr_table_stop(
        t, msg_template(mgr_lang_room(t->m, t->a, t->room),
                        M("Nobody came back to the table: the game ends "
                          "unscored.")));
}

static void pause_now(struct table *t)
{
    t->paused = true;
    mgr_table_cancel_turn(t);
    loop_cancel(t->m->loop, t->deal_timer);
    loop_cancel(t->m->loop, t->unattended_timer);
    t->deal_timer = 0;
    t->unattended_timer = loop_timer(
        t->m->loop, (int64_t)unattended_end(t) * 1000, unattended_over, t);
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    int min = (unattended_end(t) + 59) / 60;
    /* TRANSLATORS: "back" is a command: keep it. */
    msg_addn(&sb, mgr_lang_room(t->m, t->a, t->room),
             MN("Nobody is at the table, so the game pauses. Tell me \"back\" "
                "to go on; it ends in {n} minute otherwise.",
                "Nobody is at the table, so the game pauses. Tell me \"back\" "
                "to go on; it ends in {n} minutes otherwise."),
             (unsigned long)min, MSG_I("n", min), MSG_END);
    mgr_table_say(t, text);
    /* the people a computer plays for hear it where they would say
     * "back"; whose time just ran out is told that too, since no computer
     * acted for them (the game paused first) to say so; one person at a
     * terminal reads the table's line */
    if (t->a->solo)
        return;
    char label[256];
    mgr_room_label(t->a, t->room, label, sizeof label);
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        if (!st->used || !st->human || !st->away || st->gone)
            continue;
        strbuf_reset(&sb);
        if (st->overdue == SEAT_OVERDUE_AWAY)
            /* TRANSLATORS: {room} is where the table is ("#hearts"). */
            msg_addn(&sb, mgr_lang_seat(t, s),
                     MN("You timed out again and nobody else is at the "
                        "table at {room}, so the game pauses. Tell me "
                        "\"back\" to go on; it ends in {n} minute otherwise.",
                        "You timed out again and nobody else is at the "
                        "table at {room}, so the game pauses. Tell me "
                        "\"back\" to go on; it ends in {n} minutes "
                        "otherwise."),
                     (unsigned long)min, MSG_S("room", label), MSG_I("n", min),
                     MSG_END);
        else
            msg_addn(&sb, mgr_lang_seat(t, s),
                     MN("Nobody is at the table at {room}, so the game "
                        "pauses. Tell me \"back\" to go on; it ends in {n} "
                        "minute otherwise.",
                        "Nobody is at the table at {room}, so the game "
                        "pauses. Tell me \"back\" to go on; it ends in {n} "
                        "minutes otherwise."),
                     (unsigned long)min, MSG_S("room", label), MSG_I("n", min),
                     MSG_END);
        mgr_table_tell(t, s, text, CHAT_HIGH);
    }
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
            mgr_table_saym(t, M("The game goes on."), MSG_END);
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
int mgr_trick_lag(const struct table *t)
{
    return t->a->ops->limited && t->a->ops->limited(t->a) ? 0 : 1;
}

void mgr_advance(struct table *t)
{
    mgr_table_cancel_turn(t);
    for (int guard = 0; guard < 10000 && !t->closing; guard++) {
        struct engine_game *g = &t->game;
        if (engine_phase(g) != ENGINE_PHASE_GAME_OVER && unattended_hold(t))
            return;
        switch (engine_phase(g)) {
        case ENGINE_PHASE_GAME_OVER:
            mgr_table_game_over(t);
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
            mgr_arm_turn(t);
            return;
        }
        default: {
            /* trick N+1 begins only once the channel has trick N (N-1
             * where each message costs a slot: one line for two tricks) */
            if (t->trick_said[mgr_trick_lag(t)]) {
                t->trick_deferred = true;
                return;
            }
            int s = engine_turn(g);
            if (s < 0)
                return;
            mgr_tell_received(t, mgr_seat_computer(t, s) ? -1 : s);
            if (computer_turn(t, s)) {
                if (!computer_acts(t, s))
                    return; /* thinking: thought() goes on */
                continue;
            }
            if (plays_unasked(t, s))
                continue;
            prompt(t, s);
            mgr_arm_turn(t);
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
    int left = mgr_turn_seconds(t) - mgr_turn_seconds(t) / 2;
    struct render_look look = mgr_look_room(t);
    char label[256], names_text[MGR_TEXT_SIZE];
    struct strbuf names;
    strbuf_init(&names, names_text, sizeof names_text);
    mgr_room_label(t->a, t->room, label, sizeof label);
    for (int s = 0; s < t->game.n; s++) {
        if (engine_may_act(&t->game, s) && !mgr_seat_computer(t, s)) {
            char text[MGR_TEXT_SIZE];
            struct strbuf sb;
            strbuf_init(&sb, text, sizeof text);
            /* TRANSLATORS: {room} is where the table is ("#hearts"), {n}
             * the seconds left to act. */
            msg_addn(&sb, mgr_lang_seat(t, s),
                     MN("Reminder: the table at {room} waits for you ({n} s "
                        "left).",
                        "Reminder: the table at {room} waits for you ({n} s "
                        "left)."),
                     (unsigned long)left, MSG_S("room", label),
                     MSG_I("n", left), MSG_END);
            mgr_table_tell(t, s, text, CHAT_HIGH);
            if (names.len)
                strbuf_addstr(&names, ", ");
            char name[MGR_TEXT_SIZE];
            strbuf_addstr(&names,
                          mgr_seat_text(name, sizeof name, t, s, true, look));
        }
    }
    /* once a turn, the channel knows whom it waits for */
    if (names.len) {
        char text[MGR_TEXT_SIZE];
        struct strbuf sb;
        strbuf_init(&sb, text, sizeof text);
        /* TRANSLATORS: {players} is a list of names ("alice, bob"), {n}
         * the seconds left to act. */
        msg_addn(&sb, look.lang,
                 MN("The table waits for {players} ({n} s left).",
                    "The table waits for {players} ({n} s left)."),
                 (unsigned long)left, MSG_S("players", names_text),
                 MSG_I("n", left), MSG_END);
        mgr_table_say(t, text);
    }
}

void mgr_time_up(struct table *t)
{
    /* a slow game's player keeps the seat however often they time out:
     * a computer makes the one decision, and the next turn is theirs */
    bool slow = mgr_slow(t);
    for (int s = 0; s < t->game.n && !t->closing; s++) {
        if (!engine_may_act(&t->game, s) || mgr_seat_computer(t, s))
            continue;
        struct seat *st = &t->seats[s];
        st->timeouts++;
        bool away = !slow && st->timeouts >= t->m->cfg->max_timeouts;
        if (away) {
            st->away = true;
            if (mgr_seat_is_you(t, s))
                mgr_table_saym(t, M("You are away."), MSG_END);
            else
                /* TRANSLATORS: "back" is a command: keep it. */
                mgr_table_saym(t,
                               M("{player} is away: a computer player plays "
                                 "for them until they tell me \"back\"."),
                               MSG_S("player", st->shown), MSG_END);
        }
        /* mgr_advance() has a computer decide for them, and tells them */
        st->overdue = away ? SEAT_OVERDUE_AWAY : SEAT_OVERDUE;
    }
    if (!t->closing)
        mgr_advance(t);
}

static void timed_out(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->turn_timer = 0;
    mgr_time_up(t);
}

/* Whether a person who must act has not yet been sent their last line
 * (the prompt, the deal): their time starts when it leaves. */
bool mgr_turn_waits(const struct table *t)
{
    /* nothing goes to a seat that is gone or not yet confirmed: its timer
     * runs (a computer acts for it in time), whatever was in flight */
    for (int s = 0; s < t->game.n; s++) {
        const struct seat *st = &t->seats[s];
        if (st->pending && !st->gone && !st->unconfirmed &&
            engine_may_act(&t->game, s) && !mgr_seat_computer(t, s))
            return true;
    }
    return false;
}

void mgr_arm_turn(struct table *t)
{
    mgr_table_cancel_turn(t);
    if (!t->online)
        return; /* no timeouts while the bot itself is away */
    if (mgr_slow(t)) {
        /* hours: the deadline is the wall clock's, kept over restarts,
         * whenever the prompt leaves */
        mgr_slow_arm(t);
        return;
    }
    if (mgr_turn_waits(t)) {
        t->turn_deferred = true; /* mgr_sent arms it */
        return;
    }
    int64_t ms = (int64_t)mgr_turn_seconds(t) * 1000;
    t->turn_timer = loop_timer(t->m->loop, ms, timed_out, t);
    t->reminder_timer = loop_timer(t->m->loop, ms / 2, reminder, t);
}

/*
 * Whose turn and where, one sentence: "Your turn at #hearts, trick 5:
 * alice 7♣, bob K♣." when following; "Your turn at #hearts to lead trick
 * 8." when leading. Who took the trick before is said only when it was
 * not the reader (a trick set aside, or a variant that gives the lead to
 * another seat): the channel has just said it, and a prompt must fit two
 * lines of an 80-column client.
 */
static void where_in_hand(struct strbuf *sb, struct table *t, int seat,
                          struct render_look look)
{
    const struct engine_game *g = &t->game;
    char label[256], card[MGR_TEXT_SIZE];
    mgr_room_label(t->a, t->room, label, sizeof label);
    int no = g->trick_no + 1;
    if (g->trick_len) {
        char plays_text[MGR_TEXT_SIZE];
        struct strbuf plays;
        strbuf_init(&plays, plays_text, sizeof plays_text);
        for (int i = 0; i < g->trick_len; i++)
            strbuf_addf(&plays, "%s%s %s", i ? ", " : "",
                        mgr_seat_name(t, g->trick_seat[i]),
                        mgr_card_text(card, sizeof card, look, g->trick[i]));
        /* TRANSLATORS: a prompt: {room} is where the table is, {trick}
         * the trick's number, {plays} its cards so far ("alice 7♣, bob
         * K♣"). */
        msg_add(sb, look.lang,
                M("Your turn at {room}, trick {trick}: {plays}."),
                MSG_S("room", label), MSG_I("trick", no),
                MSG_S("plays", plays_text), MSG_END);
        return;
    }
    bool told = t->last_trick_no != 0 && t->last_trick_no == g->trick_no &&
                t->last_winner != seat;
    if (told && t->last_winner >= 0)
        mgr_card_text(card, sizeof card, look, t->last_card);
    if (!told)
        msg_add(sb, look.lang, M("Your turn at {room} to lead trick {trick}."),
                MSG_S("room", label), MSG_I("trick", no), MSG_END);
    else if (t->last_winner < 0)
        /* TRANSLATORS: {last} is the number of the trick before, set aside
         * for the next trick's winner. */
        msg_add(sb, look.lang,
                M("Your turn at {room} to lead trick {trick}; trick {last} "
                  "was set aside."),
                MSG_S("room", label), MSG_I("trick", no),
                MSG_I("last", t->last_trick_no), MSG_END);
    else
        /* a trick taken by another seat that left the lead to this one */
        msg_add(sb, look.lang,
                M("Your turn at {room} to lead trick {trick}; {player} took "
                  "trick {last} with {card}."),
                MSG_S("room", label), MSG_I("trick", no),
                MSG_S("player", mgr_seat_name(t, t->last_winner)),
                MSG_I("last", t->last_trick_no), MSG_S("card", card), MSG_END);
}

/*
 * The cards, each once: the legal ones in words (not only marked), then
 * the rest of the hand. "Any card: ♣ J  ♦ 9 Q A." when every card is
 * legal; "Play one of: ♣ 2 8. Others: ♦ 3 9." or "Only legal: 2♣.
 * Others: ♦ 3 9." otherwise.
 */
static void hand_cards(struct strbuf *sb, struct render_look look,
                       const struct engine_cards *hand, uint64_t legal)
{
    struct engine_cards others = {.one = hand->one & ~legal,
                                  .two = hand->two & ~legal};
    struct engine_cards playable = {.one = hand->one & legal,
                                    .two = hand->two & legal};
    char legal_text[MGR_TEXT_SIZE], others_text[MGR_TEXT_SIZE];
    mgr_hand_text(legal_text, sizeof legal_text, look, &playable, 0);
    if (!others.one) {
        /* TRANSLATORS: a prompt when every card may be played: {hand} is
         * the whole hand. */
        msg_add(sb, look.lang, M("Any card: {hand}."),
                MSG_S("hand", legal_text), MSG_END);
        return;
    }
    mgr_hand_text(others_text, sizeof others_text, look, &others, 0);
    if ((legal & (legal - 1)) == 0)
        /* TRANSLATORS: a prompt when one card may be played: {card};
         * {others} the rest of the hand. */
        msg_add(sb, look.lang, M("Only legal: {card}. Others: {others}."),
                MSG_S("card", mgr_card_text(legal_text, sizeof legal_text, look,
                                            __builtin_ctzll(legal))),
                MSG_S("others", others_text), MSG_END);
    else
        /* TRANSLATORS: a prompt: {legal} the cards that may be played,
         * {others} the rest of the hand. */
        msg_add(sb, look.lang, M("Play one of: {legal}. Others: {others}."),
                MSG_S("legal", legal_text), MSG_S("others", others_text),
                MSG_END);
}

static void prompt(struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    uint32_t key = (uint32_t)g->hand_no << 20 | (uint32_t)g->nplays << 4 |
                   (uint32_t)engine_phase(g);
    if (t->prompted_seat == seat && t->prompted_key == key)
        return; /* this turn was prompted already */
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    struct engine_cards hand = engine_hand(g, seat);
    struct render_look look = mgr_look_seat(t, seat);
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PLAY: {
        uint64_t legal = engine_legal_plays(g);
        if (mgr_received_to_tell(t, seat))
            mgr_sb_received(&sb, t, seat);
        where_in_hand(&sb, t, seat, look);
        strbuf_addstr(&sb, " ");
        hand_cards(&sb, look, &hand, legal);
        /* the tally once there is something to tell: before any card
         * worth points is played, "nothing yet" would only make the
         * longest prompts of the hand (a full hand, the cards received)
         * longer; !status still says it */
        if (!mgr_tally_empty(t)) {
            strbuf_addstr(&sb, " ");
            mgr_sb_tally_for(&sb, t, look, seat);
        }
        break;
    }
    case ENGINE_PHASE_DISCARD: {
        char text[MGR_TEXT_SIZE];
        int n = engine_discard_count(g);
        /* TRANSLATORS: the kitty: the cards left over after the deal.
         * "discard C1 C2 ..." is the command with card codes: keep
         * "discard". */
        msg_addn(
            &sb, look.lang,
            MN("You took the kitty. Discard {n} card into your tricks "
               "(discard C1 C2 ...): {hand}",
               "You took the kitty. Discard {n} cards into your tricks "
               "(discard C1 C2 ...): {hand}"),
            (unsigned long)n, MSG_I("n", n),
            MSG_S("hand", mgr_hand_text(text, sizeof text, look, &hand, 0)),
            MSG_END);
        break;
    }
    case ENGINE_PHASE_MOON: {
        int n = t->rules.moon_points * (g->moon_sun ? 2 : 1);
        static const char *const said[2][2] = {
            /* TRANSLATORS: shooting the moon: taking every card worth
             * points. "moon subtract" and "moon add" are commands: keep
             * them. */
            {MN("You shot the moon! Tell me \"moon subtract\" (you score "
                "-{n}) or \"moon add\" (everyone else +{n}).",
                "You shot the moon! Tell me \"moon subtract\" (you score "
                "-{n}) or \"moon add\" (everyone else +{n}).")},
            /* TRANSLATORS: shooting the sun: taking every trick. "moon
             * subtract" and "moon add" are commands: keep them. */
            {MN("You shot the sun! Tell me \"moon subtract\" (you score "
                "-{n}) or \"moon add\" (everyone else +{n}).",
                "You shot the sun! Tell me \"moon subtract\" (you score "
                "-{n}) or \"moon add\" (everyone else +{n}).")}};
        const char *const *mine = said[g->moon_sun ? 1 : 0];
        msg_addn(&sb, look.lang, mine[0], mine[1], (unsigned long)n,
                 MSG_I("n", n), MSG_END);
        break;
    }
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
    mgr_table_tell(t, seat, sb.buf, st->deal_unread ? CHAT_NORMAL : CHAT_HIGH);
    st->deal_unread = false;
}

void mgr_table_start(struct table *t)
{
    mgr_table_begin(t);
    int lost;
    if (mgr_journal_started(t, &lost))
        mgr_table_journal_lost(t, lost);
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    char players_text[MGR_TEXT_SIZE];
    struct strbuf players;
    strbuf_init(&players, players_text, sizeof players_text);
    int lang = mgr_lang_room(t->m, t->a, t->room);
    char rules[MGR_TEXT_SIZE];
    mgr_table_rules_shown(t, rules, sizeof rules);
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        if (s)
            strbuf_addstr(&players, ", ");
        if (st->human)
            strbuf_addstr(&players, st->shown);
        else
            /* TRANSLATORS: a computer player in the list of the game's
             * players: {player} its name, {level} its level ("easy"), a
             * word of the commands: keep it. */
            msg_add(&players, lang, M("{player} ({level})"),
                    MSG_S("player", st->shown),
                    MSG_S("level", ai_level_name(st->level)), MSG_END);
    }
    if (t->a->solo)
        /* TRANSLATORS: {players} is the list of the players, {rules} the
         * rules ("standard, target=100"); "help" is a command: keep it. */
        msg_add(&sb, lang,
                M("The game begins: {players}. Rules: {rules}. Type \"help\" "
                  "for the commands, a card to play it."),
                MSG_S("players", players_text), MSG_S("rules", rules), MSG_END);
    else
        msg_add(&sb, lang,
                M("The game begins: {players}. Rules: {rules}. Hands, passes "
                  "and plays go by private message to me."),
                MSG_S("players", players_text), MSG_S("rules", rules), MSG_END);
    mgr_table_say(t, sb.buf);
    engine_deal(&t->game, &t->sink);
    mgr_advance(t);
}

enum engine_refusal mgr_table_act(struct table *t, int seat,
                                  struct engine_action *a,
                                  struct engine_refusal_detail *d)
{
    a->seat = (uint8_t)seat;
    enum engine_refusal why = engine_act(&t->game, a, &t->sink, d);
    if (why == ENGINE_OK) {
        t->seats[seat].timeouts = 0;
        t->seats[seat].overdue = SEAT_ON_TIME;
        if (!t->closing)
            mgr_advance(t);
    }
    return why;
}

void mgr_table_resume(struct table *t)
{
    if (!t->playing || t->closing)
        return;
    mgr_advance(t);
}
