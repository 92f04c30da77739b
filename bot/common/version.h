/*
 * What this build is: the release, whose one source is CMakeLists.txt's
 * project(... VERSION x.y.z), and the git commit it was built from when
 * the build knows it. The definitions are generated at build time
 * (bot/common/version.cmake writes version_data.c), so a new commit is
 * seen without running cmake again.
 */
#ifndef HEARTS_BOT_COMMON_VERSION_H
#define HEARTS_BOT_COMMON_VERSION_H

#include <stdio.h>

/* The release, "x.y.z". */
extern const char version_release[];

/* The commit built: 12 hex digits, with "-dirty" when tracked files had
 * changes; "" for a build from a source tree without git (a tarball). */
extern const char version_commit[];

/* "PROGRAM x.y.z (commit c)\n", or without the commit when there is
 * none, to out: what --version prints. */
void version_print(FILE *out, const char *program);

#endif
