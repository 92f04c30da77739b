/*
 * A chat protocol as the bot knows it: its section of the config
 * ([[irc]], [[matrix]]: one per network), and how to start an adapter
 * (chat.h) for one network. Each protocol's folder under adapters/
 * defines one `struct protocol`; adapters/registry.c lists them, and the
 * bot's config (bot/config.c) and main (bot/main.c) know the protocols
 * only through that list. docs/bot.md, "Adding a chat protocol", says
 * how to add one.
 */
#ifndef HEARTS_BOT_PROTOCOL_H
#define HEARTS_BOT_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/common/chat.h"
#include "bot/common/section.h"

struct loop;

/* What an adapter is started with besides its network's config. */
struct protocol_env {
    const char *data_dir; /* the bot's data directory */
    chat_event_fn on_event;
    void *ctx; /* on_event's */
};

/* A protocol's table of the config: what its folder's NAME_config.c
 * defines, apart from the adapter, so that reading the config needs no
 * adapter. */
struct protocol_config {
    /* the section's name: a network is a [[name]] table */
    const char *name;
    /* the section's keys, into its config struct; one of them is "name"
     * (a string, checked by section_check_name): the network's name */
    const struct section_key *keys;
    int nkeys;
    /* the config struct: its size, and its defaults (the struct zeroed
     * before) */
    size_t size;
    void (*defaults)(void *cfg);
    /* at the end of a table (its struct is s->base): required keys,
     * defaults that depend on other keys, checks across keys */
    int (*finish)(struct section *s);
    /* frees what the struct holds (not the struct); safe on a struct of
     * defaults with any keys set */
    void (*free)(void *cfg);
    /* the channels or rooms of a network, and their count */
    const struct protocol_room *(*rooms)(const void *cfg, int *n);
};

/* A protocol: its table of the config and its adapter. Each protocol's
 * NAME_protocol.c defines one, the only file that sees both. */
struct protocol {
    const struct protocol_config *config;
    /* a new adapter for a network (the config is copied), not started */
    struct chat_adapter *(*create)(struct loop *l, const void *cfg,
                                   const struct protocol_env *env);
    /* what the log says after "NETWORK: " when start fails */
    const char *start_failed;
    /* Optional (NULL: a reload changes nothing of a running network).
     * A reload (SIGHUP) read `cfg` for the running adapter `a` of this
     * protocol: what can change without reconnecting changes now (IRC:
     * the channels are joined and left). busy(ctx, a, room): whether a
     * game is on in room, which then keeps the bot there. */
    void (*reload)(struct chat_adapter *a, const void *cfg,
                   bool (*busy)(void *ctx, struct chat_adapter *a,
                                const char *room),
                   void *ctx);
};

#endif
