/*
 * The Matrix adapter's configured rooms (cfg.rooms, by ID or alias) and
 * joining: the joins at the start (the first sync waits for their
 * answers, so that no event names an alias room by its ID), a join for
 * each invite, a rejoin after a kick (the wait doubling within the
 * hour), none after a ban; and leaving a room nobody needs.
 */
#ifndef HEARTS_MX_JOINS_H
#define HEARTS_MX_JOINS_H

#include <stdbool.h>
#include <stdint.h>

#include "adapters/matrix/matrix_internal.h"

struct mx_item;

/* A room of the config (cfg.rooms[i]), by ID or alias. */
struct mx_cfg_room {
    struct mx_adapter *a;
    int i;
    char *id;          /* what it resolved to when joined; NULL before */
    bool out;          /* kicked: its lines wait for the rejoin */
    bool lost;         /* banned, or the rejoin refused: its lines go */
    int64_t last_kick; /* loop time */
    int64_t delay;     /* the last wait before a rejoin */
    uint64_t rejoin_timer;
};

/* The configured room that resolved to room ID `id`, or NULL. */
struct mx_cfg_room *mx_cfg_by_id(const struct mx_adapter *a, const char *id);

/* The configured room named `name` (ID or alias, as in the config). */
struct mx_cfg_room *mx_cfg_by_name(const struct mx_adapter *a,
                                   const char *name);

/* How events name room ID `id`: a configured room by its name in the
 * config, any other by its ID. */
const char *mx_room_shown(const struct mx_adapter *a, const char *id);

/* A configured room's ID if it resolved, else what was asked. */
const char *mx_room_id_of(const struct mx_adapter *a, const char *room);

/* Joins a room (configured, or one the bot is invited to): paced. */
void mx_join(struct mx_adapter *a, const char *target);

/* Leaves a room: paced, low priority. */
void mx_leave_room(struct mx_adapter *a, const char *room);

/* The bot left configured room r by another's hand (it->sender): kicked,
 * it joins again later; banned, it stays out. */
void mx_kicked(struct mx_adapter *a, struct mx_cfg_room *r,
               const struct mx_item *it);

#endif
