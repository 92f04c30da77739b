/*
 * A channel's model for the site (bot/site/site_model.c): the page
 * names' SipHash against the reference vectors, the files read without
 * being changed (a torn or growing last line waits, nothing is cut), a
 * record found by its fingerprint when its offset is wrong, a newer
 * heartsbot's line refused by name, and people counted once a game.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bot/site/site_internal.h"
#include "storage/archive.h"
#include "tests/unit/storage/play.h"
#include "tests/unit/storage/room.h"

static void test_siphash_reference_vectors(void **state)
{
    (void)state;
    unsigned char m[15];
    for (int i = 0; i < 15; i++)
        m[i] = (unsigned char)i;
    uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
    assert_true(site_siphash(k0, k1, m, 0) == 0x726fdb47dd0e0e31ULL);
    assert_true(site_siphash(k0, k1, m, 15) == 0xa129ca6149be45e5ULL);
    char a[SITE_PAGE_NAME], b[SITE_PAGE_NAME];
    site_page_name(NULL, "n:bob@host", a);
    site_page_name("", "n:bob@host", b);
    assert_string_equal(a, b);
    site_page_name("s", "n:bob@host", b);
    assert_string_not_equal(a, b);
}

struct seen {
    int games, records;
    char first_record_game[17];
};

static int on_game(void *ctx, const struct archive_result *r,
                   const char *record, size_t len)
{
    struct seen *s = ctx;
    s->games++;
    if (record && len) {
        s->records++;
        if (!s->first_record_game[0])
            memcpy(s->first_record_game, r->game, 17);
    }
    return 0;
}

static struct site *site_here(void)
{
    struct site_options o = {.data_dir = "/nonexistent", .out_dir = "x"};
    return site_new(&o);
}

static void archive_game(int i, const char *key)
{
    struct archive_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.game, sizeof r.game, "%016x", 0xb000 + i);
    r.time = 1764600000 + i;
    snprintf(r.preset, sizeof r.preset, "standard");
    r.finished = true;
    r.n = 4;
    for (int k = 0; k < 4; k++) {
        snprintf(r.seats[k].name, sizeof r.seats[k].name, "n%d", k);
        snprintf(r.seats[k].key, sizeof r.seats[k].key, "%s%d", key, k);
    }
    char *rec = play("standard", 50 + (uint64_t)i, 0);
    bool added;
    char err[300];
    assert_int_equal(archive_add(dir, &r, rec, false, &added, err, sizeof err),
                     0);
    free(rec);
}

/* A channel model reading `dir` (the room helper's directory). */
static struct site_channel *channel_here(struct site *s)
{
    struct site_channel *c = site_channel_new(s, "net", "room");
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    return c;
}

static void test_reads_without_changing_the_files(void **state)
{
    (void)state;
    archive_game(0, "n:a@h");
    archive_game(1, "n:a@h");
    char path[200];
    path_of(path, sizeof path, "results.jsonl");
    FILE *f = fopen(path, "a");
    fputs("{\"format\":\"heartsbot-results/2\",\"game\":", f);
    fclose(f);
    struct stat before, after;
    stat(path, &before);
    struct site *s = site_here();
    struct site_channel *c = channel_here(s);
    struct seen seen = {0};
    char err[300];
    assert_int_equal(site_channel_scan(c, on_game, &seen, err, sizeof err), 0);
    assert_int_equal(seen.games, 2);
    assert_int_equal(seen.records, 2);
    stat(path, &after);
    assert_int_equal(before.st_size, after.st_size);
    site_channel_free(c);
    site_free(s);
}

static void test_record_found_by_fingerprint(void **state)
{
    (void)state;
    archive_game(0, "n:a@h");
    archive_game(1, "n:a@h");
    /* the second game's offset points at the first record */
    size_t len;
    char *t = slurp("results.jsonl", &len);
    char *second = strchr(t, '\n') + 1;
    char *off = strstr(second, "\"offset\":");
    assert_non_null(off);
    char *end = strchr(off, ',');
    char fixed[20000];
    snprintf(fixed, sizeof fixed, "%.*s\"offset\":0%s", (int)(off - t), t, end);
    char path[200];
    path_of(path, sizeof path, "results.jsonl");
    FILE *f = fopen(path, "w");
    fputs(fixed, f);
    fclose(f);
    free(t);
    struct site *s = site_here();
    struct site_channel *c = channel_here(s);
    struct seen seen = {0};
    char err[300];
    assert_int_equal(site_channel_scan(c, on_game, &seen, err, sizeof err), 0);
    assert_int_equal(seen.games, 2);
    assert_int_equal(seen.records, 2);
    site_channel_free(c);
    site_free(s);
}

static void test_newer_results_line_is_refused_by_name(void **state)
{
    (void)state;
    archive_game(0, "n:a@h");
    char path[200];
    path_of(path, sizeof path, "results.jsonl");
    FILE *f = fopen(path, "a");
    fputs("{\"format\":\"heartsbot-results/9\",\"game\":\"x\"}\n", f);
    fclose(f);
    struct site *s = site_here();
    struct site_channel *c = channel_here(s);
    struct seen seen = {0};
    char err[300];
    assert_int_equal(site_channel_scan(c, on_game, &seen, err, sizeof err), -1);
    assert_non_null(strstr(err, "results.jsonl"));
    assert_non_null(strstr(err, "newer heartsbot"));
    site_channel_free(c);
    site_free(s);
}

static void test_people_counted_once_a_game(void **state)
{
    (void)state;
    struct site *s = site_here();
    struct site_channel *c = channel_here(s);
    struct archive_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.game, sizeof r.game, "00000000000000aa");
    snprintf(r.preset, sizeof r.preset, "standard");
    r.finished = true;
    r.n = 4;
    const char *keys[] = {"n:a@h", "n:a@h", "", "n:b@h"};
    for (int k = 0; k < 4; k++) {
        snprintf(r.seats[k].name, sizeof r.seats[k].name, "p%d", k);
        snprintf(r.seats[k].key, sizeof r.seats[k].key, "%s", keys[k]);
        r.seats[k].computer = !keys[k][0];
    }
    char *rec = play("standard", 7, 0);
    struct stats_game g;
    assert_int_equal(stats_game_from_record(rec, strlen(rec), &g, NULL, 0), 0);
    assert_int_equal(site_channel_add(s, c, &r, &g), 0);
    assert_int_equal(c->npeople, 2);
    int a = site_person_find(c, "n:a@h");
    assert_true(a >= 0);
    assert_int_equal(c->people[a].ngames, 1);
    assert_int_equal(c->people[a].npts, 1);
    assert_int_equal(site_person_find(c, "n:nobody"), -1);
    /* a stopped game: counted as archived, no page */
    r.finished = false;
    assert_int_equal(site_channel_add(s, c, &r, &g), -1);
    assert_int_equal(c->ngames, 1);
    assert_int_equal(c->archived, 2);
    free(rec);
    site_channel_free(c);
    site_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_siphash_reference_vectors),
        cmocka_unit_test_setup_teardown(test_reads_without_changing_the_files,
                                        room_setup, room_teardown),
        cmocka_unit_test_setup_teardown(test_record_found_by_fingerprint,
                                        room_setup, room_teardown),
        cmocka_unit_test_setup_teardown(
            test_newer_results_line_is_refused_by_name, room_setup,
            room_teardown),
        cmocka_unit_test(test_people_counted_once_a_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
