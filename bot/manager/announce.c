/*
 * What the engine tells of a game, said in the room and told to the
 * people at the table (announce.h).
 */
#include "bot/manager/announce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/xalloc.h"
#include "bot/manager/deal.h"
#include "bot/manager/journaling.h"
#include "bot/manager/say.h"
#include "storage/record/record.h"

void mgr_table_scoreline(struct table *t, struct strbuf *sb)
{
    const struct engine_game *g = &t->game;
    for (int s = 0; s < g->n; s++)
        strbuf_addf(sb, "%s%s %d", s ? ", " : "", mgr_seat_name(t, s),
                    (int)g->totals[s]);
}

void mgr_table_scores_text(struct table *t, bool all, char *out, size_t outlen)
{
    const char *names[ENGINE_MAX_PLAYERS], *marks[ENGINE_MAX_PLAYERS];
    bool over = engine_phase(&t->game) == ENGINE_PHASE_GAME_OVER;
    for (int s = 0; s < t->capacity; s++) {
        names[s] = mgr_seat_name(t, s);
        marks[s] = mgr_seat_mark(t, s, over);
    }
    const int32_t *rows[512];
    int nrows = t->nhist < 512 ? t->nhist : 512;
    for (int i = 0; i < nrows; i++)
        rows[i] = t->hist[t->nhist - nrows + i];
    render_scores_marked(out, outlen, names, marks, t->capacity, rows, nrows,
                         t->game.totals, all ? 0 : RENDER_SCORES_LAST,
                         render_look_style(mgr_table_style(t)));
}

void mgr_table_send_scores(struct table *t)
{
    char text[2048];
    mgr_table_scores_text(t, false, text, sizeof text);
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
    if (g->pass_dir == ENGINE_PASS_HOLD)
        strbuf_addf(&sb, "Hand %d: no passing.", g->hand_no);
    else
        strbuf_addf(&sb, "Hand %d: pass %d %s.", g->hand_no,
                    t->rules.pass_count, mgr_dir_word(g->pass_dir));
    if (!t->a->solo)
        strbuf_addf(&sb, " Your cards are in private messages%s",
                    g->pass_dir == ENGINE_PASS_HOLD ? "."
                                                    : "; pass privately.");
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
    mgr_sb_passing(t, seat, &sb);
    mgr_sb_waiting_for_passes(&sb, t);
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
    char marked[ENGINE_MAX_PLAYERS][RENDER_SHOWN_SIZE + 16];
    for (int s = 0; s < g->n; s++) {
        /* a seat a computer plays for a person says so */
        names[s] = mgr_seat_marked(t, s, marked[s], sizeof marked[s]);
        ids[s] = mgr_seat_user_id(t, s);
    }
    char trick[MGR_TEXT_SIZE];
    mgr_sb_rendered(
        &sb, trick,
        render_trick_ids(trick, mgr_sb_room(&sb, sizeof trick), g->trick_no,
                         g->plays + g->nplays - n, g->play_seat + g->nplays - n,
                         n, names, ids,
                         ev->seat < 0 ? RENDER_TRICK_ASIDE : ev->seat,
                         ev->value, render_look_style(mgr_table_style(t))));
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
    if (t->rules.odd_cards == ENGINE_ODD_FACEUP_LEFTOVER) {
        strbuf_addf(&sb,
                    "%s takes the leftover cards: ", mgr_seat_name(t, seat));
        mgr_sb_cards(&sb, t, rest, len);
    } else {
        strbuf_addf(&sb, "%s takes the %s (%d cards).", mgr_seat_name(t, seat),
                    t->rules.odd_cards == ENGINE_ODD_WIDOW ? "widow" : "kitty",
                    len);
        char p_text[MGR_TEXT_SIZE];
        struct strbuf p;
        strbuf_init(&p, p_text, sizeof p_text);
        strbuf_addf(&p, "The %s holds: ",
                    t->rules.odd_cards == ENGINE_ODD_WIDOW ? "widow" : "kitty");
        mgr_sb_cards(&p, t, rest, len);
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
    strbuf_addf(&sb, "Hand %d scores:", g->hand_no);
    for (int s = 0; s < g->n; s++)
        strbuf_addf(&sb, "%s %s %+d", s ? "," : "", mgr_seat_name(t, s),
                    (int)g->points[s]);
    strbuf_addf(&sb, " | Totals: ");
    mgr_table_scoreline(t, &sb);
    mgr_table_say(t, sb.buf);
}

/* The game is over: the winners, the sheet, and how to play again. */
static void announce_game_over(struct table *t, const struct engine_game *g)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    strbuf_addf(&sb, "Game over! ");
    for (int i = 0; i < g->nwinners; i++)
        strbuf_addf(&sb, "%s%s",
                    i ? (i + 1 == g->nwinners ? " and " : ", ") : "",
                    mgr_seat_name(t, g->winners[i]));
    strbuf_addf(&sb, " win%s. Final: ",
                g->nwinners == 1 && !mgr_seat_is_you(t, g->winners[0]) ? "s"
                                                                       : "");
    mgr_table_scoreline(t, &sb);
    mgr_table_say(t, sb.buf);
    mgr_table_send_scores(t);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "Another game? %shearts opens a table.",
                t->m->cfg->command_prefix);
    mgr_table_say(t, sb.buf);
}

/* The one-line events: a card drawn, a seat out, a moon. */
static void announce_other(struct table *t, const struct engine_event *ev)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    switch (ev->kind) {
    case ENGINE_EV_DRAWN:
        if (!mgr_seat_computer(t, ev->seat)) {
            strbuf_addf(&sb, "You drew ");
            mgr_sb_card(&sb, t, ev->card);
            strbuf_addf(&sb, " from the stock.");
            mgr_table_tell(t, ev->seat, sb.buf, CHAT_NORMAL);
        }
        break;
    case ENGINE_EV_OUT:
        strbuf_addf(&sb, "%s has played out.", mgr_seat_name(t, ev->seat));
        mgr_table_say(t, sb.buf);
        break;
    case ENGINE_EV_MOON_PENDING:
        if (mgr_seat_is_you(t, ev->seat))
            break; /* their prompt says it */
        strbuf_addf(&sb, "%s shot the %s! Waiting for their choice.",
                    mgr_seat_name(t, ev->seat), ev->value ? "sun" : "moon");
        mgr_table_say(t, sb.buf);
        break;
    case ENGINE_EV_MOON: {
        int amount = t->rules.moon_points * (ev->card ? 2 : 1);
        strbuf_addf(&sb, "%s shot the %s: %s.", mgr_seat_name(t, ev->seat),
                    ev->card ? "sun" : "moon",
                    ev->value == ENGINE_MOON_SUBTRACT ? "their score drops"
                                                      : "everyone else scores");
        strbuf_addf(&sb, " (%d)", amount);
        mgr_table_say(t, sb.buf);
        break;
    }
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
