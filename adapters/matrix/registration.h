/*
 * The application-service registration file of a [[matrix]] in mode =
 * "appservice" (docs/hosting.md, "Matrix as an application service"):
 * the YAML the homeserver is given, which names the bot's tokens, its
 * listener's URL and its user. `heartsbot --appservice-registration
 * CONFIG` writes it (mx_registration_write); the bot reads it at start
 * (mx_registration_load).
 *
 * The reader takes the subset of YAML that Synapse's, Dendrite's and
 * Conduit's own examples and this writer use, and refuses the rest by
 * name rather than misread it: top-level `key: value` lines (comments,
 * blank lines and indented lines are skipped: the namespaces are the
 * homeserver's business); a value plain, "double-quoted" (escapes \\ and
 * \" only) or 'single-quoted' ('' is a quote), on its own line. The file
 * is hostile input: at most 64 KiB, UTF-8 without control characters,
 * each value checked.
 */
#ifndef HEARTS_MX_REGISTRATION_H
#define HEARTS_MX_REGISTRATION_H

#include <stddef.h>

#include "adapters/matrix/matrix_config.h"

/* The most a registration file may be. */
#define MX_REGISTRATION_MAX (64 * 1024)

/* What the bot needs of the file; every string is set once loaded. */
struct mx_registration {
    char *id;
    char *url;              /* "" if the file has none (or null) */
    char *as_token;         /* the bot's token towards the homeserver */
    char *hs_token;         /* the homeserver's towards the bot */
    char *sender_localpart; /* the bot's user */
};

/*
 * Parses the text of a registration file (len bytes); `path` only names
 * it in messages. Returns 0 and fills *out (free with
 * mx_registration_free), or -1 with "PATH:LINE:COL: what is wrong" (or
 * "PATH: what is wrong") in err and *out untouched. id, as_token,
 * hs_token and sender_localpart must each be there once; url at most
 * once; the tokens are 1 to 255 of [A-Za-z0-9._~+/=-] and differ; the
 * localpart is 1 to 255 of [a-z0-9._=/+-]; url is "" or http(s)://.
 */
int mx_registration_parse(const char *text, size_t len, const char *path,
                          struct mx_registration *out, char *err,
                          size_t errlen);

/* Reads the file at path (a regular file, at most MX_REGISTRATION_MAX
 * bytes) and parses it as mx_registration_parse. */
int mx_registration_load(const char *path, struct mx_registration *out,
                         char *err, size_t errlen);

/* Frees what r holds (not r) and zeroes it; NULL or zeroed: a no-op. */
void mx_registration_free(struct mx_registration *r);

/*
 * Whether r is the registration of cfg: its sender_localpart is the
 * localpart of cfg->user_id (the bot acts as that user). 0, or -1 with
 * "PATH: what differs" in err (PATH is cfg->registration).
 */
int mx_registration_check(const struct mx_registration *r,
                          const struct matrix_config *cfg, char *err,
                          size_t errlen);

/* The URL where the homeserver reaches cfg's listener, into out:
 * "http://HOST:PORT", "[HOST]" for IPv6; a wildcard address (0.0.0.0,
 * ::) gives the loopback address of its family. */
void mx_registration_url(const struct matrix_config *cfg, char *out,
                         size_t outlen);

/*
 * The registration file for cfg with these tokens, as
 * mx_registration_write writes it: a new NUL-terminated string the caller
 * frees. The user ID in the namespace is regex-escaped.
 */
char *mx_registration_text(const struct matrix_config *cfg,
                           const char *as_token, const char *hs_token);

/* mx_registration_write's answer when something is at the path already. */
#define MX_REGISTRATION_EXISTS 1

/*
 * Writes cfg's registration file to cfg->registration with two fresh
 * tokens (32 bytes from getrandom(2) each, in hex), mode 0640 (the
 * homeserver's user must read it; nobody else), never over anything:
 * the text goes to a new temporary file beside it (O_CREAT | O_EXCL),
 * fsynced, then takes the name by link(2), which fails rather than
 * replace, and the directory is fsynced. Returns 0 when written,
 * MX_REGISTRATION_EXISTS when something is at the path already (nothing
 * written), or -1 with "PATH: what failed" in err (nothing left behind).
 */
int mx_registration_write(const struct matrix_config *cfg, char *err,
                          size_t errlen);

#endif
