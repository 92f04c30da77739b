/*
 * A finished game's lines for one reader, and the replays open
 * (replay.h).
 */
#include "bot/manager/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/common/err.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/manager/announce.h"
#include "bot/manager/results.h"
#include "bot/manager/text.h"
#include "storage/record/record.h"

void mgr_replay_text_free(struct replay_text *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->lines[i]);
    free(t->lines);
    memset(t, 0, sizeof *t);
}

/* The replay being written: the sink's context. */
struct build {
    const struct record *rec;
    struct render_look look;
    struct replay_text *out;
    bool full; /* the lines passed REPLAY_MAX_TEXT */
    char names[ENGINE_MAX_PLAYERS][RENDER_SHOWN_SIZE];
    /* the trick being played */
    uint8_t cards[ENGINE_MAX_PLAYERS], seats[ENGINE_MAX_PLAYERS];
    int nplayed;
    int trick_no; /* tricks done this hand */
    /* the line of tricks being filled */
    char line[MGR_TEXT_SIZE];
    struct strbuf lb;
    int on_line; /* tricks on it */
};

static void add_line(struct build *b, const char *text)
{
    struct replay_text *t = b->out;
    size_t len = strlen(text);
    if (b->full || t->bytes + len > REPLAY_MAX_TEXT) {
        b->full = true;
        return;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->lines = xrealloc(t->lines, sizeof *t->lines * (size_t)t->cap);
    }
    t->lines[t->n++] = xstrdup(text);
    t->bytes += len;
}

/* The line of tricks, if it holds any, as a line of its own. */
static void flush_tricks(struct build *b)
{
    if (b->lb.len)
        add_line(b, b->lb.buf);
    strbuf_reset(&b->lb);
    b->on_line = 0;
}

/* A list of seat items ("alice 3, bob 0"), the points of each seat. */
static void sb_scores(struct strbuf *sb, const struct build *b,
                      const int32_t *points)
{
    for (int s = 0; s < b->rec->n; s++) {
        if (s)
            strbuf_addstr(sb, ", ");
        mgr_sb_points(sb, b->look.lang, b->names[s], (int)points[s]);
    }
}

/* A hand is dealt: how it is passed, then each seat's hand as dealt and
 * what it passed, a line each. */
static void dealt(struct build *b, const struct engine_game *g)
{
    flush_tricks(b);
    b->trick_no = 0;
    b->nplayed = 0;
    int h = g->hand_no - 1;
    const struct record_hand *rh = &b->rec->hands[h];
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    mgr_sb_hand_passing(&sb, b->look.lang, g->hand_no, g->pass_dir,
                        g->rules->pass_count);
    add_line(b, text);
    for (int s = 0; s < g->n; s++) {
        char hand[MGR_TEXT_SIZE], passed[MGR_TEXT_SIZE];
        struct engine_cards cards = engine_hand(g, s);
        mgr_hand_text(hand, sizeof hand, b->look, &cards, 0);
        strbuf_reset(&sb);
        uint8_t list[ENGINE_MAX_ACT_CARDS];
        int n = rh->npassed[s];
        memcpy(list, rh->passed[s], (size_t)n);
        render_sort(list, n);
        mgr_cards_text(passed, sizeof passed, b->look, list, n);
        if (g->pass_dir != ENGINE_PASS_HOLD && rh->blind >> s & 1)
            msg_add(
                &sb, b->look.lang,
                /* TRANSLATORS: !replay: a player's hand as dealt ({hand}: the
                 * cards by suit), and the cards they passed without looking
                 * at what they were dealt ({cards}: what they passed on) */
                M("{name}: {hand}; passes blind: {cards}"),
                MSG_S("name", b->names[s]), MSG_S("hand", hand),
                MSG_S("cards", passed), MSG_END);
        else if (g->pass_dir != ENGINE_PASS_HOLD && n > 0)
            /* TRANSLATORS: !replay: a player's hand as dealt ({hand}: the
             * cards by suit) and the cards they passed */
            msg_add(&sb, b->look.lang, M("{name}: {hand}; passes {cards}"),
                    MSG_S("name", b->names[s]), MSG_S("hand", hand),
                    MSG_S("cards", passed), MSG_END);
        else
            /* TRANSLATORS: !replay: a player's hand as dealt ({hand}: the
             * cards by suit) in a hand without passing */
            msg_add(&sb, b->look.lang, M("{name}: {hand}"),
                    MSG_S("name", b->names[s]), MSG_S("hand", hand), MSG_END);
        add_line(b, text);
    }
}

/* A trick is done: "3: alice 2♣ bob 9♣ → bob" goes on the line of
 * tricks, or starts the next one when it would make it too long. */
static void trick(struct build *b, int winner)
{
    bool ascii = b->look.cards == RENDER_CARDS_ASCII;
    bool words = b->look.cards == RENDER_CARDS_WORDS;
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    strbuf_addf(&sb, "%d:", ++b->trick_no);
    for (int i = 0; i < b->nplayed; i++) {
        char card[256];
        mgr_card_text(card, sizeof card, b->look, b->cards[i]);
        strbuf_addf(&sb, "%s %s %s", i && words ? "," : "",
                    b->names[b->seats[i]], card);
    }
    strbuf_addstr(&sb, ascii ? " ->" : " →");
    if (winner >= 0 && winner < b->rec->n)
        strbuf_addf(&sb, " %s", b->names[winner]);
    else
        strbuf_addf(
            &sb, " %s",
            msg_template(b->look.lang, M("set aside for the next winner")));
    b->nplayed = 0;
    /* a line's worth: four tricks of four players, two of eight */
    int most = 16 / b->rec->n;
    if (b->lb.len && (b->lb.len + 2 + sb.len > REPLAY_LINE_MAX ||
                      b->on_line >= (most > 1 ? most : 1)))
        flush_tricks(b);
    b->on_line++;
    strbuf_addf(&b->lb, "%s%s", b->lb.len ? "; " : "", text);
}

/* A hand is scored: its points and the totals after it. */
static void scored(struct build *b, const struct engine_game *g)
{
    flush_tricks(b);
    char points[MGR_TEXT_SIZE], totals[MGR_TEXT_SIZE], text[MGR_TEXT_SIZE];
    struct strbuf pb, tb, sb;
    strbuf_init(&pb, points, sizeof points);
    strbuf_init(&tb, totals, sizeof totals);
    strbuf_init(&sb, text, sizeof text);
    sb_scores(&pb, b, g->points);
    sb_scores(&tb, b, g->totals);
    /* TRANSLATORS: !replay: the end of hand {hand}: what each player
     * scored in it ("alice 0, bob 13, ...") and their totals after it */
    msg_add(&sb, b->look.lang, M("Hand {hand}: {points}. Totals: {totals}."),
            MSG_I("hand", g->hand_no), MSG_S("points", points),
            MSG_S("totals", totals), MSG_END);
    add_line(b, text);
}

static void on_event(void *ctx, const struct engine_game *g,
                     const struct engine_event *ev)
{
    struct build *b = ctx;
    switch (ev->kind) {
    case ENGINE_EV_DEALT:
        dealt(b, g);
        break;
    case ENGINE_EV_PLAYED:
        if (b->nplayed < ENGINE_MAX_PLAYERS) {
            b->seats[b->nplayed] = (uint8_t)ev->seat;
            b->cards[b->nplayed++] = (uint8_t)ev->card;
        }
        break;
    case ENGINE_EV_TRICK:
        trick(b, ev->seat);
        break;
    case ENGINE_EV_HAND_SCORED:
        scored(b, g);
        break;
    default:
        break;
    }
}

/* The first line: the game, when, its rules, its totals and winners. */
static void summary(struct build *b, const struct replay_about *about)
{
    const struct record *rec = b->rec;
    int lang = b->look.lang;
    char when[64] = "?", rules[600], changes[400], scores[MGR_TEXT_SIZE],
         won[MGR_TEXT_SIZE], hands[64], text[MGR_TEXT_SIZE];
    time_t tt = (time_t)about->time;
    struct tm tm;
    if (gmtime_r(&tt, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    struct strbuf sb;
    strbuf_init(&sb, rules, sizeof rules);
    const char *preset = engine_preset_name(rec->rules.preset);
    engine_rules_changes(&rec->rules, changes, sizeof changes);
    if (changes[0])
        msg_add(&sb, lang, M("{preset} with {changes}"),
                MSG_S("preset", preset), MSG_S("changes", changes), MSG_END);
    else
        strbuf_addstr(&sb, preset);
    strbuf_init(&sb, hands, sizeof hands);
    msg_addn(&sb, lang, MN("{n} hand", "{n} hands"), (unsigned long)rec->nhands,
             MSG_I("n", rec->nhands), MSG_END);
    strbuf_init(&sb, scores, sizeof scores);
    sb_scores(&sb, b, rec->totals);
    const char *winners[ENGINE_MAX_PLAYERS] = {0};
    int nw = 0;
    for (int i = 0; i < rec->nwinners; i++)
        winners[nw++] = b->names[rec->winners[i]];
    strbuf_init(&sb, won, sizeof won);
    mgr_sb_names(&sb, lang, winners, nw);
    /* TRANSLATORS: !replay's first line: "Game 3f9c0a1b2c3d4e5f
     * (2026-12-01 14:02 UTC, standard, 12 hands): alice 26, bob 80,
     * carol 40, dave 50. alice won." {scores} lists each player's total;
     * {winners} is one name, or several joined ("alice and carol") in
     * the second text */
    const char *id = nw <= 1 ? M("Game {id} ({when}, {rules}, {hands}): "
                                 "{scores}. {winners} won.")
                             : M("Game {id} ({when}, {rules}, {hands}): "
                                 "{scores}. {winners} shared the win.");
    strbuf_init(&sb, text, sizeof text);
    msg_add(&sb, lang, id, MSG_S("id", about->id), MSG_S("when", when),
            MSG_S("rules", rules), MSG_S("hands", hands),
            MSG_S("scores", scores), MSG_S("winners", won), MSG_END);
    add_line(b, text);
}

int mgr_replay_render(const char *json, size_t len,
                      const struct replay_about *about, struct render_look look,
                      struct replay_text *out, char *err, size_t errlen)
{
    mgr_replay_text_free(out);
    struct record *rec;
    if (record_parse(json, len, &rec, err, errlen))
        return -1;
    if (!rec->has_totals || !rec->has_winners || rec->nwinners < 1) {
        record_free(rec);
        return err_set(err, errlen, "the game was not finished");
    }
    struct build *b = xcalloc(1, sizeof *b);
    b->rec = rec;
    b->look = look;
    b->out = out;
    strbuf_init(&b->lb, b->line, sizeof b->line);
    for (int s = 0; s < rec->n; s++)
        render_name(b->names[s], sizeof b->names[s], rec->names[s]);
    summary(b, about);
    struct engine_sink sink = {on_event, b};
    int rc = record_replay(rec, &sink, NULL, NULL, NULL, err, errlen);
    flush_tricks(b);
    if (rc == 0 && b->full)
        rc = 1;
    if (rc)
        mgr_replay_text_free(out);
    free(b);
    record_free(rec);
    return rc;
}

struct replays {
    struct replay r[REPLAY_OPEN];
    int64_t idle_ms;
};

struct replays *mgr_replays_new(void)
{
    struct replays *rs = xcalloc(1, sizeof *rs);
    rs->idle_ms = REPLAY_IDLE_MS;
    return rs;
}

void mgr_replays_set_idle(struct replays *rs, int64_t idle_ms)
{
    rs->idle_ms = idle_ms;
}

void mgr_replay_close(struct replay *r)
{
    mgr_replay_text_free(&r->text);
    memset(r, 0, sizeof *r);
}

void mgr_replays_free(struct replays *rs)
{
    if (!rs)
        return;
    for (int i = 0; i < REPLAY_OPEN; i++)
        mgr_replay_close(&rs->r[i]);
    free(rs);
}

int mgr_replays_count(const struct replays *rs)
{
    int n = 0;
    for (int i = 0; i < REPLAY_OPEN; i++)
        n += rs->r[i].used;
    return n;
}

/* Drops the replays idle too long. */
static void drop_idle(struct replays *rs, int64_t now)
{
    for (int i = 0; i < REPLAY_OPEN; i++)
        if (rs->r[i].used && now - rs->r[i].at >= rs->idle_ms)
            mgr_replay_close(&rs->r[i]);
}

static void key_of(char *key, size_t len, const char *network, const char *id)
{
    snprintf(key, len, "%s\n%s", network ? network : "", id);
}

struct replay *mgr_replay_find(struct replays *rs, const char *network,
                               const char *id, int64_t now)
{
    drop_idle(rs, now);
    char key[320];
    key_of(key, sizeof key, network, id);
    for (int i = 0; i < REPLAY_OPEN; i++)
        if (rs->r[i].used && strcmp(rs->r[i].key, key) == 0)
            return &rs->r[i];
    return NULL;
}

struct replay *mgr_replay_open(struct replays *rs, const char *network,
                               const char *id, struct replay_text *text,
                               int lang, int64_t now)
{
    struct replay *r = mgr_replay_find(rs, network, id, now);
    for (int i = 0; !r && i < REPLAY_OPEN; i++)
        if (!rs->r[i].used)
            r = &rs->r[i];
    if (!r) {
        /* all in use: the one used longest ago gives way */
        int oldest = 0;
        for (int k = 1; k < REPLAY_OPEN; k++)
            if (rs->r[k].at < rs->r[oldest].at)
                oldest = k;
        r = &rs->r[oldest];
    }
    mgr_replay_close(r);
    r->used = true;
    key_of(r->key, sizeof r->key, network, id);
    r->at = now;
    r->text = *text;
    memset(text, 0, sizeof *text);
    r->lang = lang;
    return r;
}
