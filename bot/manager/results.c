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
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/xalloc.h"
#include "bot/manager/board_names.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
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
static void tell_unreadable(struct manager *m, struct results_room *r)
{
    if (r->stats || r->told || !r->a || !r->room[0])
        return;
    r->told = true;
    char text[300];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    msg_add(&sb, mgr_lang_room(m, r->a, r->room),
            M("The results here can't be read (the bot's log says why); "
              "games are still played and archived."),
            MSG_END);
    r->a->ops->say(r->a, r->room, text, CHAT_NORMAL);
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
            tell_unreadable(m, r);
            return r;
        }
    }
    struct results_room *r = add_room(m, dir);
    r->a = a;
    snprintf(r->room, sizeof r->room, "%s", room);
    if (dir[0])
        load(m, r);
    tell_unreadable(m, r);
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
static int archive_one(struct manager *m, struct results_room *r,
                       const char *dir, struct archive_result *res,
                       const char *json, bool retry, char *err, size_t errlen)
{
    bool added = false;
    if (archive_add(dir, res, json, retry, &added, err, errlen))
        return -1;
    if (!added) {
        log_info("%s: game %s was archived already", dir, res->game);
        return 0;
    }
    if (m->archived && r->a) {
        char folded[sizeof r->room];
        if (r->a->ops->fold)
            r->a->ops->fold(r->a, r->room, folded, sizeof folded);
        else
            snprintf(folded, sizeof folded, "%s", r->room);
        m->archived(m->archived_ctx, dir, r->a->network ? r->a->network : "",
                    folded, res, json);
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
static int archive_pending(struct manager *m, struct results_room *r,
                           const char *dir, char *err, size_t errlen)
{
    int done = 0, rc = 0;
    while (done < r->npending) {
        struct results_pending *p = &r->pending[done];
        if (archive_one(m, r, dir, &p->res, p->json, true, err, errlen)) {
            rc = -1;
            break;
        }
        log_warn("%s: game %s archived now, after an earlier failure", dir,
                 p->res.game);
        if (p->journal[0])
            mgr_journal_remove(m, p->journal);
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
    int rc = dir ? archive_pending(t->m, r, dir, err, errlen) : -1;
    if (rc == 0)
        rc = archive_one(t->m, r, dir, &res, json, retry, err, errlen);
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

/* Said of a channel whose leaderboards can't be read. */
#define M_BOARDS_UNREADABLE                                                    \
    M("The leaderboards here can't be read (see the bot's log).")

/* "3 games" and "1 win" in lang, into a buffer each, for the sentences
 * that count both. */
struct counts {
    char games[64], wins[64];
};

static void counts_of(struct counts *k, int lang, const struct stats_player *p)
{
    struct strbuf sb;
    strbuf_init(&sb, k->games, sizeof k->games);
    msg_addn(&sb, lang, MN("{n} game", "{n} games"), (unsigned long)p->games,
             MSG_I("n", p->games), MSG_END);
    strbuf_init(&sb, k->wins, sizeof k->wins);
    msg_addn(&sb, lang, MN("{n} win", "{n} wins"), (unsigned long)p->wins,
             MSG_I("n", p->wins), MSG_END);
}

/* "1532" or "1510?" (provisional). */
static void sb_rating(struct strbuf *sb, const struct stats_player *p)
{
    strbuf_addf(sb, "%ld%s", lround(p->rating),
                stats_provisional(p) ? "?" : "");
}

/* The preset nearest to word, as the engine names it in its refusal. */
static const char *nearest_preset(const char *word, char *near, size_t len)
{
    struct engine_rules r;
    struct engine_error e;
    if (engine_rules_init(&r, word, &e) == 0 ||
        e.code != ENGINE_ERR_UNKNOWN_PRESET || !e.near[0])
        return engine_preset_name(0);
    snprintf(near, len, "%s", e.near);
    return near;
}

/* The preset a word names ("custom" too), into *preset; or false with a
 * refusal naming the nearest. */
static bool preset_word_ok(const char *word, int lang, const char **preset,
                           struct strbuf *sb)
{
    if (!strcmp(word, STATS_CUSTOM) || !strcmp(word, STATS_HINTS)) {
        *preset = !strcmp(word, STATS_CUSTOM) ? STATS_CUSTOM : STATS_HINTS;
        return true;
    }
    int p = engine_preset_find(word);
    if (p >= 0) {
        *preset = engine_preset_name(p);
        return true;
    }
    /* TRANSLATORS: {word} is what was typed, {preset} the nearest preset;
     * presets and "custom" are typed as they are: keep them. */
    char near[ENGINE_ERROR_NEAR];
    msg_add(sb, lang,
            M("unknown preset '{word}' (did you mean '{preset}'?) (or "
              "custom). !presets lists them."),
            MSG_S("word", word),
            MSG_S("preset", nearest_preset(word, near, sizeof near)), MSG_END);
    return false;
}

/* The board a command asks about (preset_word, else the channel's
 * default preset): 0 with *b, 1 with an answer in sb (nothing counted
 * there), -1 with a refusal in sb. */
static int board_for(struct results_room *r, int lang, const char *preset_word,
                     const char *fallback, struct strbuf *sb,
                     const struct stats_board **b)
{
    const char *preset = fallback;
    if (preset_word && !preset_word_ok(preset_word, lang, &preset, sb))
        return -1;
    if (!r->stats) {
        msg_add(sb, lang, M_BOARDS_UNREADABLE, MSG_END);
        return 1;
    }
    *b = stats_board(r->stats, preset);
    if (!*b || !(*b)->n) {
        /* TRANSLATORS: {board} is a preset's name ("standard", "omnibus")
         * or "custom" */
        msg_add(sb, lang, M("Nobody has finished a {board} game here yet."),
                MSG_S("board", preset), MSG_END);
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

bool mgr_results_top(struct results_room *r, int lang, const char *n_word,
                     const char *preset_word, const char *fallback,
                     struct strbuf *sb)
{
    int n = TOP_DEFAULT;
    if (n_word) {
        char *end;
        long v = strtol(n_word, &end, 10);
        if (*end || v < 1 || v > TOP_MAX) {
            msg_add(sb, lang, M("How many? 1 to {most}."),
                    MSG_I("most", TOP_MAX), MSG_END);
            return false;
        }
        n = (int)v;
    }
    const struct stats_board *b;
    int found = board_for(r, lang, preset_word, fallback, sb, &b);
    if (found)
        return found > 0;
    if (n > b->n)
        n = b->n;
    bool provisional = false;
    /* TRANSLATORS: the start of !top: the best {n} players of the board
     * of preset {board} ("standard") */
    msg_add(sb, lang, M("Top {n} ({board}):"), MSG_I("n", n),
            MSG_S("board", b->preset), MSG_END);
    /* the entries spread evenly over the fewest lines of TOP_PER_LINE:
     * entry i on line i * lines / n (no lone entry on the last) */
    int lines = (n + TOP_PER_LINE - 1) / TOP_PER_LINE;
    for (int i = 0; i < n; i++) {
        const struct stats_player *p = &b->p[b->order[i]];
        bool ends_line = i + 1 < n && (i + 1) * lines / n != i * lines / n;
        if (i && i * lines / n != (i - 1) * lines / n)
            strbuf_addf(sb, "\n");
        char shown[RENDER_SHOWN_SIZE + 16], rating[32];
        row_shown(r, b, b->order[i], shown, sizeof shown);
        struct strbuf rb;
        strbuf_init(&rb, rating, sizeof rating);
        sb_rating(&rb, p);
        struct counts k;
        counts_of(&k, lang, p);
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: an entry of !top: "2. alice 1532 (5 games, 2
         * wins)"; {rating} ends in "?" while it is provisional */
        msg_add(sb, lang, M("{rank}. {name} {rating} ({games}, {wins})"),
                MSG_I("rank", i + 1), MSG_S("name", shown),
                MSG_S("rating", rating), MSG_S("games", k.games),
                MSG_S("wins", k.wins), MSG_END);
        if (i + 1 < n && !ends_line)
            strbuf_addc(sb, ',');
        provisional |= stats_provisional(p);
    }
    if (provisional) {
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: after !top when a rating there ends in "?" */
        msg_addn(sb, lang,
                 MN("?: provisional, under {n} game.",
                    "?: provisional, under {n} games."),
                 STATS_PROVISIONAL, MSG_I("n", STATS_PROVISIONAL), MSG_END);
    }
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
static void sb_row_full(struct strbuf *sb, int lang, struct results_room *r,
                        const struct stats_board *b,
                        const struct stats_player *p)
{
    char shown[RENDER_SHOWN_SIZE + 16], rating[64], points[32], moons[64],
        suns[64], queens[64];
    row_shown(r, b, (int)(p - b->p), shown, sizeof shown);
    struct strbuf t;
    strbuf_init(&t, rating, sizeof rating);
    char number[32];
    snprintf(number, sizeof number, "%ld", lround(p->rating));
    if (stats_provisional(p))
        msg_add(&t, lang, M("{rating} (provisional)"), MSG_S("rating", number),
                MSG_END);
    else
        strbuf_addstr(&t, number);
    /* "6.1", with the language's decimal separator */
    snprintf(points, sizeof points, "%.1f",
             p->hands ? (double)p->points / p->hands : 0.0);
    char *dot = strchr(points, '.');
    const char *sep = msg_template(
        lang, MC("the decimal separator, as in \"6.1 points a hand\"", "."));
    if (dot && strlen(sep) == 1)
        *dot = sep[0];
    strbuf_init(&t, moons, sizeof moons);
    msg_addn(&t, lang, MN("{n} moon", "{n} moons"), (unsigned long)p->moons,
             MSG_I("n", p->moons), MSG_END);
    strbuf_init(&t, suns, sizeof suns);
    msg_addn(&t, lang, MN("{n} sun", "{n} suns"), (unsigned long)p->suns,
             MSG_I("n", p->suns), MSG_END);
    strbuf_init(&t, queens, sizeof queens);
    msg_addn(&t, lang, MN("{n} queen of spades", "{n} queens of spades"),
             (unsigned long)p->queens, MSG_I("n", p->queens), MSG_END);
    struct counts k;
    counts_of(&k, lang, p);
    /* TRANSLATORS: !stats: "alice (standard): 5 games, 2 wins, rating
     * 1532, rank 2 of 7, 6.1 points a hand, 1 moon, 2 queens of spades."
     * {board} is a preset's name; {moons} counts the times the moon was
     * shot. The second text also counts suns (all tricks taken). */
    const char *id =
        p->suns ? M("{name} ({board}): {games}, {wins}, rating {rating}, rank "
                    "{rank} of {players}, {points} points a hand, {moons}, "
                    "{suns}, {queens}.")
                : M("{name} ({board}): {games}, {wins}, rating {rating}, rank "
                    "{rank} of {players}, {points} points a hand, {moons}, "
                    "{queens}.");
    msg_add(sb, lang, id, MSG_S("name", shown), MSG_S("board", b->preset),
            MSG_S("games", k.games), MSG_S("wins", k.wins),
            MSG_S("rating", rating), MSG_I("rank", p->rank),
            MSG_I("players", b->n), MSG_S("points", points),
            MSG_S("moons", moons), MSG_S("suns", suns), MSG_S("queens", queens),
            MSG_END);
}

/* A row in short, after the one in full: "omnibus 3 games, 1 win,
 * rating 1516?, rank 1 of 2". */
static void sb_row_short(struct strbuf *sb, int lang,
                         const struct stats_board *b,
                         const struct stats_player *p)
{
    char rating[32];
    struct strbuf rb;
    strbuf_init(&rb, rating, sizeof rating);
    sb_rating(&rb, p);
    struct counts k;
    counts_of(&k, lang, p);
    /* TRANSLATORS: a person's row on another board, after their row in
     * full: "omnibus 3 games, 1 win, rating 1516?, rank 1 of 2" */
    msg_add(sb, lang,
            M("{board} {games}, {wins}, rating {rating}, rank {rank} of "
              "{players}"),
            MSG_S("board", b->preset), MSG_S("games", k.games),
            MSG_S("wins", k.wins), MSG_S("rating", rating),
            MSG_I("rank", p->rank), MSG_I("players", b->n), MSG_END);
}

bool mgr_results_stats(struct results_room *r, int lang,
                       const struct played *pl, const struct chat_user *u,
                       const char *name, const char *preset_word,
                       const char *fallback, struct strbuf *sb)
{
    char also_text[MGR_TEXT_SIZE];
    struct strbuf also;
    strbuf_init(&also, also_text, sizeof also_text);
    r->stats_key[0] = '\0';
    const struct stats_board *b = NULL;
    const struct stats_player *p = NULL;
    if (preset_word) {
        int found = board_for(r, lang, preset_word, fallback, sb, &b);
        if (found)
            return found > 0;
        p = row_of(r, pl, u, name, b, &also);
    } else if (!r->stats) {
        msg_add(sb, lang, M_BOARDS_UNREADABLE, MSG_END);
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
        msg_add(sb, lang, M("Nobody has finished a game here yet."), MSG_END);
        return true;
    }
    if (!p && preset_word) {
        /* TRANSLATORS: {name} is a player's name as typed; {board} a
         * preset's name ("standard") or "custom" */
        if (name)
            msg_add(sb, lang, M("{name} has not finished a {board} game here."),
                    MSG_S("name", name), MSG_S("board", b->preset), MSG_END);
        else
            msg_add(sb, lang, M("You have not finished a {board} game here."),
                    MSG_S("board", b->preset), MSG_END);
        return true;
    }
    if (!p) {
        if (name)
            msg_add(sb, lang, M("{name} has not finished a game here."),
                    MSG_S("name", name), MSG_END);
        else
            msg_add(sb, lang, M("You have not finished a game here."), MSG_END);
        return true;
    }
    sb_row_full(sb, lang, r, b, p);
    snprintf(r->stats_key, sizeof r->stats_key, "%s", p->key);
    /* without a preset named, the other boards after it, briefly */
    char others_text[MGR_TEXT_SIZE];
    struct strbuf others;
    strbuf_init(&others, others_text, sizeof others_text);
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
        if (others.len)
            strbuf_addstr(&others, "; ");
        sb_row_short(&others, lang, o, q);
    }
    if (others.len) {
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: after a row of !stats: the person's rows on other
         * boards, "; " between them */
        msg_add(sb, lang, M("Also: {boards}."), MSG_S("boards", others_text),
                MSG_END);
    }
    if (also.len) {
        char shown[RENDER_SHOWN_SIZE + 16];
        row_shown(r, b, (int)(p - b->p), shown, sizeof shown);
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: {name} is the name asked about; {names} the names
         * the others are shown by on the board ("bob(2), bob(3)") */
        msg_add(sb, lang,
                M("Other people played here as {name} too: !stats {names}."),
                MSG_S("name", shown), MSG_S("names", also.buf), MSG_END);
    }
    return true;
}

/* How long ago, "5 min ago", in lang. */
static void sb_ago(struct strbuf *sb, int lang, int64_t seconds)
{
    /* TRANSLATORS: how long ago the last game ended, in "Last game (5 min
     * ago, standard, 12 hands)" */
    if (seconds < 60)
        msg_add(sb, lang, M("just now"), MSG_END);
    else if (seconds < 3600)
        msg_add(sb, lang, M("{n} min ago"), MSG_I("n", seconds / 60), MSG_END);
    else if (seconds < 86400 * 2)
        msg_add(sb, lang, M("{n} h ago"), MSG_I("n", seconds / 3600), MSG_END);
    else
        msg_addn(sb, lang, MN("{n} day ago", "{n} days ago"),
                 (unsigned long)(seconds / 86400), MSG_I("n", seconds / 86400),
                 MSG_END);
}

/* Said after the points of a player who left the game (!last, and the
 * last game's sheet): the mark of the score sheets and trick lines
 * (text.c), one word for one thing. */
#define M_LEFT MC("score sheet", "(left)")

void mgr_sb_names(struct strbuf *sb, int lang, const char *const *names, int n)
{
    char head[MGR_TEXT_SIZE];
    struct strbuf hb;
    strbuf_init(&hb, head, sizeof head);
    for (int i = 0; i + 1 < n; i++)
        strbuf_addf(&hb, "%s%s", i ? ", " : "", names[i]);
    if (n < 2) {
        strbuf_addstr(sb, n ? names[0] : "");
        return;
    }
    /* TRANSLATORS: the last name of a list joined to the others: {names}
     * is "alice" or "alice, bob", {last} "carol" */
    msg_add(sb, lang, M("{names} and {last}"), MSG_S("names", head),
            MSG_S("last", names[n - 1]), MSG_END);
}

bool mgr_results_last(struct results_room *r, int lang, int64_t now,
                      struct strbuf *sb)
{
    if (!r->stats) {
        msg_add(sb, lang,
                M("The results here can't be read (see the bot's log)."),
                MSG_END);
        return true;
    }
    if (!r->stats->last.has) {
        msg_add(sb, lang, M("No game has finished here yet."), MSG_END);
        return true;
    }
    const struct stats_last *l = &r->stats->last;
    char ago[64], rules[STATS_CHANGES_SIZE + 64], hands[64];
    struct strbuf t;
    strbuf_init(&t, ago, sizeof ago);
    sb_ago(&t, lang, now - l->time);
    /* the options that were changed, by name where they are known */
    strbuf_init(&t, rules, sizeof rules);
    if (l->changes[0])
        /* TRANSLATORS: the rules of the last game: {preset} is a preset's
         * name ("standard"), {changes} the options changed ("target=30
         * hands=2"); options stay as they are typed */
        msg_add(&t, lang, M("{preset} with {changes}"),
                MSG_S("preset", l->preset), MSG_S("changes", l->changes),
                MSG_END);
    else if (l->custom)
        /* TRANSLATORS: the rules of the last game: a preset's name
         * ("standard") with options changed, which are not known */
        msg_add(&t, lang, M("{preset} custom"), MSG_S("preset", l->preset),
                MSG_END);
    else
        strbuf_addstr(&t, l->preset);
    strbuf_init(&t, hands, sizeof hands);
    msg_addn(&t, lang, MN("{n} hand", "{n} hands"), (unsigned long)l->nhands,
             MSG_I("n", l->nhands), MSG_END);
    char scores[MGR_TEXT_SIZE];
    strbuf_init(&t, scores, sizeof scores);
    const char *winners[ENGINE_MAX_PLAYERS] = {0};
    int nw = 0;
    for (int s = 0; s < l->n; s++) {
        strbuf_addf(&t, "%s%s %d", s ? ", " : "", l->names[s],
                    (int)l->totals[s]);
        if (l->left[s])
            strbuf_addf(&t, " %s", msg_template(lang, M_LEFT));
        if (l->winners >> s & 1)
            winners[nw++] = l->names[s];
    }
    char won[MGR_TEXT_SIZE];
    struct strbuf wb;
    strbuf_init(&wb, won, sizeof won);
    mgr_sb_names(&wb, lang, winners, nw);
    /* TRANSLATORS: !last: "Last game (5 min ago, standard, 12 hands):
     * alice 26, bob 80 (left), carol 40, dave 50. alice won." {scores}
     * lists each player's points; {winners} is one name, or several
     * joined ("alice and carol") in the second text */
    const char *id =
        nw == 0   ? M("Last game ({ago}, {rules}, {hands}): {scores}.")
        : nw == 1 ? M("Last game ({ago}, {rules}, {hands}): {scores}. "
                      "{winners} won.")
                  : M("Last game ({ago}, {rules}, {hands}): {scores}. "
                      "{winners} shared the win.");
    msg_add(sb, lang, id, MSG_S("ago", ago), MSG_S("rules", rules),
            MSG_S("hands", hands), MSG_S("scores", scores),
            MSG_S("winners", won), MSG_END);
    return true;
}

bool mgr_results_sheet(struct results_room *r, bool in_room,
                       struct render_look look, char *buf, size_t len)
{
    if (!r->stats || !r->stats->last.has)
        return false;
    const struct stats_last *l = &r->stats->last;
    const char *names[ENGINE_MAX_PLAYERS], *marks[ENGINE_MAX_PLAYERS];
    const int32_t *rows[STATS_LAST_HANDS];
    for (int s = 0; s < l->n; s++) {
        names[s] = l->names[s];
        marks[s] = l->left[s] ? msg_template(look.lang, M_LEFT) : NULL;
    }
    for (int h = 0; h < l->nlast; h++)
        rows[h] = l->hands[h];
    render_scores_marked(buf, len, names, marks, l->n, rows, l->nlast,
                         l->totals, in_room ? RENDER_SCORES_LAST : 0, look);
    return true;
}
