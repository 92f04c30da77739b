/*
 * What the engine tells of a game, said in the room and told to the
 * people at the table (announce.h).
 */
#include "bot/manager/announce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/msg.h"
#include "bot/common/xalloc.h"
#include "bot/manager/deal.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
#include "bot/manager/say.h"
#include "storage/record/record.h"

void mgr_table_scoreline_in(struct table *t, struct strbuf *sb, int lang,
                            bool marked)
{
    const struct engine_game *g = &t->game;
    bool over = engine_phase(g) == ENGINE_PHASE_GAME_OVER;
    for (int s = 0; s < g->n; s++) {
        char name[RENDER_SHOWN_SIZE + 64];
        if (marked)
            mgr_seat_marked(t, s, over, lang, name, sizeof name);
        else
            snprintf(name, sizeof name, "%s", mgr_seat_name(t, s));
        if (s)
            strbuf_addstr(sb, ", ");
        mgr_sb_points(sb, lang, name, (int)g->totals[s]);
    }
}

void mgr_table_scores_in(struct table *t, bool all, struct render_look look,
                         char *out, size_t outlen)
{
    const char *names[ENGINE_MAX_PLAYERS], *marks[ENGINE_MAX_PLAYERS];
    bool over = engine_phase(&t->game) == ENGINE_PHASE_GAME_OVER;
    for (int s = 0; s < t->capacity; s++) {
        names[s] = mgr_seat_name(t, s);
        marks[s] = mgr_seat_mark(t, s, over, look.lang);
    }
    const int32_t *rows[512];
    int nrows = t->nhist < 512 ? t->nhist : 512;
    for (int i = 0; i < nrows; i++)
        rows[i] = t->hist[t->nhist - nrows + i];
    render_scores_marked(out, outlen, names, marks, t->capacity, rows, nrows,
                         t->game.totals, all ? 0 : RENDER_SCORES_LAST, look);
}

void mgr_table_send_scores(struct table *t)
{
    char text[2048];
    mgr_table_scores_in(t, false, mgr_look_room(t), text, sizeof text);
    /* one message per line of the sheet */
    char *line = text;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        mgr_table_say(t, line);
        line = nl ? nl + 1 : NULL;
    }
}

static void keep_history(struct table *t, const struct engine_game *g)
{
    if (t->nhist == t->caphist) {
        t->caphist = t->caphist ? t->caphist * 2 : 16;
        t->hist = xrealloc(t->hist, sizeof *t->hist * (size_t)t->caphist);
    }
    memcpy(t->hist[t->nhist++], g->points, sizeof t->hist[0]);
}

/* How the channel hears the passing of a hand dealt: the message (one
 * and many) for a direction, NULL for none. */
static const char *const *pass_said(enum engine_pass_dir dir)
{
    /* TRANSLATORS: a hand begins and each passes {n} cards: to the player
     * on their left, on their right, across the table, shared out among
     * all the others, to the second player on their left, on their
     * right. */
    static const char *const left[] = {
        MN("Hand {hand}: pass {n} left.", "Hand {hand}: pass {n} left.")};
    static const char *const right[] = {
        MN("Hand {hand}: pass {n} right.", "Hand {hand}: pass {n} right.")};
    /* TRANSLATORS: to the player across the table. */
    static const char *const across[] = {
        MN("Hand {hand}: pass {n} across.", "Hand {hand}: pass {n} across.")};
    /* TRANSLATORS: the {n} cards shared out among all the others. */
    static const char *const everyone[] = {
        MN("Hand {hand}: pass {n} to everyone.",
           "Hand {hand}: pass {n} to everyone.")};
    /* TRANSLATORS: to the second player on the left. */
    static const char *const left2[] = {
        MN("Hand {hand}: pass {n} two to the left.",
           "Hand {hand}: pass {n} two to the left.")};
    /* TRANSLATORS: to the second player on the right. */
    static const char *const right2[] = {
        MN("Hand {hand}: pass {n} two to the right.",
           "Hand {hand}: pass {n} two to the right.")};
    switch (dir) {
    case ENGINE_PASS_LEFT:
        return left;
    case ENGINE_PASS_RIGHT:
        return right;
    case ENGINE_PASS_ACROSS:
        return across;
    case ENGINE_PASS_SCATTER:
        return everyone;
    case ENGINE_PASS_LEFT2:
        return left2;
    case ENGINE_PASS_RIGHT2:
        return right2;
    default:
        return NULL;
    }
}

void mgr_sb_hand_passing(struct strbuf *sb, int lang, int hand, int dir, int n)
{
    const char *const *said = pass_said(dir);
    if (said)
        msg_addn(sb, lang, said[0], said[1], (unsigned long)n,
                 MSG_I("hand", hand), MSG_I("n", n), MSG_END);
    else
        msg_add(sb, lang, M("Hand {hand}: no passing."), MSG_I("hand", hand),
                MSG_END);
}

/* A hand is dealt: the channel hears how it is passed, each person their
 * cards. */
static void announce_dealt(struct table *t, const struct engine_game *g)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    t->last_trick_no = 0;
    for (int s = 0; s < g->n; s++) {
        t->seats[s].queued = false;
        t->seats[s].received_untold = false;
        t->seats[s].received_cookie = 0;
        t->seats[s].passing_cookie = 0;
        t->seats[s].passing_untold = false;
    }
    int lang = mgr_lang_room(t->m, t->a, t->room);
    mgr_sb_hand_passing(&sb, lang, g->hand_no, g->pass_dir,
                        t->rules.pass_count);
    if (!t->a->solo) {
        strbuf_addstr(&sb, " ");
        if (g->pass_dir == ENGINE_PASS_HOLD)
            msg_add(&sb, lang, M("Your cards are in private messages."),
                    MSG_END);
        else
            msg_add(&sb, lang,
                    M("Your cards are in private messages; pass privately."),
                    MSG_END);
    }
    mgr_table_say(t, sb.buf);
    for (int s = 0; s < g->n; s++)
        if (!mgr_seat_computer(t, s))
            mgr_tell_deal(t, s);
}

/* A seat chose its pass: a confirmation at once, also of a pass chosen
 * for a person who timed out; the last to pass hears what came instead,
 * at once. */
static void announce_pass_chosen(struct table *t, const struct engine_game *g,
                                 int seat)
{
    if (mgr_seat_computer(t, seat) || g->passed_mask == (1u << g->n) - 1)
        return;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    struct seat *st = &t->seats[seat];
    mgr_sb_passed(&sb, t, seat);
    uint64_t before = st->pending;
    mgr_table_tell(t, seat, sb.buf, CHAT_HIGH);
    if (st->pending != before)
        st->passing_cookie = st->pending;
}

/* The cards are passed: told by mgr_advance (the leader in the first
 * prompt); a pass confirmation not yet written is taken back. */
static void announce_passed(struct table *t, const struct engine_game *g)
{
    for (int s = 0; s < g->n; s++) {
        struct seat *st = &t->seats[s];
        st->received_untold = !mgr_seat_computer(t, s);
        st->passing_untold = st->passing_cookie && t->a->ops->retract &&
                             t->a->ops->retract(t->a, st->passing_cookie);
        st->passing_cookie = 0;
    }
}

/* A trick is taken: its line in the room, and the prompts to come tell
 * it. */
static void announce_trick(struct table *t, const struct engine_game *g,
                           const struct engine_event *ev)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
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
    char marked[ENGINE_MAX_PLAYERS][RENDER_SHOWN_SIZE + 64];
    struct render_look look = mgr_look_room(t);
    for (int s = 0; s < g->n; s++) {
        /* a seat a computer plays for a person says so */
        names[s] = mgr_seat_marked(t, s, false, look.lang, marked[s],
                                   sizeof marked[s]);
        ids[s] = mgr_seat_user_id(t, s);
    }
    char trick[MGR_TEXT_SIZE];
    mgr_sb_rendered(
        &sb, trick,
        render_trick_ids(trick, mgr_sb_room(&sb, sizeof trick), g->trick_no,
                         g->plays + g->nplays - n, g->play_seat + g->nplays - n,
                         n, names, ids,
                         ev->seat < 0 ? RENDER_TRICK_ASIDE : ev->seat,
                         ev->value, look));
    mgr_table_say(t, sb.buf);
    if (!t->m->restoring) {
        t->trick_said[0] = t->trick_said[1];
        t->trick_said[1] = t->said_pending;
    }
}

/* The leftover cards, the widow or the kitty go to a seat. */
static void announce_rest_taken(struct table *t, const struct engine_game *g,
                                int seat)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    int len;
    const uint8_t *rest = engine_rest(g, &len);
    struct render_look look = mgr_look_room(t);
    char cards[MGR_TEXT_SIZE];
    const char *name = mgr_seat_name(t, seat);
    if (t->rules.odd_cards == ENGINE_ODD_FACEUP_LEFTOVER) {
        msg_add(&sb, look.lang, M("{player} takes the leftover cards: {cards}"),
                MSG_S("player", name),
                MSG_S("cards",
                      mgr_cards_text(cards, sizeof cards, look, rest, len)),
                MSG_END);
    } else {
        bool widow = t->rules.odd_cards == ENGINE_ODD_WIDOW;
        static const char *const taken[2][2] = {
            /* TRANSLATORS: the kitty: the cards left over after the deal,
             * which a player takes into their hand. */
            {MN("{player} takes the kitty ({n} card).",
                "{player} takes the kitty ({n} cards).")},
            /* TRANSLATORS: the widow: the cards left over after the deal,
             * which the taker of the first trick with points gets. */
            {MN("{player} takes the widow ({n} card).",
                "{player} takes the widow ({n} cards).")}};
        msg_addn(&sb, look.lang, taken[widow][0], taken[widow][1],
                 (unsigned long)len, MSG_S("player", name), MSG_I("n", len),
                 MSG_END);
        struct render_look mine = mgr_look_seat(t, seat);
        char p_text[MGR_TEXT_SIZE];
        struct strbuf p;
        strbuf_init(&p, p_text, sizeof p_text);
        msg_add(&p, mine.lang,
                widow ? M("The widow holds: {cards}")
                      : M("The kitty holds: {cards}"),
                MSG_S("cards",
                      mgr_cards_text(cards, sizeof cards, mine, rest, len)),
                MSG_END);
        mgr_table_tell(t, seat, p.buf, CHAT_NORMAL);
    }
    mgr_table_say(t, sb.buf);
}

/* A hand is scored: its points and the totals in the room. */
static void announce_hand_scored(struct table *t, const struct engine_game *g)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    keep_history(t, g);
    int lang = mgr_lang_room(t->m, t->a, t->room);
    char points_text[MGR_TEXT_SIZE], totals_text[MGR_TEXT_SIZE];
    struct strbuf points, totals;
    strbuf_init(&points, points_text, sizeof points_text);
    strbuf_init(&totals, totals_text, sizeof totals_text);
    for (int s = 0; s < g->n; s++) {
        char signed_points[16];
        int n = (int)g->points[s];
        snprintf(signed_points, sizeof signed_points, "%+d", n);
        if (s)
            strbuf_addstr(&points, ", ");
        /* TRANSLATORS: a seat's points in one hand: "bob +13"; {points}
         * has its sign (+0, +13, -26), {n} is the number without it. */
        msg_addn(&points, lang, MN("{player} {points}", "{player} {points}"),
                 (unsigned long)(n < 0 ? -n : n),
                 MSG_S("player", mgr_seat_name(t, s)),
                 MSG_S("points", signed_points), MSG_I("n", n < 0 ? -n : n),
                 MSG_END);
    }
    mgr_table_scoreline_in(t, &totals, lang, false);
    /* TRANSLATORS: {points} is each seat's points in this hand ("alice
     * +0, bob +13"), {totals} the game's totals ("alice 4, bob 30"). */
    msg_add(&sb, lang, M("Hand {hand} scores: {points} | Totals: {totals}"),
            MSG_I("hand", g->hand_no), MSG_S("points", points_text),
            MSG_S("totals", totals_text), MSG_END);
    mgr_table_say(t, sb.buf);
}

/* The game is over: the winners, the sheet, and how to play again. */
static void announce_game_over(struct table *t, const struct engine_game *g)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    int lang = mgr_lang_room(t->m, t->a, t->room);
    /* the final totals mark who left and whom a computer played for */
    char totals_text[MGR_TEXT_SIZE], winners_text[MGR_TEXT_SIZE];
    struct strbuf totals, winners;
    strbuf_init(&totals, totals_text, sizeof totals_text);
    strbuf_init(&winners, winners_text, sizeof winners_text);
    mgr_table_scoreline_in(t, &totals, lang, true);
    for (int i = 0; i + 1 < g->nwinners; i++)
        strbuf_addf(&winners, "%s%s", i ? ", " : "",
                    mgr_seat_name(t, g->winners[i]));
    const char *last =
        g->nwinners > 0 ? mgr_seat_name(t, g->winners[g->nwinners - 1]) : "";
    if (g->nwinners > 1)
        /* TRANSLATORS: the game's end with several winners: {players} is
         * a list ("alice, bob"), {player} the last of them; {totals} the
         * final scores ("alice 4, bob 30"). */
        msg_add(&sb, lang,
                M("Game over! {players} and {player} win. Final: "
                  "{totals}"),
                MSG_S("players", winners_text), MSG_S("player", last),
                MSG_S("totals", totals_text), MSG_END);
    else if (g->nwinners == 1 && mgr_seat_is_you(t, g->winners[0]))
        /* the console's one person */
        msg_add(&sb, lang, M("Game over! You win. Final: {totals}"),
                MSG_S("totals", totals_text), MSG_END);
    else
        msg_add(&sb, lang, M("Game over! {player} wins. Final: {totals}"),
                MSG_S("player", last), MSG_S("totals", totals_text), MSG_END);
    mgr_table_say(t, sb.buf);
    mgr_table_send_scores(t);
    mgr_table_saym(t, M("Another game? {prefix}hearts opens a table."),
                   MSG_S("prefix", t->m->cfg->command_prefix), MSG_END);
}

/* A moon or a sun is scored: how, and by how much. */
static void moon_said(struct table *t, const struct engine_event *ev)
{
    bool sun = ev->card != 0;
    bool drops = ev->value == ENGINE_MOON_SUBTRACT;
    int n = t->rules.moon_points * (sun ? 2 : 1);
    /* TRANSLATORS: a moon (every card worth points) or a sun (every trick)
     * is scored: the shooter's score drops by {n}, or everyone else
     * scores {n} (the number in brackets). */
    static const char *const said[2][2][2] = {
        {{MN("{player} shot the moon: everyone else scores. ({n})",
             "{player} shot the moon: everyone else scores. ({n})")},
         {MN("{player} shot the moon: their score drops. ({n})",
             "{player} shot the moon: their score drops. ({n})")}},
        {{MN("{player} shot the sun: everyone else scores. ({n})",
             "{player} shot the sun: everyone else scores. ({n})")},
         {MN("{player} shot the sun: their score drops. ({n})",
             "{player} shot the sun: their score drops. ({n})")}}};
    const char *const *mine = said[sun][drops];
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    msg_addn(&sb, mgr_lang_room(t->m, t->a, t->room), mine[0], mine[1],
             (unsigned long)n, MSG_S("player", mgr_seat_name(t, ev->seat)),
             MSG_I("n", n), MSG_END);
    mgr_table_say(t, text);
}

/* The one-line events: a card drawn, a seat out, a moon. */
static void announce_other(struct table *t, const struct engine_event *ev)
{
    switch (ev->kind) {
    case ENGINE_EV_DRAWN:
        if (!mgr_seat_computer(t, ev->seat)) {
            char card[MGR_TEXT_SIZE];
            mgr_table_tellm(
                t, ev->seat, CHAT_NORMAL, M("You drew {card} from the stock."),
                MSG_S("card",
                      mgr_card_text(card, sizeof card,
                                    mgr_look_seat(t, ev->seat), ev->card)),
                MSG_END);
        }
        break;
    case ENGINE_EV_OUT:
        /* TRANSLATORS: a player has no cards left (a game where the
         * cards run out unevenly). */
        mgr_table_saym(t, M("{player} has played out."),
                       MSG_S("player", mgr_seat_name(t, ev->seat)), MSG_END);
        break;
    case ENGINE_EV_MOON_PENDING:
        if (mgr_seat_is_you(t, ev->seat))
            break; /* their prompt says it */
        if (ev->value)
            /* TRANSLATORS: shooting the sun: taking every trick of a hand;
             * the player now chooses how it scores. */
            mgr_table_saym(t,
                           M("{player} shot the sun! Waiting for their "
                             "choice."),
                           MSG_S("player", mgr_seat_name(t, ev->seat)),
                           MSG_END);
        else
            /* TRANSLATORS: shooting the moon: taking every card worth
             * points; the player now chooses how it scores. */
            mgr_table_saym(t,
                           M("{player} shot the moon! Waiting for their "
                             "choice."),
                           MSG_S("player", mgr_seat_name(t, ev->seat)),
                           MSG_END);
        break;
    case ENGINE_EV_MOON:
        moon_said(t, ev);
        break;
    default:
        break;
    }
}

void mgr_announce(void *ctx, const struct engine_game *g,
                  const struct engine_event *ev)
{
    struct table *t = ctx;
    t->gen++; /* a decision asked before is about another position */
    if (t->rec) {
        const struct engine_sink *rec = record_writer_sink(t->rec);
        rec->emit(rec->ctx, g, ev);
    }
    int lost;
    if (mgr_journal_event(t, g, ev, &lost))
        mgr_table_journal_lost(t, lost);
    switch (ev->kind) {
    case ENGINE_EV_DEALT:
        announce_dealt(t, g);
        break;
    case ENGINE_EV_PASS_CHOSEN:
        announce_pass_chosen(t, g, ev->seat);
        break;
    case ENGINE_EV_PASSED:
        announce_passed(t, g);
        break;
    case ENGINE_EV_TRICK:
        announce_trick(t, g, ev);
        break;
    case ENGINE_EV_REST_TAKEN:
        announce_rest_taken(t, g, ev->seat);
        break;
    case ENGINE_EV_HAND_SCORED:
        announce_hand_scored(t, g);
        break;
    case ENGINE_EV_GAME_OVER:
        announce_game_over(t, g);
        break;
    default:
        announce_other(t, ev);
        break;
    }
}
