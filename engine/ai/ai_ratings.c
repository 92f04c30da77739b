/*
 * The levels' measured strength (ai_level_rating, ai.h), the one place it
 * is kept: `!help bot` names it, docs/playing.md explains it.
 *
 * Produced by `hearts-sim roundrobin` (docs/engine.md, "Measuring
 * strength"), which prints these rows; rerun it and paste them here when
 * a level changes. A level missing here has no rating (0), and the help's
 * test fails until it has one.
 */
#include "engine/ai/ai.h"

#include <strings.h>

static const struct {
    const char *level;
    int rating, se;
} ratings[] = {
    /* hearts-sim roundrobin --games 200 --seed 1 (standard, every level
     * at its own budget), 2026-12-02, main 9c69773: the searching levels
     * play the moon and, near the end while leading, for the game */
    {"random", 638, 111},
    {"easy", 1500, 0},
    {"normal", 1591, 22},
    {"hard", 1782, 25},
};

int ai_level_rating(int level, int *se)
{
    const char *name = ai_level_name(level);
    for (size_t i = 0; name && i < sizeof ratings / sizeof ratings[0]; i++) {
        if (strcasecmp(ratings[i].level, name) == 0) {
            if (se)
                *se = ratings[i].se;
            return ratings[i].rating;
        }
    }
    if (se)
        *se = 0;
    return 0;
}
