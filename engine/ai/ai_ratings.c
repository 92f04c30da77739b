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
    /* hearts-sim roundrobin --games 400 --seed 2 (standard, every level
     * at its own budget), 2026-12-03, main c4a2540: a point of margin
     * near the end weighs a twentieth of a game (3329551) */
    {"random", 754, 57},
    {"easy", 1500, 0},
    {"normal", 1611, 15},
    {"hard", 1760, 17},
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
