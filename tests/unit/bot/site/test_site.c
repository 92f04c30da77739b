/*
 * The site's writer (bot/site/site.c, with its model and pages): an
 * archive made by the record writer and archive_add with hostile names,
 * written as a site; what the pages hold (names only escaped, no key or
 * host, the CSP on every page, every link to a written file, hands
 * hidden where asked), one game written incrementally equal byte for
 * byte to the whole site written afresh, the generation switch and what
 * a crash leaves, and what the writer refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/file.h"
#include "bot/site/site.h"
#include "storage/archive.h"
#include "tests/unit/storage/play.h"

static char root[64], data[128], out[128];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/hearts-site-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    snprintf(data, sizeof data, "%s/data", root);
    snprintf(out, sizeof out, "%s/site", root);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* A channel's folder in the data directory. */
static void room_dir(const char *net, const char *room, char *dir, size_t len)
{
    char ne[FILE_NAME_MAX + 1], re[FILE_NAME_MAX + 1], err[200];
    file_name_encode(net, ne, sizeof ne);
    file_name_encode(room, re, sizeof re);
    snprintf(dir, len, "%s/%s/%s", data, ne, re);
    assert_int_equal(file_mkdirs(data, dir, err, sizeof err), 0);
}

/* The names people play under: every one of them hostile. */
static const char *const hostile[] = {
    "<script>alert(1)</script>",
    "\"onmouseover=alert(1) x=\"",
    "javascript:alert(1)",
    "\xE2\x80\xAE"
    "evil\xE2\x80\xAD"
    "name", /* RLO ... LRO */
    "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW",
    "a&b<c>d'e\"f",
    "<img src=x onerror=document.title='pwned'>",
};
#define NHOSTILE ((int)(sizeof hostile / sizeof *hostile))

/* Archives a game of 4 seats (seat k of game i: person (i + k) % np;
 * computer in seat 3 if `bot`); *rec and *r what the bot would have. */
static void archive_one(const char *dir, int i, int np, bool bot, bool stopped,
                        char **rec, struct archive_result *r)
{
    const char *names[4];
    struct archive_result res;
    memset(&res, 0, sizeof res);
    snprintf(res.game, sizeof res.game, "%016x", 0xa000 + i);
    res.time = 1764600000 + i * 900;
    snprintf(res.preset, sizeof res.preset, "standard");
    res.finished = !stopped;
    res.n = 4;
    for (int k = 0; k < 4; k++) {
        int p = (i + k) % np;
        struct archive_seat *st = &res.seats[k];
        if (k == 3 && bot) {
            snprintf(st->name, sizeof st->name, "bot1");
            st->computer = true;
        } else {
            snprintf(st->name, sizeof st->name, "%s", hostile[p % NHOSTILE]);
            snprintf(st->key, sizeof st->key, "n:evil%d@203.0.113.%d", p,
                     p + 1);
        }
        names[k] = st->name;
    }
    char *json =
        play_named("standard", 100 + (uint64_t)i, stopped ? 40 : 0, names);
    bool added;
    char err[300];
    assert_int_equal(
        archive_add(dir, &res, json, false, &added, err, sizeof err), 0);
    assert_true(added);
    if (rec)
        *rec = json;
    else
        free(json);
    if (r)
        *r = res;
}

/* ---- Reading a written site ------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: cannot be read", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

typedef void (*file_fn)(void *ctx, const char *path, const char *rel);

/* Every regular file under dir (links followed only at the top). */
static void walk(const char *dir, const char *rel, file_fn fn, void *ctx)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[1024], r[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(r, sizeof r, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        struct stat st;
        assert_int_equal(lstat(path, &st), 0);
        if (S_ISDIR(st.st_mode))
            walk(path, r, fn, ctx);
        else
            fn(ctx, path, r);
    }
    closedir(d);
}

static int unhex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

struct checks {
    int pages, games, scripts;
};

/* What every page must be: the CSP, no raw name, no key or host, every
 * link to a file that is there. */
static void check_page(void *ctx, const char *path, const char *rel)
{
    struct checks *c = ctx;
    size_t n = strlen(rel);
    if (n < 5 || strcmp(rel + n - 5, ".html"))
        return;
    c->pages++;
    char *t = slurp(path, NULL);
    assert_non_null(strstr(t, "<html lang=\"en\">"));
    assert_non_null(strstr(t, "<meta name=\"viewport\""));
    assert_non_null(strstr(t, "<meta http-equiv=\"Content-Security-Policy\" "
                              "content=\"default-src 'none'; style-src 'self'; "
                              "script-src 'self'; img-src 'self' data:; "
                              "base-uri 'none'; form-action 'none'\">"));
    /* the only script: the site's own file, on a game's page */
    const char *allowed = "<script src=\"../../../replay.js\" defer></script>";
    for (const char *p = t; (p = strstr(p, "<script")); p++) {
        assert_memory_equal(p, allowed, strlen(allowed));
        c->scripts++;
    }
    /* no inline style or handler anywhere */
    assert_null(strstr(t, " style="));
    assert_null(strstr(t, "<style"));
    assert_null(strstr(t, " onmouseover="));
    assert_null(strstr(t, "<img"));
    assert_null(strstr(t, "alert(1)</script>"));
    assert_null(strstr(t, "\"onmouseover"));
    assert_null(strstr(t, "href=\"javascript"));
    /* no key, no host, no bidi control */
    assert_null(strstr(t, "203.0.113"));
    assert_null(strstr(t, "n:evil"));
    assert_null(strstr(t, "\xE2\x80\xAE"));
    assert_null(strstr(t, "\xE2\x80\xAD"));
    /* names cut: no run of 40 W */
    assert_null(strstr(t, "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW"));
    if (!strncmp(rel, "libera/%23hearts/g/", 19))
        c->games++;
    /* every link resolves */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    for (const char *p = t; (p = strstr(p, "href=\"")); p++) {
        p += 6;
        const char *end = strchr(p, '"');
        assert_non_null(end);
        char target[1024];
        size_t k = 0;
        for (const char *q = p; q < end && k + 1 < sizeof target; q++) {
            if (*q == '%') {
                assert_true(unhex(q[1]) >= 0 && unhex(q[2]) >= 0);
                target[k++] = (char)(unhex(q[1]) * 16 + unhex(q[2]));
                q += 2;
            } else {
                target[k++] = *q;
            }
        }
        target[k] = '\0';
        assert_null(strchr(target, ':')); /* relative, no scheme */
        char full[2048];
        snprintf(full, sizeof full, "%s/%s", dir, target);
        struct stat st;
        if (stat(full, &st) || !S_ISREG(st.st_mode))
            fail_msg("%s links to %s, which is not there", rel, target);
    }
    free(t);
}

static struct site *site_of(const char *const *hide)
{
    struct site_options o = {.data_dir = data,
                             .out_dir = out,
                             .hide_hands = hide,
                             .secret = "test secret"};
    return site_new(&o);
}

static void write_all(struct site *s)
{
    char err[400], warn[400];
    int channels;
    if (site_write_all(s, &channels, warn, sizeof warn, err, sizeof err))
        fail_msg("%s", err);
    assert_string_equal(warn, "");
}

/* ---- Tests ------------------------------------------------------------ */

static void test_hostile_names_are_only_text(void **state)
{
    (void)state;
    char dir[512];
    room_dir("libera", "#hearts", dir, sizeof dir);
    for (int i = 0; i < 9; i++)
        archive_one(dir, i, NHOSTILE, i % 3 == 0, false, NULL, NULL);
    archive_one(dir, 9, NHOSTILE, false, true, NULL, NULL); /* stopped */
    struct site *s = site_of(NULL);
    write_all(s);
    struct checks c = {0};
    walk(out, "", check_page, &c);
    assert_int_equal(c.games, 9); /* the stopped game has no page */
    assert_int_equal(c.scripts, 9);
    /* the index, the channel, a board, 7 people and 9 games */
    assert_int_equal(c.pages, 1 + 1 + 1 + NHOSTILE + 9);
    /* the names are there, escaped */
    char path[600];
    snprintf(path, sizeof path, "%s/libera/%%23hearts/b/standard.html", out);
    char *t = slurp(path, NULL);
    assert_non_null(
        strstr(t, "<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>"));
    assert_non_null(
        strstr(t, "<bdi>&quot;onmouseover=alert(1) x=&quot;</bdi>"));
    assert_non_null(strstr(t, "<bdi>a&amp;b&lt;c&gt;d&#39;e&quot;f</bdi>"));
    assert_non_null(strstr(t, "<bdi>evilname</bdi>"));
    assert_non_null(strstr(t, "<bdi>javascript:alert(1)</bdi>"));
    free(t);
    site_free(s);
}

static void test_person_pages_are_named_by_a_keyed_hash(void **state)
{
    (void)state;
    char dir[512];
    room_dir("libera", "#hearts", dir, sizeof dir);
    archive_one(dir, 0, 4, false, false, NULL, NULL);
    struct site *s = site_of(NULL);
    write_all(s);
    char rel[300], path[700];
    assert_int_equal(site_person_path("libera", "#hearts", "test secret",
                                      "n:evil0@203.0.113.1", rel, sizeof rel),
                     0);
    assert_int_equal(strncmp(rel, "libera/%2523hearts/p/", 21), 0);
    snprintf(path, sizeof path, "%s/libera/%%23hearts/p/%s", out, rel + 21);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    /* another secret, another name: a page name tells nothing by itself */
    char a[SITE_PAGE_NAME], b[SITE_PAGE_NAME];
    site_page_name("test secret", "n:evil0@203.0.113.1", a);
    site_page_name("other", "n:evil0@203.0.113.1", b);
    assert_string_not_equal(a, b);
    assert_int_equal(strlen(a), 16);
    assert_int_equal(site_game_path("libera", "#hearts", "000000000000a000",
                                    rel, sizeof rel),
                     0);
    assert_string_equal(rel, "libera/%2523hearts/g/000000000000a000.html");
    assert_int_equal(site_channel_path("libera", "#hearts", rel, sizeof rel),
                     0);
    assert_string_equal(rel, "libera/%2523hearts/index.html");
    assert_int_equal(site_channel_path("libera", "#hearts", rel, 10), -1);
    site_free(s);
}

struct tree {
    const char *other;
    int files;
};

static void same_file(void *ctx, const char *path, const char *rel)
{
    struct tree *t = ctx;
    char there[1024];
    snprintf(there, sizeof there, "%s/%s", t->other, rel);
    size_t n1, n2;
    char *a = slurp(path, &n1), *b = slurp(there, &n2);
    if (n1 != n2 || memcmp(a, b, n1))
        fail_msg("%s differs", rel);
    free(a);
    free(b);
    t->files++;
}

static void count_file(void *ctx, const char *path, const char *rel)
{
    (void)path;
    (void)rel;
    ((struct tree *)ctx)->files++;
}

/* The same files, byte for byte, in both. */
static void assert_same_tree(const char *a, const char *b)
{
    struct tree ta = {b, 0}, tb = {a, 0};
    walk(a, "", same_file, &ta);
    walk(b, "", count_file, &tb);
    assert_int_equal(ta.files, tb.files);
}

/* Copies the site as it is now to root/NAME (for comparing). */
static void copy_site(const char *name, char *to, size_t len)
{
    char cmd[600];
    snprintf(to, len, "%s/%s", root, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/' '%s'", to, out, to);
    assert_int_equal(system(cmd), 0);
}

static void test_one_game_equals_a_whole_write(void **state)
{
    (void)state;
    char dir[512];
    room_dir("libera", "#hearts", dir, sizeof dir);
    for (int i = 0; i < 6; i++)
        archive_one(dir, i, 5, i % 2, false, NULL, NULL);
    struct site *s = site_of(NULL);
    write_all(s);
    /* a stopped game, then a finished one with a new person, then the
     * same game again (archived once, counted once) */
    char *rec;
    struct archive_result r;
    char err[400];
    archive_one(dir, 6, 5, false, true, &rec, &r);
    assert_int_equal(site_game(s, "libera", "#hearts", &r, rec, strlen(rec),
                               err, sizeof err),
                     0);
    free(rec);
    archive_one(dir, 7, 8, false, false, &rec, &r);
    assert_int_equal(site_game(s, "libera", "#hearts", &r, rec, strlen(rec),
                               err, sizeof err),
                     0);
    assert_int_equal(site_game(s, "libera", "#hearts", &r, rec, strlen(rec),
                               err, sizeof err),
                     0);
    free(rec);
    /* a game in a channel the site did not have */
    char dir2[512];
    room_dir("libera", "#other", dir2, sizeof dir2);
    archive_one(dir2, 20, 4, false, false, &rec, &r);
    assert_int_equal(
        site_game(s, "libera", "#other", &r, rec, strlen(rec), err, sizeof err),
        0);
    free(rec);
    site_free(s);
    /* the whole site written afresh from the same files */
    char inc[200];
    copy_site("incremental", inc, sizeof inc);
    s = site_of(NULL);
    write_all(s);
    site_free(s);
    assert_same_tree(out, inc);
    struct checks c = {0};
    walk(out, "", check_page, &c);
}

static void test_taking_up_a_site_writes_what_is_missing(void **state)
{
    (void)state;
    char dir[512], err[400], warn[400];
    room_dir("libera", "#hearts", dir, sizeof dir);
    for (int i = 0; i < 4; i++)
        archive_one(dir, i, 5, false, false, NULL, NULL);
    /* no site yet: written whole */
    struct site *s = site_of(NULL);
    bool whole = false;
    int channels;
    assert_int_equal(
        site_open(s, &whole, &channels, warn, sizeof warn, err, sizeof err), 0);
    assert_true(whole);
    site_free(s);
    /* games archived while no bot wrote the site, a new channel, and a
     * page of the last game left behind by a stop in its update */
    archive_one(dir, 4, 5, false, false, NULL, NULL);
    archive_one(dir, 5, 7, false, false, NULL, NULL);
    char dir2[512];
    room_dir("libera", "#new", dir2, sizeof dir2);
    archive_one(dir2, 0, 4, false, false, NULL, NULL);
    s = site_of(NULL);
    assert_int_equal(
        site_open(s, &whole, &channels, warn, sizeof warn, err, sizeof err), 0);
    assert_false(whole);
    assert_int_equal(channels, 2);
    site_free(s);
    char page[700];
    snprintf(page, sizeof page, "%s/libera/%%23hearts/index.html", out);
    FILE *f = fopen(page, "w");
    fputs("stale", f);
    fclose(f);
    s = site_of(NULL);
    assert_int_equal(
        site_open(s, &whole, &channels, warn, sizeof warn, err, sizeof err), 0);
    assert_false(whole);
    site_free(s);
    char taken[200];
    copy_site("taken", taken, sizeof taken);
    /* the same as a whole site written from the same files */
    s = site_of(NULL);
    write_all(s);
    site_free(s);
    assert_same_tree(out, taken);
    /* another secret: written whole, never mixed */
    struct site_options o = {
        .data_dir = data, .out_dir = out, .secret = "another"};
    s = site_new(&o);
    assert_int_equal(
        site_open(s, &whole, &channels, warn, sizeof warn, err, sizeof err), 0);
    assert_true(whole);
    site_free(s);
}

static void test_hidden_hands(void **state)
{
    (void)state;
    char dir[512];
    room_dir("libera", "#secret", dir, sizeof dir);
    archive_one(dir, 0, 4, false, false, NULL, NULL);
    room_dir("libera", "#open", dir, sizeof dir);
    archive_one(dir, 0, 4, false, false, NULL, NULL);
    static const char *const hide[] = {"libera #secret", NULL};
    struct site *s = site_of(hide);
    write_all(s);
    char path[600];
    snprintf(path, sizeof path, "%s/libera/%%23secret/g/000000000000a000.html",
             out);
    char *t = slurp(path, NULL);
    assert_non_null(strstr(t, "The hands of this channel are not shown."));
    assert_null(strstr(t, ">Dealt"));
    assert_null(strstr(t, ">Passed"));
    assert_non_null(strstr(t, "Hand 1: cards, tricks and points"));
    free(t);
    snprintf(path, sizeof path, "%s/libera/%%23open/g/000000000000a000.html",
             out);
    t = slurp(path, NULL);
    assert_null(strstr(t, "are not shown"));
    assert_non_null(strstr(t, "<tr><th scope=row>Dealt<td class=c>"));
    assert_non_null(strstr(t, "Hand 1: cards, tricks and points"));
    free(t);
    site_free(s);
}

static void test_generations_switch_and_crash_leftovers_go(void **state)
{
    (void)state;
    char dir[512];
    room_dir("libera", "#hearts", dir, sizeof dir);
    archive_one(dir, 0, 4, false, false, NULL, NULL);
    struct site *s = site_of(NULL);
    write_all(s);
    char link[300];
    ssize_t n = readlink(out, link, sizeof link - 1);
    assert_true(n > 0);
    link[n] = '\0';
    assert_string_equal(link, ".site.gen-1");
    /* a kill in the middle of a page's replacement leaves its temporary
     * file: the page itself is whole, and no page links to it */
    char tmp[600], page[600];
    snprintf(tmp, sizeof tmp, "%s/.index.html.tmp-index.html-99999-1", out);
    snprintf(page, sizeof page, "%s/index.html", out);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs("<html>half", f);
    fclose(f);
    char *t = slurp(page, NULL);
    assert_null(strstr(t, "tmp-"));
    assert_non_null(strstr(t, "</html>\n"));
    free(t);
    /* a kill in the middle of a whole write leaves a generation nobody
     * links to: the next write removes both */
    char stale[300];
    snprintf(stale, sizeof stale, "%s/.site.gen-7", root);
    assert_int_equal(mkdir(stale, 0755), 0);
    write_all(s);
    n = readlink(out, link, sizeof link - 1);
    link[n] = '\0';
    assert_string_equal(link, ".site.gen-8");
    struct stat st;
    snprintf(tmp, sizeof tmp, "%s/.site.gen-1", root);
    assert_int_equal(stat(tmp, &st), -1);
    assert_int_equal(stat(stale, &st), -1);
    snprintf(tmp, sizeof tmp, "%s/.index.html.tmp-index.html-99999-1", out);
    assert_int_equal(stat(tmp, &st), -1);
    /* pages are for a web server to read */
    assert_int_equal(stat(page, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    site_free(s);
}

static void test_refuses_what_it_did_not_write(void **state)
{
    (void)state;
    char dir[512], err[400], warn[400];
    room_dir("libera", "#hearts", dir, sizeof dir);
    archive_one(dir, 0, 4, false, false, NULL, NULL);
    /* a directory with something in it */
    assert_int_equal(mkdir(out, 0755), 0);
    char keep[300];
    snprintf(keep, sizeof keep, "%s/mine.txt", out);
    FILE *f = fopen(keep, "w");
    assert_non_null(f);
    fclose(f);
    struct site *s = site_of(NULL);
    assert_int_equal(
        site_write_all(s, NULL, warn, sizeof warn, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a site heartsbot wrote"));
    struct stat st;
    assert_int_equal(stat(keep, &st), 0);
    /* a link somewhere else */
    assert_int_equal(unlink(keep), 0);
    assert_int_equal(rmdir(out), 0);
    assert_int_equal(symlink("/etc", out), 0);
    assert_int_equal(
        site_write_all(s, NULL, warn, sizeof warn, err, sizeof err), -1);
    assert_non_null(strstr(err, "left alone"));
    /* one game before the whole site */
    assert_int_equal(unlink(out), 0);
    struct archive_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(
        site_game(s, "libera", "#hearts", &r, "", 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "not written yet"));
    /* an empty directory is taken */
    assert_int_equal(mkdir(out, 0755), 0);
    write_all(s);
    site_free(s);
    /* a missing data directory is named */
    snprintf(data, sizeof data, "%s/nothing", root);
    s = site_of(NULL);
    assert_int_equal(
        site_write_all(s, NULL, warn, sizeof warn, err, sizeof err), -1);
    assert_non_null(strstr(err, "nothing"));
    site_free(s);
    snprintf(data, sizeof data, "%s/data", root);
}

static void test_long_history_chart_is_thinned(void **state)
{
    (void)state;
    char dir[512];
    room_dir("libera", "#hearts", dir, sizeof dir);
    for (int i = 0; i < 330; i++)
        archive_one(dir, i, 4, false, false, NULL, NULL);
    struct site *s = site_of(NULL);
    write_all(s);
    char rel[300], path[700];
    assert_int_equal(site_person_path("libera", "#hearts", "test secret",
                                      "n:evil0@203.0.113.1", rel, sizeof rel),
                     0);
    snprintf(path, sizeof path, "%s/libera/%%23hearts/p/%s", out, rel + 21);
    char *t = slurp(path, NULL);
    const char *pl = strstr(t, "<polyline class=\"line\" points=\"");
    assert_non_null(pl);
    int points = 1;
    for (const char *p = pl + 31; *p != '"'; p++)
        points += *p == ' ';
    assert_int_equal(points, 300);
    assert_non_null(strstr(t, "role=\"img\""));
    assert_non_null(strstr(t, "over 330 games"));
    /* the last 20 games listed */
    int rows = 0;
    for (const char *p = t; (p = strstr(p, "href=\"../g/")); p++)
        rows++;
    assert_int_equal(rows, 20);
    free(t);
    site_free(s);
}

static int count(const char *t, const char *what)
{
    int n = 0;
    for (const char *p = t; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* A game's page: one table a hand (the names once in its head), a row
 * per trick with a card of each seat and the one led marked, the hand's
 * points at its foot; and its size, which is most of a site's. */
static void test_game_page_is_a_table_a_hand(void **state)
{
    (void)state;
    char dir[512];
    room_dir("libera", "#open", dir, sizeof dir);
    archive_one(dir, 0, 4, false, false, NULL, NULL);
    struct site *s = site_of(NULL);
    write_all(s);
    char path[600];
    snprintf(path, sizeof path, "%s/libera/%%23open/g/000000000000a000.html",
             out);
    size_t len;
    char *t = slurp(path, &len);
    int hands = count(t, "<section class=hand id=h");
    assert_true(hands >= 2);
    assert_int_equal(count(t, "<table class=g>"), hands);
    assert_int_equal(count(t, "<tfoot>"), hands);
    assert_int_equal(count(t, "<tr><th scope=row>Dealt"), hands);
    /* 13 tricks a hand, each with one led card */
    assert_int_equal(count(t, "\n<tr><th>"), 13 * hands);
    assert_int_equal(count(t, "<td class=l>") + count(t, "<td class=\"l r\">"),
                     13 * hands);
    assert_non_null(strstr(t, "<tr><th>1<td"));
    assert_non_null(strstr(t, "<tr><th>13<td"));
    /* the seats' names: once in each hand's head */
    assert_int_equal(count(t, "<th scope=col><bdi>"), 4 * hands);
    /* a hand of four with names up to 32 characters, in under 3 KB */
    assert_true(len < 2000 + (size_t)hands * 3000);
    free(t);
    site_free(s);
}

#ifdef HEARTS_FIXTURES
/* Every version of the pages' output, as written for the data of
 * tests/fixtures/datadir-0.1.0: a hash of every page's path and bytes.
 * site_open keeps the pages of a site whose stamp is this build's, so a
 * change to what the pages say must come with a new SITE_STAMP_FORMAT
 * (bot/site/site_internal.h), or a site would mix old pages and new. */
static const struct {
    const char *stamp;
    uint64_t pages;
} page_versions[] = {
    {"heartsbot-site/2", 0x771ad2c8c4f5b8f2ull},
};

struct page_hash {
    char *rel[64];
    int n;
};

static void list_page(void *ctx, const char *path, const char *rel)
{
    (void)path;
    struct page_hash *h = ctx;
    assert_true(h->n < 64);
    h->rel[h->n++] = strdup(rel);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t fnv(uint64_t h, const void *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)v)[i]) * 0x100000001b3ull;
    return h;
}

static void test_pages_change_only_with_the_stamp(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cp -r '%s/datadir-0.1.0/data' '%s'",
             HEARTS_FIXTURES, data);
    assert_int_equal(system(cmd), 0);
    struct site *s = site_of(NULL);
    write_all(s);
    site_free(s);
    struct page_hash h = {.n = 0};
    walk(out, "", list_page, &h);
    qsort(h.rel, (size_t)h.n, sizeof *h.rel, cmp_str);
    uint64_t v = 0xcbf29ce484222325ull;
    char stamp[64] = "";
    for (int i = 0; i < h.n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", out, h.rel[i]);
        size_t len;
        char *t = slurp(path, &len);
        if (!strcmp(h.rel[i], ".heartsbot-site"))
            sscanf(t, "%63s", stamp);
        else {
            v = fnv(v, h.rel[i], strlen(h.rel[i]) + 1);
            v = fnv(v, t, len);
        }
        free(t);
        free(h.rel[i]);
    }
    assert_true(h.n >= 8);
    for (size_t i = 0; i < sizeof page_versions / sizeof *page_versions; i++) {
        if (strcmp(page_versions[i].stamp, stamp))
            continue;
        if (page_versions[i].pages != v)
            fail_msg("the pages changed (now 0x%016llx) but the stamp is "
                     "still %s: give SITE_STAMP_FORMAT a new number and add "
                     "it with this hash to page_versions",
                     (unsigned long long)v, stamp);
        return;
    }
    fail_msg("the stamp %s is new: add {\"%s\", 0x%016llxull} to "
             "page_versions",
             stamp, stamp, (unsigned long long)v);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hostile_names_are_only_text, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_person_pages_are_named_by_a_keyed_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_game_equals_a_whole_write,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_taking_up_a_site_writes_what_is_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hidden_hands, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_generations_switch_and_crash_leftovers_go, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_what_it_did_not_write,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_history_chart_is_thinned,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_game_page_is_a_table_a_hand, setup,
                                        teardown),
#ifdef HEARTS_FIXTURES
        cmocka_unit_test_setup_teardown(test_pages_change_only_with_the_stamp,
                                        setup, teardown),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
