/*
 * The Matrix adapter's session file, password login and device-key
 * check (login.h).
 */
#include "adapters/matrix/login.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/wire.h"
#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/xjson.h"
#include "bot/common/xalloc.h"

void mx_save_session(struct mx_adapter *a)
{
    if (!a->session_path)
        return;
    char err[512];
    if (file_mkdirs(a->data_dir, a->session_dir, err, sizeof err) ||
        mx_session_save(a->session_path, &a->s, err, sizeof err))
        log_error("%s: cannot keep the Matrix session: %s", a->base.network,
                  err);
}

/* The bot's own device keys, as POST /keys/query answered: Element
 * encrypts a new direct room when every invitee has device keys, and the
 * bot cannot read what is encrypted. */
static void keys_got(struct mx_adapter *a, struct mx_call *c, long status,
                     const char *body, size_t len)
{
    (void)c, (void)status;
    struct json_tokener *tok = xjson_tokener(8);
    struct json_object *o =
        json_tokener_parse_ex(tok, body, len > INT32_MAX ? 0 : (int)len);
    json_tokener_free(tok);
    struct json_object *keys, *mine;
    int n = 0;
    if (o && json_object_is_type(o, json_type_object) &&
        json_object_object_get_ex(o, "device_keys", &keys) &&
        json_object_is_type(keys, json_type_object) &&
        json_object_object_get_ex(keys, a->cfg.user_id, &mine) &&
        json_object_is_type(mine, json_type_object))
        n = json_object_object_length(mine);
    json_object_put(o);
    if (n > 0)
        log_warn("%s: the account %s has device keys (%d device%s): people's "
                 "clients will encrypt the direct chats they start with the "
                 "bot, which it cannot read. Give the bot an account that no "
                 "client has logged into (docs/hosting.md, \"The bot's "
                 "account\")",
                 a->base.network, a->cfg.user_id, n, n == 1 ? "" : "s");
    else
        log_info("%s: the account %s has no device keys", a->base.network,
                 a->cfg.user_id);
}

void mx_check_keys(struct mx_adapter *a)
{
    struct json_object *o = json_object_new_object();
    struct json_object *dk = json_object_new_object();
    json_object_object_add(dk, a->cfg.user_id, json_object_new_array());
    json_object_object_add(o, "device_keys", dk);
    char *body = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    mx_call_send(a, mx_call_new(a, "POST", xstrdup("/keys/query"), body, NULL,
                                keys_got, NULL));
}

static void logged_in(struct mx_adapter *a, struct mx_call *c, long status,
                      const char *body, size_t len)
{
    (void)c, (void)status;
    a->logging_in = false;
    char *token = mx_body_string(body, len, "access_token", mx_is_word);
    char *device = mx_body_string(body, len, "device_id", mx_is_word);
    if (!token) {
        log_error("%s: the login answer holds no usable access token",
                  a->base.network);
        free(device);
        return;
    }
    log_info("%s: logged in as %s (device %s)", a->base.network, a->cfg.user_id,
             device ? device : "?");
    free(a->token);
    a->token = xstrdup(token);
    mx_session_set(&a->s.access_token, token);
    if (device)
        mx_session_set(&a->s.device_id, device);
    free(token);
    free(device);
    mx_save_session(a);
    if (!a->started) {
        a->started = true;
        a->hooks.begin(a);
    }
}

static void login_failed(struct mx_adapter *a, struct mx_call *c, long status,
                         const char *body, size_t len)
{
    (void)c, (void)status, (void)body, (void)len;
    a->logging_in = false;
    log_error("%s: cannot log in as %s: check user_id and password in the "
              "[[matrix]] section",
              a->base.network, a->cfg.user_id);
}

void mx_start_login(struct mx_adapter *a)
{
    a->logging_in = true;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type",
                           json_object_new_string("m.login.password"));
    struct json_object *id = json_object_new_object();
    json_object_object_add(id, "type", json_object_new_string("m.id.user"));
    json_object_object_add(id, "user", json_object_new_string(a->cfg.user_id));
    json_object_object_add(o, "identifier", id);
    json_object_object_add(o, "password",
                           json_object_new_string(a->cfg.password));
    const char *device = a->s.device_id ? a->s.device_id : a->cfg.device_id;
    if (device && *device)
        json_object_object_add(o, "device_id", json_object_new_string(device));
    json_object_object_add(o, "initial_device_display_name",
                           json_object_new_string("heartsbot"));
    char *body = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    mx_call_send(a, mx_call_new(a, "POST", xstrdup("/login"), body, NULL,
                                logged_in, login_failed));
}
