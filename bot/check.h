/*
 * heartsbot --check CONFIG (docs/hosting.md, "Checking a config"): the
 * config read as the bot reads it at start, and the data directory it
 * names looked at as the bot's start would use it, without connecting to
 * anything and without changing a file there. Every problem found is
 * named, the config's with file:line:column; what the bot mends by
 * itself at start (a leaderboard it rebuilds, a torn last line it cuts)
 * is a note, no problem.
 */
#ifndef HEARTS_BOT_CHECK_H
#define HEARTS_BOT_CHECK_H

#include <stdio.h>

#include "bot/common/protocol.h"
#include "bot/config.h"

/* Where check_run's problems and notes go: `problem` true for a problem
 * (it fails the check), false for a note. */
typedef void (*check_say_fn)(void *ctx, bool problem, const char *msg);

/* What the caller checks beyond the core: the protocols' own files
 * (check_protocols.h), data_dir the one checked, told as check_say_fn. */
typedef void (*check_more_fn)(const struct config *cfg, const char *data_dir,
                              check_say_fn say, void *ctx);

/*
 * Checks the config at config_path with these protocols (the bot's:
 * registry_protocols) and, if it could be read to its end, its data
 * directory (data_dir, if not NULL, instead of the config's, as --data
 * does). Problems go to err_out, one a line, notes and the summary ("OK:
 * ...") to out. Returns the number of problems: 0 when the bot would start
 * with this config and data as they are.
 */
int check_run(const char *config_path, const char *data_dir,
              const struct protocol *const *protocols, check_more_fn more,
              FILE *out, FILE *err_out);

/*
 * The data directory part of check_run: data_dir looked at for the
 * networks of cfg, each finding told to say. Changes nothing there
 * (storage_read_only is on while it runs).
 */
void check_data(const struct config *cfg, const char *data_dir,
                check_say_fn say, void *ctx);

#endif
