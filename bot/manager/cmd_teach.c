/*
 * hint and review (cmd_teach.h).
 */
#include "bot/manager/cmd_teach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/xalloc.h"
#include "bot/manager/cmd_play.h"
#include "bot/manager/cmd_replay.h"
#include "bot/manager/lang.h"
#include "bot/manager/limit.h"
#include "bot/manager/render.h"
#include "bot/manager/slow.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"
#include "storage/archive.h"
#include "storage/record/record.h"

/* One decision of the asker's that a review weighs, and what it shows. */
struct teach_pos {
    int hand;  /* from 1 */
    int trick; /* from 1; 0: the pass */
    int ntable;
    uint8_t table[ENGINE_MAX_PLAYERS]; /* the cards on the table before */
    int suit;                          /* the suit shown, or -1: the hand */
    struct engine_cards cards;         /* what the line shows of the hand */
    struct engine_action played;
    bool weighed; /* the worker gave both the played and the best */
    double cost;  /* points the play cost against the search's choice */
    double se;    /* the cost's standard error */
    struct engine_action best;
};

/* A hint or a review being worked out. */
struct teach_req {
    bool review;
    struct chat_adapter *a;
    char nick[64];
    char id[192];
    struct render_look look;
    int lines;    /* the lines it may say (answers taken when asked) */
    uint64_t job; /* its (first) job's id */
    /* a hint: the table's room, the seat, the turn it is for */
    char room[64];
    int seat;
    uint32_t key;
    /* a review: what it is of ("game 1a2b3c4d" in words) and its
     * positions, one job each (ids job to job + npos - 1) */
    char what[128];
    struct teach_pos *pos;
    int npos, ndone;
};

struct teach {
    struct teach_req *req[TEACH_OPEN];
};

int mgr_teach_option(const char *value, bool *on)
{
    if (strcasecmp(value, "on") == 0)
        *on = true;
    else if (strcasecmp(value, "off") == 0)
        *on = false;
    else
        return -1;
    return 0;
}

static void req_free(struct teach_req *q)
{
    if (!q)
        return;
    free(q->pos);
    free(q);
}

void mgr_teach_free(struct manager *m)
{
    if (!m->teach)
        return;
    for (int i = 0; i < TEACH_OPEN; i++)
        req_free(m->teach->req[i]);
    free(m->teach);
    m->teach = NULL;
}

/* Whether the asker has a request being worked out. */
static bool asked_already(struct manager *m, const struct cmd *c)
{
    for (int i = 0; m->teach && i < TEACH_OPEN; i++) {
        const struct teach_req *q = m->teach->req[i];
        if (q && q->a == c->a && strcmp(q->id, c->u->id) == 0 &&
            strcmp(q->nick, c->u->nick) == 0)
            return true;
    }
    return false;
}

/* A new request of the asker's in a free place, or NULL after a reply
 * saying why there is none. */
static struct teach_req *req_new(struct cmd *c, bool review,
                                 struct render_look look)
{
    struct manager *m = c->m;
    if (asked_already(m, c)) {
        mgr_cmd_replym(c,
                       M("I am still working on what you asked: a moment, "
                         "please."),
                       MSG_END);
        return NULL;
    }
    if (!m->teach)
        m->teach = xcalloc(1, sizeof *m->teach);
    int i = 0;
    while (i < TEACH_OPEN && m->teach->req[i])
        i++;
    if (i == TEACH_OPEN) {
        mgr_cmd_replym(c,
                       M("Too many hints and reviews are being worked out: "
                         "ask again in a moment."),
                       MSG_END);
        return NULL;
    }
    struct teach_req *q = xcalloc(1, sizeof *q);
    q->review = review;
    q->a = c->a;
    snprintf(q->nick, sizeof q->nick, "%s", c->u->nick);
    snprintf(q->id, sizeof q->id, "%s", c->u->id);
    q->look = look;
    q->lines = 1;
    m->teach->req[i] = q;
    return q;
}

static void req_done(struct manager *m, struct teach_req *q)
{
    for (int i = 0; m->teach && i < TEACH_OPEN; i++)
        if (m->teach->req[i] == q)
            m->teach->req[i] = NULL;
    req_free(q);
}

/* A line to the asker, privately. */
static void tell(const struct teach_req *q, const char *text)
{
    q->a->ops->tell(q->a, q->nick, text, CHAT_LOW);
}

/* A seed for the search that does not draw from the table's PRNG (a
 * hint must not change what its computer players do): FNV-1a of the
 * game's ID and the position. */
static uint64_t seed_of(const char *game, uint64_t salt)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = game; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 1099511628211ULL;
    }
    h ^= salt;
    h *= 1099511628211ULL;
    return h;
}

/* A hint's playouts: a play of hard's (cmd_teach.h). */
static int hint_budget(const struct manager *m)
{
    int budget = m->cfg->playouts[AI_HARD];
    return budget > 0 ? budget : ai_default_budget(AI_HARD);
}

static const char *points_text(char *buf, size_t len, double points)
{
    snprintf(buf, len, "%.1f", points);
    return buf;
}

/* The choice's cards as the reader sees them. */
static const char *action_text(char *buf, size_t len, struct render_look look,
                               const struct engine_action *a)
{
    return mgr_cards_text(buf, len, look, a->cards, a->ncards);
}

/* ---- hint ------------------------------------------------------------- */

/* Whether the seat's next action is one a hint is for: its turn to play,
 * or its pass not yet chosen. */
static bool hint_turn(const struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    if (engine_phase(g) == ENGINE_PHASE_PLAY)
        return engine_turn(g) == seat;
    return engine_phase(g) == ENGINE_PHASE_PASS && t->rules.pass_count > 0 &&
           engine_may_act(g, seat);
}

void mgr_cmd_hint(struct cmd *c)
{
    int seat;
    struct table *t = mgr_cmd_my_table(c, &seat);
    if (!t)
        return;
    if (!t->hints) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: {prefix} is the command prefix ("!");
                        * keep "{prefix}hearts", "hints=on" and "hints" (a
                        * board's name) as they are; PRESET stands for a
                        * preset's name. */
                       M("Hints are off at this table. A table opened with "
                         "{prefix}hearts PRESET hints=on allows them (its "
                         "games count on the hints board)."),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return;
    }
    if (!hint_turn(t, seat)) {
        mgr_cmd_replym(c,
                       M("No hint now: hints come at your turn to play or "
                         "to pass."),
                       MSG_END);
        return;
    }
    struct teach_req *q =
        req_new(c, false, mgr_look_person(c->m, c->a, c->u, c->room));
    if (!q)
        return;
    struct manager *m = c->m;
    snprintf(q->room, sizeof q->room, "%s", t->room);
    q->seat = seat;
    q->key = mgr_slow_turn_key(t);
    struct think_job *job = xcalloc(1, sizeof *job);
    job->id = q->job = ++m->think_ids;
    job->kind = THINK_EXPLAIN;
    job->budget = hint_budget(m);
    job->seat = seat;
    job->rules = t->rules;
    job->game = t->game;
    engine_prng_seed(&job->rng, seed_of(t->game_id, q->key));
    think_submit(mgr_think_worker(m), job);
    free(job);
}

/* The trick's points so far. */
static int trick_points(const struct engine_game *g)
{
    int p = 0;
    for (int i = 0; i < g->trick_len; i++)
        p += engine_card_points(g->rules, g->trick[i]);
    return p;
}

/* The cards of the hand in a suit. */
static uint64_t suit_of(const struct engine_cards *h, int suit)
{
    return (h->one | h->two) & ENGINE_SUIT_MASK(suit);
}

/* In a few words why the search plays `card` from the seat's position,
 * when the position says it plainly (else nothing is added). */
static void why_play(struct strbuf *sb, const struct engine_game *g, int seat,
                     int card, struct render_look look)
{
    struct engine_cards hand = engine_hand(g, seat);
    int suit = engine_card_suit(card);
    bool lead = g->trick_len == 0;
    bool follows = !lead && (g->led_mask & ENGINE_BIT(card));
    char text[64];
    if (!lead && !follows && engine_card_points(g->rules, card) > 0) {
        /* TRANSLATORS: why a hint's card: void in the suit led, it
         * sheds {card}, a card worth points */
        msg_add(sb, look.lang, M("gets rid of {card}"),
                MSG_S("card", mgr_card_text(text, sizeof text, look, card)),
                MSG_END);
        return;
    }
    if (follows && engine_card_rank(card) < engine_card_rank(g->win_card) &&
        engine_card_suit(g->win_card) == suit) {
        /* TRANSLATORS: why a hint's card: it plays under {card}, the card
         * winning the trick, so the trick goes to someone else */
        msg_add(
            sb, look.lang, M("ducks under {card}"),
            MSG_S("card", mgr_card_text(text, sizeof text, look, g->win_card)),
            MSG_END);
        return;
    }
    if (follows && g->trick_len + 1 == g->trick_size && trick_points(g) <= 0 &&
        engine_card_points(g->rules, card) <= 0) {
        msg_add(sb, look.lang, M("takes a trick without points"), MSG_END);
        return;
    }
    if (__builtin_popcountll(suit_of(&hand, suit)) == 1 &&
        engine_cards_count(&hand) > 1) {
        /* TRANSLATORS: why a hint's card: it is the last of its suit
         * ({suit}: "clubs") in the hand */
        msg_add(sb, look.lang, M("leaves you void in {suit}"),
                MSG_S("suit", render_suit_word(suit, look.lang)), MSG_END);
        return;
    }
    if (lead && __builtin_ctzll(suit_of(&hand, suit)) == card) {
        msg_add(sb, look.lang, M("leads low"), MSG_END);
        return;
    }
}

/* The same for a pass. */
static void why_pass(struct strbuf *sb, const struct engine_game *g, int seat,
                     const struct engine_action *a, struct render_look look)
{
    struct engine_cards hand = engine_hand(g, seat);
    uint64_t passed = 0;
    for (int i = 0; i < a->ncards; i++)
        passed |= ENGINE_BIT(a->cards[i]);
    char text[64];
    if (passed & ENGINE_BIT(ENGINE_QS) &&
        engine_card_points(g->rules, ENGINE_QS) > 0) {
        msg_add(
            sb, look.lang, M("gets rid of {card}"),
            MSG_S("card", mgr_card_text(text, sizeof text, look, ENGINE_QS)),
            MSG_END);
        return;
    }
    for (int suit = 0; suit < 4; suit++) {
        uint64_t mine = suit_of(&hand, suit);
        if (mine && (mine & ~passed) == 0) {
            msg_add(sb, look.lang, M("leaves you void in {suit}"),
                    MSG_S("suit", render_suit_word(suit, look.lang)), MSG_END);
            return;
        }
    }
}

/* The hint's line: the choice, why, its expected points, then the next
 * best two. */
static void hint_line(struct strbuf *sb, const struct teach_req *q,
                      const struct table *t, const struct think_result *r)
{
    struct render_look look = q->look;
    char choice[MGR_TEXT_SIZE], pts[32], why_text[MGR_TEXT_SIZE];
    struct strbuf why;
    strbuf_init(&why, why_text, sizeof why_text);
    const struct ai_choice *best = &r->choices[0];
    if (best->action.kind == ENGINE_ACT_PLAY)
        why_play(&why, &t->game, q->seat, best->action.cards[0], look);
    else
        why_pass(&why, &t->game, q->seat, &best->action, look);
    action_text(choice, sizeof choice, look, &best->action);
    points_text(pts, sizeof pts, best->points);
    if (why.len)
        /* TRANSLATORS: a hint: {choice} is a card to play or the cards to
         * pass, {why} why in a few words ("ducks under K♣"), {points} the
         * points it is expected to cost the player this hand ("3.1") */
        msg_add(sb, look.lang,
                M("Hint: {choice}, {why} (expected {points} points for you "
                  "this hand)"),
                MSG_S("choice", choice), MSG_S("why", why.buf),
                MSG_S("points", pts), MSG_END);
    else
        msg_add(sb, look.lang,
                M("Hint: {choice} (expected {points} points for you this "
                  "hand)"),
                MSG_S("choice", choice), MSG_S("points", pts), MSG_END);
    if (r->rc > 1) {
        char others_text[MGR_TEXT_SIZE];
        struct strbuf others;
        strbuf_init(&others, others_text, sizeof others_text);
        for (int i = 1; i < r->rc && i < 3; i++) {
            char cards[MGR_TEXT_SIZE];
            strbuf_addf(
                &others, "%s%s %s", i > 1 ? ", " : "",
                action_text(cards, sizeof cards, look, &r->choices[i].action),
                points_text(pts, sizeof pts, r->choices[i].points));
        }
        strbuf_addstr(sb, "; ");
        /* TRANSLATORS: after a hint, the next best choices with their
         * expected points ("K♣ 4.0, 5♦ 4.6") */
        msg_add(sb, look.lang, M("then {others}"), MSG_S("others", others.buf),
                MSG_END);
    }
    strbuf_addc(sb, '.');
}

static void hint_back(struct manager *m, struct teach_req *q,
                      const struct think_result *r)
{
    struct table *t = mgr_table_find(m, q->a, q->room);
    /* the game moved on (they acted, or the table is gone): nothing to
     * say any more */
    if (!t || !t->playing || t->closing || !t->hints ||
        strcmp(t->seats[q->seat].id, q->id) != 0 ||
        mgr_slow_turn_key(t) != q->key || !hint_turn(t, q->seat))
        return;
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    if (r->rc <= 0)
        msg_add(&sb, q->look.lang,
                M("No hint for this one: the search does not weigh it under "
                  "these rules."),
                MSG_END);
    else
        hint_line(&sb, q, t, r);
    tell(q, text);
}

/* ---- review ----------------------------------------------------------- */

/* What the record's replay collects: the asker's decisions in hands
 * from..to, as jobs and lines. */
struct collect {
    int seat;
    int from, to;
    const char *game;
    int budget; /* each position's playouts */
    struct teach_pos *pos;
    struct think_job *jobs;
    int n, cap;
};

static void collect_step(void *ctx, const struct engine_game *g, int hand,
                         int action, const struct engine_action *a)
{
    (void)action;
    struct collect *k = ctx;
    if (hand < k->from || hand > k->to || a->seat != k->seat)
        return;
    bool pass = a->kind == ENGINE_ACT_PASS;
    if (!pass && (a->kind != ENGINE_ACT_PLAY ||
                  __builtin_popcountll(engine_legal_plays(g)) < 2))
        return;
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 64;
        k->pos = xrealloc(k->pos, sizeof *k->pos * (size_t)k->cap);
        k->jobs = xrealloc(k->jobs, sizeof *k->jobs * (size_t)k->cap);
    }
    struct teach_pos *p = &k->pos[k->n];
    memset(p, 0, sizeof *p);
    p->hand = hand;
    p->trick = pass ? 0 : g->trick_no + 1;
    p->ntable = pass ? 0 : g->trick_len;
    memcpy(p->table, g->trick, sizeof p->table);
    p->played = *a;
    struct engine_cards hand_cards = engine_hand(g, k->seat);
    p->cards = hand_cards;
    p->suit = -1;
    int led = g->trick_len > 0 ? engine_card_suit(g->trick[0]) : -1;
    if (!pass && led >= 0 && suit_of(&hand_cards, led)) {
        p->suit = led;
        p->cards.one &= ENGINE_SUIT_MASK(led);
        p->cards.two &= ENGINE_SUIT_MASK(led);
    }
    struct think_job *j = &k->jobs[k->n];
    memset(j, 0, sizeof *j);
    j->kind = THINK_EXPLAIN;
    j->budget = k->budget;
    j->seat = k->seat;
    j->rules = *g->rules;
    j->game = *g;
    j->also = *a;
    engine_prng_seed(&j->rng, seed_of(k->game, (uint64_t)k->n));
    k->n++;
}

/* Collects the asker's decisions of hands from..to of a record (len bytes
 * of JSON): 0, or -1 if it cannot be read or replayed (logged). */
static int collect(struct collect *k, const char *json, size_t len)
{
    struct record *rec;
    char err[400];
    if (record_parse(json, len, &rec, err, sizeof err)) {
        log_warn("review of game %s: %s", k->game, err);
        return -1;
    }
    if (k->from < rec->nhands - TEACH_MAX_HANDS + 1)
        k->from = rec->nhands - TEACH_MAX_HANDS + 1;
    int rc = record_replay(rec, NULL, collect_step, k, NULL, err, sizeof err);
    if (rc)
        log_warn("review of game %s: %s", k->game, err);
    record_free(rec);
    return rc;
}

static void collect_free(struct collect *k)
{
    free(k->pos);
    free(k->jobs);
}

/* The last hand of a record that is scored, or 0. */
static int last_scored(const char *json, size_t len)
{
    struct record *rec;
    if (record_parse(json, len, &rec, NULL, 0))
        return 0;
    int last = 0;
    for (int i = 0; i < rec->nhands; i++)
        if (rec->hands[i].has_points)
            last = i + 1;
    record_free(rec);
    return last;
}

/* Starts the review of `seat`'s decisions in hands from..to of a record:
 * the asker is told at once when there is nothing to weigh. */
static void review_start(struct cmd *c, struct render_look look,
                         const char *game, const char *json, size_t len,
                         int seat, int from, int to, const char *what)
{
    int budget = hint_budget(c->m) / 2;
    struct collect k = {.seat = seat,
                        .from = from,
                        .to = to,
                        .game = game,
                        .budget = budget > 0 ? budget : 1};
    if (collect(&k, json, len)) {
        collect_free(&k);
        mgr_cmd_replym(c,
                       M("That game's record can't be read (see the bot's "
                         "log)."),
                       MSG_END);
        return;
    }
    if (k.n == 0) {
        collect_free(&k);
        /* TRANSLATORS: {what} is what is reviewed ("game 1a2b3c4d",
         * "hand 3") */
        mgr_cmd_replym(c,
                       M("Review of {what}: nothing to weigh, every play of "
                         "yours there was forced."),
                       MSG_S("what", what), MSG_END);
        return;
    }
    struct teach_req *q = req_new(c, true, look);
    if (!q) {
        collect_free(&k);
        return;
    }
    struct manager *m = c->m;
    const struct config *cfg = m->cfg;
    struct limit_rules rules = {.burst = cfg->reply_burst,
                                .interval_ms = cfg->reply_interval * 1000LL};
    /* the lines past the first are paid now, as !replay's are */
    while (q->lines < 1 + TEACH_SHOWN &&
           (c->a->solo || limit_take(m->limit, &rules, c->a->network, c->u->id,
                                     loop_now(m->loop))))
        q->lines++;
    snprintf(q->what, sizeof q->what, "%s", what);
    q->pos = k.pos;
    q->npos = k.n;
    k.pos = NULL;
    q->job = m->think_ids + 1;
    struct think *th = mgr_think_worker(m);
    for (int i = 0; i < k.n; i++) {
        k.jobs[i].id = ++m->think_ids;
        think_submit(th, &k.jobs[i]);
    }
    collect_free(&k);
}

/* Whether two plays or passes are the same choice (a pass as a set). */
static bool same_choice(const struct engine_action *x,
                        const struct engine_action *y)
{
    if (x->kind != y->kind || x->ncards != y->ncards)
        return false;
    uint64_t a = 0, b = 0;
    for (int i = 0; i < x->ncards; i++) {
        a |= ENGINE_BIT(x->cards[i]);
        b |= ENGINE_BIT(y->cards[i]);
    }
    return a == b;
}

/* One position of a review is weighed. */
static void weighed(struct teach_pos *p, const struct think_result *r)
{
    if (r->rc <= 0)
        return;
    for (int i = 0; i < r->rc; i++) {
        if (!same_choice(&r->choices[i].action, &p->played))
            continue;
        p->weighed = true;
        p->cost = r->choices[i].points - r->choices[0].points;
        p->se = r->choices[i].se;
        p->best = r->choices[0].action;
        return;
    }
}

/* A position as one line. */
static void pos_line(struct strbuf *sb, const struct teach_req *q,
                     const struct teach_pos *p)
{
    struct render_look look = q->look;
    char cards[MGR_TEXT_SIZE], table[MGR_TEXT_SIZE], played[MGR_TEXT_SIZE],
        best[MGR_TEXT_SIZE], cost[32];
    mgr_hand_text(cards, sizeof cards, look, &p->cards, 0);
    action_text(played, sizeof played, look, &p->played);
    action_text(best, sizeof best, look, &p->best);
    points_text(cost, sizeof cost, p->cost);
    if (p->trick == 0)
        /* TRANSLATORS: a line of a review: hand {hand}'s pass; {cards} the
         * hand, {played} the cards passed, {best} the search's, {cost} the
         * expected points the pass cost ("3.4") */
        msg_add(sb, look.lang,
                M("Hand {hand}, the pass: your hand {cards}; you passed "
                  "{played}, the search {best} ({cost} points more)."),
                MSG_I("hand", p->hand), MSG_S("cards", cards),
                MSG_S("played", played), MSG_S("best", best),
                MSG_S("cost", cost), MSG_END);
    else if (p->ntable == 0)
        /* TRANSLATORS: as the pass's line, for a lead at trick {trick} */
        msg_add(sb, look.lang,
                M("Hand {hand}, trick {trick}, your lead: your hand {cards}; "
                  "you led {played}, the search {best} ({cost} points "
                  "more)."),
                MSG_I("hand", p->hand), MSG_I("trick", p->trick),
                MSG_S("cards", cards), MSG_S("played", played),
                MSG_S("best", best), MSG_S("cost", cost), MSG_END);
    else if (p->suit >= 0)
        /* TRANSLATORS: as the pass's line, for a card played to trick
         * {trick}: {table} the cards on the table before it, {suit} the
         * suit led ("clubs") and {cards} the player's cards of it */
        msg_add(sb, look.lang,
                M("Hand {hand}, trick {trick}: on the table {table}; your "
                  "{suit} {cards}; you played {played}, the search {best} "
                  "({cost} points more)."),
                MSG_I("hand", p->hand), MSG_I("trick", p->trick),
                MSG_S("table", mgr_cards_text(table, sizeof table, look,
                                              p->table, p->ntable)),
                MSG_S("suit", render_suit_word(p->suit, look.lang)),
                MSG_S("cards", cards), MSG_S("played", played),
                MSG_S("best", best), MSG_S("cost", cost), MSG_END);
    else
        /* TRANSLATORS: as the line before, void in the suit led: {cards}
         * is the whole hand */
        msg_add(sb, look.lang,
                M("Hand {hand}, trick {trick}: on the table {table}; your "
                  "hand {cards}; you played {played}, the search {best} "
                  "({cost} points more)."),
                MSG_I("hand", p->hand), MSG_I("trick", p->trick),
                MSG_S("table", mgr_cards_text(table, sizeof table, look,
                                              p->table, p->ntable)),
                MSG_S("cards", cards), MSG_S("played", played),
                MSG_S("best", best), MSG_S("cost", cost), MSG_END);
}

bool mgr_teach_told(double cost, double se)
{
    return cost >= TEACH_MIN_COST && cost >= TEACH_SURE * se;
}

/* Every position is weighed: the costliest, told. */
static void review_done(struct teach_req *q)
{
    int order[TEACH_SHOWN];
    int shown = 0;
    double total = 0;
    for (int i = 0; i < q->npos; i++) {
        const struct teach_pos *p = &q->pos[i];
        if (!p->weighed || !mgr_teach_told(p->cost, p->se))
            continue;
        total += p->cost;
        int at = shown < TEACH_SHOWN ? shown++ : TEACH_SHOWN;
        while (at > 0 && q->pos[order[at - 1]].cost < p->cost) {
            if (at < TEACH_SHOWN)
                order[at] = order[at - 1];
            at--;
        }
        if (at < TEACH_SHOWN)
            order[at] = i;
    }
    if (shown > q->lines - 1)
        shown = q->lines - 1;
    char text[MGR_TEXT_SIZE], min[32];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    if (shown == 0)
        msg_addn(&sb, q->look.lang,
                 /* TRANSLATORS: {what} is what is reviewed ("game
                  * 1a2b3c4d"), {n} how many plays and passes were weighed,
                  * {min} a number of points ("0.5") */
                 MN("Review of {what}: {n} decision weighed; none cost you "
                    "{min} points or more against the search's choice.",
                    "Review of {what}: {n} decisions weighed; none cost you "
                    "{min} points or more against the search's choice."),
                 (unsigned long)q->npos, MSG_S("what", q->what),
                 MSG_I("n", q->npos),
                 MSG_S("min", points_text(min, sizeof min, TEACH_MIN_COST)),
                 MSG_END);
    else
        msg_addn(&sb, q->look.lang,
                 /* TRANSLATORS: as the line before; {points} the expected
                  * points all of them together cost ("7.4"); the costliest
                  * plays follow, a line each */
                 MN("Review of {what}: {n} decision weighed; what cost you "
                    "most against the search's choice ({points} points in "
                    "all):",
                    "Review of {what}: {n} decisions weighed; what cost you "
                    "most against the search's choice ({points} points in "
                    "all):"),
                 (unsigned long)q->npos, MSG_S("what", q->what),
                 MSG_I("n", q->npos),
                 MSG_S("points", points_text(min, sizeof min, total)), MSG_END);
    tell(q, text);
    for (int i = 0; i < shown; i++) {
        strbuf_reset(&sb);
        pos_line(&sb, q, &q->pos[order[i]]);
        tell(q, text);
    }
}

void mgr_teach_thought(struct manager *m, const struct think_result *r)
{
    for (int i = 0; m->teach && i < TEACH_OPEN; i++) {
        struct teach_req *q = m->teach->req[i];
        if (!q || r->id < q->job ||
            r->id >= q->job + (uint64_t)(q->review ? q->npos : 1))
            continue;
        if (!q->review) {
            hint_back(m, q, r);
            req_done(m, q);
            return;
        }
        weighed(&q->pos[r->id - q->job], r);
        if (++q->ndone == q->npos) {
            review_done(q);
            req_done(m, q);
        }
        return;
    }
}

/* The seat whose results key is `key` in an archived game, or -1. */
static int seat_of_key(const struct archive_result *r, const char *key)
{
    for (int s = 0; s < r->n; s++)
        if (key[0] && strcmp(r->seats[s].key, key) == 0)
            return s;
    return -1;
}

/* review with no game named, seated at a game with a finished hand: that
 * hand. False if there is none (the archive is asked then). */
static bool review_running(struct cmd *c)
{
    int seat;
    struct table *t;
    if (c->room) {
        t = mgr_table_find(c->m, c->a, c->room);
        seat = t ? mgr_cmd_seat_of(t, c->u) : -1;
    } else {
        t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
        if (t && !mgr_same_person(t, seat, c->u))
            t = NULL;
    }
    if (!t || seat < 0 || !t->playing || !t->rec)
        return false;
    char *json = record_writer_json(t->rec);
    if (!json)
        return false;
    size_t len = strlen(json);
    int hand = last_scored(json, len);
    if (hand > 0) {
        char what[128];
        struct strbuf sb;
        struct render_look look = mgr_look_person(c->m, c->a, c->u, c->room);
        strbuf_init(&sb, what, sizeof what);
        /* TRANSLATORS: what a review is of: a hand of the game being
         * played */
        msg_add(&sb, look.lang, M("hand {hand} of the game on now"),
                MSG_I("hand", hand), MSG_END);
        review_start(c, look, t->game_id, json, len, seat, hand, hand, what);
    }
    free(json);
    return hand > 0;
}

/* The asker's last finished game in dir, among the last TEACH_BACK: true
 * and *r, *seat; false if none. */
static bool last_played(const char *dir, const char *key,
                        struct archive_result *r, int *seat)
{
    for (int back = 1; back <= TEACH_BACK; back++) {
        char err[400];
        int rc = archive_find(dir, NULL, back, r, NULL, err, sizeof err);
        if (rc < 0)
            log_warn("review: %s", err);
        if (rc != ARCHIVE_FOUND)
            return false;
        if ((*seat = seat_of_key(r, key)) >= 0)
            return true;
    }
    return false;
}

void mgr_cmd_review(struct cmd *c)
{
    int back = 1;
    char id[17] = "";
    const char *p = mgr_cmd_prefix(c->m);
    if (c->nwords > 2 ||
        (c->nwords == 2 &&
         !mgr_replay_game_word(c->words[1], &back, id, sizeof id))) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: review with a word that is no game;
                        * {prefix} is the command prefix ("!") */
                       M("Say which game: its ID as {prefix}last shows it, "
                         "or how many games back (1 is the last); nothing "
                         "for your last hand or game."),
                       MSG_S("prefix", p), MSG_END);
        return;
    }
    if (c->nwords == 1 && review_running(c))
        return;
    int myseat;
    if (!c->room && !mgr_table_of_person(c->m, c->a, c->u->nick, &myseat)) {
        /* TRANSLATORS: {prefix} is the command prefix ("!") */
        mgr_cmd_replym(c, M("Ask in the channel ({prefix}review there)."),
                       MSG_S("prefix", p), MSG_END);
        return;
    }
    const char *room = mgr_replay_room(c);
    if (!room)
        return;
    char dir[FILE_PATH_MAX];
    if (!mgr_replay_archive_dir(c, room, dir, sizeof dir))
        return;
    /* who the asker is in the results: the seat's key if they sit here,
     * else the key they would sit down with */
    char key[200];
    struct table *t = mgr_table_find(c->m, c->a, room);
    if (t && (myseat = mgr_cmd_seat_of(t, c->u)) >= 0)
        snprintf(key, sizeof key, "%s", t->seats[myseat].key);
    else
        mgr_seat_key(c->a, c->u, key, sizeof key);
    struct archive_result r;
    int seat;
    if (c->nwords == 1) {
        if (!last_played(dir, key, &r, &seat)) {
            mgr_cmd_replym(c,
                           /* TRANSLATORS: {n} is how many games back were
                            * looked at */
                           M("You have not finished a game here lately (of "
                             "the last {n}): review GAME for an older one."),
                           MSG_I("n", TEACH_BACK), MSG_END);
            return;
        }
    } else {
        if (!mgr_replay_find_game(c, dir, id, back, &r))
            return;
        if ((seat = seat_of_key(&r, key)) < 0) {
            mgr_cmd_replym(c,
                           /* TRANSLATORS: {id} is a game's ID */
                           M("You did not play in game {id}: a review tells "
                             "only your own plays."),
                           MSG_S("id", r.game), MSG_END);
            return;
        }
    }
    char err[400], *json;
    size_t len;
    if (archive_record_of(dir, &r, &json, &len, err, sizeof err)) {
        log_warn("review of game %s in %s: %s", r.game, room, err);
        mgr_cmd_replym(c,
                       M("That game's record can't be read (see the bot's "
                         "log)."),
                       MSG_END);
        return;
    }
    struct render_look look = mgr_look_person(c->m, c->a, c->u, room);
    char what[128];
    struct strbuf sb;
    strbuf_init(&sb, what, sizeof what);
    /* TRANSLATORS: what a review is of: an archived game, by its ID */
    msg_add(&sb, look.lang, M("game {id}"), MSG_S("id", r.game), MSG_END);
    review_start(c, look, r.game, json, len, seat, 1, ENGINE_MAX_HANDS, what);
    free(json);
}
