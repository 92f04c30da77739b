/*
 * Results and leaderboards, the manager's side (docs/storage.md): each
 * channel's archive and leaderboards under data_dir/<network>/<room>/,
 * loaded on the channel's first use, a game archived and counted when it
 * ends (store.h), and the texts of !top, !stats, !last and of !scores
 * after a game.
 */
#ifndef HEARTS_BOT_MANAGER_RESULTS_H
#define HEARTS_BOT_MANAGER_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/chat.h"
#include "bot/manager/render.h"
#include "bot/manager/table.h"
#include "bot/manager/text.h"
#include "storage/archive.h"

struct board_names;
struct played;

/* A game whose archiving failed (a full disk), tried again first at the
 * room's next archiving; its journal is kept until it is archived. */
struct results_pending {
    char *json;                /* its record */
    struct archive_result res; /* its results line */
    char journal[1024];        /* "" if it has none */
};

/* Per channel: its directory, boards and the damping of its answers. */
struct results_room {
    struct chat_adapter *a; /* NULL: read at start, not asked about yet */
    char room[64];
    char dir[1024];
    struct stats *stats;  /* NULL: could not be loaded (logged); read
                             again at the room's next use */
    char unreadable[400]; /* why, while stats is NULL */
    bool told;            /* the channel was told its results can't be
                             read */
    struct results_pending *pending;
    int npending;
    struct board_names *names; /* the names rows are shown by */
    /* the last !top, !stats, !last and !scores (after a game) answers
     * said here */
    struct limit_echo echo;
    /* the key of the row the last mgr_results_stats answer showed ("" if
     * none), for the address of that person's page */
    char stats_key[200];
};

/* Frees every room the manager keeps. */
void mgr_results_free(struct manager *m);

/*
 * The room's records (found by its directory), read at start or on
 * first use: leaderboard.json, or a rebuild from the archive when it is
 * missing or out of date (logged). Never NULL; ->stats is NULL if
 * nothing could be read.
 */
struct results_room *mgr_results_room(struct manager *m, struct chat_adapter *a,
                                      const char *room);

/*
 * Archives the table's game, which ended (finished, or stopped: then it
 * counts for nobody), in dir (its room's, made): first the room's games
 * whose archiving failed before, in order, then this one (archive_add;
 * `retry`: this game's archiving may have been cut short before, as for
 * a finished game found in a journal at start); the room's boards count
 * each, and leaderboard.json is replaced when stats_counted says (a
 * failure there is logged: the next start catches up). 0, or -1 with a
 * message: then this game (json copied, its journal t->journal kept:
 * *keep_journal set) waits to be tried again at the room's next
 * archiving, and at the next start from its journal. For store.c's
 * mgr_store_archive.
 */
int mgr_results_archive(struct table *t, const char *dir, const char *json,
                        bool finished, bool retry, bool *keep_journal,
                        char *err, size_t errlen);

/*
 * The answers. Each writes one to three lines (separated by '\n') into
 * sb in language lang (msg.h) and returns true, or false with a refusal
 * (for the asker only).
 * Without a preset word the board is `fallback`'s (the channel's default
 * preset). A row is shown by the nick its key was made under (an
 * account's: the name it last played under), and a row whose name an
 * earlier row of the board shows too by that name and "(2)", "(3)"...
 * (docs/playing.md, "Who is who").
 *
 * mgr_results_stats: `name` is looked up as a row's shown name, then as an
 * account, then as the nick of whoever holds it now and played this
 * session (pl); without a name the row is the asker's (u): a key they
 * played under this session, their key now, else the only nick row
 * with their host.
 */
bool mgr_results_top(struct results_room *r, int lang, const char *n_word,
                     const char *preset_word, const char *fallback,
                     struct strbuf *sb);
bool mgr_results_stats(struct results_room *r, int lang,
                       const struct played *pl, const struct chat_user *u,
                       const char *name, const char *preset_word,
                       const char *fallback, struct strbuf *sb);
bool mgr_results_last(struct results_room *r, int lang, int64_t now,
                      struct strbuf *sb);
/* The last finished game's score sheet (render_scores) as `look` writes
 * it, or false. */
bool mgr_results_sheet(struct results_room *r, bool in_room,
                       struct render_look look, char *buf, size_t len);

/* Names as a list in lang: "alice", "alice and bob", "alice, bob and
 * carol". */
void mgr_sb_names(struct strbuf *sb, int lang, const char *const *names, int n);

/* heartsbot --rebuild-stats DATA_DIR (manager_rebuild_stats): the exit
 * code. */
int mgr_results_rebuild_all(const char *data_dir);

/*
 * At start: reads the boards of every channel directory under data_dir
 * that has an archive, rebuilding those missing or out of date, so that
 * no rebuild waits for a channel's first command. Logs what it did.
 */
void mgr_results_start(struct manager *m);

#endif
