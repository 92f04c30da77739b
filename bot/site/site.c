/*
 * Writing the site (site.h, docs/site.md): the whole of it into a new
 * generation directory that out_dir, a symbolic link, is switched to in
 * one rename; or one game's pages replaced one by one in the generation
 * out_dir points at.
 */
#define _GNU_SOURCE /* syncfs: one flush for a whole generation */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/err.h"
#include "bot/common/xalloc.h"
#include "bot/site/site_internal.h"
#include "storage/record/record.h"

struct site *site_new(const struct site_options *o)
{
    struct site *s = xcalloc(1, sizeof *s);
    s->data_dir = xstrdup(o->data_dir ? o->data_dir : "");
    s->out_dir = xstrdup(o->out_dir ? o->out_dir : "");
    s->secret = xstrdup(o->secret ? o->secret : "");
    for (int i = 0; o->hide_hands && o->hide_hands[i]; i++) {
        s->hide = xrealloc(s->hide, sizeof *s->hide * (size_t)(s->nhide + 1));
        s->hide[s->nhide++] = xstrdup(o->hide_hands[i]);
    }
    s->recent = o->recent > 0 ? o->recent : SITE_RECENT_DEFAULT;
    /* out_dir without trailing slashes: it names the link itself */
    size_t n = strlen(s->out_dir);
    while (n > 1 && s->out_dir[n - 1] == '/')
        s->out_dir[--n] = '\0';
    return s;
}

static void channels_free(struct site_channel **ch, int n)
{
    for (int i = 0; i < n; i++)
        site_channel_free(ch[i]);
    free(ch);
}

void site_free(struct site *s)
{
    if (!s)
        return;
    channels_free(s->ch, s->nch);
    for (int i = 0; i < s->nhide; i++)
        free(s->hide[i]);
    free(s->hide);
    free(s->data_dir);
    free(s->out_dir);
    free(s->secret);
    free(s);
}

/* ---- Files ------------------------------------------------------------ */

/*
 * Writes a page: with `atomic`, through a temporary file beside it
 * (".tmp-NAME-PID-N": a leading dot, never linked) renamed over it after
 * an fsync, and the directory fsynced; without, straight (a generation
 * nobody sees yet, flushed as a whole before it is switched to). Pages
 * are 0644 and directories 0755: the site is for a web server to read.
 */
static int put(struct site *s, const char *path, const char *data, size_t len,
               bool atomic, char *err, size_t errlen)
{
    char tmp[FILE_PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int n = snprintf(tmp, sizeof tmp, "%.*s.tmp-%s-%ld-%u", (int)(base - path),
                     path, base, (long)getpid(), ++s->tmp_counter);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return err_set(err, errlen, "%s: path too long", path);
    const char *target = atomic ? tmp : path;
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                  0644);
    if (fd < 0)
        return err_set(err, errlen, "%s: %s", target, file_open_reason(errno));
    size_t done;
    const char *what = NULL;
    int e = 0;
    if (fchmod(fd, 0644))
        what = "chmod";
    else if (file_write_all(fd, data, len, &done))
        what = "write";
    else if (atomic && fsync(fd))
        what = "fsync";
    if (what)
        e = errno;
    if (close(fd) && !what) {
        what = "close";
        e = errno;
    }
    if (!what && atomic && rename(tmp, path)) {
        what = "rename";
        e = errno;
    }
    if (what) {
        if (atomic)
            unlink(tmp);
        return err_set(err, errlen, "%s: %s: %s", path, what, strerror(e));
    }
    return atomic ? file_sync_dir(path, err, errlen) : 0;
}

static int put_page(struct site *s, const char *path, struct strbuf *sb,
                    bool atomic, char *err, size_t errlen)
{
    int rc = put(s, path, sb->buf ? sb->buf : "", sb->len, atomic, err, errlen);
    strbuf_free(sb);
    return rc;
}

static int make_dir(const char *path, char *err, size_t errlen)
{
    if (mkdir(path, 0755) && errno != EEXIST)
        return err_set(err, errlen, "%s: %s", path, strerror(errno));
    struct stat st;
    if (lstat(path, &st) || !S_ISDIR(st.st_mode))
        return err_set(err, errlen, "%s: not a directory", path);
    return 0;
}

/* The channel's folder in gen, and its p/, g/ and b/ made. */
static int channel_dirs(const char *gen, const struct site_channel *c,
                        char *dir, char *err, size_t errlen)
{
    char sub[FILE_PATH_MAX];
    if (file_path(sub, sizeof sub, err, errlen, gen, c->net_enc, NULL) ||
        make_dir(sub, err, errlen) ||
        file_path(dir, FILE_PATH_MAX, err, errlen, gen, c->net_enc, c->room_enc,
                  NULL) ||
        make_dir(dir, err, errlen))
        return -1;
    static const char *const parts[] = {"p", "g", "b"};
    for (int i = 0; i < 3; i++)
        if (file_path(sub, sizeof sub, err, errlen, dir, parts[i], NULL) ||
            make_dir(sub, err, errlen))
            return -1;
    return 0;
}

/* ---- A channel's pages ------------------------------------------------ */

/* Puts the page built in sb (freed) at dir/sub/name (sub may be NULL). */
static int put_at(struct site *s, const char *dir, const char *sub,
                  const char *name, struct strbuf *sb, bool atomic, char *err,
                  size_t errlen)
{
    char path[FILE_PATH_MAX];
    if ((sub ? file_path(path, sizeof path, err, errlen, dir, sub, name, NULL)
             : file_path(path, sizeof path, err, errlen, dir, name, NULL))) {
        strbuf_free(sb);
        return -1;
    }
    return put_page(s, path, sb, atomic, err, errlen);
}

static int write_game(struct site *s, const struct site_channel *c,
                      const char *dir, const struct archive_result *r,
                      const char *record, size_t len, bool atomic, char *err,
                      size_t errlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    if (site_page_game(c, r, record, len, &sb)) {
        strbuf_free(&sb);
        return 0; /* counted for nobody: no page links to it */
    }
    char name[32];
    snprintf(name, sizeof name, "%s.html", r->game);
    return put_at(s, dir, "g", name, &sb, atomic, err, errlen);
}

static int write_person(struct site *s, const struct site_channel *c,
                        const char *dir, int person, bool atomic, char *err,
                        size_t errlen)
{
    char name[32];
    snprintf(name, sizeof name, "%s.html", c->people[person].page);
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_page_person(c, person, &sb);
    return put_at(s, dir, "p", name, &sb, atomic, err, errlen);
}

static int write_board(struct site *s, const struct site_channel *c,
                       const char *dir, int board, bool atomic, char *err,
                       size_t errlen)
{
    char name[FILE_NAME_MAX + 8];
    site_board_file(&c->stats->boards[board], name, sizeof name);
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_page_board(c, board, &sb);
    return put_at(s, dir, "b", name, &sb, atomic, err, errlen);
}

static int write_channel_page(struct site *s, const struct site_channel *c,
                              const char *dir, bool atomic, char *err,
                              size_t errlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_page_channel(s, c, &sb);
    return put_at(s, dir, NULL, "index.html", &sb, atomic, err, errlen);
}

static int write_index(struct site *s, const char *gen, bool atomic, char *err,
                       size_t errlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_page_index(s, &sb);
    return put_at(s, gen, NULL, "index.html", &sb, atomic, err, errlen);
}

/* Everything of a channel after its games' pages: its people, boards
 * and its own page, in that order. */
static int write_channel_rest(struct site *s, struct site_channel *c,
                              const char *dir, bool atomic, char *err,
                              size_t errlen)
{
    stats_rank(c->stats);
    for (int i = 0; i < c->npeople; i++)
        if (write_person(s, c, dir, i, atomic, err, errlen))
            return -1;
    for (int b = 0; b < c->stats->nboards; b++)
        if (c->stats->boards[b].n &&
            write_board(s, c, dir, b, atomic, err, errlen))
            return -1;
    return write_channel_page(s, c, dir, atomic, err, errlen);
}

/* Reading a channel, its game pages written as its games are counted. */
struct load {
    struct site *s;
    struct site_channel *c;
    const char *dir; /* where the pages go */
    bool atomic;
    bool only_missing; /* write only the game pages not there */
    bool wrote;        /* a game page was written */
    char *err;
    size_t errlen;
};

static int on_game(void *ctx, const struct archive_result *r,
                   const char *record, size_t len)
{
    struct load *l = ctx;
    struct stats_game g;
    bool good = record && !stats_game_from_record(record, len, &g, NULL, 0);
    int gi = site_channel_add(l->s, l->c, r, good ? &g : NULL);
    if (gi < 0)
        return 0;
    if (l->only_missing) {
        char name[32], path[FILE_PATH_MAX];
        struct stat st;
        snprintf(name, sizeof name, "%s.html", r->game);
        if (!file_path(path, sizeof path, NULL, 0, l->dir, "g", name, NULL) &&
            !lstat(path, &st) && S_ISREG(st.st_mode))
            return 0;
    }
    l->wrote = true;
    return write_game(l->s, l->c, l->dir, r, record, len, l->atomic, l->err,
                      l->errlen);
}

/* The pages the channel's last finished game changed but its own:
 * written again when a site is taken up, since a stop in the middle of
 * that game's update may have left some of them behind. */
static int write_last_game_rest(struct site *s, struct site_channel *c,
                                const char *dir, char *err, size_t errlen);

/* Reads channel net_enc/room_enc and writes all its pages under gen
 * (only_missing: the game pages not there yet, and the rest only if one
 * was missing, else the last game's). */
static int load_channel(struct site *s, const char *gen, const char *net_enc,
                        const char *room_enc, bool atomic, bool only_missing,
                        struct site_channel **out, char *err, size_t errlen)
{
    struct site_channel *c = site_channel_new(s, net_enc, room_enc);
    char dir[FILE_PATH_MAX];
    struct load l = {s, c, dir, atomic, only_missing, false, err, errlen};
    if (channel_dirs(gen, c, dir, err, errlen) ||
        site_channel_scan(c, on_game, &l, err, errlen) ||
        (only_missing && !l.wrote
             ? write_last_game_rest(s, c, dir, err, errlen)
             : write_channel_rest(s, c, dir, atomic, err, errlen))) {
        site_channel_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* ---- The generations -------------------------------------------------- */

static int write_stamp(struct site *s, const char *gen, bool atomic, char *err,
                       size_t errlen);

/* out_dir's parent and base name. */
static int split_out(const char *out, char *parent, char *base, char *err,
                     size_t errlen)
{
    const char *slash = strrchr(out, '/');
    if (!out[0] || (slash && !slash[1]))
        return err_set(err, errlen, "site directory \"%s\": no name", out);
    if (slash) {
        snprintf(parent, FILE_PATH_MAX, "%.*s",
                 slash == out ? 1 : (int)(slash - out), out);
        snprintf(base, FILE_PATH_MAX, "%s", slash + 1);
    } else {
        snprintf(parent, FILE_PATH_MAX, ".");
        snprintf(base, FILE_PATH_MAX, "%s", out);
    }
    if (!strcmp(base, ".") || !strcmp(base, ".."))
        return err_set(err, errlen, "site directory \"%s\": no name", out);
    return 0;
}

/* The number of a generation's name ".BASE.gen-N", or -1. */
static long gen_number(const char *name, const char *base)
{
    size_t b = strlen(base);
    if (name[0] != '.' || strncmp(name + 1, base, b) ||
        strncmp(name + 1 + b, ".gen-", 5))
        return -1;
    const char *d = name + 1 + b + 5;
    if (!*d)
        return -1;
    long v = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9' || v > 100000000)
            return -1;
        v = v * 10 + (*d - '0');
    }
    return v;
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes a generation directory and everything in it (links are
 * removed, never followed). */
static int remove_tree(const char *path, char *err, size_t errlen)
{
    if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
        return err_set(err, errlen, "%s: cannot remove: %s", path,
                       strerror(errno));
    return 0;
}

/*
 * What out_dir is now: *current the name of the generation it links to
 * ("" if none: missing, or an empty directory, *empty_dir set). Anything
 * else there is refused.
 */
static int out_state(const char *out, const char *base, char *current,
                     bool *empty_dir, char *err, size_t errlen)
{
    current[0] = '\0';
    *empty_dir = false;
    struct stat st;
    if (lstat(out, &st)) {
        if (errno == ENOENT)
            return 0;
        return err_set(err, errlen, "%s: %s", out, strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) {
        char t[FILE_PATH_MAX];
        ssize_t n = readlink(out, t, sizeof t - 1);
        if (n < 0)
            return err_set(err, errlen, "%s: %s", out, strerror(errno));
        t[n] = '\0';
        if (gen_number(t, base) < 0)
            return err_set(err, errlen,
                           "%s: a link to %s, not to a site heartsbot wrote "
                           "(.%s.gen-N beside it): left alone",
                           out, t, base);
        snprintf(current, FILE_PATH_MAX, "%s", t);
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(out);
        struct dirent *e;
        bool empty = true;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                empty = false;
        if (d)
            closedir(d);
        if (empty) {
            *empty_dir = true;
            return 0;
        }
    }
    return err_set(err, errlen,
                   "%s: not a site heartsbot wrote (it makes a symbolic link "
                   "there): left alone",
                   out);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The sorted names of the directories (not links) in dir. */
static char **subdirs(const char *dir, int *n)
{
    char **v = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue; /* ".", "..": encoded names never lead with '.' */
        char path[FILE_PATH_MAX];
        struct stat st;
        if (file_path(path, sizeof path, NULL, 0, dir, e->d_name, NULL) ||
            lstat(path, &st) || !S_ISDIR(st.st_mode))
            continue;
        v = xrealloc(v, sizeof *v * (size_t)(*n + 1));
        v[(*n)++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (*n)
        qsort(v, (size_t)*n, sizeof *v, cmp_str);
    return v;
}

static void names_free(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Whether dir is a channel's folder: it has an archive or results. */
static bool is_channel(const char *dir)
{
    char a[FILE_PATH_MAX], r[FILE_PATH_MAX];
    struct stat st;
    if (archive_paths(dir, a, r, NULL, 0))
        return false;
    return (!lstat(a, &st) && S_ISREG(st.st_mode)) ||
           (!lstat(r, &st) && S_ISREG(st.st_mode));
}

/* Every channel of the data directory into gen (a new generation; or,
 * only_missing, the live one, atomically). */
static int write_channels(struct site *s, const char *gen, bool atomic,
                          bool only_missing, struct site_channel ***out,
                          int *nout, char *warn, size_t warnlen, char *err,
                          size_t errlen)
{
    struct stat st;
    if (stat(s->data_dir, &st))
        return err_set(err, errlen, "data directory %s: %s", s->data_dir,
                       strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return err_set(err, errlen, "data directory %s: not a directory",
                       s->data_dir);
    int nnets;
    char **nets = subdirs(s->data_dir, &nnets);
    struct site_channel **ch = NULL;
    int nch = 0;
    bool warned = false;
    for (int i = 0; i < nnets; i++) {
        char ndir[FILE_PATH_MAX];
        if (file_path(ndir, sizeof ndir, NULL, 0, s->data_dir, nets[i], NULL))
            continue;
        int nrooms;
        char **rooms = subdirs(ndir, &nrooms);
        for (int k = 0; k < nrooms; k++) {
            char rdir[FILE_PATH_MAX];
            if (file_path(rdir, sizeof rdir, NULL, 0, ndir, rooms[k], NULL) ||
                !is_channel(rdir))
                continue;
            struct site_channel *c;
            char why[400];
            if (load_channel(s, gen, nets[i], rooms[k], atomic, only_missing,
                             &c, why, sizeof why)) {
                if (!warned && warn && warnlen)
                    snprintf(warn, warnlen, "%s", why);
                warned = true;
                continue;
            }
            ch = xrealloc(ch, sizeof *ch * (size_t)(nch + 1));
            ch[nch++] = c;
        }
        names_free(rooms, nrooms);
    }
    names_free(nets, nnets);
    *out = ch;
    *nout = nch;
    return 0;
}

/* Flushes the generation (every file written without fsync) to disk. */
static int sync_tree(const char *gen, char *err, size_t errlen)
{
    int fd = open(gen, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || syncfs(fd)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return err_set(err, errlen, "%s: sync: %s", gen, strerror(e));
    }
    close(fd);
    return 0;
}

/* The start of a write: no warning yet, out_dir's folder and name, and
 * what is there now (out_state). */
static int out_now(const struct site *s, char *parent, char *base,
                   char *current, bool *empty_dir, char *warn, size_t warnlen,
                   char *err, size_t errlen)
{
    if (warn && warnlen)
        warn[0] = '\0';
    if (split_out(s->out_dir, parent, base, err, errlen))
        return -1;
    return out_state(s->out_dir, base, current, empty_dir, err, errlen);
}

int site_write_all(struct site *s, int *channels, char *warn, size_t warnlen,
                   char *err, size_t errlen)
{
    char parent[FILE_PATH_MAX], base[FILE_PATH_MAX], current[FILE_PATH_MAX];
    bool empty_dir;
    if (out_now(s, parent, base, current, &empty_dir, warn, warnlen, err,
                errlen))
        return -1;
    /* the next generation's number; leftovers of a crash are removed */
    long next = gen_number(current, base) + 1;
    DIR *d = opendir(parent);
    if (!d)
        return err_set(err, errlen, "%s: %s", parent, strerror(errno));
    struct dirent *e;
    char **stale = NULL;
    int nstale = 0;
    while ((e = readdir(d))) {
        long v = gen_number(e->d_name, base);
        if (v < 0 || !strcmp(e->d_name, current))
            continue;
        if (v >= next)
            next = v + 1;
        stale = xrealloc(stale, sizeof *stale * (size_t)(nstale + 1));
        stale[nstale++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (next < 1)
        next = 1;
    for (int i = 0; i < nstale; i++) {
        char p[FILE_PATH_MAX];
        if (!file_path(p, sizeof p, NULL, 0, parent, stale[i], NULL))
            remove_tree(p, NULL, 0);
    }
    names_free(stale, nstale);

    char genname[FILE_PATH_MAX], gen[FILE_PATH_MAX];
    int gn = snprintf(genname, sizeof genname, ".%s.gen-%ld", base, next);
    if (gn < 0 || (size_t)gn >= sizeof genname)
        return err_set(err, errlen, "%s: path too long", s->out_dir);
    if (file_path(gen, sizeof gen, err, errlen, parent, genname, NULL) ||
        make_dir(gen, err, errlen))
        return -1;
    char path[FILE_PATH_MAX];
    struct site_channel **ch = NULL;
    int nch = 0;
    if (file_path(path, sizeof path, err, errlen, gen, "site.css", NULL) ||
        put(s, path, site_css, strlen(site_css), false, err, errlen) ||
        file_path(path, sizeof path, err, errlen, gen, "replay.js", NULL) ||
        put(s, path, site_js, strlen(site_js), false, err, errlen) ||
        write_stamp(s, gen, false, err, errlen) ||
        write_channels(s, gen, false, false, &ch, &nch, warn, warnlen, err,
                       errlen))
        goto fail;
    /* the index lists the new channels */
    struct site_channel **old = s->ch;
    int nold = s->nch;
    s->ch = ch;
    s->nch = nch;
    if (write_index(s, gen, false, err, errlen) ||
        sync_tree(gen, err, errlen)) {
        s->ch = old;
        s->nch = nold;
        goto fail;
    }
    s->ch = old;
    s->nch = nold;

    /* the switch: a new link renamed over out_dir */
    char link_tmp[FILE_PATH_MAX];
    int n = snprintf(link_tmp, sizeof link_tmp, "%s/.%s.link-%ld", parent, base,
                     (long)getpid());
    if (n < 0 || (size_t)n >= sizeof link_tmp) {
        err_set(err, errlen, "%s: path too long", s->out_dir);
        goto fail;
    }
    unlink(link_tmp);
    if (symlink(genname, link_tmp)) {
        err_set(err, errlen, "%s: %s", link_tmp, strerror(errno));
        goto fail;
    }
    if (empty_dir && rmdir(s->out_dir)) {
        err_set(err, errlen, "%s: %s", s->out_dir, strerror(errno));
        unlink(link_tmp);
        goto fail;
    }
    if (rename(link_tmp, s->out_dir)) {
        err_set(err, errlen, "%s: %s", s->out_dir, strerror(errno));
        unlink(link_tmp);
        goto fail;
    }
    file_sync_dir(s->out_dir, NULL, 0);
    if (current[0]) {
        char p[FILE_PATH_MAX];
        if (!file_path(p, sizeof p, NULL, 0, parent, current, NULL))
            remove_tree(p, NULL, 0);
    }
    channels_free(s->ch, s->nch);
    s->ch = ch;
    s->nch = nch;
    snprintf(s->gen, sizeof s->gen, "%s", gen);
    if (channels)
        *channels = nch;
    return 0;
fail:
    channels_free(ch, nch);
    remove_tree(gen, NULL, 0);
    return -1;
}

/* ---- Taking up a site ------------------------------------------------ */

/* What the pages depend on besides the files: the pages' version, the
 * secret, the channels whose hands are hidden, the games on a channel's
 * page. Kept in the generation as .heartsbot-site, so that a site
 * written under other options is written whole again, never mixed. */
static void stamp_of(const struct site *s, char *out, size_t outlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    strbuf_addf(&sb, "%s\n%d\n", s->secret, s->recent);
    for (int i = 0; i < s->nhide; i++)
        strbuf_addf(&sb, "%s\n", s->hide[i]);
    uint64_t h = site_siphash(
        0, 0, (const unsigned char *)(sb.buf ? sb.buf : ""), sb.len);
    strbuf_free(&sb);
    snprintf(out, outlen, SITE_STAMP_FORMAT " %016llx\n",
             (unsigned long long)h);
}

static int write_stamp(struct site *s, const char *gen, bool atomic, char *err,
                       size_t errlen)
{
    char stamp[128], path[FILE_PATH_MAX];
    stamp_of(s, stamp, sizeof stamp);
    if (file_path(path, sizeof path, err, errlen, gen, SITE_STAMP_FILE, NULL))
        return -1;
    return put(s, path, stamp, strlen(stamp), atomic, err, errlen);
}

/* The pages game gi (results line r) of c changed but its own: its
 * people's pages, its boards, the channel's page. */
static int write_game_rest(struct site *s, struct site_channel *c,
                           const char *dir, const struct archive_result *r,
                           int gi, char *err, size_t errlen)
{
    for (int i = 0; i < r->n; i++) {
        int p =
            r->seats[i].computer ? -1 : site_person_find(c, r->seats[i].key);
        bool twice = false;
        for (int o = 0; o < i && p >= 0; o++)
            twice |= !r->seats[o].computer &&
                     !strcmp(r->seats[o].key, r->seats[i].key);
        if (p >= 0 && !twice && write_person(s, c, dir, p, true, err, errlen))
            return -1;
    }
    stats_rank(c->stats);
    const struct site_game *sg = &c->games[gi];
    for (int b = 0; b < c->stats->nboards; b++) {
        const char *preset = c->stats->boards[b].preset;
        bool counted = sg->hints
                           ? !strcmp(preset, STATS_HINTS)
                           : !strcmp(preset, sg->preset) ||
                                 (sg->custom && !strcmp(preset, STATS_CUSTOM));
        if (counted && write_board(s, c, dir, b, true, err, errlen))
            return -1;
    }
    return write_channel_page(s, c, dir, true, err, errlen);
}

static int write_last_game_rest(struct site *s, struct site_channel *c,
                                const char *dir, char *err, size_t errlen)
{
    int gi;
    const struct archive_result *r = site_recent(s, c, 0, &gi);
    if (!r)
        return write_channel_page(s, c, dir, true, err, errlen);
    return write_game_rest(s, c, dir, r, gi, err, errlen);
}

int site_open(struct site *s, bool *whole, int *channels, char *warn,
              size_t warnlen, char *err, size_t errlen)
{
    char parent[FILE_PATH_MAX], base[FILE_PATH_MAX], current[FILE_PATH_MAX];
    bool empty_dir;
    *whole = true;
    if (out_now(s, parent, base, current, &empty_dir, warn, warnlen, err,
                errlen))
        return -1;
    char gen[FILE_PATH_MAX], path[FILE_PATH_MAX], want[128];
    char *have = NULL;
    size_t len;
    stamp_of(s, want, sizeof want);
    if (!current[0] ||
        file_path(gen, sizeof gen, NULL, 0, parent, current, NULL) ||
        file_path(path, sizeof path, NULL, 0, gen, SITE_STAMP_FILE, NULL) ||
        file_read(path, 256, &have, &len, NULL, NULL, 0) ||
        strcmp(have, want)) {
        free(have);
        return site_write_all(s, channels, warn, warnlen, err, errlen);
    }
    free(have);
    struct site_channel **ch = NULL;
    int nch = 0;
    if (write_channels(s, gen, true, true, &ch, &nch, warn, warnlen, err,
                       errlen))
        return -1;
    channels_free(s->ch, s->nch);
    s->ch = ch;
    s->nch = nch;
    snprintf(s->gen, sizeof s->gen, "%s", gen);
    *whole = false;
    if (channels)
        *channels = nch;
    return write_index(s, gen, true, err, errlen);
}

/* ---- One game --------------------------------------------------------- */

static int cmp_channel(const void *x, const void *y)
{
    const struct site_channel *a = *(struct site_channel *const *)x;
    const struct site_channel *b = *(struct site_channel *const *)y;
    int c = strcmp(a->net_enc, b->net_enc);
    return c ? c : strcmp(a->room_enc, b->room_enc);
}

int site_game(struct site *s, const char *net, const char *room,
              const struct archive_result *r, const char *record, size_t len,
              char *err, size_t errlen)
{
    if (!s->gen[0])
        return err_set(err, errlen,
                       "site %s: not written yet (write the whole site first)",
                       s->out_dir);
    char ne[FILE_NAME_MAX + 1], re[FILE_NAME_MAX + 1];
    file_name_encode(net, ne, sizeof ne);
    file_name_encode(room, re, sizeof re);
    struct site_channel *c = NULL;
    for (int i = 0; i < s->nch && !c; i++)
        if (!strcmp(s->ch[i]->net_enc, ne) && !strcmp(s->ch[i]->room_enc, re))
            c = s->ch[i];
    if (!c) {
        /* a new channel: read whole (the archive holds the game now) */
        if (load_channel(s, s->gen, ne, re, true, false, &c, err, errlen))
            return -1;
        s->ch = xrealloc(s->ch, sizeof *s->ch * (size_t)(s->nch + 1));
        s->ch[s->nch++] = c;
        qsort(s->ch, (size_t)s->nch, sizeof *s->ch, cmp_channel);
        return write_index(s, s->gen, true, err, errlen);
    }
    if (c->archived && !strcmp(c->last_id, r->game) &&
        c->last_finished == r->finished)
        return 0; /* counted already */
    struct stats_game g;
    bool good = record && !stats_game_from_record(record, len, &g, NULL, 0);
    int gi = site_channel_add(s, c, r, good ? &g : NULL);
    if (gi < 0)
        return 0; /* stopped or unreadable: no page shows it */
    char dir[FILE_PATH_MAX];
    if (channel_dirs(s->gen, c, dir, err, errlen) ||
        write_game(s, c, dir, r, record, len, true, err, errlen))
        return -1;
    return write_game_rest(s, c, dir, r, gi, err, errlen) ||
                   write_index(s, s->gen, true, err, errlen)
               ? -1
               : 0;
}

/* ---- Addresses -------------------------------------------------------- */

static int channel_prefix(struct strbuf *sb, const char *net, const char *room)
{
    char ne[FILE_NAME_MAX + 1], re[FILE_NAME_MAX + 1];
    file_name_encode(net, ne, sizeof ne);
    file_name_encode(room, re, sizeof re);
    site_url_segment(sb, ne);
    strbuf_addc(sb, '/');
    site_url_segment(sb, re);
    return 0;
}

static int path_out(struct strbuf *sb, char *out, size_t outlen)
{
    bool fits = sb->buf && sb->len < outlen;
    if (fits)
        memcpy(out, sb->buf, sb->len + 1);
    strbuf_free(sb);
    return fits ? 0 : -1;
}

int site_channel_path(const char *net, const char *room, char *out,
                      size_t outlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    channel_prefix(&sb, net, room);
    strbuf_addstr(&sb, "/index.html");
    return path_out(&sb, out, outlen);
}

int site_person_path(const char *net, const char *room, const char *secret,
                     const char *key, char *out, size_t outlen)
{
    char page[SITE_PAGE_NAME];
    site_page_name(secret, key, page);
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    channel_prefix(&sb, net, room);
    strbuf_addf(&sb, "/p/%s.html", page);
    return path_out(&sb, out, outlen);
}

int site_game_path(const char *net, const char *room, const char *game,
                   char *out, size_t outlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    channel_prefix(&sb, net, room);
    strbuf_addstr(&sb, "/g/");
    site_url_segment(&sb, game);
    strbuf_addstr(&sb, ".html");
    return path_out(&sb, out, outlen);
}
