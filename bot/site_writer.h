/*
 * The site's writer in the bot (docs/site.md): a thread of its own that
 * owns a struct site (bot/site/site.h). At start it writes the whole site
 * from the data directory; then the manager hands it each newly archived
 * game (manager_on_archived) and it rewrites the pages that game changed.
 * Nothing here runs on the loop thread but the handing over (a copy of
 * the game into a bounded queue), so writing the site never delays a
 * table. A queue that fills (a disk that stalls the thread) drops the
 * games it cannot take and has the whole site written again once it has
 * caught up. Its own failures are logged, never said in chat.
 *
 * The pages of a person are named by a keyed hash of their identity key;
 * the key (the secret) is DATA/site-secret, made at the first start with
 * a site and kept, so that the names stay the same across restarts.
 */
#ifndef HEARTS_BOT_SITE_WRITER_H
#define HEARTS_BOT_SITE_WRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/config.h"
#include "storage/archive.h"

/* Games that wait for the writer at most; beyond, a full rewrite. */
#define SITE_WRITER_QUEUE_MAX 256

struct site_writer;

/* The writer for cfg's [site] (cfg->site_dir must not be ""), reading
 * data_dir; starts its thread, which writes the whole site first. NULL
 * with the reason in err if the secret cannot be read or made. */
struct site_writer *site_writer_start(const struct config *cfg,
                                      const char *data_dir, char *err,
                                      size_t errlen);

/* A manager_archived_fn: hands the game to the writer (ctx: the writer).
 * Stopped games are no page: they are not handed on. */
void site_writer_archived(void *ctx, const char *room_dir, const char *network,
                          const char *room, const struct archive_result *res,
                          const char *record);

/* Whether w writes what cfg asks (the same dir and hidden hands): a
 * reload that changes them starts a new writer. */
bool site_writer_same(const struct site_writer *w, const struct config *cfg);

/* The secret the person pages are named with. */
const char *site_writer_secret(const struct site_writer *w);

/* Waits until the writer has written everything handed to it (tests and
 * --write-site); 0, or -1 if the last write failed. */
int site_writer_flush(struct site_writer *w);

/* Stops the thread after the job it is doing (the games still queued are
 * dropped: the next start writes the whole site) and frees w. NULL is
 * fine. */
void site_writer_stop(struct site_writer *w);

/* DATA/site-secret: read, or made (32 hex digits from getrandom) if
 * missing. 0, or -1 with the reason. */
int site_secret(const char *data_dir, char *out, size_t outlen, char *err,
                size_t errlen);

#endif
