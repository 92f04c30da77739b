/*
 * What the upgrade test (test_upgrade.c) and the program that makes its
 * fixtures (make_datadir.c) both write down: a data directory's contents
 * as plain text that does not depend on the files' formats, so that a
 * fixture's expected text, written by the release that made the fixture,
 * is compared with what every later build reads from the same files.
 *
 * Keep these texts the same for every later release (add to them only in
 * ways the old fixtures' texts still match): they are the promise kept in
 * tests/fixtures/datadir-VERSION/expected/.
 */
#ifndef HEARTS_TESTS_UPGRADE_DATADIR_H
#define HEARTS_TESTS_UPGRADE_DATADIR_H

#include "adapters/matrix/session.h"
#include "bot/manager/table.h"
#include "storage/stats.h"

/* Where the fixture's world keeps the game's channel, under data/: the
 * fake network "test" and its room "#h". */
#define DATADIR_ROOM "test/%23h"
/* The Matrix network whose session file the fixture holds. */
#define DATADIR_MATRIX_SESSION "mx/matrix-session.json"

/* A table in play: the hand, whose turn, each seat's person or computer,
 * key, cards held and total (a string to free). */
char *datadir_table_text(const struct table *t);

/* A channel's boards: the games counted, the last game, and every row of
 * every board in the order kept (ratings to 17 digits) (to free). */
char *datadir_boards_text(const struct stats *s);

/* A Matrix session's fields, one a line (to free). */
char *datadir_session_text(const struct mx_session *s);

#endif
