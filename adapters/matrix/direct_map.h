/*
 * The bot's m.direct account data: the map the homeserver keeps of each
 * person's direct rooms. Read at the start and merged into what the bot
 * knows; written back whole (read, merge, write, one at a time) whenever
 * a direct room is recorded, with the room in use first in its person's
 * list and dead rooms taken out.
 */
#ifndef HEARTS_MX_DIRECT_MAP_H
#define HEARTS_MX_DIRECT_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "adapters/matrix/matrix_internal.h"

struct mx_direct;

/* Takes the map the server holds: per person the first of their rooms
 * that is not dead, unless they have one already. Checked before use. */
void mx_direct_map_merge(struct mx_adapter *a, const struct mx_direct *d,
                         size_t n);

/* Reads the map at the start (direct_known once answered), then lets
 * the first sync go. */
void mx_direct_map_read(struct mx_adapter *a);

/* Writes user's direct room (and every other) into the map. */
void mx_direct_map_record(struct mx_adapter *a, const char *user);

/* The map the homeserver holds (body; NULL: none yet) as it is to be
 * written back: every direct room in use first in its person's list,
 * dead rooms taken out of every list. New JSON text. */
char *mx_direct_map_rewrite(const struct mx_adapter *a, const char *body,
                            size_t len);

/* Whether c reads or writes the map for a record (goes on after stop). */
bool mx_direct_map_call(const struct mx_call *c);

#endif
