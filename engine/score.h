/*
 * Scoring a hand, inside the engine: game.c calls these when the last trick
 * is complete and when the shooter answers the moon choice.
 */
#ifndef HEARTS_ENGINE_SCORE_H
#define HEARTS_ENGINE_SCORE_H

#include "engine/engine.h"

/* Scores the finished hand, or enters the MOON phase for a choice. */
void engine_score_hand(struct engine_game *g, const struct engine_sink *sink);

/* engine_score_hand, where g->hand_points hold each seat's points of its
 * taken cards (set_points of them), as the playouts leave them: the
 * common hand reads them instead of counting the cards again. */
void engine_score_hand_counted(struct engine_game *g,
                               const struct engine_sink *sink);

/* Finishes scoring with the shooter's choice (SUBTRACT or ADD_OTHERS). */
void engine_score_moon_choice(struct engine_game *g, int mode,
                              const struct engine_sink *sink);

#endif
