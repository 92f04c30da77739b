/*
 * What heartsbot --check looks at beyond the core (bot/check.h): the files
 * each protocol's entries name or keep. An IRC network's TLS files (the CA
 * store, the client certificate and its key) must be readable and hold
 * what their names say; an application service's registration must be
 * the one its start reads; a Matrix network's session file in the data
 * directory is read as the start reads it (one a later heartsbot wrote is
 * a problem, one the bot would replace by a new login is a note).
 */
#ifndef HEARTS_BOT_CHECK_PROTOCOLS_H
#define HEARTS_BOT_CHECK_PROTOCOLS_H

#include "bot/check.h"

/* A check_more_fn: the files above, for every entry of cfg. */
void check_protocol_files(const struct config *cfg, const char *data_dir,
                          check_say_fn say, void *ctx);

#endif
