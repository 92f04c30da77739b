/*
 * Each channel's archive and leaderboards, as the game manager keeps
 * them (results.h, docs/storage.md).
 */
#include "bot/manager/results.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/xalloc.h"
#include "bot/manager/board_names.h"
#include "bot/manager/played.h"
#include "bot/manager/render.h"
#include "storage/archive.h"
#include "storage/stats.h"
#include "storage/storage.h"

/* The most people !top lists. */
#define TOP_MAX 10
#define TOP_DEFAULT 5
/* People a !top line names. */
#define TOP_PER_LINE 4

/* Reads r->dir's boards (caught up, or rebuilt if need be); r->stats
 * NULL if not, the reason in r->unreadable. The room's directory is
 * checked first: a link where it should be is never followed. */
static void load(struct manager *m, struct results_room *r)
{
    char err[400], why[700] = "";
    bool rebuilt, missing;
    if (file_dir_check(m->cfg->data_dir, r->dir, &missing, err, sizeof err) ||
        stats_load(r->dir, &r->stats, &rebuilt, why, sizeof why, err,
                   sizeof err)) {
        /* tried again at each use: logged when the reason changes */
        if (strcmp(r->unreadable, err))
            log_error("leaderboards not read from %s: %s", r->dir, err);
        snprintf(r->unreadable, sizeof r->unreadable, "%s", err);
        r->stats = NULL;
        return;
    }
    r->unreadable[0] = '\0';
    r->told = false;
    if (r->stats->skipped)
        log_warn("%s: %s", r->dir, why);
    else if (why[0])
        log_info("%s: %s", r->dir, why);
}

/* Tells the channel once, while its boards can't be read, that its
 * results can't be read. */
static void tell_unreadable(struct results_room *r)
{
    if (r->stats || r->told || !r->a || !r->room[0])
        return;
    r->told = true;
    r->a->ops->say(r->a, r->room,
                   "The results here can't be read (the bot's log says "
                   "why); games are still played and archived.",
                   CHAT_NORMAL);
}

static struct results_room *add_room(struct manager *m, const char *dir)
{
    if (m->nrooms == m->caprooms) {
        m->caprooms = m->caprooms ? m->caprooms * 2 : 8;
        m->rooms = xrealloc(m->rooms, sizeof *m->rooms * (size_t)m->caprooms);
    }
    struct results_room *r = xcalloc(1, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    m->rooms[m->nrooms++] = r;
    return r;
}

struct results_room *mgr_results_room(struct manager *m, struct chat_adapter *a,
                                      const char *room)
{
    char dir[sizeof m->rooms[0]->dir], err[400];
    if (mgr_room_dir(m, a, room, false, dir, sizeof dir, err, sizeof err)) {
        log_error("%s: no leaderboards: %s", room, err);
        dir[0] = '\0';
    }
    for (int i = 0; i < m->nrooms; i++) {
        struct results_room *r = m->rooms[i];
        if (dir[0] ? !strcmp(r->dir, dir)
                   : r->a == a && a->ops->same_nick(a, r->room, room)) {
            if (!r->a) { /* loaded at start: now it has a name */
                r->a = a;
                snprintf(r->room, sizeof r->room, "%s", room);
            }
            /* not readable before: perhaps now (a person mended it) */
            if (!r->stats && dir[0])
                load(m, r);
            tell_unreadable(r);
            return r;
        }
    }
    struct results_room *r = add_room(m, dir);
    r->a = a;
    snprintf(r->room, sizeof r->room, "%s", room);
    if (dir[0])
        load(m, r);
    tell_unreadable(r);
    return r;
}

/* Whether path is a directory (not a link to one). */
static bool is_dir(const char *path)
{
    struct stat sb;
    return !lstat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* Calls fn for every channel directory under data_dir that has an
 * archive; returns how many. */
static int each_room(const char *data, void (*fn)(void *ctx, const char *dir),
                     void *ctx)
{
    DIR *nets = opendir(data);
    if (!nets)
        return 0;
    int found = 0;
    char net[FILE_PATH_MAX], dir[FILE_PATH_MAX], file[FILE_PATH_MAX];
    for (struct dirent *n; (n = readdir(nets));) {
        if (n->d_name[0] == '.' ||
            file_path(net, sizeof net, NULL, 0, data, n->d_name,
                      (char *)NULL) ||
            !is_dir(net))
            continue;
        DIR *rooms = opendir(net);
        for (struct dirent *e; rooms && (e = readdir(rooms));) {
            if (e->d_name[0] == '.' ||
                file_path(dir, sizeof dir, NULL, 0, net, e->d_name,
                          (char *)NULL) ||
                file_path(file, sizeof file, NULL, 0, dir, ARCHIVE_FILE,
                          (char *)NULL) ||
                !is_dir(dir) || access(file, F_OK))
                continue;
            fn(ctx, dir);
            found++;
        }
        if (rooms)
            closedir(rooms);
    }
    closedir(nets);
    return found;
}

/* What a kill in the middle of a replacement left in dir goes. */
static void clean(const char *dir)
{
    int removed;
    char err[600];
    if (storage_clean_temps(dir, &removed, err, sizeof err))
        log_warn("%s", err);
}

static void load_at_start(void *ctx, const char *dir)
{
    clean(dir);
    load(ctx, add_room(ctx, dir));
}

void mgr_results_start(struct manager *m)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char top[FILE_PATH_MAX];
    /* "/.": data_dir itself may be reached through a link */
    int n = snprintf(top, sizeof top, "%s/.",
                     m->cfg->data_dir ? m->cfg->data_dir : "");
    if (m->cfg->data_dir && *m->cfg->data_dir && n > 0 &&
        (size_t)n < sizeof top)
        clean(top);
    int loaded = each_room(m->cfg->data_dir, load_at_start, m);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (loaded)
        log_info("leaderboards of %d channel%s read in %.0f ms", loaded,
                 loaded == 1 ? "" : "s",
                 (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                     (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
}

/* --rebuild-stats: one channel; *ctx counts the failures. */
static void rebuild_one(void *ctx, const char *dir)
{
    int *failed = ctx;
    struct stats *s;
    int skipped = 0;
    char err[600];
    clean(dir);
    if (stats_rebuild(dir, &s, &skipped, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", dir, err);
        ++*failed;
        return;
    }
    if (skipped)
        fprintf(stderr, "%s: %d line%s skipped; the first: %s\n", dir, skipped,
                skipped == 1 ? "" : "s", err);
    if (stats_save(dir, s, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", dir, err);
        ++*failed;
    } else {
        printf("%s: %lld games archived, leaderboard.json rebuilt\n", dir,
               (long long)s->games);
    }
    stats_free(s);
}

int mgr_results_rebuild_all(const char *data_dir)
{
    char err[600];
    if (storage_lock(data_dir, err, sizeof err)) {
        fprintf(stderr, "heartsbot: %s\n", err);
        return 1;
    }
    int failed = 0;
    int rooms = each_room(data_dir, rebuild_one, &failed);
    printf("%d channel%s, %d failed\n", rooms, rooms == 1 ? "" : "s", failed);
    return failed ? 1 : 0;
}

static void pending_free(struct results_room *r)
{
    for (int i = 0; i < r->npending; i++)
        free(r->pending[i].json);
    free(r->pending);
    r->pending = NULL;
    r->npending = 0;
}

void mgr_results_free(struct manager *m)
{
    for (int i = 0; i < m->nrooms; i++) {
        struct results_room *r = m->rooms[i];
        char err[600];
        /* the games counted since the last checkpoint: the next start
         * need not catch up */
        if (r->stats && r->stats->behind &&
            stats_save(r->dir, r->stats, err, sizeof err))
            log_error("leaderboard not saved (caught up at the next start): "
                      "%s",
                      err);
        stats_free(r->stats);
        board_names_free(r->names);
        pending_free(r);
        free(r);
    }
    free(m->rooms);
    m->rooms = NULL;
    m->nrooms = m->caprooms = 0;
}

static bool custom_rules(const struct engine_rules *r)
{
    for (int i = 0; i < engine_option_count(); i++)
        if (strcmp(engine_option_name(i), "players") &&
            engine_rules_differs(r, i))
            return true;
    return false;
}

static void result_of(const struct table *t, bool finished,
                      struct archive_result *res)
{
    memset(res, 0, sizeof *res);
    snprintf(res->game, sizeof res->game, "%s", t->game_id);
    res->time = (int64_t)time(NULL);
    snprintf(res->preset, sizeof res->preset, "%s",
             engine_preset_name(t->rules.preset));
    res->custom = custom_rules(&t->rules);
    res->finished = finished;
    res->n = t->game.n;
    for (int s = 0; s < t->game.n; s++) {
        const struct seat *st = &t->seats[s];
        struct archive_seat *as = &res->seats[s];
        snprintf(as->name, sizeof as->name, "%s", mgr_seat_name(t, s));
        snprintf(as->key, sizeof as->key, "%s", st->key);
        as->computer = !st->key[0];
        /* left with !leave (no longer human), or a computer took the
         * seat (timeouts, gone past the grace period) and they did not
         * come back: a loss */
        as->left = st->key[0] && (!st->human || st->away);
    }
}

/* Archives one game and counts it on r's boards. 0, or -1 with a
 * message (not archived). */
static int archive_one(struct results_room *r, const char *dir,
                       struct archive_result *res, const char *json, bool retry,
                       char *err, size_t errlen)
{
    bool added = false;
    if (archive_add(dir, res, json, retry, &added, err, errlen))
        return -1;
    if (!added) {
        log_info("%s: game %s was archived already", dir, res->game);
        return 0;
    }
    if (!r->stats)
        return 0; /* read again, caught up, at the room's next use */
    char msg[400];
    struct stats_game g;
    bool good =
        !stats_game_from_record(json, strlen(json), &g, msg, sizeof msg);
    if (!good)
        log_error("%s: game %s: the record does not replay: %s", dir, res->game,
                  msg);
    bool saved;
    if (stats_counted(dir, r->stats, res, good ? &g : NULL, &saved, msg,
                      sizeof msg))
        log_error("%s: leaderboard not saved (caught up at the next start): "
                  "%s",
                  dir, msg);
    return 0;
}

/* The room's games whose archiving failed before, in order; stops at the
 * first that fails again. */
static int archive_pending(struct results_room *r, const char *dir, char *err,
                           size_t errlen)
{
    int done = 0, rc = 0;
    while (done < r->npending) {
        struct results_pending *p = &r->pending[done];
        if (archive_one(r, dir, &p->res, p->json, true, err, errlen)) {
            rc = -1;
            break;
        }
        log_warn("%s: game %s archived now, after an earlier failure", dir,
                 p->res.game);
        char rerr[300];
        if (p->journal[0] && storage_remove(p->journal, rerr, sizeof rerr))
            log_error("%s", rerr);
        free(p->json);
        done++;
    }
    if (done) {
        memmove(r->pending, r->pending + done,
                sizeof *r->pending * (size_t)(r->npending - done));
        r->npending -= done;
    }
    return rc;
}

int mgr_results_archive(struct table *t, const char *dir, const char *json,
                        bool finished, bool retry, bool *keep_journal,
                        char *err, size_t errlen)
{
    struct results_room *r = mgr_results_room(t->m, t->a, t->room);
    struct archive_result res;
    result_of(t, finished, &res);
    *keep_journal = false;
    int rc = dir ? archive_pending(r, dir, err, errlen) : -1;
    if (rc == 0)
        rc = archive_one(r, dir, &res, json, retry, err, errlen);
    if (rc == 0)
        return 0;
    int cause = errno;
    /* kept to be tried again: at the room's next archiving, and from its
     * journal at the next start */
    r->pending =
        xrealloc(r->pending, sizeof *r->pending * (size_t)(r->npending + 1));
    struct results_pending *p = &r->pending[r->npending++];
    p->json = xstrdup(json);
    p->res = res;
    snprintf(p->journal, sizeof p->journal, "%s", t->journal);
    *keep_journal = t->journal[0] != '\0';
    errno = cause;
    return -1;
}

/* "1532" or "1510?" (provisional). */
static void sb_rating(struct strbuf *sb, const struct stats_player *p)
{
    strbuf_addf(sb, "%ld%s", lround(p->rating),
                stats_provisional(p) ? "?" : "");
}

/* The preset a word names ("custom" too), into *preset; or false with a
 * refusal naming the nearest. */
static bool preset_word_ok(const char *word, const char **preset,
                           struct strbuf *sb)
{
    if (!strcmp(word, STATS_CUSTOM)) {
        *preset = STATS_CUSTOM;
        return true;
    }
    int p = engine_preset_find(word);
    if (p >= 0) {
        *preset = engine_preset_name(p);
        return true;
    }
    struct engine_rules r;
    struct engine_error e;
    char err[RULE_WORDS_SIZE];
    /* the board commands do not know the asker's language yet: English */
    if (engine_rules_init(&r, word, &e) == 0)
        snprintf(err, sizeof err, "unknown preset '%s'", word);
    else
        rule_words_error_text(err, sizeof err, MSG_EN, &e);
    strbuf_addf(sb, "%s (or custom). !presets lists them.", err);
    return false;
}

/* The board a command asks about (preset_word, else the channel's
 * default preset): 0 with *b, 1 with an answer in sb (nothing counted
 * there), -1 with a refusal in sb. */
static int board_for(struct results_room *r, const char *preset_word,
                     const char *fallback, struct strbuf *sb,
                     const struct stats_board **b)
{
    const char *preset = fallback;
    if (preset_word && !preset_word_ok(preset_word, &preset, sb))
        return -1;
    if (!r->stats) {
        strbuf_addf(sb, "The leaderboards here can't be read (see the bot's "
                        "log).");
        return 1;
    }
    *b = stats_board(r->stats, preset);
    if (!*b || !(*b)->n) {
        strbuf_addf(sb, "Nobody has finished a %s game here yet.", preset);
        return 1;
    }
    return 0;
}

/* The host part of a host-bound "n:" key, or NULL. */
static const char *key_host(const char *key)
{
    const char *at = strncmp(key, "n:", 2) == 0 ? strrchr(key + 2, '@') : NULL;
    return at ? at + 1 : NULL;
}

/* How a row is shown on its board (board_names.h). */
static void row_shown(struct results_room *r, const struct stats_board *b,
                      int index, char *out, size_t outlen)
{
    board_names_shown(&r->names, r->a, r->stats, b, index, out, outlen);
}

bool mgr_results_top(struct results_room *r, const char *n_word,
                     const char *preset_word, const char *fallback,
                     struct strbuf *sb)
{
    int n = TOP_DEFAULT;
    if (n_word) {
        char *end;
        long v = strtol(n_word, &end, 10);
        if (*end || v < 1 || v > TOP_MAX) {
            strbuf_addf(sb, "How many? 1 to %d.", TOP_MAX);
            return false;
        }
        n = (int)v;
    }
    const struct stats_board *b;
    int found = board_for(r, preset_word, fallback, sb, &b);
    if (found)
        return found > 0;
    if (n > b->n)
        n = b->n;
    bool provisional = false;
    strbuf_addf(sb, "Top %d (%s):", n, b->preset);
    /* the entries spread evenly over the fewest lines of TOP_PER_LINE:
     * entry i on line i * lines / n (no lone entry on the last) */
    int lines = (n + TOP_PER_LINE - 1) / TOP_PER_LINE;
    for (int i = 0; i < n; i++) {
        const struct stats_player *p = &b->p[b->order[i]];
        bool ends_line = i + 1 < n && (i + 1) * lines / n != i * lines / n;
        if (i && i * lines / n != (i - 1) * lines / n)
            strbuf_addf(sb, "\n");
        char shown[RENDER_SHOWN_SIZE + 16];
        row_shown(r, b, b->order[i], shown, sizeof shown);
        strbuf_addf(sb, " %d. %s ", i + 1, shown);
        sb_rating(sb, p);
        strbuf_addf(sb, " (%d game%s, %d win%s)%s", p->games,
                    p->games == 1 ? "" : "s", p->wins, p->wins == 1 ? "" : "s",
                    i + 1 < n && !ends_line ? "," : "");
        provisional |= stats_provisional(p);
    }
    if (provisional)
        strbuf_addf(sb, " ?: provisional, under %d games.", STATS_PROVISIONAL);
    return true;
}

/* The first of keys found on b. */
static const struct stats_player *first_found(const struct stats_board *b,
                                              const char *const *keys, int n)
{
    for (int i = 0; i < n; i++) {
        const struct stats_player *p = stats_find(b, keys[i]);
        if (p)
            return p;
    }
    return NULL;
}

/* The asker's own row: the keys they played under this session (the
 * latest first), their key now, else the only nick row of their host. */
static const struct stats_player *own_row(struct results_room *r,
                                          const struct played *pl,
                                          const struct chat_user *u,
                                          const struct stats_board *b)
{
    const char *keys[PLAYED_KEYS];
    int n = played_keys(pl, r->a, u->nick, u->id, keys, PLAYED_KEYS);
    const struct stats_player *p = first_found(b, keys, n);
    if (p)
        return p;
    char key[200];
    mgr_seat_key(r->a, u, key, sizeof key);
    if ((p = stats_find(b, key)))
        return p;
    struct chat_user bare = {.nick = u->nick, .id = u->id};
    mgr_seat_key(r->a, &bare, key, sizeof key);
    const char *host = key_host(key);
    const struct stats_player *only = NULL;
    for (int i = 0; host && i < b->n; i++) {
        const char *h = key_host(b->p[i].key);
        if (h && strcmp(h, host) == 0) {
            if (only)
                return NULL; /* two: not a guess to make */
            only = &b->p[i];
        }
    }
    return only;
}

/* The row shown as `name` ("bob", "bob(2)"), with the shown names of the
 * other rows of its name in `also`; else an account "a:NAME"; else the
 * latest key of whoever holds the nick now. */
static const struct stats_player *
named_row(struct results_room *r, const struct played *pl,
          const struct stats_board *b, const char *name, struct strbuf *also)
{
    int i = board_names_find(&r->names, r->a, r->stats, b, name, also->buf,
                             also->size);
    also->len = strlen(also->buf);
    if (i >= 0)
        return &b->p[i];
    char key[200];
    snprintf(key, sizeof key, "a:%s", name);
    const struct stats_player *found = stats_find(b, key);
    if (found)
        return found;
    const char *keys[PLAYED_KEYS];
    int n = played_keys(pl, r->a, name, NULL, keys, PLAYED_KEYS);
    return first_found(b, keys, n);
}

/* The row of the asker (name NULL) or of `name` on b, the shown names of
 * other rows of that name in `also`. */
static const struct stats_player *
row_of(struct results_room *r, const struct played *pl,
       const struct chat_user *u, const char *name, const struct stats_board *b,
       struct strbuf *also)
{
    return name ? named_row(r, pl, b, name, also) : own_row(r, pl, u, b);
}

/* A row in full: "alice (standard): 5 games, 2 wins, rating 1532, rank 2
 * of 7, 6.1 points a hand, 1 moon, 2 queens of spades." */
static void sb_row_full(struct strbuf *sb, struct results_room *r,
                        const struct stats_board *b,
                        const struct stats_player *p)
{
    char shown[RENDER_SHOWN_SIZE + 16];
    row_shown(r, b, (int)(p - b->p), shown, sizeof shown);
    strbuf_addf(sb, "%s (%s): %d game%s, %d win%s, rating ", shown, b->preset,
                p->games, p->games == 1 ? "" : "s", p->wins,
                p->wins == 1 ? "" : "s");
    strbuf_addf(sb, "%ld%s, rank %d of %d", lround(p->rating),
                stats_provisional(p) ? " (provisional)" : "", p->rank, b->n);
    strbuf_addf(sb, ", %.1f points a hand, %d moon%s",
                p->hands ? (double)p->points / p->hands : 0.0, p->moons,
                p->moons == 1 ? "" : "s");
    if (p->suns)
        strbuf_addf(sb, ", %d sun%s", p->suns, p->suns == 1 ? "" : "s");
    strbuf_addf(sb, ", %d quee%s of spades.", p->queens,
                p->queens == 1 ? "n" : "ns");
}

/* A row in short, after the one in full: "omnibus 3 games, 1 win,
 * rating 1516?, rank 1 of 2". */
static void sb_row_short(struct strbuf *sb, const struct stats_board *b,
                         const struct stats_player *p)
{
    strbuf_addf(sb, "%s %d game%s, %d win%s, rating ", b->preset, p->games,
                p->games == 1 ? "" : "s", p->wins, p->wins == 1 ? "" : "s");
    sb_rating(sb, p);
    strbuf_addf(sb, ", rank %d of %d", p->rank, b->n);
}

bool mgr_results_stats(struct results_room *r, const struct played *pl,
                       const struct chat_user *u, const char *name,
                       const char *preset_word, const char *fallback,
                       struct strbuf *sb)
{
    char also_text[MGR_TEXT_SIZE];
    struct strbuf also;
    strbuf_init(&also, also_text, sizeof also_text);
    const struct stats_board *b = NULL;
    const struct stats_player *p = NULL;
    if (preset_word) {
        int found = board_for(r, preset_word, fallback, sb, &b);
        if (found)
            return found > 0;
        p = row_of(r, pl, u, name, b, &also);
    } else if (!r->stats) {
        strbuf_addf(sb, "The leaderboards here can't be read (see the bot's "
                        "log).");
        return true;
    } else {
        /* every board the person is on: in full the channel's default
         * preset's, else the one with the most games */
        b = stats_board(r->stats, fallback);
        p = b && b->n ? row_of(r, pl, u, name, b, &also) : NULL;
        bool on_default = p != NULL;
        for (int i = 0; !on_default && i < r->stats->nboards; i++) {
            const struct stats_board *o = &r->stats->boards[i];
            const struct stats_player *q = row_of(r, pl, u, name, o, &also);
            if (q && (!p || q->games > p->games)) {
                p = q;
                b = o;
            }
        }
        strbuf_reset(&also);
        if (p) /* the other rows of the name on that board */
            p = row_of(r, pl, u, name, b, &also);
    }
    if (!p && !preset_word && r->stats->nboards == 0) {
        strbuf_addf(sb, "Nobody has finished a game here yet.");
        return true;
    }
    if (!p && preset_word) {
        if (name)
            strbuf_addf(sb, "%s has not finished a %s game here.", name,
                        b->preset);
        else
            strbuf_addf(sb, "You have not finished a %s game here.", b->preset);
        return true;
    }
    if (!p) {
        if (name)
            strbuf_addf(sb, "%s has not finished a game here.", name);
        else
            strbuf_addf(sb, "You have not finished a game here.");
        return true;
    }
    sb_row_full(sb, r, b, p);
    /* without a preset named, the other boards after it, briefly */
    bool more = false;
    for (int i = 0; !preset_word && i < r->stats->nboards; i++) {
        const struct stats_board *o = &r->stats->boards[i];
        if (o == b)
            continue;
        char scratch_text[MGR_TEXT_SIZE];
        struct strbuf scratch;
        strbuf_init(&scratch, scratch_text, sizeof scratch_text);
        const struct stats_player *q = row_of(r, pl, u, name, o, &scratch);
        if (!q)
            continue;
        strbuf_addf(sb, "%s", more ? "; " : " Also: ");
        sb_row_short(sb, o, q);
        more = true;
    }
    if (more)
        strbuf_addf(sb, ".");
    if (also.len) {
        char shown[RENDER_SHOWN_SIZE + 16];
        row_shown(r, b, (int)(p - b->p), shown, sizeof shown);
        strbuf_addf(sb, " Other people played here as %s too: !stats %s.",
                    shown, also.buf);
    }
    return true;
}

static void sb_ago(struct strbuf *sb, int64_t seconds)
{
    if (seconds < 60)
        strbuf_addf(sb, "just now");
    else if (seconds < 3600)
        strbuf_addf(sb, "%lld min ago", (long long)(seconds / 60));
    else if (seconds < 86400 * 2)
        strbuf_addf(sb, "%lld h ago", (long long)(seconds / 3600));
    else
        strbuf_addf(sb, "%lld days ago", (long long)(seconds / 86400));
}

bool mgr_results_last(struct results_room *r, int64_t now, struct strbuf *sb)
{
    if (!r->stats) {
        strbuf_addf(sb, "The results here can't be read (see the bot's log).");
        return true;
    }
    if (!r->stats->last.has) {
        strbuf_addf(sb, "No game has finished here yet.");
        return true;
    }
    const struct stats_last *l = &r->stats->last;
    strbuf_addf(sb, "Last game (");
    sb_ago(sb, now - l->time);
    /* the options that were changed, by name where they are known */
    strbuf_addf(sb, ", %s%s%s, %d hand%s): ", l->preset,
                l->changes[0] ? " with "
                : l->custom   ? " custom"
                              : "",
                l->changes, l->nhands, l->nhands == 1 ? "" : "s");
    for (int s = 0; s < l->n; s++)
        strbuf_addf(sb, "%s%s %d%s", s ? ", " : "", l->names[s],
                    (int)l->totals[s], l->left[s] ? " (left)" : "");
    int nw = 0;
    for (int s = 0; s < l->n; s++)
        nw += l->winners >> s & 1;
    int k = 0;
    for (int s = 0; s < l->n; s++)
        if (l->winners >> s & 1)
            strbuf_addf(sb, "%s%s", k++ ? (k == nw ? " and " : ", ") : ". ",
                        l->names[s]);
    strbuf_addf(sb, " %s.", nw == 1 ? "won" : "shared the win");
    return true;
}

bool mgr_results_sheet(struct results_room *r, bool in_room,
                       enum chat_style style, char *buf, size_t len)
{
    if (!r->stats || !r->stats->last.has)
        return false;
    const struct stats_last *l = &r->stats->last;
    const char *names[ENGINE_MAX_PLAYERS], *marks[ENGINE_MAX_PLAYERS];
    const int32_t *rows[STATS_LAST_HANDS];
    for (int s = 0; s < l->n; s++) {
        names[s] = l->names[s];
        marks[s] = l->left[s] ? "(left)" : NULL;
    }
    for (int h = 0; h < l->nlast; h++)
        rows[h] = l->hands[h];
    render_scores_marked(buf, len, names, marks, l->n, rows, l->nlast,
                         l->totals, in_room ? RENDER_SCORES_LAST : 0,
                         render_look_style(style));
    return true;
}
