/*
 * Files written and read safely: names that stay one path component,
 * paths that are refused rather than cut, directories made and walked
 * without following links, atomic replacement (a temporary file, fsync,
 * rename, fsync of the directory) and capped whole-file reads; and the
 * small steps these are made of, for the layers that write files of
 * their own kinds (storage/: appends, journals, the lock).
 *
 * Every function that can fail returns 0, or -1 with a message that names
 * the file and the reason in `err` (errlen bytes, may be NULL) and errno
 * set to the cause; none of them aborts on bad input or a failing disk.
 * Paths are never truncated: a path that does not fit is an error. Files
 * are opened without following symbolic links (a link where a file
 * should be is an error).
 */
#ifndef HEARTS_COMMON_FILE_H
#define HEARTS_COMMON_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The longest path the file functions build or accept, with its NUL. */
#define FILE_PATH_MAX 1024

/*
 * Turns a network, channel, room or person name into one path component
 * that names nothing else: never empty, never "." or "..", no '/', no NUL,
 * at most FILE_NAME_MAX bytes. Bytes [a-z0-9_-] stay as they are, and
 * '.' unless it leads; every other byte (upper case too) becomes %XX
 * (upper-case hex), so "#hearts" is "%23hearts"; the empty name is "%00".
 * A name whose encoding does not fit keeps a readable prefix and ends
 * with '~' and 16 hex digits of a 64-bit FNV-1a hash of the whole name:
 * two different names collide only if two long ones share prefix and hash.
 * `name` should already be case-folded by the caller under the network's
 * case mapping (chat_adapter.fold) so that names equal under it share one
 * file. Writes the component with its NUL into out (at least
 * FILE_NAME_MAX + 1 bytes).
 */
#define FILE_NAME_MAX 120
void file_name_encode(const char *name, char *out, size_t outlen);

/* A 64-bit FNV-1a hash of len bytes. */
uint64_t file_hash64(const void *data, size_t len);

/*
 * out = dir "/" part "/" part ... (a NULL part ends the list). -1 with a
 * message if the result would not fit in outlen (at most
 * FILE_PATH_MAX), or if a part is empty, "." or ".." or holds '/'.
 */
int file_path(char *out, size_t outlen, char *err, size_t errlen,
              const char *dir, ...) __attribute__((sentinel));

/*
 * Makes dir (and the directories under data_dir leading to it; data_dir
 * itself too) if missing, mode 0700; an existing one under data_dir must
 * be a directory, not a link to one (data_dir itself is the host's choice
 * and may be reached through links). dir must be data_dir or under it.
 */
int file_mkdirs(const char *data_dir, const char *dir, char *err,
                size_t errlen);

/*
 * Checks, for reading, what file_mkdirs makes: every directory from
 * data_dir down to dir is a directory, not a link to one. A part that is
 * not there is no error: *missing is set (nothing to read there).
 */
int file_dir_check(const char *data_dir, const char *dir, bool *missing,
                   char *err, size_t errlen);

/*
 * Replaces path's content with len bytes of data atomically: a crash at
 * any moment leaves the old file or the new one, never a mix (a temporary
 * file beside it, fsync, rename over, fsync of the directory). A kill in
 * the middle leaves the temporary file, named "<name>.tmp-PID-N"
 * (storage_clean_temps removes those at start).
 */
int file_replace(const char *path, const void *data, size_t len, char *err,
                 size_t errlen);

/* file_replace without its fsyncs: a crash or kill of the process leaves
 * the old file or the new one all the same; a crash of the machine
 * before the file and its directory are synced (storage_sync_path, by
 * the caller or later) may leave either, or the new name with nothing
 * in it. For derived files that are rebuilt when wrong. */
int file_replace_unsynced(const char *path, const void *data, size_t len,
                          char *err, size_t errlen);

/*
 * Reads a whole small file (at most max bytes) into a new NUL-terminated
 * buffer (*out, length *len) for the caller to free. A missing file: -1
 * with *missing set (if not NULL).
 */
int file_read(const char *path, size_t max, char **out, size_t *len,
              bool *missing, char *err, size_t errlen);

/* ---- The steps, for files of other kinds -------------------------------- */

/* 0 if path is given and shorter than FILE_PATH_MAX; else -1 with
 * "no file given" or "path too long ..." (errno EINVAL, ENAMETOOLONG). */
int file_check_path(const char *path, char *err, size_t errlen);

/*
 * Opens path for reading without following a link or blocking on a FIFO:
 * the descriptor (close-on-exec), its size in *size; -1 with a message
 * if it cannot be read or is no regular file, -2 (*missing set if not
 * NULL, and a message too) if it is not there.
 */
int file_open_read(const char *path, int64_t *size, bool *missing, char *err,
                   size_t errlen);

/* The size of the open file fd, or -1 with "PATH: not a regular file"
 * (errno EINVAL) if it is none. */
int64_t file_regular_size(int fd, const char *path, char *err, size_t errlen);

/* Reads up to n bytes (read(2), retrying after EINTR): the bytes read, 0
 * at the end, or -1 with "PATH: read: ..." and errno set. */
ssize_t file_read_some(int fd, void *buf, size_t n, const char *path, char *err,
                       size_t errlen);

/* Writes all len bytes, retrying after EINTR. 0, or -1 with errno set and
 * *done the bytes written. */
int file_write_all(int fd, const void *data, size_t len, size_t *done);

/* fsyncs the directory holding path, so that a rename or a new name in it
 * survives a crash. */
int file_sync_dir(const char *path, char *err, size_t errlen);

/* What an open failure (errno e) on a file means, in words: a link in
 * the way (ELOOP from O_NOFOLLOW), else strerror. */
const char *file_open_reason(int e);

/* close() that keeps errno: the cause of a failure is the earlier call. */
void file_close_keep(int fd);

#endif
