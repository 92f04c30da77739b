/*
 * The invited channels on disk (remembered.h).
 */
#include "adapters/irc/remembered.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/irc/channels.h"
#include "adapters/irc/ircad.h"
#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"

#define FILE_NAME "irc-channels.json"

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int ircad_remembered_parse(const char *text, size_t len, int max, char ***names,
                           int *n, char *err, size_t errlen)
{
    struct json_tokener *tok = xjson_tokener(4);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    bool whole = o && json_tokener_get_parse_end(tok) == len;
    json_tokener_free(tok);
    int rc = -1;
    struct json_object *v, *list;
    if (!whole || !json_object_is_type(o, json_type_object)) {
        err_set(err, errlen, "not a JSON object");
    } else if (!json_object_object_get_ex(o, "version", &v) ||
               !json_object_is_type(v, json_type_int) ||
               json_object_get_int64(v) < 1) {
        err_set(err, errlen, "no \"version\"");
    } else if (json_object_get_int64(v) > IRCAD_REMEMBERED_VERSION) {
        err_set(err, errlen,
                "version %lld, written by a newer heartsbot (this one reads "
                "up to %d)",
                (long long)json_object_get_int64(v), IRCAD_REMEMBERED_VERSION);
    } else if (!json_object_object_get_ex(o, "channels", &list) ||
               !json_object_is_type(list, json_type_array)) {
        err_set(err, errlen, "no \"channels\" list");
    } else if ((int)json_object_array_length(list) > max) {
        err_set(err, errlen, "more than %d channels", max);
    } else {
        int k = (int)json_object_array_length(list);
        char **out = xcalloc((size_t)k + 1, sizeof *out);
        rc = 0;
        for (int i = 0; i < k; i++) {
            struct json_object *e = json_object_array_get_idx(list, (size_t)i);
            const char *s = json_object_is_type(e, json_type_string)
                                ? json_object_get_string(e)
                                : NULL;
            if (!s || strlen(s) != (size_t)json_object_get_string_len(e) ||
                !ircad_channel_name_ok(s, "#&")) {
                err_set(err, errlen, "entry %d is not a channel name", i + 1);
                free_names(out, i);
                rc = -1;
                break;
            }
            out[i] = xstrdup(s);
        }
        if (rc == 0) {
            *names = out;
            *n = k;
        }
    }
    json_object_put(o);
    return rc;
}

char *ircad_remembered_text(const struct ircad *a)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "version", json_object_new_int(IRCAD_REMEMBERED_VERSION));
    struct json_object *list = xjson(json_object_new_array());
    for (int i = 0; i < a->nchannels; i++)
        if (a->invited[i] && !a->dropped[i])
            xjson_push(list, json_object_new_string(a->channels[i]));
    xjson_set(o, "channels", list);
    char *text = xstrdup(xjson_plain(o));
    json_object_put(o);
    return text;
}

/* The file's directory and path; -1 (logged) if they do not fit. */
static int paths(const struct ircad *a, char *dir, char *path)
{
    char enc[FILE_NAME_MAX + 1], err[300];
    file_name_encode(a->name, enc, sizeof enc);
    if (file_path(dir, FILE_PATH_MAX, err, sizeof err, a->data_dir, enc,
                  NULL) ||
        file_path(path, FILE_PATH_MAX, err, sizeof err, dir, FILE_NAME, NULL)) {
        log_error("%s: the invited channels cannot be kept: %s", a->name, err);
        return -1;
    }
    return 0;
}

void ircad_remembered_load(struct ircad *a, const char *data_dir)
{
    free(a->data_dir);
    a->data_dir = xstrdup(data_dir ? data_dir : "");
    a->remembered_bad = false;
    if (!*a->data_dir)
        return;
    char dir[FILE_PATH_MAX], path[FILE_PATH_MAX], err[FILE_PATH_MAX + 200];
    if (paths(a, dir, path)) {
        a->remembered_bad = true;
        return;
    }
    char *text = NULL;
    size_t len = 0;
    bool missing = false;
    if (file_read(path, IRCAD_REMEMBERED_MAX, &text, &len, &missing, err,
                  sizeof err)) {
        if (!missing) {
            log_error("%s: %s; the channels it names are not joined, and it "
                      "is left as it is",
                      a->name, err);
            a->remembered_bad = true;
        }
        return;
    }
    char **names = NULL;
    int n = 0;
    char why[200];
    if (ircad_remembered_parse(text, len, CHANNELS_MAX, &names, &n, why,
                               sizeof why)) {
        log_error("%s: %s: %s; the channels it names are not joined, and "
                  "it is left as it is",
                  a->name, path, why);
        a->remembered_bad = true;
        free(text);
        return;
    }
    free(text);
    for (int i = 0; i < n; i++) {
        if (ircad_channels_index(a, names[i]) >= 0)
            continue; /* configured now, or listed twice */
        if (ircad_channels_add(a, names[i], true) < 0) {
            log_warn("%s: %s: more channels than %d; %s and after not "
                     "joined",
                     a->name, path, CHANNELS_MAX, names[i]);
            break;
        }
    }
    log_info("%s: %d channel(s) joined by invite before, from %s", a->name, n,
             path);
    free_names(names, n);
}

void ircad_remembered_save(struct ircad *a)
{
    if (!a->data_dir || !*a->data_dir)
        return;
    if (a->remembered_bad) {
        log_warn("%s: the invited channels are not saved: the file of them "
                 "was refused at start",
                 a->name);
        return;
    }
    char dir[FILE_PATH_MAX], path[FILE_PATH_MAX], err[FILE_PATH_MAX + 200];
    if (paths(a, dir, path))
        return;
    char *text = ircad_remembered_text(a);
    if (file_mkdirs(a->data_dir, dir, err, sizeof err) ||
        file_replace(path, text, strlen(text), err, sizeof err))
        log_error("%s: the invited channels are not saved: %s", a->name, err);
    free(text);
}
