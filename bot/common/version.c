/*
 * What this build is, in words (version.h); the values are generated
 * (version_data.c).
 */
#include "bot/common/version.h"

void version_print(FILE *out, const char *program)
{
    if (version_commit[0])
        fprintf(out, "%s %s (commit %s)\n", program, version_release,
                version_commit);
    else
        fprintf(out, "%s %s\n", program, version_release);
}
