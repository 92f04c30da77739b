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
     * at its own budget), 2026-12-03, main 5cffe6a: the searching levels'
     * playouts take one draw a card (8dd7c91) */
    {"random", 766, 54},
    {"easy", 1500, 0},
    {"normal", 1595, 15},
    {"hard", 1757, 17},
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
