/*
 * The site's pages (site_internal.h), each built whole into a string
 * from the channel's model: the site's index, a channel's page, a
 * board's page, a person's page and a game's replay. Every text from
 * outside goes through site_html.c; every English text is in
 * site_text.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/site/site_internal.h"
#include "bot/site/site_text.h"
#include "storage/record/record.h"

/* ---- Shared pieces ---------------------------------------------------- */

static void table_open_class(struct strbuf *sb, const char *cls,
                             const char *caption_html)
{
    strbuf_addf(sb, "<div class=\"scroll\"><table%s%s>\n<caption>",
                cls ? " class=" : "", cls ? cls : "");
    strbuf_addstr(sb, caption_html);
    strbuf_addstr(sb, "</caption>\n");
}

static void table_open(struct strbuf *sb, const char *caption_html)
{
    table_open_class(sb, NULL, caption_html);
}

static void table_close(struct strbuf *sb)
{
    strbuf_addstr(sb, "</tbody></table></div>\n");
}

/* A person's name linked to their page (prefix: the path from the page
 * to the channel's folder), or the name alone. */
static void person_link(struct strbuf *sb, const struct site_channel *c,
                        const char *prefix, const char *key, const char *name)
{
    int i = key && key[0] ? site_person_find(c, key) : -1;
    if (i < 0) {
        site_html_name(sb, name);
        return;
    }
    strbuf_addf(sb, "<a href=\"%sp/%s.html\">", prefix, c->people[i].page);
    site_html_name(sb, name);
    strbuf_addstr(sb, "</a>");
}

static void channel_href(struct strbuf *sb, const struct site_channel *c)
{
    site_url_segment(sb, c->net_enc);
    strbuf_addc(sb, '/');
    site_url_segment(sb, c->room_enc);
    strbuf_addstr(sb, "/index.html");
}

/* "ROOM on NET", in HTML. */
static void channel_name(struct strbuf *sb, const struct site_channel *c)
{
    char *room, *net;
    struct strbuf t;
    strbuf_init_heap(&t, STRBUF_NO_CAP);
    site_html_name(&t, c->room);
    room = strbuf_take(&t);
    strbuf_init_heap(&t, STRBUF_NO_CAP);
    site_html_name(&t, c->net);
    net = strbuf_take(&t);
    strbuf_addf(sb, ST_CHANNEL_TITLE, room ? room : "", net ? net : "");
    free(room);
    free(net);
}

/* The same as plain text, for a title. */
static char *channel_plain(const struct site_channel *c)
{
    struct strbuf t;
    strbuf_init_heap(&t, STRBUF_NO_CAP);
    strbuf_addf(&t, ST_CHANNEL_TITLE, c->room, c->net);
    char *s = strbuf_take(&t);
    return s ? s : calloc(1, 1);
}

static char *html_name(const char *name)
{
    struct strbuf t;
    strbuf_init_heap(&t, STRBUF_NO_CAP);
    site_html_name(&t, name);
    char *s = strbuf_take(&t);
    return s ? s : calloc(1, 1);
}

void site_board_file(const struct stats_board *b, char *out, size_t outlen)
{
    char enc[FILE_NAME_MAX + 1];
    file_name_encode(b->preset, enc, sizeof enc);
    snprintf(out, outlen, "%s.html", enc);
}

static void board_href(struct strbuf *sb, const struct stats_board *b,
                       const char *prefix)
{
    char file[FILE_NAME_MAX + 8];
    site_board_file(b, file, sizeof file);
    strbuf_addf(sb, "%sb/", prefix);
    site_url_segment(sb, file);
}

static void board_rows(struct strbuf *sb, const struct site_channel *c,
                       const struct stats_board *b, int rows,
                       const char *prefix)
{
    strbuf_addstr(sb, "<thead><tr><th scope=\"col\">" ST_RANK
                      "</th><th scope=\"col\">" ST_NAME
                      "</th><th scope=\"col\" class=\"n\">" ST_RATING
                      "</th><th scope=\"col\" class=\"n\">" ST_GAMES
                      "</th><th scope=\"col\" class=\"n\">" ST_WINS
                      "</th></tr></thead>\n<tbody>\n");
    /* a whole board has a row per person: the numbers are right-aligned
     * by the table's class, and the optional end tags left out */
    for (int k = 0; k < b->n && k < rows; k++) {
        const struct stats_player *p = &b->p[b->order[k]];
        strbuf_addf(sb, "<tr><td>%d<td>", p->rank);
        person_link(sb, c, prefix, p->key, p->name);
        strbuf_addf(sb, "<td>%.0f<td>%d<td>%d\n", p->rating, p->games, p->wins);
    }
    table_close(sb);
}

/* The first cells of a game's row: its time linking to its page (under
 * prefix), its rules. */
static void game_cells(struct strbuf *sb, const char *prefix, const char *id,
                       int64_t time, const char *preset)
{
    strbuf_addf(sb, "<tr><td><a href=\"%sg/", prefix);
    site_url_segment(sb, id);
    strbuf_addstr(sb, ".html\">");
    site_html_time(sb, time);
    strbuf_addstr(sb, "</a></td><td>");
    site_html_text(sb, preset, 0);
    strbuf_addstr(sb, "</td>");
}

/* ---- The site's index ------------------------------------------------- */

void site_page_index(const struct site *s, struct strbuf *sb)
{
    site_html_head(sb, "", ST_SITE_TITLE, NULL, false);
    strbuf_addstr(sb, "<h2>" ST_CHANNELS "</h2>\n");
    if (!s->nch) {
        strbuf_addstr(sb, "<p>" ST_NO_CHANNELS "</p>\n");
        site_html_foot(sb, "");
        return;
    }
    table_open(sb, ST_CHANNELS);
    strbuf_addstr(sb, "<thead><tr><th scope=\"col\">" ST_ROOM
                      "</th><th scope=\"col\">" ST_NETWORK
                      "</th><th scope=\"col\" class=\"n\">" ST_GAMES
                      "</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < s->nch; i++) {
        const struct site_channel *c = s->ch[i];
        strbuf_addstr(sb, "<tr><td><a href=\"");
        channel_href(sb, c);
        strbuf_addstr(sb, "\">");
        site_html_name(sb, c->room);
        strbuf_addstr(sb, "</a></td><td>");
        site_html_name(sb, c->net);
        strbuf_addf(sb, "</td><td class=\"n\">%d</td></tr>\n", c->ngames);
    }
    table_close(sb);
    site_html_foot(sb, "");
}

/* ---- A channel -------------------------------------------------------- */

/* One finished game's players and totals, winners in bold. */
static void game_players(struct strbuf *sb, const struct site_channel *c,
                         const struct archive_result *r, int gi,
                         const char *prefix)
{
    strbuf_addstr(sb, "<ul class=\"players\">");
    for (int i = 0; i < r->n; i++) {
        bool won = gi >= 0 && (c->games[gi].winners >> i & 1);
        strbuf_addstr(sb, won ? "<li><strong>" : "<li>");
        if (r->seats[i].computer)
            site_html_name(sb, r->seats[i].name);
        else
            person_link(sb, c, prefix, r->seats[i].key, r->seats[i].name);
        if (r->seats[i].computer)
            strbuf_addstr(sb, " " ST_COMPUTER);
        if (gi >= 0)
            strbuf_addf(sb, " %d", c->games[gi].totals[i]);
        strbuf_addstr(sb, won ? " (" ST_WON ")</strong></li>" : "</li>");
    }
    strbuf_addstr(sb, "</ul>");
}

void site_page_channel(const struct site *s, const struct site_channel *c,
                       struct strbuf *sb)
{
    char *plain = channel_plain(c);
    struct strbuf h;
    strbuf_init_heap(&h, STRBUF_NO_CAP);
    channel_name(&h, c);
    char *h1 = strbuf_take(&h);
    site_html_head(sb, "../../", plain, h1, false);
    free(plain);
    free(h1);
    strbuf_addstr(sb, "<h2>" ST_LEADERBOARDS "</h2>\n");
    const struct stats *st = c->stats;
    for (int i = 0; i < st->nboards; i++) {
        const struct stats_board *b = &st->boards[i];
        if (!b->n)
            continue;
        strbuf_addstr(sb, "<h3>");
        site_html_text(sb, b->preset, 0);
        strbuf_addstr(sb, "</h3>\n");
        struct strbuf cap;
        strbuf_init_heap(&cap, STRBUF_NO_CAP);
        struct strbuf pre;
        strbuf_init_heap(&pre, STRBUF_NO_CAP);
        site_html_text(&pre, b->preset, 0);
        strbuf_addf(&cap, ST_BOARD_TOP, pre.buf ? pre.buf : "",
                    b->n < SITE_TOP_ROWS ? b->n : SITE_TOP_ROWS);
        table_open_class(sb, "b", cap.buf ? cap.buf : "");
        strbuf_free(&cap);
        strbuf_free(&pre);
        board_rows(sb, c, b, SITE_TOP_ROWS, "");
        strbuf_addstr(sb, "<p><a href=\"");
        board_href(sb, b, "");
        strbuf_addstr(sb, "\">");
        strbuf_addf(sb, ST_BOARD_ALL, b->n);
        strbuf_addstr(sb, "</a></p>\n");
    }
    strbuf_addstr(sb, "<h2>" ST_RECENT "</h2>\n");
    int shown = c->nrecent < s->recent ? c->nrecent : s->recent;
    if (!shown) {
        strbuf_addstr(sb, "<p>" ST_NO_GAMES "</p>\n");
    } else {
        char cap[128];
        snprintf(cap, sizeof cap, ST_RECENT_CAPTION, shown);
        table_open(sb, cap);
        strbuf_addstr(sb, "<thead><tr><th scope=\"col\">" ST_WHEN
                          "</th><th scope=\"col\">" ST_PRESET
                          "</th><th scope=\"col\">" ST_PLAYERS
                          "</th></tr></thead>\n<tbody>\n");
        for (int k = 0; k < shown; k++) {
            int gi;
            const struct archive_result *r = site_recent(s, c, k, &gi);
            game_cells(sb, "", r->game, r->time, r->preset);
            strbuf_addstr(sb, "<td>");
            game_players(sb, c, r, gi, "");
            strbuf_addstr(sb, "</td></tr>\n");
        }
        table_close(sb);
    }
    site_html_foot(sb, "../../");
}

void site_page_board(const struct site_channel *c, int board, struct strbuf *sb)
{
    const struct stats_board *b = &c->stats->boards[board];
    char *plain = channel_plain(c);
    struct strbuf t;
    strbuf_init_heap(&t, STRBUF_NO_CAP);
    strbuf_addf(&t, ST_BOARD_TITLE, b->preset);
    strbuf_addstr(&t, " — ");
    strbuf_addstr(&t, plain);
    char *title = strbuf_take(&t);
    site_html_head(sb, "../../../", title ? title : "", NULL, false);
    free(plain);
    free(title);
    strbuf_addstr(sb,
                  "<p><a href=\"../index.html\">" ST_BACK_CHANNEL "</a></p>\n");
    struct strbuf cap, pre;
    strbuf_init_heap(&cap, STRBUF_NO_CAP);
    strbuf_init_heap(&pre, STRBUF_NO_CAP);
    site_html_text(&pre, b->preset, 0);
    strbuf_addf(&cap, ST_BOARD_CAPTION, pre.buf ? pre.buf : "");
    table_open_class(sb, "b", cap.buf ? cap.buf : "");
    strbuf_free(&cap);
    strbuf_free(&pre);
    board_rows(sb, c, b, b->n, "../");
    site_html_foot(sb, "../../../");
}

/* ---- A person --------------------------------------------------------- */

#define CHART_W 600
#define CHART_H 200
#define CHART_PAD 28

static void chart(struct strbuf *sb, const struct site_person *p, int board,
                  const char *preset, int id)
{
    int n = 0;
    for (int i = 0; i < p->npts; i++)
        n += p->pts[i].board == board;
    if (!n)
        return;
    double *v = malloc(sizeof *v * (size_t)n);
    if (!v)
        abort();
    int k = 0;
    for (int i = 0; i < p->npts; i++)
        if (p->pts[i].board == board)
            v[k++] = p->pts[i].rating;
    double lo = v[0], hi = v[0];
    for (int i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    struct strbuf alt;
    strbuf_init_heap(&alt, STRBUF_NO_CAP);
    struct strbuf t, pr;
    strbuf_init_heap(&t, STRBUF_NO_CAP);
    site_html_text(&t, p->name, SITE_NAME_CHARS);
    strbuf_init_heap(&pr, STRBUF_NO_CAP);
    site_html_text(&pr, preset, 0);
    const char *nm = t.buf ? t.buf : "", *pre = pr.buf ? pr.buf : "";
    if (n == 1)
        strbuf_addf(&alt, ST_CHART_ONE, pre, v[0]);
    else
        strbuf_addf(&alt, ST_CHART_ALT, nm, pre, n, v[0], v[n - 1], lo, hi);
    strbuf_free(&t);
    strbuf_free(&pr);
    strbuf_addf(sb,
                "<figure>\n<svg class=\"chart\" viewBox=\"0 0 %d %d\" "
                "role=\"img\" aria-labelledby=\"c%d\">\n<title id=\"c%d\">%s"
                "</title>\n",
                CHART_W, CHART_H, id, id, alt.buf ? alt.buf : "");
    if (hi - lo < 20) {
        double mid = (hi + lo) / 2;
        lo = mid - 10;
        hi = mid + 10;
    }
    double x0 = 48, x1 = CHART_W - 8, y0 = CHART_PAD, y1 = CHART_H - CHART_PAD;
    strbuf_addf(sb,
                "<line class=\"axis\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
                "y2=\"%.0f\"/>\n<line class=\"axis\" x1=\"%.0f\" y1=\"%.0f\" "
                "x2=\"%.0f\" y2=\"%.0f\"/>\n",
                x0, y1, x1, y1, x0, y0, x0, y1);
    strbuf_addf(sb,
                "<text x=\"%.0f\" y=\"%.0f\" class=\"lbl\">%.0f</text>\n"
                "<text x=\"%.0f\" y=\"%.0f\" class=\"lbl\">%.0f</text>\n",
                4.0, y0 + 4, hi, 4.0, y1 + 4, lo);
    int m = n > SITE_CHART_POINTS ? SITE_CHART_POINTS : n;
    strbuf_addstr(sb, "<polyline class=\"line\" points=\"");
    for (int j = 0; j < m; j++) {
        /* thinned evenly, the first and last points kept */
        int i = m == 1 ? 0 : (int)((long long)j * (n - 1) / (m - 1));
        double x = m == 1 ? x0 : x0 + (x1 - x0) * i / (n - 1 ? n - 1 : 1);
        double y = y1 - (y1 - y0) * (v[i] - lo) / (hi - lo);
        strbuf_addf(sb, "%s%.1f,%.1f", j ? " " : "", x, y);
    }
    strbuf_addstr(sb, "\"/>\n</svg>\n<figcaption>");
    strbuf_addstr(sb, alt.buf ? alt.buf : "");
    strbuf_addstr(sb, "</figcaption>\n</figure>\n");
    strbuf_free(&alt);
    free(v);
}

void site_page_person(const struct site_channel *c, int person,
                      struct strbuf *sb)
{
    const struct site_person *p = &c->people[person];
    char *h1 = html_name(p->name);
    char title[256];
    site_text_cut(p->name, SITE_NAME_CHARS, title, sizeof title);
    site_html_head(sb, "../../../", title, h1, false);
    free(h1);
    strbuf_addstr(sb, "<p><a href=\"../index.html\">");
    channel_name(sb, c);
    strbuf_addstr(sb, "</a></p>\n<h2>" ST_PERSON_FIGURES "</h2>\n");
    char *nm = html_name(p->name);
    struct strbuf cap;
    strbuf_init_heap(&cap, STRBUF_NO_CAP);
    strbuf_addf(&cap, ST_PERSON_FIGURES_CAPTION, nm);
    table_open(sb, cap.buf ? cap.buf : "");
    strbuf_free(&cap);
    strbuf_addstr(sb, "<thead><tr><th scope=\"col\">" ST_PRESET
                      "</th><th scope=\"col\" class=\"n\">" ST_GAMES
                      "</th><th scope=\"col\" class=\"n\">" ST_WINS
                      "</th><th scope=\"col\" class=\"n\">" ST_POINTS_PER_HAND
                      "</th><th scope=\"col\" class=\"n\">" ST_MOONS
                      "</th><th scope=\"col\" class=\"n\">" ST_QUEENS
                      "</th><th scope=\"col\" class=\"n\">" ST_RATING
                      "</th></tr></thead>\n<tbody>\n");
    const struct stats *st = c->stats;
    for (int b = 0; b < st->nboards; b++) {
        const struct stats_player *sp = stats_find(&st->boards[b], p->key);
        if (!sp)
            continue;
        strbuf_addstr(sb, "<tr><th scope=\"row\">");
        site_html_text(sb, st->boards[b].preset, 0);
        strbuf_addf(sb,
                    "</th><td class=\"n\">%d</td><td class=\"n\">%d</td>"
                    "<td class=\"n\">%.2f</td><td class=\"n\">%d</td>"
                    "<td class=\"n\">%d</td><td class=\"n\">%.0f</td></tr>\n",
                    sp->games, sp->wins,
                    sp->hands ? (double)sp->points / sp->hands : 0.0,
                    sp->moons + sp->suns, sp->queens, sp->rating);
    }
    table_close(sb);
    strbuf_addstr(sb, "<h2>" ST_PERSON_CHARTS "</h2>\n");
    for (int b = 0; b < st->nboards; b++) {
        if (!stats_find(&st->boards[b], p->key))
            continue;
        strbuf_addstr(sb, "<h3>");
        site_html_text(sb, st->boards[b].preset, 0);
        strbuf_addstr(sb, "</h3>\n");
        chart(sb, p, b, st->boards[b].preset, b);
    }
    strbuf_addstr(sb, "<h2>" ST_PERSON_GAMES "</h2>\n");
    int shown = p->ngames < SITE_PERSON_GAMES ? p->ngames : SITE_PERSON_GAMES;
    strbuf_init_heap(&cap, STRBUF_NO_CAP);
    strbuf_addf(&cap, ST_PERSON_GAMES_CAPTION, shown, nm);
    table_open(sb, cap.buf ? cap.buf : "");
    strbuf_free(&cap);
    free(nm);
    strbuf_addstr(sb, "<thead><tr><th scope=\"col\">" ST_WHEN
                      "</th><th scope=\"col\">" ST_PRESET
                      "</th><th scope=\"col\" class=\"n\">" ST_TOTAL
                      "</th><th scope=\"col\">" ST_RESULT
                      "</th></tr></thead>\n<tbody>\n");
    for (int k = 0; k < shown; k++) {
        int v = p->games[p->ngames - 1 - k];
        const struct site_game *g = &c->games[v / 16];
        int seat = v % 16;
        game_cells(sb, "../", g->id, g->time, g->preset);
        strbuf_addf(sb, "<td class=\"n\">%d</td><td>%s</td></tr>\n",
                    g->totals[seat],
                    g->left >> seat & 1      ? ST_LEFT
                    : g->winners >> seat & 1 ? ST_WON
                                             : ST_LOST);
    }
    table_close(sb);
    site_html_foot(sb, "../../../");
}

/* ---- A game ----------------------------------------------------------- */

/* A game's page is most of the site's size (one page per game, a row per
 * trick), so each hand is one table and its rows leave out the end tags
 * HTML makes optional: a column per seat, the seats' names once in its
 * head; the cards dealt and passed, then a row per trick (the card of
 * each seat, the led one marked, who took it), then the hand's points
 * and the running totals. */

struct replay {
    struct strbuf *sb;
    const struct site_channel *c;
    const struct archive_result *r;
    const struct record *rec;
    int hand;   /* from 1 */
    int trick;  /* in the hand, from 1 */
    int leader; /* of the trick being played, or -1 */
    int card[ENGINE_MAX_PLAYERS];
    int moon;  /* the shooter of this hand, or -1 */
    bool open; /* a hand's table is open */
};

static int cmp_card(const void *x, const void *y)
{
    return (int)*(const uint8_t *)x - (int)*(const uint8_t *)y;
}

static void cards(struct strbuf *sb, const uint8_t *v, int n, bool sort)
{
    uint8_t tmp[ENGINE_MAX_CARDS];
    memcpy(tmp, v, (size_t)n);
    if (sort)
        qsort(tmp, (size_t)n, 1, cmp_card);
    site_html_cards(sb, tmp, n);
}

/* The rows of the cards dealt and passed, when the channel shows them. */
static void hand_cards(struct replay *rp, const struct record_hand *h)
{
    struct strbuf *sb = rp->sb;
    bool passed = false;
    for (int i = 0; i < rp->r->n; i++)
        passed |= h->npassed[i] > 0;
    strbuf_addstr(sb, "<tbody>\n<tr><th scope=row>" ST_DEALT);
    for (int i = 0; i < rp->r->n; i++) {
        strbuf_addstr(sb, "<td class=c>");
        cards(sb, h->deal[i], h->ndeal[i], true);
    }
    strbuf_addc(sb, '\n');
    if (passed) {
        strbuf_addstr(sb, "<tr><th scope=row>" ST_PASSED);
        for (int i = 0; i < rp->r->n; i++) {
            strbuf_addstr(sb, "<td class=c>");
            cards(sb, h->passed[i], h->npassed[i], false);
        }
        strbuf_addc(sb, '\n');
    }
}

static void hand_open(struct replay *rp, const struct engine_game *g)
{
    struct strbuf *sb = rp->sb;
    const struct record_hand *h =
        rp->hand <= rp->rec->nhands ? &rp->rec->hands[rp->hand - 1] : NULL;
    strbuf_addf(sb, "<section class=hand id=h%d>\n<h2>" ST_HAND "</h2>\n<p>",
                rp->hand, rp->hand);
    strbuf_addstr(sb, ST_HAND_DEALER);
    site_html_name(sb, rp->r->seats[g->dealer].name);
    strbuf_addstr(sb, ". ");
    int dir = g->pass_dir;
    strbuf_addf(
        sb, ST_HAND_PASS,
        dir >= 0 && dir < (int)(sizeof st_pass_names / sizeof *st_pass_names)
            ? st_pass_names[dir]
            : "?");
    strbuf_addf(sb,
                ".</p>\n<div class=scroll><table class=g>\n"
                "<caption>" ST_HAND_CAPTION "</caption>\n"
                "<thead><tr><th scope=col>" ST_TRICK,
                rp->hand);
    for (int i = 0; i < rp->r->n; i++) {
        strbuf_addstr(sb, "<th scope=col>");
        site_html_name(sb, rp->r->seats[i].name);
    }
    strbuf_addstr(sb, "<th scope=col>" ST_TOOK "\n</thead>\n");
    if (!rp->c->hide_hands && h)
        hand_cards(rp, h);
    strbuf_addstr(sb, "<tbody>\n");
    rp->open = true;
    rp->trick = 0;
    rp->leader = -1;
    rp->moon = -1;
}

/* One row of the hand's foot: a heading and a number per seat. */
static void foot_row(struct strbuf *sb, const char *head, const int *v, int n)
{
    strbuf_addf(sb, "<tr><th scope=row>%s", head);
    for (int i = 0; i < n; i++)
        strbuf_addf(sb, "<td class=n>%d", v[i]);
    strbuf_addc(sb, '\n');
}

static void on_event(void *ctx, const struct engine_game *g,
                     const struct engine_event *ev)
{
    struct replay *rp = ctx;
    struct strbuf *sb = rp->sb;
    int n = rp->r->n;
    switch (ev->kind) {
    case ENGINE_EV_DEALT:
        rp->hand++;
        hand_open(rp, g);
        break;
    case ENGINE_EV_PLAYED:
        if (ev->seat < 0 || ev->seat >= n)
            break;
        if (rp->leader < 0) {
            rp->leader = ev->seat;
            for (int i = 0; i < n; i++)
                rp->card[i] = -1;
        }
        rp->card[ev->seat] = ev->card;
        break;
    case ENGINE_EV_TRICK:
        rp->trick++;
        strbuf_addf(sb, "<tr><th>%d", rp->trick);
        for (int i = 0; i < n; i++) {
            bool played = rp->leader >= 0 && rp->card[i] >= 0;
            bool red = played && site_card_red(rp->card[i]);
            strbuf_addstr(sb, i == rp->leader ? (red ? "<td class=\"l r\">"
                                                     : "<td class=l>")
                              : red           ? "<td class=r>"
                                              : "<td>");
            if (played)
                site_card_text(sb, rp->card[i]);
        }
        /* a cell is a paragraph of its own for the bidi algorithm: a
         * name alone in one needs no <bdi> */
        strbuf_addstr(sb, "<td>");
        if (ev->seat >= 0 && ev->seat < n)
            site_html_text(sb, rp->r->seats[ev->seat].name, SITE_NAME_CHARS);
        else
            strbuf_addstr(sb, ST_NOBODY);
        strbuf_addc(sb, '\n');
        rp->leader = -1;
        break;
    case ENGINE_EV_MOON:
        rp->moon = ev->seat;
        break;
    case ENGINE_EV_HAND_SCORED:
        if (rp->open) {
            strbuf_addstr(sb, "<tfoot>\n");
            foot_row(sb, ST_HAND_POINTS, g->points, n);
            foot_row(sb, ST_RUNNING, g->totals, n);
            strbuf_addstr(sb, "</table></div>\n");
        }
        rp->open = false;
        if (rp->moon >= 0 && rp->moon < n) {
            strbuf_addstr(sb, "<p>");
            site_html_name(sb, rp->r->seats[rp->moon].name);
            strbuf_addstr(sb, " " ST_MOON ".</p>\n");
        }
        strbuf_addstr(sb, "</section>\n");
        break;
    default:
        break;
    }
}

int site_page_game(const struct site_channel *c, const struct archive_result *r,
                   const char *record, size_t len, struct strbuf *sb)
{
    struct record *rec;
    if (record_parse(record, len, &rec, NULL, 0))
        return -1;
    if (rec->n != r->n) {
        record_free(rec);
        return -1;
    }
    /* the replay goes into a buffer of its own: the final totals come
     * first on the page, and are known only at the end */
    struct strbuf body;
    strbuf_init_heap(&body, STRBUF_NO_CAP);
    struct replay rp = {.sb = &body, .c = c, .r = r, .rec = rec, .leader = -1};
    struct engine_sink sink = {on_event, &rp};
    struct engine_game g;
    if (record_replay(rec, &sink, NULL, NULL, &g, NULL, 0) ||
        engine_phase(&g) != ENGINE_PHASE_GAME_OVER) {
        strbuf_free(&body);
        record_free(rec);
        return -1;
    }
    char title[64];
    snprintf(title, sizeof title, ST_GAME_TITLE, r->game);
    site_html_head(sb, "../../../", title, NULL, true);
    strbuf_addstr(sb, "<p><a href=\"../index.html\">");
    channel_name(sb, c);
    strbuf_addstr(sb, "</a></p>\n<p>");
    site_html_time(sb, r->time);
    strbuf_addstr(sb, ". ");
    char changes[STATS_CHANGES_SIZE];
    engine_rules_changes(&rec->rules, changes, sizeof changes);
    site_html_text(sb, engine_preset_name(rec->rules.preset), 0);
    if (changes[0]) {
        strbuf_addstr(sb, " (");
        site_html_text(sb, changes, 0);
        strbuf_addstr(sb, ")");
    }
    strbuf_addf(sb, ". %d hands.</p>\n", rp.hand);
    if (c->hide_hands)
        strbuf_addstr(sb, "<p>" ST_HIDDEN "</p>\n");
    strbuf_addstr(sb, "<h2>" ST_GAME_FINAL "</h2>\n");
    table_open(sb, ST_GAME_FINAL);
    strbuf_addstr(sb, "<thead><tr><th scope=\"col\">" ST_NAME
                      "</th><th scope=\"col\" class=\"n\">" ST_TOTAL
                      "</th><th scope=\"col\">" ST_RESULT
                      "</th></tr></thead>\n<tbody>\n");
    uint16_t winners = 0;
    for (int i = 0; i < g.nwinners; i++)
        winners |= (uint16_t)(1u << g.winners[i]);
    for (int i = 0; i < r->n; i++) {
        strbuf_addstr(sb, "<tr><th scope=\"row\">");
        if (r->seats[i].computer) {
            site_html_name(sb, r->seats[i].name);
            strbuf_addstr(sb, " " ST_COMPUTER);
        } else {
            person_link(sb, c, "../", r->seats[i].key, r->seats[i].name);
        }
        strbuf_addf(sb, "</th><td class=\"n\">%d</td><td>%s</td></tr>\n",
                    g.totals[i],
                    r->seats[i].left   ? ST_LEFT
                    : winners >> i & 1 ? ST_WON
                                       : ST_LOST);
    }
    table_close(sb);
    strbuf_add(sb, body.buf ? body.buf : "", body.len);
    strbuf_free(&body);
    record_free(rec);
    site_html_foot(sb, "../../../");
    return 0;
}

/* ---- The files beside the pages --------------------------------------- */

const char site_css[] =
    "html{font-family:system-ui,sans-serif;line-height:1.4;color:#1a1a1a;"
    "background:#fdfdf8}\n"
    "body{margin:0 auto;max-width:60rem;padding:0 .75rem}\n"
    "h1{font-size:1.5rem;overflow-wrap:anywhere}\n"
    "h2{font-size:1.2rem;margin-top:1.5rem}\n"
    "a{color:#0b4f9c}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    "table{border-collapse:collapse;margin:.5rem 0}\n"
    "caption{text-align:left;font-weight:bold;padding:.25rem 0}\n"
    "th,td{border:1px solid #c8c8c0;padding:.2rem .4rem;text-align:left;"
    "vertical-align:top}\n"
    "thead th{background:#e9ece4}\n"
    ".n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".r{color:#b00000}\n"
    ".l{background:#fff4c8}\n"
    ".b td{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".b td:nth-child(2){text-align:left}\n"
    ".c{white-space:normal;min-width:5rem}\n"
    "bdi{overflow-wrap:break-word}\n"
    "ul.players{margin:0;padding-left:1rem}\n"
    "figure{margin:.5rem 0}\n"
    "svg.chart{width:100%;max-width:40rem;height:auto;background:#fff;"
    "border:1px solid #c8c8c0}\n"
    "svg .line{fill:none;stroke:#0b4f9c;stroke-width:2}\n"
    "svg .axis{stroke:#888;stroke-width:1}\n"
    "svg .lbl{font-size:12px;fill:#333}\n"
    "footer{margin:2rem 0 1rem;font-size:.9rem;color:#555}\n"
    ".hand.off{display:none}\n"
    "@media (max-width:30rem){th,td{padding:.15rem .25rem}}\n";

/* The optional stepper of a game's page: shows one hand at a time with
 * buttons. The page reads whole without it. */
const char site_js[] =
    "\"use strict\";\n"
    "document.addEventListener('DOMContentLoaded', function () {\n"
    "  var hands = document.querySelectorAll('section.hand');\n"
    "  if (hands.length < 2) return;\n"
    "  var at = 0;\n"
    "  var nav = document.createElement('nav');\n"
    "  var prev = document.createElement('button');\n"
    "  var next = document.createElement('button');\n"
    "  var where = document.createElement('span');\n"
    "  prev.textContent = '\\u2190';\n"
    "  next.textContent = '\\u2192';\n"
    "  prev.setAttribute('aria-label', 'previous hand');\n"
    "  next.setAttribute('aria-label', 'next hand');\n"
    "  where.setAttribute('aria-live', 'polite');\n"
    "  nav.appendChild(prev); nav.appendChild(where); "
    "nav.appendChild(next);\n"
    "  hands[0].parentNode.insertBefore(nav, hands[0]);\n"
    "  function show() {\n"
    "    for (var i = 0; i < hands.length; i++)\n"
    "      hands[i].classList.toggle('off', i !== at);\n"
    "    where.textContent = ' ' + (at + 1) + ' / ' + hands.length + ' ';\n"
    "  }\n"
    "  prev.addEventListener('click', function () { if (at > 0) { at--; "
    "show(); } });\n"
    "  next.addEventListener('click', function () { if (at < hands.length - "
    "1) { at++; show(); } });\n"
    "  show();\n"
    "});\n";
