/*
 * A Matrix account of the config: its [[matrix]] table
 * (docs/examples/matrix.toml documents every key), read by the bot's config
 * through the protocol registry (adapters/registry.c). Its rooms are
 * joined by ID ("!id:server") or alias ("#alias:server"), each with its
 * own default rules (or NULL).
 */
#ifndef HEARTS_MX_CONFIG_H
#define HEARTS_MX_CONFIG_H

#include <stdbool.h>

#include "bot/common/protocol.h"

struct matrix_config {
    char *name;
    char *homeserver;   /* "https://host[:port][/path]", no trailing '/' */
    char *user_id;      /* "@bot:server" */
    char *password;     /* "" if none */
    char *access_token; /* "" if none (one of the two is set) */
    char *device_id;    /* "" if none */
    struct protocol_room *rooms;
    int nrooms;
    bool auto_join_invites;
    /* who may invite the bot (with auto_join_invites): user IDs
     * ("@name:server", exactly) and servers (":server", any user of it);
     * none: anyone */
    char **invite_from;
    int ninvite_from;
    int max_body_bytes;     /* the largest response accepted */
    int sync_timeout_ms;    /* how long one /sync waits for news */
    int request_timeout_ms; /* other requests at most */
    int rejoin_delay_ms;    /* before joining a room again after a kick */
    /* mode = "appservice" (docs/hosting.md, "Matrix as an application
     * service"): the homeserver pushes events to the bot's listener and
     * the bot acts with the registration's as_token; password and
     * access_token are then refused, sync_timeout_ms is unused */
    bool appservice;
    char *registration; /* "" in sync mode; else an absolute path (a
                         * relative one in the file is relative to the
                         * config file's directory) */
    char *listen_host;  /* numeric, IPv6 without brackets; "127.0.0.1" */
    int listen_port;    /* 1..65535; 9009 */
};

/* The [[matrix]] protocol: its section, and its adapter
 * (matrix_adapter.h). */
/* The [[matrix]] table: its keys, defaults, checks and free. */
extern const struct protocol_config matrix_config_section;

/* Whether an invite from `user` (a user ID) may be taken: anyone's when
 * invite_from is empty, else a user it names or one of a server it
 * names (the server compared case aside). */
bool matrix_config_may_invite(const struct matrix_config *c, const char *user);

/* Frees what a matrix_config holds (not the struct). */
void matrix_config_free(struct matrix_config *c);

#endif
