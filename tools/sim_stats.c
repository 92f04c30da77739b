/*
 * The pure parts of hearts-sim's tournaments (sim_stats.h).
 */
#include "tools/sim_stats.h"

#include "bot/common/err.h"
#include "engine/ai/ai.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The variants a seat may name, and which levels they change: only the
 * levels that search. */
static const struct {
    const char *name;
    int flag;
} variants[] = {
    {"points", AI_EVAL_POINTS},
    {"moonblind", AI_MOON_BLIND},
    {"always", AI_GAME_ALWAYS},
    {"moonnear", AI_MOON_NEAR},
    {"randomplay", AI_PLAYOUT_RANDOM},
    {"untold", AI_TABLE_BLIND},
    {"old", AI_EVAL_POINTS | AI_MOON_BLIND}, /* the level before both */
};

#define NVARIANTS (sizeof variants / sizeof variants[0])

int sim_seat_parse(const char *word, struct sim_seat *out, char *err,
                   size_t errlen)
{
    char name[32];
    const char *slash = strchr(word, '/');
    size_t len = slash ? (size_t)(slash - word) : strlen(word);
    int level = -1;
    if (len < sizeof name) {
        memcpy(name, word, len);
        name[len] = '\0';
        level = ai_level_find(name);
    }
    if (level < 0) {
        char levels[128] = "";
        for (int l = 0; l < ai_level_count(); l++)
            snprintf(levels + strlen(levels), sizeof levels - strlen(levels),
                     "%s%s", l ? ", " : "", ai_level_name(l));
        err_set(err, errlen, "unknown level '%.*s' (%s)",
                (int)(len < 40 ? len : 40), word, levels);
        return -1;
    }
    int flags = 0;
    if (slash) {
        const char *v = slash + 1;
        size_t i = 0;
        while (i < NVARIANTS && strcasecmp(variants[i].name, v) != 0)
            i++;
        if (i == NVARIANTS) {
            char names[96] = "";
            for (size_t k = 0; k < NVARIANTS; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names),
                         "%s%s", k ? ", " : "", variants[k].name);
            err_set(err, errlen, "unknown variant '%.40s' of %s (%s)", v,
                    ai_level_name(level), names);
            return -1;
        }
        if (ai_default_budget(level) == 0) {
            err_set(err, errlen,
                    "%s does not search: it has no variant '%s' (normal "
                    "and hard have)",
                    ai_level_name(level), variants[i].name);
            return -1;
        }
        flags = variants[i].flag;
    }
    out->level = level;
    out->flags = flags;
    out->apart = 0;
    return 0;
}

void sim_seat_name(const struct sim_seat *s, char *buf, size_t len)
{
    const char *name = ai_level_name(s->level);
    snprintf(buf, len, "%s", name ? name : "?");
    /* the variant named by exactly these bits (old is two of them) */
    for (size_t i = 0; i < NVARIANTS; i++)
        if (s->flags && s->flags == variants[i].flag) {
            snprintf(buf + strlen(buf), len - strlen(buf), "/%s",
                     variants[i].name);
            return;
        }
    for (size_t i = 0; i < NVARIANTS; i++)
        if (s->flags & variants[i].flag)
            snprintf(buf + strlen(buf), len - strlen(buf), "/%s",
                     variants[i].name);
}

int sim_seat_same(const struct sim_seat *a, const struct sim_seat *b)
{
    return a->level == b->level && a->flags == b->flags && a->apart == b->apart;
}

int sim_seating_of(int seat, int rotation, int n)
{
    return ((seat - rotation) % n + n) % n;
}

int sim_seatings(const struct sim_seat *pattern, int n)
{
    for (int p = 1; p < n; p++) {
        if (n % p)
            continue;
        int same = 1;
        for (int s = 0; s < n && same; s++)
            same = sim_seat_same(&pattern[s], &pattern[(s + p) % n]);
        if (same)
            return p;
    }
    return n;
}

void sim_mean_add(struct sim_mean *a, double sum, double count)
{
    if (count <= 0)
        return;
    a->s += sum;
    a->m += count;
    a->ss += sum * sum;
    a->sm += sum * count;
    a->mm += count * count;
    a->groups++;
}

double sim_mean_value(const struct sim_mean *a)
{
    return a->m > 0 ? a->s / a->m : 0;
}

double sim_mean_se(const struct sim_mean *a)
{
    if (a->groups < 2)
        return 0;
    double r = a->s / a->m;
    double dev = a->ss - 2 * r * a->sm + r * r * a->mm;
    double c = (double)a->groups;
    double var = c / (c - 1) * dev / (a->m * a->m);
    return var > 0 ? sqrt(var) : 0;
}

double sim_rating_chance(double diff)
{
    return 1 / (1 + pow(10, -diff / 400));
}

/* Inverts the m x m matrix a (row-major) into inv by Gauss-Jordan with
 * partial pivoting; -1 if it is singular. a is destroyed. */
static int invert(int m, double *a, double *inv)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            inv[i * m + j] = i == j;
    for (int c = 0; c < m; c++) {
        int p = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(a[r * m + c]) > fabs(a[p * m + c]))
                p = r;
        if (fabs(a[p * m + c]) < 1e-12)
            return -1;
        for (int j = 0; j < m; j++) {
            double t = a[c * m + j];
            a[c * m + j] = a[p * m + j];
            a[p * m + j] = t;
            t = inv[c * m + j];
            inv[c * m + j] = inv[p * m + j];
            inv[p * m + j] = t;
        }
        double d = a[c * m + c];
        for (int j = 0; j < m; j++) {
            a[c * m + j] /= d;
            inv[c * m + j] /= d;
        }
        for (int r = 0; r < m; r++) {
            if (r == c)
                continue;
            double f = a[r * m + c];
            for (int j = 0; j < m; j++) {
                a[r * m + j] -= f * a[c * m + j];
                inv[r * m + j] -= f * inv[c * m + j];
            }
        }
    }
    return 0;
}

#define RATING_MAX 16

int sim_rating_fit(int k, const double *wins, const double *games, int anchor,
                   double anchor_rating, double *rating, double *se)
{
    if (k < 1 || k > RATING_MAX || anchor < 0 || anchor >= k)
        return -1;
    /* the prior: half a win each way for every pair that played */
    double w[RATING_MAX * RATING_MAX], n[RATING_MAX * RATING_MAX];
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            int played = i != j && games[i * k + j] > 0;
            w[i * k + j] = played ? wins[i * k + j] + 0.5 : 0;
            n[i * k + j] = played ? games[i * k + j] + 1 : 0;
        }
    /* Hunter's MM iteration: pi_i = W_i / sum_j n_ij / (pi_i + pi_j) */
    double pi[RATING_MAX];
    for (int i = 0; i < k; i++)
        pi[i] = 1;
    for (int it = 0; it < 100000; it++) {
        double change = 0;
        for (int i = 0; i < k; i++) {
            double won = 0, d = 0;
            for (int j = 0; j < k; j++) {
                won += w[i * k + j];
                if (n[i * k + j] > 0)
                    d += n[i * k + j] / (pi[i] + pi[j]);
            }
            double next = d > 0 ? won / d : pi[i];
            change = fmax(change, fabs(log(next / pi[i])));
            pi[i] = next;
        }
        double a = pi[anchor];
        for (int i = 0; i < k; i++)
            pi[i] /= a;
        if (change < 1e-12)
            break;
    }
    /* the information matrix in log-strength, the anchor's row left out */
    int m = k - 1;
    double info[RATING_MAX * RATING_MAX] = {0}, cov[RATING_MAX * RATING_MAX];
    int idx[RATING_MAX];
    for (int i = 0, r = 0; i < k; i++)
        idx[i] = i == anchor ? -1 : r++;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            if (n[i * k + j] <= 0 || j <= i)
                continue;
            double p = pi[i] / (pi[i] + pi[j]);
            double f = n[i * k + j] * p * (1 - p);
            int a = idx[i], b = idx[j];
            if (a >= 0)
                info[a * m + a] += f;
            if (b >= 0)
                info[b * m + b] += f;
            if (a >= 0 && b >= 0) {
                info[a * m + b] -= f;
                info[b * m + a] -= f;
            }
        }
    if (m > 0 && invert(m, info, cov))
        return -1;
    const double scale = 400 / log(10);
    for (int i = 0; i < k; i++) {
        rating[i] = anchor_rating + scale * log(pi[i]);
        int a = idx[i];
        se[i] = a < 0 ? 0 : scale * sqrt(fmax(cov[a * m + a], 0));
    }
    return 0;
}

/* The group-clustered variance of sum_g z_g with z_g summing to about 0:
 * C / (C - 1) * sum z_g^2. */
static double cluster_var(double zz, long groups)
{
    return groups > 1 ? zz * (double)groups / (double)(groups - 1) : 0;
}

int sim_pair_compare(const struct sim_pair_game *a,
                     const struct sim_pair_game *b, long n,
                     struct sim_pair_diff *won, struct sim_pair_diff *margin)
{
    double seats = 0, won_a = 0, won_b = 0, ma = 0, mb = 0, ha = 0, hb = 0;
    if (n <= 0)
        return -1;
    for (long i = 0; i < n; i++) {
        if (a[i].seats != b[i].seats || a[i].group != b[i].group ||
            a[i].seats <= 0)
            return -1;
        seats += a[i].seats;
        won_a += a[i].won;
        won_b += b[i].won;
        ma += a[i].margin;
        mb += b[i].margin;
        ha += a[i].hands;
        hb += b[i].hands;
    }
    if (ha <= 0 || hb <= 0)
        return -1;
    double pa = won_a / seats, pb = won_b / seats, ra = ma / ha, rb = mb / hb;
    /* by group: the paired terms, and each run's own for the unpaired */
    double zw = 0, zwa = 0, zwb = 0, zm = 0, zma = 0, zmb = 0;
    double gw = 0, gwa = 0, gwb = 0, gm = 0, gma = 0, gmb = 0;
    long groups = 0;
    for (long i = 0; i < n; i++) {
        double wa = (a[i].won - pa * a[i].seats) / seats;
        double wb = (b[i].won - pb * b[i].seats) / seats;
        double xa = (a[i].margin - ra * a[i].hands) / ha;
        double xb = (b[i].margin - rb * b[i].hands) / hb;
        gw += wa - wb;
        gwa += wa;
        gwb += wb;
        gm += xa - xb;
        gma += xa;
        gmb += xb;
        if (i + 1 == n || a[i + 1].group != a[i].group) {
            zw += gw * gw;
            zwa += gwa * gwa;
            zwb += gwb * gwb;
            zm += gm * gm;
            zma += gma * gma;
            zmb += gmb * gmb;
            gw = gwa = gwb = gm = gma = gmb = 0;
            groups++;
        }
    }
    won->diff = pa - pb;
    won->se = sqrt(cluster_var(zw, groups));
    won->unpaired = sqrt(cluster_var(zwa, groups) + cluster_var(zwb, groups));
    margin->diff = ra - rb;
    margin->se = sqrt(cluster_var(zm, groups));
    margin->unpaired =
        sqrt(cluster_var(zma, groups) + cluster_var(zmb, groups));
    return 0;
}
