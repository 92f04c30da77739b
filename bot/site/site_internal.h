/*
 * What the site's files share (site.h is the interface): a channel's
 * model, the HTML helpers (site_html.c), the pages (site_page.c) and the
 * model's reading and counting (site_model.c).
 */
#ifndef HEARTS_SITE_INTERNAL_H
#define HEARTS_SITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/file.h"
#include "bot/common/strbuf.h"
#include "bot/site/site.h"
#include "storage/archive.h"
#include "storage/stats.h"

/* Characters of a name shown; longer ones are cut with an ellipsis. */
#define SITE_NAME_CHARS 32
/* The file in a generation that says under what it was written; its
 * format's number goes up with every change to what any page holds, so
 * that site_open writes a site of older pages whole again. */
#define SITE_STAMP_FILE ".heartsbot-site"
#define SITE_STAMP_FORMAT "heartsbot-site/2"
/* Characters of a page's title at most. */
#define SITE_TITLE_CHARS 80
/* Games listed on a person's page. */
#define SITE_PERSON_GAMES 20
/* Points of a rating chart at most: longer histories are thinned. */
#define SITE_CHART_POINTS 300
/* Rows of each board on a channel's page (the board's page has all). */
#define SITE_TOP_ROWS 10

/* One point of a person's rating history on one board. */
struct site_point {
    int board; /* index into the channel's stats->boards */
    int game;  /* index into the channel's games */
    double rating;
};

struct site_person {
    char *key; /* never written anywhere */
    char page[SITE_PAGE_NAME];
    char name[64]; /* as at their last game */
    int *games;    /* game index * 16 + seat, oldest first */
    int ngames, capgames;
    struct site_point *pts;
    int npts, cappts;
};

/* A finished game as the pages need it. */
struct site_game {
    char id[17];
    int64_t time;
    char preset[32];
    bool custom;
    bool hints; /* the table allowed hints: on the hints board alone */
    int n;
    int32_t totals[ENGINE_MAX_PLAYERS];
    uint16_t winners, left;
};

struct site_channel {
    char net_enc[FILE_NAME_MAX + 1], room_enc[FILE_NAME_MAX + 1];
    char *net, *room; /* decoded for display (hostile) */
    char dir[FILE_PATH_MAX];
    bool hide_hands;
    struct stats *stats;
    struct site_person *people;
    int npeople, cappeople;
    int *slots; /* key hash -> person index + 1 */
    int nslots;
    int *pslots; /* page name -> person index + 1 */
    int npslots;
    struct site_game *games;
    int ngames, capgames;
    struct archive_result *recent; /* a ring of the last finished ones */
    int *recent_game;              /* their indices into games */
    int nrecent;                   /* finished games ever seen */
    int64_t archived;              /* results lines, stopped games too */
    char last_id[17];              /* the last results line's game */
    bool last_finished;
};

struct site {
    char *data_dir, *out_dir, *secret;
    char **hide; /* "net room" */
    int nhide;
    int recent;
    struct site_channel **ch;
    int nch;
    char gen[FILE_PATH_MAX]; /* the generation written into */
    unsigned tmp_counter;
};

/* ---- HTML (site_html.c) ---------------------------------------------- */

/* Text for an element's content or a quoted attribute: & < > " '
 * escaped, bad UTF-8 and control characters replaced, bidi controls
 * dropped, cut at max characters (0: not cut) with an ellipsis. */
void site_html_text(struct strbuf *sb, const char *s, size_t max);
/* The first max characters of s (whole ones; an ellipsis if cut) into
 * out, for a text that is escaped later. */
void site_text_cut(const char *s, size_t max, char *out, size_t outlen);
/* A name from the network: <bdi>, cut at SITE_NAME_CHARS. */
void site_html_name(struct strbuf *sb, const char *s);
/* One URL path segment: everything but [A-Za-z0-9._~-] as %XX. */
void site_url_segment(struct strbuf *sb, const char *s);
/* A card as text (Q♠: the suit is in the text, the colour only adds to
 * it), whether it is red, and a list of cards with the red runs in
 * spans of class r. */
void site_card_text(struct strbuf *sb, int card);
bool site_card_red(int card);
void site_html_cards(struct strbuf *sb, const uint8_t *v, int n);
/* The head of a page: doctype, lang, viewport, CSP, title, the CSS at
 * root (the path up to the site's root: "", "../", "../../../"), then
 * the body's start and h1 (h1: HTML made by the caller, or NULL: the
 * title again). The title is cut at SITE_TITLE_CHARS. */
void site_html_head(struct strbuf *sb, const char *root, const char *title,
                    const char *h1, bool script);
void site_html_foot(struct strbuf *sb, const char *root);
/* The display form of a data directory folder name (file_name_encode
 * undone; a long name's hashed tail becomes an ellipsis). */
char *site_name_decode(const char *enc);
/* The time as "2026-12-02 10:54 UTC". */
void site_html_time(struct strbuf *sb, int64_t t);

/* ---- The model (site_model.c) ----------------------------------------- */

/* SipHash-2-4 (Aumasson and Bernstein) of len bytes under the key k0,
 * k1 (its bytes 0-7 and 8-15, little-endian): a person's page name. */
uint64_t site_siphash(uint64_t k0, uint64_t k1, const unsigned char *m,
                      size_t len);

struct site_channel *site_channel_new(const struct site *s, const char *net_enc,
                                      const char *room_enc);
void site_channel_free(struct site_channel *c);
/* The person of key, or -1. */
int site_person_find(const struct site_channel *c, const char *key);
/* Counts one results line (g NULL: its record missing or bad) into c;
 * returns the game's index if a finished game was added, else -1. */
int site_channel_add(const struct site *s, struct site_channel *c,
                     const struct archive_result *r,
                     const struct stats_game *g);
/* A finished game of the ring, by how far back (0: the last), or NULL;
 * *game its index into c->games. */
const struct archive_result *site_recent(const struct site *s,
                                         const struct site_channel *c, int k,
                                         int *game);

/*
 * Reads c's results and archive and calls fn for each results line with
 * its record (NULL and 0 if not found). Reads only: a torn last line is
 * not counted, nothing is cut. 0, or -1 with a message naming the file.
 */
typedef int (*site_game_fn)(void *ctx, const struct archive_result *r,
                            const char *record, size_t len);
int site_channel_scan(const struct site_channel *c, site_game_fn fn, void *ctx,
                      char *err, size_t errlen);

/* ---- Pages (site_page.c) ---------------------------------------------- */

/* Each builds a whole page into sb (heap). */
void site_page_index(const struct site *s, struct strbuf *sb);
void site_page_channel(const struct site *s, const struct site_channel *c,
                       struct strbuf *sb);
void site_page_board(const struct site_channel *c, int board,
                     struct strbuf *sb);
void site_page_person(const struct site_channel *c, int person,
                      struct strbuf *sb);
/* -1 if the record does not replay (then no page). */
int site_page_game(const struct site_channel *c, const struct archive_result *r,
                   const char *record, size_t len, struct strbuf *sb);
/* The board's page file name ("standard.html": preset names are ours). */
void site_board_file(const struct stats_board *b, char *out, size_t outlen);

extern const char site_css[];
extern const char site_js[];

#endif
