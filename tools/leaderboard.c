/*
 * hearts-sim leaderboard ROOM_DIR: rebuilds a channel's leaderboard.json
 * from its archive.jsonl and results.jsonl (docs/storage.md), as the bot
 * does at start when the file is missing or out of date; --check only
 * says whether the file on disk, caught up with the games after it as
 * the bot does at start, equals the rebuild.
 */
#include "tools/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/stats.h"
#include "storage/storage.h"

static void summary(const struct stats *s)
{
    printf("%lld games archived (%lld + %lld bytes)", (long long)s->games,
           (long long)s->archive_bytes, (long long)s->results_bytes);
    for (int i = 0; i < s->nboards; i++)
        printf("%s %s: %d player%s", i ? "," : ";", s->boards[i].preset,
               s->boards[i].n, s->boards[i].n == 1 ? "" : "s");
    printf("\n");
}

int sim_leaderboard(int argc, char **argv)
{
    const char *dir = NULL;
    bool check = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = true;
        else if (!dir && argv[i][0] != '-')
            dir = argv[i];
        else {
            fprintf(stderr, "hearts-sim leaderboard: unknown argument '%s'\n",
                    argv[i]);
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: hearts-sim leaderboard ROOM_DIR [--check]\n");
        return 2;
    }
    char err[600];
    struct stats *s;
    int skipped = 0;
    double t0 = sim_seconds();
    if (stats_rebuild(dir, &s, &skipped, err, sizeof err)) {
        fprintf(stderr, "hearts-sim leaderboard: %s\n", err);
        return 1;
    }
    double took = sim_seconds() - t0;
    if (skipped)
        fprintf(stderr,
                "hearts-sim leaderboard: %d line%s skipped; the first: %s\n",
                skipped, skipped == 1 ? "" : "s", err);
    summary(s);
    int rc = 0;
    if (check) {
        /* the file, caught up with the games after it, must say what the
         * rebuild says */
        struct stats *kept;
        int64_t behind;
        int bad;
        char why[600];
        if (stats_open(dir, &kept, &behind, &bad, why, sizeof why)) {
            printf("%s: %s\n", STATS_FILE, why);
            rc = 1;
        } else {
            char *want = stats_json(s), *have = stats_json(kept);
            if (strcmp(have, want)) {
                printf("%s: differs from the archive\n", STATS_FILE);
                rc = 1;
            } else if (behind) {
                printf("%s: current, with the %lld game%s after it\n",
                       STATS_FILE, (long long)behind, behind == 1 ? "" : "s");
            } else {
                printf("%s: current\n", STATS_FILE);
            }
            free(want);
            free(have);
            stats_free(kept);
        }
    } else if (stats_save(dir, s, err, sizeof err)) {
        fprintf(stderr, "hearts-sim leaderboard: %s\n", err);
        rc = 1;
    } else {
        printf("%s rebuilt in %.2f s\n", STATS_FILE, took);
    }
    stats_free(s);
    return rc ? rc : skipped ? 1 : 0;
}
