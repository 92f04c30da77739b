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
#include "bot/manager/deal.h"
#include "bot/manager/journaling.h"
#include "bot/manager/life.h"
#include "bot/manager/say.h"
#include "bot/manager/text.h"
#include "bot/think.h"
#include "engine/ai/ai.h"

static void thought(void *ctx, const struct think_result *r);
static void sb_action(struct strbuf *sb, const struct table *t,
                      const struct engine_action *a);
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
    if (st->human && st->overdue != SEAT_ON_TIME) {
        bool away = st->overdue == SEAT_OVERDUE_AWAY;
        char sb_text[MGR_TEXT_SIZE];
        struct strbuf sb;
        strbuf_init(&sb, sb_text, sizeof sb_text);
        strbuf_addf(&sb, "%s: a computer player ",
                    away ? "You timed out again" : "Time is up");
        sb_action(&sb, t, a);
        strbuf_addf(&sb, " for you");
        if (away)
            strbuf_addf(&sb, " and has your seat now. Tell me \"back\" to "
                             "take it again.");
        else
            strbuf_addf(&sb, ".");
        mgr_table_tell(t, seat, sb.buf, CHAT_HIGH);
    }
    st->overdue = SEAT_ON_TIME;
    act(t, a);
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
            mgr_advance(t);
        return;
    }
}

/* What a computer player did for a person: "played 5♣". */
static void sb_action(struct strbuf *sb, const struct table *t,
                      const struct engine_action *a)
{
    switch (a->kind) {
    case ENGINE_ACT_PLAY:
        strbuf_addf(sb, "played ");
        mgr_sb_card(sb, t, a->cards[0]);
        break;
    case ENGINE_ACT_DISCARD:
        strbuf_addf(sb, "discarded ");
        mgr_sb_cards(sb, t, a->cards, a->ncards);
        break;
    case ENGINE_ACT_MOON:
        strbuf_addf(sb, "chose \"moon %s\"",
                    a->moon == ENGINE_MOON_SUBTRACT ? "subtract" : "add");
        break;
    case ENGINE_ACT_PASS: {
        uint8_t cards[ENGINE_MAX_ACT_CARDS];
        int n =
            a->ncards < ENGINE_MAX_ACT_CARDS ? a->ncards : ENGINE_MAX_ACT_CARDS;
        memcpy(cards, a->cards, (size_t)n);
        render_sort(cards, n);
        strbuf_addf(sb, "passes ");
        mgr_sb_cards(sb, t, cards, n);
        break;
    }
    default:
        strbuf_addf(sb, "passes");
        break;
    }
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
        strbuf_addf(&sb, "You queued ");
        mgr_sb_card(&sb, t, st->queued_card);
        strbuf_addf(&sb, ", but it is not a legal play now: dropped.");
        mgr_table_tell(t, seat, sb.buf, CHAT_HIGH);
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
        strbuf_addf(&sb, "Autoplay: ");
        mgr_sb_card(&sb, t, a.cards[0]);
        strbuf_addf(&sb, ", your only legal card.");
        mgr_table_tell(t, seat, sb.buf, CHAT_HIGH);
    }
    act(t, &a);
    return true;
}

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
    mgr_table_stop(t, "Nobody came back to the table: the game ends unscored.");
}

static void pause_now(struct table *t)
{
    const struct config *cfg = t->m->cfg;
    t->paused = true;
    mgr_table_cancel_turn(t);
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
        if (st->overdue == SEAT_OVERDUE_AWAY)
            snprintf(text, sizeof text,
                     "You timed out again and nobody else is at the table "
                     "at %s, so the game pauses. Tell me \"back\" to go on; "
                     "it ends in %d minute%s otherwise.",
                     label, min, min == 1 ? "" : "s");
        else
            snprintf(text, sizeof text,
                     "Nobody is at the table at %s, so the game pauses. "
                     "Tell me \"back\" to go on; it ends in %d minute%s "
                     "otherwise.",
                     label, min, min == 1 ? "" : "s");
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
            mgr_table_say(t, "The game goes on.");
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
    int left = t->m->cfg->turn_timeout - t->m->cfg->turn_timeout / 2;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    for (int s = 0; s < t->game.n; s++) {
        if (engine_may_act(&t->game, s) && !mgr_seat_computer(t, s)) {
            char text[800], label[256];
            snprintf(text, sizeof text,
                     "Reminder: the table at %s waits for you (%d s left).",
                     mgr_room_label(t->a, t->room, label, sizeof label), left);
            mgr_table_tell(t, s, text, CHAT_HIGH);
            strbuf_addf(&sb, "%s", sb.len ? ", " : "The table waits for ");
            mgr_sb_seat(&sb, t, s, true);
        }
    }
    /* once a turn, the channel knows whom it waits for */
    if (sb.len) {
        strbuf_addf(&sb, " (%d s left).", left);
        mgr_table_say(t, sb.buf);
    }
}

static void timed_out(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->turn_timer = 0;
    for (int s = 0; s < t->game.n && !t->closing; s++) {
        if (!engine_may_act(&t->game, s) || mgr_seat_computer(t, s))
            continue;
        struct seat *st = &t->seats[s];
        st->timeouts++;
        bool away = st->timeouts >= t->m->cfg->max_timeouts;
        if (away) {
            char text[800];
            st->away = true;
            if (mgr_seat_is_you(t, s))
                snprintf(text, sizeof text, "You are away.");
            else
                snprintf(text, sizeof text,
                         "%s is away: a computer player plays for them "
                         "until they tell me \"back\".",
                         st->shown);
            mgr_table_say(t, text);
        }
        /* mgr_advance() has a computer decide for them, and tells them */
        st->overdue = away ? SEAT_OVERDUE_AWAY : SEAT_OVERDUE;
    }
    if (!t->closing)
        mgr_advance(t);
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
    if (mgr_turn_waits(t)) {
        t->turn_deferred = true; /* mgr_sent arms it */
        return;
    }
    int64_t ms = (int64_t)t->m->cfg->turn_timeout * 1000;
    t->turn_timer = loop_timer(t->m->loop, ms, timed_out, t);
    t->reminder_timer = loop_timer(t->m->loop, ms / 2, reminder, t);
}

/*
 * Whose turn and where, one sentence: "Your turn at #hearts, trick 5:
 * alice 7♣, bob K♣." when following; "Your turn at #hearts to lead trick
 * 8; you took trick 7 with 8♦." when leading (the trick before is told to
 * the leader, who may not have seen the channel's line yet; a follower
 * sees who led).
 */
static void where_in_hand(struct strbuf *sb, const struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    char label[256];
    mgr_room_label(t->a, t->room, label, sizeof label);
    int no = g->trick_no + 1;
    if (g->trick_len) {
        strbuf_addf(sb, "Your turn at %s, trick %d:", label, no);
        for (int i = 0; i < g->trick_len; i++) {
            strbuf_addf(sb, "%s %s ", i ? "," : "",
                        mgr_seat_name(t, g->trick_seat[i]));
            mgr_sb_card(sb, t, g->trick[i]);
        }
        strbuf_addf(sb, ".");
        return;
    }
    bool told = t->last_trick_no != 0 && t->last_trick_no == g->trick_no;
    if (!told) {
        strbuf_addf(sb, "Your turn at %s to lead trick %d.", label, no);
    } else if (t->last_winner < 0) {
        strbuf_addf(sb,
                    "Your turn at %s to lead trick %d; trick %d was set "
                    "aside.",
                    label, no, t->last_trick_no);
    } else if (t->last_winner == seat) {
        strbuf_addf(sb,
                    "Your turn at %s to lead trick %d; you took trick %d "
                    "with ",
                    label, no, t->last_trick_no);
        mgr_sb_card(sb, t, t->last_card);
        strbuf_addf(sb, ".");
    } else {
        /* a trick taken by another seat that left the lead to this one */
        strbuf_addf(sb,
                    "Your turn at %s to lead trick %d; %s took trick %d "
                    "with ",
                    label, no, mgr_seat_name(t, t->last_winner),
                    t->last_trick_no);
        mgr_sb_card(sb, t, t->last_card);
        strbuf_addf(sb, ".");
    }
}

/*
 * The cards, each once: the legal ones in words (not only marked), then
 * the rest of the hand. "Any card: ♣ J  ♦ 9 Q A." when every card is
 * legal; "Play one of: ♣ 2 8. Others: ♦ 3 9." or "Only legal: 2♣.
 * Others: ♦ 3 9." otherwise.
 */
static void hand_cards(struct strbuf *sb, const struct table *t,
                       const struct engine_cards *hand, uint64_t legal)
{
    struct engine_cards others = {.one = hand->one & ~legal,
                                  .two = hand->two & ~legal};
    struct engine_cards playable = {.one = hand->one & legal,
                                    .two = hand->two & legal};
    if (!others.one) {
        strbuf_addf(sb, "Any card: ");
        mgr_sb_hand(sb, t, &playable, 0);
        strbuf_addf(sb, ".");
        return;
    }
    if ((legal & (legal - 1)) == 0) {
        strbuf_addf(sb, "Only legal: ");
        mgr_sb_card(sb, t, __builtin_ctzll(legal));
    } else {
        strbuf_addf(sb, "Play one of: ");
        mgr_sb_hand(sb, t, &playable, 0);
    }
    strbuf_addf(sb, ". Others: ");
    mgr_sb_hand(sb, t, &others, 0);
    strbuf_addf(sb, ".");
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
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PLAY: {
        uint64_t legal = engine_legal_plays(g);
        if (mgr_received_to_tell(t, seat))
            mgr_sb_received(&sb, t, seat);
        where_in_hand(&sb, t, seat);
        strbuf_addf(&sb, " ");
        hand_cards(&sb, t, &hand, legal);
        strbuf_addf(&sb, " ");
        mgr_sb_tally(&sb, t, seat);
        break;
    }
    case ENGINE_PHASE_DISCARD:
        strbuf_addf(&sb,
                    "You took the kitty. Discard %d cards into your tricks "
                    "(discard C1 C2 ...): ",
                    engine_discard_count(g));
        mgr_sb_hand(&sb, t, &hand, 0);
        break;
    case ENGINE_PHASE_MOON:
        strbuf_addf(&sb,
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
    strbuf_addf(&sb, "The game begins: ");
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        strbuf_addf(&sb, "%s%s", s ? ", " : "", st->shown);
        if (!st->human)
            strbuf_addf(&sb, " (%s)", ai_level_name(st->level));
    }
    if (t->a->solo)
        strbuf_addf(&sb,
                    ". Rules: %s. Type \"help\" for the commands, a card "
                    "to play it.",
                    t->rules_text);
    else
        strbuf_addf(&sb,
                    ". Rules: %s. Hands, passes and plays go by private "
                    "message to me.",
                    t->rules_text);
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
