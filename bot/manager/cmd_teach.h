/*
 * Help for people to get better (docs/playing.md): `hint`, at one's turn
 * at a table that allows hints (`!hearts PRESET hints=on`), names what the
 * search would play or pass, in a few words why, and the expected points
 * of the best alternatives; `review` tells a person, privately, the plays
 * and passes of theirs that cost most against the search's choice (at
 * most TEACH_SHOWN), from the game's record: the last finished hand of
 * the game they are playing, else the last game they finished in the
 * channel, or an archived game by its ID.
 *
 * The search's work (engine/ai's ai_explain) runs on the thinking worker
 * (think.h) as explanations, which wait while any table's decision
 * waits; a review is one job a position, so a table's computer players
 * never wait behind a whole game. Only the asker's own plays are weighed
 * and shown, with what they could see; a running game's unfinished hand
 * never. Answers go within the asker's answer limits (limit.h): each line
 * past the first takes one more answer, taken when asked.
 */
#ifndef HEARTS_BOT_MANAGER_CMD_TEACH_H
#define HEARTS_BOT_MANAGER_CMD_TEACH_H

#include <stdbool.h>

#include "bot/manager/cmd.h"
#include "bot/think.h"

/* The table option, as typed after !hearts: hints=on or hints=off. */
#define TEACH_OPTION "hints"
/* A hint weighs as many playouts as a play of hard (its own budget, or
 * hard_playouts of the config), each position of a review half as many:
 * an operator who makes hard cheaper makes hints cheaper too. */
/* A review shows at most this many plays or passes. */
#define TEACH_SHOWN 3
/* A play costs at least this many points more than the search's choice
 * to be shown: less is within the sampling's noise. */
#define TEACH_MIN_COST 0.5
/* And at least this many standard errors of the second look's difference
 * (ai.h's ai_explain): a cost the search cannot tell from its noise is not
 * told (one in about 40 of the choices that cost nothing would be). */
#define TEACH_SURE 2.0
/* Hints and reviews being worked out at once, everyone's together. */
#define TEACH_OPEN 8
/* A review weighs at most this many hands: a longer game's last ones
 * (a job a position, some 4 KiB each while it waits). */
#define TEACH_MAX_HANDS 24
/* How many finished games back `review` looks for the asker's last. */
#define TEACH_BACK 50

/* The option's value: "on" or "off" (case aside) into *on; 0, or -1 if
 * it is neither. */
int mgr_teach_option(const char *value, bool *on);

/* Whether a review tells a choice that cost `cost` points against the
 * search's, with the standard error `se`: TEACH_MIN_COST or more, and
 * TEACH_SURE standard errors or more. */
bool mgr_teach_told(double cost, double se);

/* hint, privately or in the table's channel (answered to the asker). */
void mgr_cmd_hint(struct cmd *c);
/* review [GAME], privately or in a channel (answered privately). */
void mgr_cmd_review(struct cmd *c);

/* An explanation is back from the worker (turn.c hands it over). */
void mgr_teach_thought(struct manager *m, const struct think_result *r);

/* Drops every request being worked out (the manager is freed). */
void mgr_teach_free(struct manager *m);

#endif
