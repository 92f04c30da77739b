/*
 * An IRC network of the config: its [[irc]] table (config.example.toml
 * documents every key), read by the bot's config through the protocol
 * registry (adapters/registry.c).
 */
#ifndef HEARTS_IRC_CONFIG_H
#define HEARTS_IRC_CONFIG_H

#include <stdbool.h>

#include "bot/common/protocol.h"

struct irc_config {
    char *name;
    char *host;
    int port;
    char *nick;
    char *username;
    char *realname;
    char *password;          /* "" if none */
    char *nickserv_password; /* "" if none */
    struct protocol_room *channels;
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
    /* how a person's channel command is answered: "notice" (NOTICE to
     * them) or "privmsg" */
    char *answers;
    /* who may /invite the bot into a channel: "off", "ops" (a channel
     * operator there, or a bot admin) or "admins" (a bot admin) */
    char *invites;
    /* how to reach the bot's operators ("" if none): sent in the
     * realname, as networks' bot policies ask */
    char *admin_contact;
};

/* The [[irc]] protocol: its section, and its adapter (irc_adapter.h). */
/* The [[irc]] table: its keys, defaults, checks and free. */
extern const struct protocol_config irc_config_section;

/* Frees what an irc_config holds (not the struct). */
void irc_config_free(struct irc_config *c);

#endif
