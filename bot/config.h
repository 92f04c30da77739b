/*
 * The bot's configuration (config.example.toml documents every key), read
 * by a small strict reader of the TOML subset the file uses. Every value is
 * checked; an error names the file, line and column and changes nothing.
 */
#ifndef HEARTS_BOT_CONFIG_H
#define HEARTS_BOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* A channel to join, with its own default rules (or NULL). */
struct config_channel {
    char *name;
    char *rules;
};

struct config_irc {
    char *name;
    char *host;
    int port;
    char *nick;
    char *username;
    char *realname;
    char *password;          /* "" if none */
    char *nickserv_password; /* "" if none */
    struct config_channel *channels;
    int nchannels;
    int flood_burst;
    int flood_interval_ms;     /* the pace to start at */
    int flood_min_interval_ms; /* fastest while lag stays low; 0: auto */
    int flood_max_interval_ms; /* slowest while lag grows */
    char *nickserv_account;    /* IDENTIFY names it; "" if none (the nick) */
    char *services_mask;       /* nick!user@host glob NickServ must match */
    /* TLS (docs/hosting.md): verified against the system's CA store, or
     * tls_ca_file, with the host name checked, unless tls_verify is
     * false; a client certificate (CertFP, SASL EXTERNAL) if
     * tls_cert_file is set, its key in tls_key_file ("": in the cert) */
    bool tls;
    bool tls_verify;
    char *tls_ca_file;   /* "" : the system's store */
    char *tls_cert_file; /* "" : none */
    char *tls_key_file;  /* "" : in tls_cert_file */
    /* SASL before registration: "none", "plain" or "external" */
    char *sasl_mechanism;
    char *sasl_username; /* "" : the nick (PLAIN's authentication name) */
    char *sasl_password; /* PLAIN's */
    /* a failed or unavailable SASL stops the network (true) or goes on
     * unauthenticated (false) */
    bool sasl_required;
};

/*
 * A Matrix account ([[matrix]]): its rooms are joined by ID ("!id:server")
 * or alias ("#alias:server"), each with its own default rules (or NULL).
 */
struct config_matrix {
    char *name;
    char *homeserver;   /* "https://host[:port][/path]", no trailing '/' */
    char *user_id;      /* "@bot:server" */
    char *password;     /* "" if none */
    char *access_token; /* "" if none (one of the two is set) */
    char *device_id;    /* "" if none */
    struct config_channel *rooms;
    int nrooms;
    bool auto_join_invites;
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

struct config {
    /* [bot] */
    char *data_dir;
    char *log_level;
    char *command_prefix;
    bool colors;
    char **admins;
    int nadmins;
    /* how often one person is answered (limit.h), in seconds */
    int reply_burst;      /* answers at once */
    int reply_interval;   /* then one per interval (0: no limit) */
    int repeat_quiet;     /* the same private text again gets no answer */
    int channel_repeat;   /* a channel !status or !scores is not repeated */
    int chatter_burst;    /* everyone's private chatter together: a burst */
    int chatter_interval; /* then one per interval (0: no limit) */
    /* [game] */
    char *default_rules;
    int turn_timeout; /* seconds */
    int max_timeouts;
    int lobby_timeout; /* seconds */
    int grace_period;  /* seconds */
    char *bot_level;
    /* playouts per decision of the searching levels (ai.h), 0 for the
     * level's own default (ai_default_budget) */
    int normal_playouts;
    int hard_playouts;
    int think_threads;   /* worker threads for those decisions (think.h) */
    int next_hand_delay; /* seconds */
    /* a table with no person present pauses, then ends (seconds) */
    int unattended_pause;
    int unattended_end;
    /* [[irc]] */
    struct config_irc *irc;
    int nirc;
    /* [[matrix]] */
    struct config_matrix *matrix;
    int nmatrix;
};

/*
 * Parses the text of a config file; `path` only names it in messages.
 * Returns 0 and fills *out (free with config_free), or -1 with a message
 * "PATH:LINE:COL: what is wrong" in err and *out untouched.
 */
int config_parse(const char *text, size_t len, const char *path,
                 struct config *out, char *err, size_t errlen);

/* Reads and parses a file, as config_parse. */
int config_load(const char *path, struct config *out, char *err, size_t errlen);

/* For a reload: `fresh` takes the networks of `running` (they are fixed
 * while the bot runs) and `running` the networks `fresh` read, so that
 * config_free(running) frees them. */
void config_keep_networks(struct config *fresh, struct config *running);

/* Frees what a config holds (not the struct); safe on a zeroed struct. */
void config_free(struct config *c);

#endif
