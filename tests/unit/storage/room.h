/*
 * A room directory for the storage tests (test_archive.c, test_stats.c,
 * test_damage.c): a fresh temporary directory per test, its files read
 * and written whole, and the results line of a game among given keys.
 */
#ifndef HEARTS_TEST_STORAGE_ROOM_H
#define HEARTS_TEST_STORAGE_ROOM_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/file.h"
#include "storage/archive.h"

/* The test's room directory, made by room_setup. */
static char dir[64];

static inline int room_setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/hearts-storage-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static inline int room_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static inline void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* A file of the room, whole ("" if it cannot be read). */
static inline char *slurp(const char *name, size_t *len)
{
    char path[200], *text = NULL;
    size_t n = 0;
    path_of(path, sizeof path, name);
    if (len)
        *len = 0;
    if (file_read(path, 1u << 28, &text, &n, NULL, NULL, 0))
        return strdup("");
    if (len)
        *len = n;
    return text;
}

/* Writes a file of the room in place, as an editor would. */
static inline void spit(const char *name, const char *text, size_t len)
{
    char path[200];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* The results line of a finished or stopped standard game `id` of n
 * seats: keys[s] the person's key, NULL a computer ("bot"); a person's
 * name is their key without its "n:" or "a:". */
static inline void room_result(struct archive_result *r, const char *id, int n,
                               const char *const *keys, bool finished)
{
    memset(r, 0, sizeof *r);
    snprintf(r->game, sizeof r->game, "%s", id);
    r->time = 1700000000;
    snprintf(r->preset, sizeof r->preset, "standard");
    r->finished = finished;
    r->n = n;
    for (int s = 0; s < n; s++) {
        const char *k = keys[s] ? keys[s] : "";
        snprintf(r->seats[s].key, sizeof r->seats[s].key, "%s", k);
        snprintf(r->seats[s].name, sizeof r->seats[s].name, "%s",
                 *k ? k + 2 : "bot");
        r->seats[s].computer = !*k;
    }
}

#endif
