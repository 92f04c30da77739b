/*
 * libFuzzer target for the config reader (bot/config.c, with the TOML reader
 * and every protocol's table of adapters/registry.c): any bytes are a
 * config file. The reader never crashes or leaks; a refused file leaves
 * the caller's struct as it was and says where ("fuzz.toml:LINE:COL: ");
 * an accepted one holds every value the checks promise (strings present,
 * integers in range, no '%' in a nick or password, channels named with #
 * or &, network names used once, a [[matrix]] in appservice mode with
 * an absolute registration path, no password or token, and a listen port
 * in range). Built when HEARTS_FUZZ is on and the
 * compiler is clang; run it as `build/tests/fuzz_config -max_len=8192 DIR`
 * with a copy of config.example.toml in the corpus directory DIR.
 */
#include "bot/config.h"
#include "tests/support/networks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const char *s)
{
    if (!s)
        abort();
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            abort();
}

static void check_range(int v, int min, int max)
{
    if (v < min || v > max)
        abort();
}

/* What an accepted config promises its users. */
static void check(const struct config *c)
{
    check_string(c->data_dir);
    check_string(c->log_level);
    check_string(c->command_prefix);
    check_string(c->default_rules);
    check_string(c->bot_level);
    if (!*c->data_dir || !*c->command_prefix || strlen(c->command_prefix) > 8)
        abort();
    if (c->nadmins < 0 || (c->nadmins > 0) != (c->admins != NULL))
        abort();
    for (int i = 0; i < c->nadmins; i++)
        check_string(c->admins[i]);
    check_range(c->turn_timeout, 5, 86400);
    check_range(c->max_timeouts, 1, 100);
    check_range(c->lobby_timeout, 10, 86400);
    check_range(c->grace_period, 0, 86400);
    check_range(c->next_hand_delay, 0, 60);
    for (int i = 0; i < count_irc(c); i++) {
        const struct irc_config *irc = irc_at(c, i);
        check_string(irc->name);
        check_string(irc->host);
        check_string(irc->nick);
        check_string(irc->username);
        check_string(irc->realname);
        check_string(irc->password);
        check_string(irc->nickserv_password);
        if (!*irc->nick || strlen(irc->nick) > 30 || strchr(irc->nick, '%') ||
            strchr(irc->password, '%') || strchr(irc->nickserv_password, '%'))
            abort();
        check_range(irc->port, 1, 65535);
        check_range(irc->flood_burst, 1, 100);
        check_range(irc->flood_interval_ms, 100, 60000);
        for (int j = 0; j < irc->nchannels; j++) {
            const char *name = irc->channels[j].name;
            check_string(name);
            if ((name[0] != '#' && name[0] != '&') || strlen(name) > 50 ||
                strchr(name, ' ') || strchr(name, ','))
                abort();
            if (irc->channels[j].rules)
                check_string(irc->channels[j].rules);
        }
        for (int j = 0; j < i; j++)
            if (strcmp(irc_at(c, j)->name, irc->name) == 0)
                abort();
    }
    for (int i = 0; i < count_mx(c); i++) {
        const struct matrix_config *mx = mx_at(c, i);
        check_string(mx->user_id);
        check_string(mx->password);
        check_string(mx->access_token);
        check_string(mx->registration);
        check_string(mx->listen_host);
        check_range(mx->listen_port, 1, 65535);
        if (mx->appservice &&
            (mx->registration[0] != '/' || *mx->password || *mx->access_token))
            abort();
        if (!mx->appservice && *mx->registration)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config c, sentinel;
    char err[512];
    memset(&c, 0xa5, sizeof c);
    memset(&sentinel, 0xa5, sizeof sentinel);
    if (config_parse((const char *)data, size, "fuzz.toml", registry_protocols,
                     &c, err, sizeof err)) {
        if (memcmp(&c, &sentinel, sizeof c) != 0 ||
            strncmp(err, "fuzz.toml:", 10) != 0)
            abort();
        return 0;
    }
    check(&c);
    config_free(&c);
    return 0;
}
