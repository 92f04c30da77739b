/*
 * The names the rows of a leaderboard are shown by (docs/playing.md,
 * "Names on a board"): a row of a nick key ("n:") shows the nick the key
 * was made under (with the capitals of its last game when that game was
 * played under it), an account's row the name it last played under; a
 * row whose name an earlier row of the board (first appearance: the
 * board's order of rows) already shows gets "(2)", "(3)"..., skipping
 * numbers that another row's name already ends in. So no two rows of a
 * board show one name (as the network compares nicks, case aside), and
 * no name shows a host.
 *
 * The names of a board are worked out once per state of the board (a
 * game counted, another file read) and indexed, so that !top and !stats
 * cost little on a board of thousands.
 */
#ifndef HEARTS_BOT_BOARD_NAMES_H
#define HEARTS_BOT_BOARD_NAMES_H

#include <stddef.h>

#include "bot/common/chat.h"
#include "storage/stats.h"

/* The names of the boards of one channel, as far as asked (a list). */
struct board_names;

/* Frees them; NULL is a no-op. */
void board_names_free(struct board_names *bn);

/* The name row `index` of board b (of s) is shown by, into out (cut
 * safely). *bn is the channel's list (NULL at first), kept up to date. */
void board_names_shown(struct board_names **bn, const struct chat_adapter *a,
                       const struct stats *s, const struct stats_board *b,
                       int index, char *out, size_t outlen);

/*
 * The row of b shown as `name` (cleaned as names are, compared as the
 * network compares nicks, case aside), or -1. When other rows share its
 * name (they show it with a number), their shown names go into also,
 * ", "-separated; else also is "".
 */
int board_names_find(struct board_names **bn, const struct chat_adapter *a,
                     const struct stats *s, const struct stats_board *b,
                     const char *name, char *also, size_t alsolen);

#endif
