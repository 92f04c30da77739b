/*
 * The community's static web site (docs/site.md): written from the data
 * directory's archives into a directory any web server (or a file
 * browser) shows. Per channel the leaderboard of each preset, the recent
 * games, a page per person (figures by preset, the rating over time as
 * an SVG chart) and a page per finished game that replays it trick by
 * trick. Plain HTML and one CSS file; every page forbids scripts but the
 * site's own file through a Content-Security-Policy; names come from the
 * network and are escaped for where they stand; identity keys (which
 * hold hosts) are never written, a person's page is named by a keyed
 * hash of the key.
 *
 * Two ways to write it:
 *   - site_write_all: every channel of the data directory, into a new
 *     generation directory, then out_dir (a symbolic link) is switched to
 *     it in one rename and the old generation removed;
 *   - site_game: one newly archived game of one channel, after
 *     site_write_all: only the pages it changed, each replaced
 *     atomically, in an order where no page links to one not yet there
 *     (the game's page, its people's pages, the boards, the channel's
 *     page, the site's index).
 * Both give the same bytes for the same archive. A bot that starts takes
 * up the site it wrote before with site_open, which writes only what is
 * missing.
 *
 * A struct site is one writer's state (each channel's model, built once
 * from the archive and kept in memory): no global state, so a worker
 * thread may own one; it must not be used by two threads at once. It
 * only reads the data directory, and never cuts or changes a file there.
 */
#ifndef HEARTS_SITE_SITE_H
#define HEARTS_SITE_SITE_H

#include <stdbool.h>
#include <stddef.h>

#include "storage/archive.h"

/* Games on a channel's page. */
#define SITE_RECENT_DEFAULT 50
/* Bytes of a person's page name: 16 hex digits and the NUL. */
#define SITE_PAGE_NAME 17

struct site_options {
    const char *data_dir; /* read: DATA/<enc(net)>/<enc(room)>/ */
    /* The site: a symbolic link to the current generation, which is a
     * directory beside it named .<base>.gen-N. Made if missing; an empty
     * directory there is replaced; anything else is refused. */
    const char *out_dir;
    /* Channels whose hands are never shown, "network room" each (the room
     * as the network folds it, as under data_dir), NULL-terminated; may
     * be NULL. Their game pages show the tricks but no deal or pass. */
    const char *const *hide_hands;
    /* The secret a person's page name is keyed with (SipHash-2-4 of the
     * key): without one (NULL or "") anyone can test a guessed key
     * (nick@host) against a page name. */
    const char *secret;
    int recent; /* games on a channel's page; 0: SITE_RECENT_DEFAULT */
};

struct site;

/* A writer with o's values (copied). Aborts if out of memory. */
struct site *site_new(const struct site_options *o);
void site_free(struct site *s);

/*
 * Writes the whole site: every channel folder of data_dir (one holding an
 * archive.jsonl or results.jsonl), read afresh, into a new generation,
 * then switches out_dir to it. A channel whose files cannot be read is
 * left out with its reason in warn (the first one; warn may be NULL);
 * *channels (may be NULL) the channels written. 0, or -1 with a message
 * naming the file (the old site is kept as it was).
 */
int site_write_all(struct site *s, int *channels, char *warn, size_t warnlen,
                   char *err, size_t errlen);

/*
 * Takes up the site out_dir links to, for a bot that starts: reads every
 * channel (the models site_game needs) and writes, in place and each
 * atomically, only what is missing: the pages of games archived since
 * (a stop, a crash, a queue of games lost), and then that channel's
 * other pages; where none is missing, the pages of the channel's last
 * game but its own (a stop in the middle of its update may have left
 * them behind), and the index. A site that is not there, or was written
 * under other options (secret, hidden hands, recent games) or by another
 * version of the pages (the generation's .heartsbot-site says), is
 * written whole instead (site_write_all; *whole set). Same return as
 * site_write_all.
 */
int site_open(struct site *s, bool *whole, int *channels, char *warn,
              size_t warnlen, char *err, size_t errlen);

/*
 * After archive_add wrote a game in net's room (room folded as the
 * network folds it, as for the data directory): r its results line,
 * record (len bytes) its record. Counts it into the channel's model and
 * rewrites the pages it changed. A channel the site does not have yet is
 * read from the data directory (which already holds the game) and all
 * its pages written. A game already counted (the same ID, ended the same
 * way, as the channel's last) changes nothing. Call site_write_all
 * first. 0, or -1 with a message (the pages already replaced stay: each
 * is whole, and a later site_write_all writes everything again).
 */
int site_game(struct site *s, const char *net, const char *room,
              const struct archive_result *r, const char *record, size_t len,
              char *err, size_t errlen);

/*
 * Paths of pages under the site's root, for building addresses (no
 * leading '/', each segment escaped for a URL: append to the site's
 * URL and a '/'). 0, or -1 if it does not fit in outlen.
 *   channel:  NET/ROOM/index.html
 *   person:   NET/ROOM/p/PAGE.html (PAGE from site_page_name)
 *   game:     NET/ROOM/g/GAME.html
 * The person path is a guess when two keys share a hash (the later one's
 * page is named otherwise); the site keeps what it wrote.
 */
int site_channel_path(const char *net, const char *room, char *out,
                      size_t outlen);
int site_person_path(const char *net, const char *room, const char *secret,
                     const char *key, char *out, size_t outlen);
int site_game_path(const char *net, const char *room, const char *game,
                   char *out, size_t outlen);

/* A person's page name: 16 hex digits of SipHash-2-4 of key under a key
 * derived from secret (NULL or "": all zero). */
void site_page_name(const char *secret, const char *key,
                    char out[SITE_PAGE_NAME]);

#endif
