/*
 * The protocols' files for --check (check_protocols.h).
 */
#include "bot/check_protocols.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "adapters/irc/irc_config.h"
#include "adapters/irc/irc_protocol.h"
#include "adapters/matrix/matrix_config.h"
#include "adapters/matrix/matrix_protocol.h"
#include "adapters/matrix/registration.h"
#include "adapters/matrix/session.h"
#include "bot/common/file.h"

/* The most of a PEM file read for its markers: certificates, chains and
 * keys are a few KiB; a CA bundle is ~200 KiB. */
#define PEM_READ_MAX (4 << 20)

static void tell(check_say_fn say, void *ctx, bool problem, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));
static void tell(check_say_fn say, void *ctx, bool problem, const char *fmt,
                 ...)
{
    char msg[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(ctx, problem, msg);
}

/* Whether path (a regular file, read up to PEM_READ_MAX) holds a PEM block
 * whose label ends with `label` ("CERTIFICATE", "PRIVATE KEY"): 1 yes, 0
 * no, -1 unreadable (errno set). */
static int pem_has(const char *path, const char *label)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        errno = EINVAL;
        return -1;
    }
    char line[512];
    int found = 0;
    long read = 0;
    while (!found && read < PEM_READ_MAX && fgets(line, sizeof line, f)) {
        read += (long)strlen(line);
        char *end;
        if (strncmp(line, "-----BEGIN ", 11) == 0 &&
            (end = strstr(line + 11, "-----")) &&
            (size_t)(end - (line + 11)) >= strlen(label) &&
            strncmp(end - strlen(label), label, strlen(label)) == 0)
            found = 1;
    }
    fclose(f);
    return found;
}

/* One TLS file of an [[irc]]: readable, with a `label` PEM block. */
static void check_pem(const char *net, const char *key, const char *path,
                      const char *label, check_say_fn say, void *ctx)
{
    int got = pem_has(path, label);
    if (got < 0)
        tell(say, ctx, true,
             "[[irc]] \"%s\": %s %s cannot be read by this user: %s", net, key,
             path, errno == EINVAL ? "not a regular file" : strerror(errno));
    else if (!got)
        tell(say, ctx, true,
             "[[irc]] \"%s\": %s %s has no PEM \"%s\" block (-----BEGIN "
             "...%s-----)",
             net, key, path, label, label);
}

/* A private key others can read is worth a word, not a refusal. */
static void check_key_mode(const char *net, const char *key, const char *path,
                           check_say_fn say, void *ctx)
{
    struct stat st;
    if (stat(path, &st) == 0 && (st.st_mode & 0077))
        tell(say, ctx, false,
             "[[irc]] \"%s\": %s %s (mode %03o) can be read by others than "
             "its owner: chmod 600 it",
             net, key, path, (unsigned)(st.st_mode & 0777));
}

static void check_irc(const struct irc_config *irc, check_say_fn say, void *ctx)
{
    if (*irc->tls_ca_file)
        check_pem(irc->name, "tls_ca_file", irc->tls_ca_file, "CERTIFICATE",
                  say, ctx);
    if (*irc->tls_cert_file)
        check_pem(irc->name, "tls_cert_file", irc->tls_cert_file, "CERTIFICATE",
                  say, ctx);
    /* the key is in its own file, or else in the certificate's */
    const char *key = *irc->tls_key_file ? "tls_key_file" : "tls_cert_file";
    const char *path =
        *irc->tls_key_file ? irc->tls_key_file : irc->tls_cert_file;
    if (*path) {
        check_pem(irc->name, key, path, "PRIVATE KEY", say, ctx);
        check_key_mode(irc->name, key, path, say, ctx);
    }
}

/* An application service's registration, as its start reads it. */
static void check_registration(const struct matrix_config *mx, check_say_fn say,
                               void *ctx)
{
    char err[1024];
    struct mx_registration r = {0};
    if (mx_registration_load(mx->registration, &r, err, sizeof err) ||
        mx_registration_check(&r, mx, err, sizeof err))
        tell(say, ctx, true,
             "[[matrix]] \"%s\": %s (heartsbot --appservice-registration "
             "CONFIG writes it)",
             mx->name, err);
    mx_registration_free(&r);
}

/* DATA_DIR/<network>/matrix-session.json, as the adapter's start reads it
 * (adapters/matrix/adapter.c). */
static void check_session(const struct matrix_config *mx, const char *data_dir,
                          check_say_fn say, void *ctx)
{
    char net[FILE_NAME_MAX + 1], path[FILE_PATH_MAX], err[512];
    file_name_encode(mx->name, net, sizeof net);
    if (file_path(path, sizeof path, err, sizeof err, data_dir, net,
                  "matrix-session.json", (char *)NULL)) {
        tell(say, ctx, true, "[[matrix]] \"%s\": no place for its session: %s",
             mx->name, err);
        return;
    }
    struct mx_session s;
    int rc = mx_session_load(path, &s, err, sizeof err);
    if (rc == -2)
        tell(say, ctx, true,
             "[[matrix]] \"%s\": %s: the bot would keep it and log in anew "
             "without saving its session (a new device at every start): run "
             "the heartsbot that wrote it",
             mx->name, err);
    else if (rc)
        tell(say, ctx, false,
             "[[matrix]] \"%s\": %s is unusable (%s): the bot replaces it "
             "with a new session%s",
             mx->name, path, err, mx->appservice ? "" : " (a new login)");
    else if ((s.user_id && strcmp(s.user_id, mx->user_id) != 0) ||
             (s.homeserver && strcmp(s.homeserver, mx->homeserver) != 0))
        tell(say, ctx, false,
             "[[matrix]] \"%s\": %s is the session of %s on %s, not of this "
             "entry's user_id and homeserver: the bot starts a new one",
             mx->name, path, s.user_id ? s.user_id : "(no user)",
             s.homeserver ? s.homeserver : "(no homeserver)");
    mx_session_free(&s);
}

void check_protocol_files(const struct config *cfg, const char *data_dir,
                          check_say_fn say, void *ctx)
{
    for (int i = 0; i < config_count(cfg, &irc_protocol); i++)
        check_irc(config_section(cfg, &irc_protocol, i), say, ctx);
    for (int i = 0; i < config_count(cfg, &matrix_protocol); i++) {
        const struct matrix_config *mx =
            config_section(cfg, &matrix_protocol, i);
        if (mx->appservice)
            check_registration(mx, say, ctx);
        if (data_dir && *data_dir)
            check_session(mx, data_dir, say, ctx);
    }
}
