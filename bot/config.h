/*
 * The bot's configuration (config.example.toml documents every key; the
 * [[matrix]] ones, docs/examples/matrix.toml), read
 * by a small strict reader of the TOML subset the file uses
 * (bot/common/toml.h). This module holds the core's tables, [bot] and
 * [game], and the list of networks; each protocol's table ([[irc]],
 * [[matrix]]) is read by its adapter's own code, through the protocol's
 * row (bot/common/protocol.h) the caller gives: the bot gives every row of
 * the protocol registry (adapters/registry.h). Every value is checked; an
 * error names the file, line and column and changes nothing.
 */
#ifndef HEARTS_BOT_CONFIG_H
#define HEARTS_BOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/common/chat.h"
#include "bot/common/protocol.h"
#include "bot/common/toml.h"
#include "engine/ai/ai.h"

/* A network of the config: one [[NAME]] table of a protocol. */
struct config_network {
    const struct protocol *protocol;
    void *cfg;        /* the protocol's struct (adapters/NAME/NAME_config.h) */
    const char *name; /* the network's (held by cfg) */
};

struct config {
    /* [bot] */
    char *data_dir;
    bool data_dir_given; /* in the file, not the default "data" */
    char *log_level;
    char *command_prefix;
    char *lang; /* the language of channels and of people who chose none */
    bool colors;
    char **admins;
    int nadmins;
    /* how often one person is answered (limit.h), in seconds */
    int reply_burst;      /* answers at once */
    int reply_interval;   /* then one per interval (0: no limit) */
    int repeat_quiet;     /* the same private text again gets no answer */
    int channel_repeat;   /* a channel answer is not repeated there */
    int chatter_burst;    /* everyone's private chatter together: a burst */
    int chatter_interval; /* then one per interval (0: no limit) */
    /* [game] */
    char *default_rules;
    int turn_timeout; /* seconds */
    int max_timeouts;
    int lobby_timeout; /* seconds */
    int grace_period;  /* seconds */
    /* the longest turn_timeout= a table may set, seconds; 0: none */
    int max_turn_timeout;
    char *bot_level;
    /* playouts per decision, by level (engine/ai/ai.h; a searching level's
     * row names its key, "hard_playouts"); 0: the level's own budget */
    int playouts[AI_LEVEL_MAX];
    int think_threads;   /* worker threads for those decisions (think.h) */
    int next_hand_delay; /* seconds */
    /* a table with no person present pauses, then ends (seconds) */
    int unattended_pause;
    int unattended_end;
    /* [site] (docs/site.md): the web pages written from the archive */
    char *site_dir; /* "" : none written */
    char *site_url; /* "" : not linked from chat; else ends with '/' */
    /* "NETWORK ROOM": channels whose games show no hands */
    char **site_hide_hands;
    int nsite_hide_hands;
    /* [[irc]], [[matrix]], ...: in the file's order */
    struct config_network *networks;
    int nnetworks;
};

/*
 * Parses the text of a config file; `path` only names it in messages.
 * `protocols` (NULL-ended; NULL: none) are the chat protocols whose tables
 * it may have: the bot's are registry_protocols (adapters/registry.h).
 * Returns 0 and fills *out (free with config_free), or -1 with a message
 * "PATH:LINE:COL: what is wrong" in err and *out untouched.
 */
int config_parse(const char *text, size_t len, const char *path,
                 const struct protocol *const *protocols, struct config *out,
                 char *err, size_t errlen);

/* Reads and parses a file, as config_parse. */
int config_load(const char *path, const struct protocol *const *protocols,
                struct config *out, char *err, size_t errlen);

/*
 * Reads a file as config_load does, but reads on past a problem where it
 * can, for `heartsbot --check`: each problem's message ("PATH:LINE:COL:
 * what is wrong") goes to `problem`. An unknown key or a bad value is
 * passed over, and so is a table under a refused header; the checks
 * across the keys of a table ("has no 'host'") wait for a table whose
 * values were all good. What ends the read: a file that cannot be read,
 * and text that is no TOML of the subset (an unclosed string, say); then
 * -1, that message passed on too, and *out untouched. Else the number of
 * problems, and *out filled (free with config_free): with none, exactly
 * what config_load gives; with some, only the core's values ([bot],
 * [game]) are whole.
 */
int config_check(const char *path, const struct protocol *const *protocols,
                 struct config *out, toml_problem_fn problem, void *ctx);

/* For a reload: `fresh` takes the networks of `running` (they are fixed
 * while the bot runs) and `running` the networks `fresh` read, so that
 * config_free(running) frees them. */
void config_keep_networks(struct config *fresh, struct config *running);

/* How many networks of protocol p the config has, and the struct of the
 * i-th of them (in the file's order). */
int config_count(const struct config *c, const struct protocol *p);
const void *config_section(const struct config *c, const struct protocol *p,
                           int i);

/* The rules the config gives `room` of the network of adapter a (the
 * room's entry in its network's list, names compared as the network
 * compares them), or NULL if it gives none. */
const char *config_room_rules(const struct config *c,
                              const struct chat_adapter *a, const char *room);
/* The same for the room's language ("lang=CODE" in its entry), or NULL. */
const char *config_room_lang(const struct config *c,
                             const struct chat_adapter *a, const char *room);

/* The network tables of these protocols, for messages: "[[irc]] or
 * [[matrix]]". */
void config_network_tables(const struct protocol *const *protocols, char *out,
                           size_t outlen);

/* Frees what a config holds (not the struct); safe on a zeroed struct. */
void config_free(struct config *c);

#endif
