/*
 * The Matrix adapter's start and its /sync loop. With a token: the
 * transaction ID epoch raised and saved, the configured rooms joined,
 * the m.direct map read, the device keys checked, then the first /sync
 * (no history on a new session), CHAT_CONNECTED, and /sync long-polls,
 * one after the other, with the next_batch token kept in the session
 * file before the events are handled. A refused token goes back to the
 * last good one, or starts anew.
 */
#ifndef HEARTS_MX_SYNC_LOOP_H
#define HEARTS_MX_SYNC_LOOP_H

#include "adapters/matrix/matrix_internal.h"

/* With a token: the epoch, the rooms, the direct map, the sync. */
void mx_begin(struct mx_adapter *a);

/* Starts the first sync once the joins are answered and (after a
 * restart) the m.direct map is read. */
void mx_first_sync_when_ready(struct mx_adapter *a);

/* The next /sync (in application-service mode: the start is done). */
void mx_start_sync(struct mx_adapter *a);

#endif
