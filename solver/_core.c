/* The solver's depth-first search in C: solver/search.py's _DepthFirst and
 * _Search, move for move.
 *
 * search.py is the specification: every rule, its order of moves and its soundness
 * argument are there. This file follows it function by function (the names are the
 * same) so that a search here visits the same positions in the same order and finds
 * the same line; tests/test_solver_core.py checks that node for node on real deals in
 * all four modes. What differs is only how the state is kept:
 *
 *  - columns, talon and foundations are small fixed arrays, moves 4-byte values;
 *  - the transposition table keys a state by a 128-bit Zobrist hash (a column's hash
 *    covers its cards by height and its face-down count, mixed; the state's is the sum
 *    of its columns' — column order drops out as in search.py's sorted key — the
 *    talon's bit set, mixed, and each pending obligation's). Two different states share a hash with
 *    probability about 2^-127 per pair: for the 10^8 states of a long search, below
 *    10^-22, so a "lose" stays a proof for every practical purpose;
 *  - the blocked check's talon facts are cached by the talon's bit set;
 *  - freed table memory is kept for the next table (below, "Table memory").
 *
 * Built by scripts/build-solver.sh next to the mypyc module; search.py uses it when it
 * is built from this file as it is now (its SOURCE_DIGEST) and falls back to Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef SOURCE_DIGEST
#define SOURCE_DIGEST ""
#endif

enum { T2F = 0, T2T = 1, W2F = 2, W2T = 3, F2T = 4 };
enum { OB_TB = 0, OB_EXPOSE = 1, OB_EMPTY = 2, OB_UP = 3, OB_LIFT = 4 };
enum { ST_UNKNOWN = 0, ST_WIN = 1, ST_LOSE = 2, ST_TICK = 3 };

#define MAX_COL 24
#define MAX_TALON 32
#define MAX_MOVES 1024
#define MAX_PENDING 4
#define BLOCKED_MIN_RATE 5
#define BLOCKED_PROBE 16
#define BLOCKED_WINDOW 4096
#define END_CLASS 53

typedef union {
    struct { int8_t kind, a, b, c; } f;
    uint32_t w;
} Move;

typedef struct { Move m; int8_t card, flipped, extra; } Rec;
typedef struct { int8_t card, kind; } Ob;
/* Move lists; the generators' scratch lists are static: a search runs with the GIL
 * held and never re-enters itself, and nothing is kept in them between calls. */
typedef struct { Move v[MAX_MOVES]; int n; } MoveList;

/* ---- card tables (engine.cards; search.py's _WHERE, _BIT, _PARENTS) ---- */

static int RANK[52], SUIT[52], RED[52], WHERE[52];
static uint64_t BIT[52];
static int ACC[52][2], NACC[52];  /* ACCEPTS: the cards that fit on a card, by suit */
static int PAR[52][2], NPAR[52];  /* _PARENTS: the cards a card fits on, by suit */
static const int OPP[4][2] = {{1, 2}, {0, 3}, {0, 3}, {1, 2}};
static const int SIB[4] = {3, 2, 1, 0};
static uint64_t ALL_CARDS, KINGS;
#define ACES (1ULL | 1ULL << 14 | 1ULL << 28 | 1ULL << 42)
#define RANKS_BELOW_KING ((1ULL << 12) - 1)

/* Zobrist tables, two 64-bit lanes. */
static uint64_t ZC[2][MAX_COL][52], ZD[2][MAX_COL], ZO[2][52][5];

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void init_tables(void) {
    for (int c = 0; c < 52; c++) {
        RANK[c] = c % 13 + 1;
        SUIT[c] = c / 13;
        RED[c] = SUIT[c] == 1 || SUIT[c] == 2;
        WHERE[c] = 14 * SUIT[c] + RANK[c] - 1;
        BIT[c] = 1ULL << WHERE[c];
        ALL_CARDS |= BIT[c];
        if (RANK[c] == 13) KINGS |= BIT[c];
    }
    for (int c = 0; c < 52; c++) {
        NACC[c] = NPAR[c] = 0;
        for (int s = 0; s < 4; s++) {
            int red = s == 1 || s == 2;
            if (red == RED[c]) continue;
            if (RANK[c] > 1) ACC[c][NACC[c]++] = s * 13 + RANK[c] - 2;
            if (RANK[c] < 13) PAR[c][NPAR[c]++] = s * 13 + RANK[c];
        }
    }
    uint64_t seed = 0x4B4C4F4E44494B45ULL;
    for (int l = 0; l < 2; l++) {
        for (int k = 0; k < MAX_COL; k++) {
            ZD[l][k] = splitmix(&seed);
            for (int c = 0; c < 52; c++) ZC[l][k][c] = splitmix(&seed);
        }
        for (int c = 0; c < 52; c++)
            for (int k = 0; k < 5; k++) ZO[l][c][k] = splitmix(&seed);
    }
}

static inline int fits_on(int card, int onto) {
    return RANK[onto] == RANK[card] + 1 && RED[onto] != RED[card];
}

static inline Move mv(int kind, int a, int b, int c) {
    Move m;
    m.f.kind = (int8_t)kind; m.f.a = (int8_t)a; m.f.b = (int8_t)b; m.f.c = (int8_t)c;
    return m;
}

static inline void push(MoveList *l, Move m) {
    if (l->n < MAX_MOVES) l->v[l->n++] = m;
}

/* list(dict.fromkeys(l[start:])) in place of l[start:]: the first occurrence of each
 * move, in order. */
static void dedupe_from(MoveList *l, int start) {
    int n = start;
    for (int i = start; i < l->n; i++) {
        int seen = 0;
        for (int j = start; j < n; j++)
            if (l->v[j].w == l->v[i].w) { seen = 1; break; }
        if (!seen) l->v[n++] = l->v[i];
    }
    l->n = n;
}

static void dedupe(MoveList *l) { dedupe_from(l, 0); }

/* ---- shuffling as Python's random.Random(seed).shuffle does ----
 * The streamlined searches' restarts shuffle their move groups with
 * random.Random(attempt).shuffle; this is that generator (CPython's MT19937, seeded by
 * init_by_array from the seed's 32-bit words, _randbelow by rejection from
 * getrandbits(n.bit_length())), so that a restart here makes the same moves.
 * tests/test_solver_core.py compares the two. */

#define MT_N 624
#define MT_M 397

typedef struct { uint32_t mt[MT_N]; int index; } Rng;

static uint32_t rng_next(Rng *g) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y, *mt = g->mt;
    if (g->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        g->index = 0;
    }
    y = mt[g->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.Random(seed) for 0 <= seed < 2**32: init_by_array with the key [seed]. */
static void rng_seed(Rng *g, uint32_t seed) {
    uint32_t *mt = g->mt;
    mt[0] = 19650218U;
    for (int i = 1; i < MT_N; i++) mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    int i = 1;
    for (int k = MT_N; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + seed;
        i++;
        if (i >= MT_N) { mt[0] = mt[MT_N - 1]; i = 1; }
    }
    for (int k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) { mt[0] = mt[MT_N - 1]; i = 1; }
    }
    mt[0] = 0x80000000U;
    g->index = MT_N;
}

/* random._randbelow(n) for 0 < n < 2**32. */
static uint32_t rng_below(Rng *g, uint32_t n) {
    int k = 32 - __builtin_clz(n);
    uint32_t r;
    do r = rng_next(g) >> (32 - k); while (r >= n);
    return r;
}

/* random.shuffle on moves (and, when given, a parallel array of ints). */
static void rng_shuffle(Rng *g, Move *v, int *with, int n) {
    for (int i = n - 1; i >= 1; i--) {
        int j = (int)rng_below(g, (uint32_t)(i + 1));
        Move m = v[i]; v[i] = v[j]; v[j] = m;
        if (with) { int t = with[i]; with[i] = with[j]; with[j] = t; }
    }
}

/* ---- the transposition table ---- */

typedef struct { uint64_t h1, h2, classes; } Entry;
/* mapped: the bytes of the memory the entries live in (0: calloc'ed), which may be
 * more than the table needs (table_init). */
typedef struct { Entry *e; size_t mask, used, mapped; } Table;

/* Table memory. The table is probed at random: at tens of millions of entries most
 * probes miss the TLB as well as the caches, so big tables are mapped with transparent
 * huge pages where the kernel allows them (madvise mode): 12% less user time on D3N
 * deal 792. Faulting fresh memory in costs far more than using it, though: on this
 * project's VMs 0.3-2.5 s per GB (freed memory goes back to the host within seconds),
 * against 0.04 s per GB to clear memory the process holds — up to a fifth of a hard
 * solve's time went to page faults. So memory a table frees is kept, up to
 * cache_limit bytes, and a new table takes the smallest kept mapping it fits in, if
 * at most twice its size (a small table would hold a big mapping a big table then
 * misses). Tables double as they grow, so two mappings carry a whole search; the other
 * searches of a solve, a restart and the next solve in this process use them again.
 * Fresh memory is populated in one call (MADV_POPULATE_WRITE: 2.8 times cheaper than
 * page by page with huge pages). The GIL guards the cache. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14; older kernels refuse it and fault page by page */
#endif
#define CACHE_SLOTS 16
static struct { void *p; size_t bytes; } cache[CACHE_SLOTS];
static int cache_n;
static size_t cache_bytes, cache_limit = (size_t)3 << 29;  /* 1.5 GiB */
static long long cache_hits, cache_misses;

static void cache_remove(int i) {
    cache_bytes -= cache[i].bytes;
    cache[i] = cache[--cache_n];
}

/* Unmaps kept mappings, smallest first, until `room` more bytes fit (0: all of them);
 * a mapping at least `room` big stays (the caller then unmaps its own). */
static void cache_trim(size_t room) {
    while (cache_n && (room == 0 || cache_bytes + room > cache_limit || cache_n == CACHE_SLOTS)) {
        int smallest = 0;
        for (int i = 1; i < cache_n; i++)
            if (cache[i].bytes < cache[smallest].bytes) smallest = i;
        if (room && cache[smallest].bytes >= room) return;
        munmap(cache[smallest].p, cache[smallest].bytes);
        cache_remove(smallest);
    }
}

static int table_init(Table *t, size_t size) {
    size_t bytes = size * sizeof(Entry);
    t->mask = size - 1;
    t->used = 0;
    t->mapped = 0;
    if (bytes < (2U << 20)) {
        t->e = calloc(size, sizeof(Entry));
        return t->e != NULL;
    }
    int best = -1;
    for (int i = 0; i < cache_n; i++)
        if (cache[i].bytes >= bytes && cache[i].bytes <= 2 * bytes && (best < 0 || cache[i].bytes < cache[best].bytes))
            best = i;
    if (best >= 0) {
        t->e = cache[best].p;
        t->mapped = cache[best].bytes;
        cache_remove(best);
        cache_hits++;
        memset(t->e, 0, bytes);
        return 1;
    }
    cache_misses++;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        cache_trim(0);  /* the kept memory may be what is missing */
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            t->e = NULL;
            return 0;
        }
    }
#if defined(MADV_HUGEPAGE) && !defined(NO_HUGEPAGES)
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    madvise(p, bytes, MADV_POPULATE_WRITE);
    t->e = p;
    t->mapped = bytes;
    return 1;
}

static void table_free(Table *t) {
    if (!t->e) return;
    size_t bytes = t->mapped;
    if (!bytes) {
        free(t->e);
    } else {
        if (bytes <= cache_limit) cache_trim(bytes);
        if (cache_bytes + bytes <= cache_limit && cache_n < CACHE_SLOTS) {
            cache[cache_n].p = t->e;
            cache[cache_n++].bytes = bytes;
            cache_bytes += bytes;
        } else {
            munmap(t->e, bytes);
        }
    }
    t->e = NULL;
}

static Entry *table_slot(Table *t, uint64_t h1, uint64_t h2) {
    size_t i = (size_t)h1 & t->mask;
    for (;;) {
        Entry *e = &t->e[i];
        if ((e->h1 == h1 && e->h2 == h2) || (e->h1 == 0 && e->h2 == 0)) return e;
        i = (i + 1) & t->mask;
    }
}

/* Doubles the table. Each entry goes to a random slot of the new one: the slot of the
 * entry a few places on is fetched ahead, so that the misses overlap. */
static int table_grow(Table *t) {
    enum { AHEAD = 16 };
    Table bigger;
    if (!table_init(&bigger, (t->mask + 1) * 2)) return 0;
    for (size_t i = 0; i <= t->mask; i++) {
        if (i + AHEAD <= t->mask)
            __builtin_prefetch(&bigger.e[(size_t)t->e[i + AHEAD].h1 & bigger.mask], 1);
        Entry *e = &t->e[i];
        if (e->h1 || e->h2) *table_slot(&bigger, e->h1, e->h2) = *e;
    }
    bigger.used = t->used;
    table_free(t);
    *t = bigger;
    return 1;
}

/* ---- the search state (search.py's _Search) ---- */

typedef struct {
    int8_t cols[7][MAX_COL];
    int len[7], down[7], found[4];
    int8_t talon[MAX_TALON];
    int tlen, pos;
    int draw, vegas, d1n, eager, lift;
    uint64_t hidden, talon_bits;
    uint64_t raw[7][2], colh[7][2];
    uint64_t tmix[2];  /* the talon's part of the key (key_of), kept by apply/undo */
    /* By a column card's bit position (WHERE): the bit of the card under it, 0 for a
     * column's bottom card (the blocked check's ``under``); kept by apply/undo. */
    uint64_t under[56];
    Rng *rng;  /* the restarts' shuffling (NULL: moves in their usual order) */
} State;

static inline int top(const State *s, int i) { return s->len[i] ? s->cols[i][s->len[i] - 1] : -1; }

/* A column's hash goes through a bijective mixer before the state sums its columns:
 * a plain sum would give a card the same term on any column of the same height, so
 * moving it between two such columns would keep the state's hash. */
static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void rehash_col(State *s, int i) {
    for (int l = 0; l < 2; l++) {
        uint64_t h = ZD[l][s->down[i]];
        for (int k = 0; k < s->len[i]; k++) h += ZC[l][k][s->cols[i][k]];
        s->raw[i][l] = h;
        s->colh[i][l] = mix64(h);
    }
}

static inline void remix_talon(State *s) {
    s->tmix[0] = mix64(s->talon_bits ^ 0x5A5A5A5A5A5A5A5AULL);
    s->tmix[1] = mix64(s->talon_bits ^ 0xA5A5A5A5A5A5A5A5ULL);
}

/* Incremental updates of a column's unmixed hash (apply/undo), then remix. */
static inline void hash_add(State *s, int i, int k, int card) {
    s->raw[i][0] += ZC[0][k][card];
    s->raw[i][1] += ZC[1][k][card];
}

static inline void hash_sub(State *s, int i, int k, int card) {
    s->raw[i][0] -= ZC[0][k][card];
    s->raw[i][1] -= ZC[1][k][card];
}

static inline void hash_down(State *s, int i, int old) {
    s->raw[i][0] += ZD[0][s->down[i]] - ZD[0][old];
    s->raw[i][1] += ZD[1][s->down[i]] - ZD[1][old];
}

static inline void remix(State *s, int i) {
    s->colh[i][0] = mix64(s->raw[i][0]);
    s->colh[i][1] = mix64(s->raw[i][1]);
}


static int col_index(const State *s, int i, int card) {
    for (int k = 0; k < s->len[i]; k++)
        if (s->cols[i][k] == card) return k;
    return -1;
}

static int talon_index(const State *s, int card) {
    for (int k = 0; k < s->tlen; k++)
        if (s->talon[k] == card) return k;
    return -1;
}

static inline int won(const State *s) {
    return s->found[0] + s->found[1] + s->found[2] + s->found[3] == 52;
}

static int pos_class(const State *s) {
    if (s->d1n) return 0;
    int pos = s->pos, n = s->tlen;
    if (s->vegas) return pos == n ? END_CLASS : pos;
    if (s->draw == 3 && (pos % 3 == 0 || pos == n)) return 0;
    return pos;
}

/* talon_positions(): the positions p (1-based) the stock can bring up, fewest draws first. */
static int talon_positions(const State *s, int *out) {
    int n = s->tlen, pos = s->pos, count = 0;
    if (!n) return 0;
    if (s->draw == 1) {
        int from = pos > 1 ? pos : 1;
        for (int p = from; p <= n; p++) out[count++] = p;
        if (!s->vegas)
            for (int p = 1; p < from; p++) out[count++] = p;
        return count;
    }
    if (pos) out[count++] = pos;
    int p = pos;
    while (p < n) {
        p = p + 3 < n ? p + 3 : n;
        out[count++] = p;
    }
    if (!s->vegas) {
        int first = count;
        p = 0;
        while (p < n) {
            p = p + 3 < n ? p + 3 : n;
            int reached = 0;
            for (int q = 0; q < first; q++)
                if (out[q] == p) { reached = 1; break; }
            if (!reached) out[count++] = p;
        }
    }
    return count;
}

static inline int reaches(const State *s, int p) {
    int pos = s->pos;
    if (s->draw == 1) return !s->vegas || p >= pos;
    if (p == s->tlen || (p >= pos && p > 0 && (p - pos) % 3 == 0)) return 1;
    return !s->vegas && p % 3 == 0;
}

static Rec apply(State *s, Move m) {
    Rec r;
    r.m = m; r.flipped = 0; r.extra = 0;
    int kind = m.f.kind;
    if (kind == T2F) {
        int i = m.f.a;
        int card = s->cols[i][--s->len[i]];
        s->found[SUIT[card]]++;
        hash_sub(s, i, s->len[i], card);
        int flipped = s->down[i] > 0 && s->down[i] == s->len[i];
        if (flipped) {
            s->down[i]--;
            s->hidden ^= BIT[s->cols[i][s->len[i] - 1]];
            hash_down(s, i, s->down[i] + 1);
        }
        remix(s, i);
        r.card = (int8_t)card; r.flipped = (int8_t)flipped;
        return r;
    }
    if (kind == T2T) {
        int i = m.f.a, k = m.f.b, j = m.f.c;
        int card = s->cols[i][k], count = s->len[i] - k;
        s->under[WHERE[card]] = s->len[j] ? BIT[top(s, j)] : 0;
        for (int q = 0; q < count; q++) {
            int c = s->cols[i][k + q];
            hash_sub(s, i, k + q, c);
            hash_add(s, j, s->len[j] + q, c);
        }
        memcpy(&s->cols[j][s->len[j]], &s->cols[i][k], (size_t)count);
        s->len[j] += count;
        s->len[i] = k;
        int flipped = s->down[i] > 0 && s->down[i] == k;
        if (flipped) {
            s->down[i]--;
            s->hidden ^= BIT[s->cols[i][k - 1]];
            hash_down(s, i, s->down[i] + 1);
        }
        remix(s, i);
        remix(s, j);
        r.card = (int8_t)card; r.flipped = (int8_t)flipped; r.extra = (int8_t)count;
        return r;
    }
    if (kind == W2F || kind == W2T) {
        int p = m.f.a;
        int card = s->talon[p - 1];
        memmove(&s->talon[p - 1], &s->talon[p], (size_t)(s->tlen - p));
        s->tlen--;
        s->talon_bits ^= BIT[card];
        remix_talon(s);
        int old = s->pos;
        s->pos = p - 1;
        if (kind == W2F) {
            s->found[SUIT[card]]++;
        } else {
            int j = m.f.b;
            s->under[WHERE[card]] = s->len[j] ? BIT[top(s, j)] : 0;
            hash_add(s, j, s->len[j], card);
            s->cols[j][s->len[j]++] = (int8_t)card;
            remix(s, j);
        }
        r.card = (int8_t)card; r.extra = (int8_t)old;
        return r;
    }
    /* F2T */
    int su = m.f.a, j = m.f.b;
    s->found[su]--;
    int card = su * 13 + s->found[su];
    s->under[WHERE[card]] = s->len[j] ? BIT[top(s, j)] : 0;
    hash_add(s, j, s->len[j], card);
    s->cols[j][s->len[j]++] = (int8_t)card;
    remix(s, j);
    r.card = (int8_t)card;
    return r;
}

static void undo(State *s, const Rec *r) {
    Move m = r->m;
    int kind = m.f.kind, card = r->card;
    if (kind == T2F) {
        int i = m.f.a;
        if (r->flipped) {
            s->down[i]++;
            s->hidden |= BIT[s->cols[i][s->len[i] - 1]];
            hash_down(s, i, s->down[i] - 1);
        }
        s->under[WHERE[card]] = s->len[i] ? BIT[top(s, i)] : 0;
        hash_add(s, i, s->len[i], card);
        s->cols[i][s->len[i]++] = (int8_t)card;
        s->found[SUIT[card]]--;
        remix(s, i);
    } else if (kind == T2T) {
        int i = m.f.a, j = m.f.c, extra = r->extra;
        if (r->flipped) {
            s->down[i]++;
            s->hidden |= BIT[s->cols[i][s->len[i] - 1]];
            hash_down(s, i, s->down[i] - 1);
        }
        for (int q = 0; q < extra; q++) {
            int c = s->cols[j][s->len[j] - extra + q];
            hash_sub(s, j, s->len[j] - extra + q, c);
            hash_add(s, i, s->len[i] + q, c);
        }
        s->under[WHERE[card]] = s->len[i] ? BIT[top(s, i)] : 0;
        memcpy(&s->cols[i][s->len[i]], &s->cols[j][s->len[j] - extra], (size_t)extra);
        s->len[i] += extra;
        s->len[j] -= extra;
        remix(s, i);
        remix(s, j);
    } else if (kind == W2F || kind == W2T) {
        if (kind == W2F) {
            s->found[SUIT[card]]--;
        } else {
            int j = m.f.b;
            s->len[j]--;
            hash_sub(s, j, s->len[j], card);
            remix(s, j);
        }
        int p = m.f.a;
        memmove(&s->talon[p], &s->talon[p - 1], (size_t)(s->tlen - (p - 1)));
        s->talon[p - 1] = (int8_t)card;
        s->tlen++;
        s->talon_bits |= BIT[card];
        remix_talon(s);
        s->pos = r->extra;
    } else {
        int j = m.f.b;
        s->len[j]--;
        hash_sub(s, j, s->len[j], card);
        s->found[m.f.a]++;
        remix(s, j);
    }
}

static inline int safe_up(const State *s, int card) {
    int su = SUIT[card], r = RANK[card];
    const int *f = s->found;
    return f[su] == r - 1 &&
           (r == 1 || s->eager ||
            (f[OPP[su][0]] >= r - 1 && f[OPP[su][1]] >= r - 1 && f[SIB[su]] >= r - 2));
}

/* The records of the current line (a growable stack). */
typedef struct { Rec *v; size_t n, cap; } Recs;

static int recs_push(Recs *rs, Rec r) {
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 4096;
        Rec *v = realloc(rs->v, cap * sizeof(Rec));
        if (!v) return 0;
        rs->v = v;
        rs->cap = cap;
    }
    rs->v[rs->n++] = r;
    return 1;
}

static int auto_moves(State *s, Recs *records) {
    int talon_auto = s->draw == 1 || s->eager;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int i = 0; i < 7; i++) {
            while (s->len[i]) {
                if (safe_up(s, top(s, i))) {
                    if (!recs_push(records, apply(s, mv(T2F, i, 0, 0)))) return 0;
                    changed = 1;
                } else {
                    break;
                }
            }
        }
        if (talon_auto && s->tlen) {
            if (s->vegas || s->draw == 3) {
                if (s->pos && safe_up(s, s->talon[s->pos - 1])) {
                    if (!recs_push(records, apply(s, mv(W2F, s->pos, 0, 0)))) return 0;
                    changed = 1;
                }
            } else {
                for (int p = s->tlen; p >= 1; p--) {
                    if (safe_up(s, s->talon[p - 1])) {
                        if (!recs_push(records, apply(s, mv(W2F, p, 0, 0)))) return 0;
                        changed = 1;
                        break;
                    }
                }
            }
        }
    }
    return 1;
}

/* ---- the blocked check (search.py's _Search.blocked and _TalonFacts) ---- */

/* _TalonFacts of one talon order, cached by the talon's bit set (direct-mapped; see
 * key_of: the set names the order within a search): a search meets a few thousand
 * talons, and most checks follow a move that left the talon as it was. */
#define FACTS_SLOTS 4096
typedef struct {
    uint64_t talon;   /* the talon's bit set (0: empty slot; a talon of one card needs no facts) */
    uint64_t always, before[56], after_one[MAX_TALON + 1], after_two[MAX_TALON + 1], now[MAX_TALON + 1];
    uint32_t now_known;  /* bit p: now[p] computed */
    int8_t index[56];    /* valid for the talon's cards only, like before[] */
} Facts;

static const Facts *talon_facts(const State *s, Facts *cache) {
    Facts *f = &cache[mix64(s->talon_bits) & (FACTS_SLOTS - 1)];
    int n = s->tlen;
    if (f->talon != s->talon_bits) {
        f->talon = s->talon_bits;
        f->now_known = 0;
        int counting = !s->vegas && s->draw == 3;
        f->always = 0;
        for (int i = 0; i < n; i++) {
            int w = WHERE[s->talon[i]];
            f->index[w] = (int8_t)i;
            f->before[w] = i ? BIT[s->talon[i - 1]] : 0;
            if (counting && (i + 1) % 3 == 0) f->always |= BIT[s->talon[i]];
        }
        uint64_t one = 0, two = 0;
        f->after_one[n] = f->after_two[n] = 0;
        for (int i = n - 1; i >= 0; i--) {
            f->after_one[i] = one;
            f->after_two[i] = two;
            if (counting && (i + 1) % 3 == 1) one |= BIT[s->talon[i]];
            else if (counting && (i + 1) % 3 == 2) two |= BIT[s->talon[i]];
        }
    }
    if (!(f->now_known >> s->pos & 1)) {
        int ps[3 * MAX_TALON];
        int count = talon_positions(s, ps);
        uint64_t reached = 0;
        for (int q = 0; q < count; q++) reached |= BIT[s->talon[ps[q] - 1]];
        f->now[s->pos] = reached;
        f->now_known |= 1U << s->pos;
    }
    return f;
}

static int blocked(const State *s, Facts *cache) {
    uint64_t bottoms = 0, kings = 0;
    const uint64_t *under = s->under;
    const int *found = s->found;
    uint64_t on_foundations = ((1ULL << found[0]) - 1) | (((1ULL << found[1]) - 1) << 14) |
                              (((1ULL << found[2]) - 1) << 28) | (((1ULL << found[3]) - 1) << 42);
    uint64_t free_ = on_foundations;
    for (int i = 0; i < 7; i++) {
        int n = s->len[i];
        if (!n) {
            kings = KINGS;
            continue;
        }
        bottoms |= BIT[s->cols[i][0]];
        free_ |= BIT[s->cols[i][n - 1]];
    }
    /* Every card is in a column, the talon or on a foundation. */
    uint64_t in_column = ALL_CARDS & ~s->talon_bits & ~on_foundations;
    uint64_t face_up = in_column & ~s->hidden;
    uint64_t in_talon = s->talon_bits;
    int n = s->tlen;
    int restricted = !s->d1n && n > 1;
    const Facts *facts = NULL;
    uint64_t reached_now = 0;
    if (restricted) {
        /* Draw three or Vegas: only the cards the stock reaches now can be played until
         * a talon card leaves. (The facts are read for talon cards only.) */
        facts = talon_facts(s, cache);
        in_talon = reached_now = facts->now[s->pos];
    }
    uint64_t talon_left = 0, gone_before = 0;
    int first = n, second = n;
    uint64_t outside = on_foundations | in_talon;
    uint64_t left = 0;
    for (;;) {
        uint64_t red = (((free_ >> 14) | (free_ >> 28)) >> 1) & RANKS_BELOW_KING;
        uint64_t black = ((free_ | (free_ >> 42)) >> 1) & RANKS_BELOW_KING;
        uint64_t settle = kings | red | (red << 42) | (black << 14) | (black << 28);
        uint64_t grown = free_ | (in_talon & settle);
        uint64_t candidates = outside | grown;
        uint64_t up = ((candidates + ACES) & ~candidates) - ACES;
        if (up == ALL_CARDS) return 0;
        if (facts) {
            uint64_t leaves = in_talon & (settle | up) & ~talon_left;
            if (leaves) {
                talon_left |= leaves;
                while (leaves) {
                    uint64_t low = leaves & (~leaves + 1);
                    int w = __builtin_ctzll(low);
                    gone_before |= facts->before[w];
                    int i = facts->index[w];
                    if (i < first) {
                        second = first;
                        first = i;
                    } else if (i < second) {
                        second = i;
                    }
                    leaves ^= low;
                }
                uint64_t reached = reached_now | facts->always | gone_before | facts->after_one[first] |
                                   facts->after_two[second];
                if (reached != in_talon) {
                    in_talon = reached;
                    outside = on_foundations | in_talon;
                    free_ = grown;
                    continue;
                }
            }
        }
        uint64_t leaving = (((face_up | grown) & settle) | up) & in_column & ~left;
        left |= leaving;
        while (leaving) {
            uint64_t low = leaving & (~leaving + 1);
            grown |= under[__builtin_ctzll(low)];
            leaving ^= low;
        }
        if (!kings && (bottoms & left)) {
            kings = KINGS;
            free_ = grown;
            continue;
        }
        if (grown == free_) return 1;
        free_ = grown;
    }
}

static int new_needs(const State *s, Move m, const Rec *r) {
    int kind = m.f.kind;
    int j = kind == T2T ? m.f.c : m.f.b;
    const int8_t *col = s->cols[j];
    int n = s->len[j];
    int base = n - (kind == T2T ? r->extra : 1);
    if (base <= 0) return 0;
    uint64_t below = 0;
    for (int k = 0; k < base; k++) below |= BIT[col[k]];
    for (int k = base; k < n; k++) {
        int card = col[k];
        if (RANK[card] == 13) continue;
        int need = RANK[card] > 1 && (BIT[card - 1] & below) != 0;
        int free_ = 0;
        for (int q = 0; q < NPAR[card]; q++) {
            int p = PAR[card][q];
            if (BIT[p] & below) {
                if (p != col[k - 1]) need = 1;
            } else if (s->found[SUIT[p]] >= RANK[p] || (BIT[p] & s->talon_bits)) {
                free_ = 1;
            }
        }
        if (need && !free_) return 1;
    }
    return 0;
}

static int worth_checking(const State *s, Move m, const Rec *r) {
    int kind = m.f.kind;
    if (kind == W2F || kind == W2T) {
        if (!s->d1n) return 1;
        if (kind == W2F) return 0;
    } else if (kind == T2F) {
        return 0;
    }
    return new_needs(s, m, r);
}

/* ---- move generators ---- */

static int next_can_follow(const State *s, int card) {
    if (RANK[card] == 13) return 0;
    card += 1;
    if (BIT[card] & s->talon_bits) return 1;
    for (int i = 0; i < 7; i++) {
        int k = col_index(s, i, card);
        if (k >= 0) return k >= s->down[i];
    }
    return 0;
}

static void gen_moves(const State *s, MoveList *out) {
    int acc[52][7], nacc[52];
    memset(nacc, 0, sizeof nacc);
    int empty = -1;
    for (int j = 0; j < 7; j++) {
        if (s->len[j]) {
            int t = top(s, j);
            for (int q = 0; q < NACC[t]; q++) {
                int fit = ACC[t][q];
                acc[fit][nacc[fit]++] = j;
            }
        } else if (empty < 0) {
            empty = j;
        }
    }
    static MoveList flips, from_talon, emptying, other, backs;
    static int flip_d[MAX_MOVES];
    out->n = 0;
    flips.n = from_talon.n = emptying.n = other.n = backs.n = 0;
    for (int i = 0; i < 7; i++) {
        int n = s->len[i];
        if (!n) continue;
        int d = s->down[i];
        int t = top(s, i);
        if (s->found[SUIT[t]] == RANK[t] - 1) push(out, mv(T2F, i, 0, 0));
        for (int k = d; k < n; k++) {
            int x = s->cols[i][k];
            if (RANK[x] == 13) {
                if (empty >= 0 && k > 0) {
                    if (k == d) {
                        flip_d[flips.n] = d;
                        push(&flips, mv(T2T, i, k, empty));
                    } else {
                        push(&other, mv(T2T, i, k, empty));
                    }
                }
                continue;
            }
            for (int q = 0; q < nacc[x]; q++) {
                int j = acc[x][q];
                if (j == i) continue;
                if (k == d) {
                    if (d) {
                        flip_d[flips.n] = d;
                        push(&flips, mv(T2T, i, k, j));
                    } else {
                        push(&emptying, mv(T2T, i, k, j));
                    }
                } else {
                    push(&other, mv(T2T, i, k, j));
                }
            }
        }
    }
    int ps[3 * MAX_TALON];
    int count = talon_positions(s, ps);
    for (int q = 0; q < count; q++) {
        int p = ps[q];
        int c = s->talon[p - 1];
        if (s->found[SUIT[c]] == RANK[c] - 1 && (!s->d1n || next_can_follow(s, c))) push(out, mv(W2F, p, 0, 0));
        if (RANK[c] == 13) {
            if (empty >= 0) push(&from_talon, mv(W2T, p, empty, 0));
        } else {
            for (int r = 0; r < nacc[c]; r++) push(&from_talon, mv(W2T, p, acc[c][r], 0));
        }
    }
    for (int su = 0; su < (s->eager ? 0 : 4); su++) {
        int r = s->found[su];
        if (!r) continue;
        int c = su * 13 + r - 1;
        if (r == 13) {
            if (empty >= 0) push(&backs, mv(F2T, su, empty, 0));
        } else {
            for (int q = 0; q < nacc[c]; q++) push(&backs, mv(F2T, su, acc[c][q], 0));
        }
    }
    if (s->rng) {
        rng_shuffle(s->rng, flips.v, flip_d, flips.n);
        rng_shuffle(s->rng, from_talon.v, NULL, from_talon.n);
        rng_shuffle(s->rng, emptying.v, NULL, emptying.n);
        rng_shuffle(s->rng, other.v, NULL, other.n);
    } else
    /* flips.sort(key=face-down count, reverse=True): stable, most face-down first. */
    for (int a = 1; a < flips.n; a++) {
        Move m = flips.v[a];
        int d = flip_d[a], b = a - 1;
        while (b >= 0 && flip_d[b] < d) {
            flips.v[b + 1] = flips.v[b];
            flip_d[b + 1] = flip_d[b];
            b--;
        }
        flips.v[b + 1] = m;
        flip_d[b + 1] = d;
    }
    for (int q = 0; q < flips.n; q++) push(out, flips.v[q]);
    for (int q = 0; q < from_talon.n; q++) push(out, from_talon.v[q]);
    for (int q = 0; q < emptying.n; q++) push(out, emptying.v[q]);
    if (s->eager < 2)
        for (int q = 0; q < other.n; q++) push(out, other.v[q]);
    for (int q = 0; q < backs.n; q++) push(out, backs.v[q]);
}

static void ups_of(const State *s, int card, MoveList *out) {
    for (int j = 0; j < 7; j++)
        if (s->len[j] && top(s, j) == card) {
            push(out, mv(T2F, j, 0, 0));
            return;
        }
    if (BIT[card] & s->talon_bits) {
        int p = talon_index(s, card) + 1;
        if (reaches(s, p)) push(out, mv(W2F, p, 0, 0));
    }
}

static void kings_to_empty(const State *s, MoveList *out) {
    int e = -1;
    for (int j = 0; j < 7; j++)
        if (!s->len[j]) { e = j; break; }
    if (e < 0) return;
    for (int i = 0; i < 7; i++) {
        int from = s->down[i] > 1 ? s->down[i] : 1;
        for (int k = from; k < s->len[i]; k++)
            if (RANK[s->cols[i][k]] == 13) push(out, mv(T2T, i, k, e));
    }
    int ps[3 * MAX_TALON];
    int count = talon_positions(s, ps);
    for (int q = 0; q < count; q++)
        if (RANK[s->talon[ps[q] - 1]] == 13) push(out, mv(W2T, ps[q], e, 0));
    if (!s->eager)
        for (int su = 0; su < 4; su++)
            if (s->found[su] == 13) push(out, mv(F2T, su, e, 0));
}

static void moves_onto(const State *s, int t, int ob_kind, MoveList *out) {
    if (ob_kind == OB_EMPTY) {
        kings_to_empty(s, out);
        return;
    }
    if (ob_kind == OB_UP) {
        if (RANK[t] < 13) ups_of(s, t + 1, out);
        return;
    }
    if (ob_kind == OB_LIFT) {
        moves_onto(s, t, OB_EXPOSE, out);
        for (int q = 0; q < NACC[t]; q++) {
            int x = ACC[t][q];
            if (s->found[SUIT[x]] == RANK[x]) ups_of(s, x + 1, out);
        }
        return;
    }
    int j = -1;
    for (int q = 0; q < 7; q++)
        if (s->len[q] && top(s, q) == t) { j = q; break; }
    if (j < 0) return;
    int tb = ob_kind == OB_TB;
    int su = SUIT[t], r = RANK[t];
    if (!tb && s->found[su] == r - 1) push(out, mv(T2F, j, 0, 0));
    for (int q = 0; q < NACC[t]; q++) {
        int z = ACC[t][q];
        int zs = SUIT[z], zr = RANK[z], fz = s->found[zs];
        if (fz >= zr) {
            if (fz == zr && !s->eager) push(out, mv(F2T, zs, j, 0));
            continue;
        }
        if (BIT[z] & s->talon_bits) {
            int p = talon_index(s, z) + 1;
            if (reaches(s, p)) push(out, mv(W2T, p, j, 0));
            continue;
        }
        for (int i = 0; i < 7; i++) {
            int k = col_index(s, i, z);
            if (k >= 0) {
                if (i != j && k >= s->down[i]) push(out, mv(T2T, i, k, j));
                break;
            }
        }
    }
    if (tb && s->found[su] == r - 1 && r > 1 && !s->eager) {
        int below = t - 1;
        for (int jj = 0; jj < 7; jj++)
            if (s->len[jj] && fits_on(below, top(s, jj))) push(out, mv(F2T, su, jj, 0));
    }
}

static int delayable(const State *s, Move m) {
    int kind = m.f.kind;
    if (kind == F2T) return OB_TB;
    if (kind == T2T) {
        int k = m.f.b, d = s->down[m.f.a];
        if (k > d) return OB_EXPOSE;
        return d ? -1 : OB_EMPTY;
    }
    if (kind == T2F) {
        int n = s->len[m.f.a];
        return s->lift && n >= 2 && n - 2 >= s->down[m.f.a] ? OB_LIFT : -1;
    }
    if (s->d1n) {
        if (kind == W2T) return OB_EXPOSE;
        if (kind == W2F) return OB_UP;
    }
    return -1;
}

/* _onto_tops: head (kind, a[, b]) completed with every column j that can take card. */
static void onto_tops(const State *s, MoveList *out, int kind, int a, int b, int card, int source) {
    if (RANK[card] == 13) {
        for (int j = 0; j < 7; j++)
            if (!s->len[j]) {
                push(out, kind == T2T ? mv(kind, a, b, j) : mv(kind, a, j, 0));
                return;
            }
        return;
    }
    for (int j = 0; j < 7; j++)
        if (s->len[j] && j != source && fits_on(card, top(s, j)))
            push(out, kind == T2T ? mv(kind, a, b, j) : mv(kind, a, j, 0));
}

static void exposing(const State *s, int card, MoveList *out) {
    if (BIT[card] & s->talon_bits) {
        if (s->d1n) onto_tops(s, out, W2T, talon_index(s, card) + 1, 0, card, -1);
        return;
    }
    if (s->found[SUIT[card]] >= RANK[card]) return;
    for (int i = 0; i < 7; i++) {
        int q = col_index(s, i, card);
        if (q >= 0) {
            int n = s->len[i];
            if (s->down[i] <= q && q < n - 1) {
                onto_tops(s, out, T2T, i, q + 1, s->cols[i][q + 1], i);
                if (q == n - 2 && s->lift) {
                    int t = top(s, i);
                    if (s->found[SUIT[t]] == RANK[t] - 1) push(out, mv(T2F, i, 0, 0));
                }
            }
            return;
        }
    }
}

static void lifting(const State *s, int card, MoveList *out) {
    MoveList ups;
    ups.n = 0;
    ups_of(s, card, &ups);
    for (int q = 0; q < ups.n; q++)
        if (delayable(s, ups.v[q]) >= 0) push(out, ups.v[q]);
}

static void preparing(const State *s, int card, MoveList *out) {
    for (int i = 0; i < 7; i++) {
        int q = col_index(s, i, card);
        if (q >= 0) {
            if (q < s->down[i] || q == s->len[i] - 1 || RANK[s->cols[i][q + 1]] == 13) return;
            int run = s->cols[i][q + 1];
            for (int r = 0; r < NPAR[run]; r++) {
                int parent = PAR[run][r];
                if (s->found[SUIT[parent]] == RANK[parent])
                    onto_tops(s, out, F2T, SUIT[parent], 0, parent, -1);
                else
                    exposing(s, parent, out);
            }
            return;
        }
    }
}

static void pair_moves(const State *s, Ob ob, MoveList *out) {
    int a = ob.card, kind1 = ob.kind;
    if (kind1 == OB_EMPTY || s->eager) return;
    if (kind1 == OB_UP) {
        if (RANK[a] < 13) exposing(s, a + 1, out);
        return;
    }
    const int *found = s->found;
    int start = out->n;
    if (kind1 != OB_TB && RANK[a] > 1 && found[SUIT[a]] == RANK[a] - 2) lifting(s, a - 1, out);
    if (kind1 == OB_LIFT)
        for (int q = 0; q < NACC[a]; q++) {
            int x = ACC[a][q];
            if (found[SUIT[x]] == RANK[x]) exposing(s, x + 1, out);
        }
    int taken[8], ntaken = 0;
    for (int su = 0; su < 4; su++) {
        int r = found[su];
        if (r >= 2 && RANK[a] > 1 && fits_on(su * 13 + r - 2, a)) {
            int c = su * 13 + r - 1, dup = 0;
            for (int q = 0; q < ntaken; q++) dup |= taken[q] == c;
            if (!dup) taken[ntaken++] = c;
        }
    }
    if (kind1 == OB_TB && RANK[a] > 1) {
        int low = a - 1;
        for (int q = 0; q < NPAR[low]; q++) {
            int parent = PAR[low][q];
            int su = SUIT[parent], r = RANK[parent];
            if (found[su] == r) {
                int dup = 0;
                for (int z = 0; z < ntaken; z++) dup |= taken[z] == parent;
                if (!dup) taken[ntaken++] = parent;
                continue;
            }
            if (found[su] > r) continue;
            exposing(s, parent, out);
        }
    }
    for (int q = 0; q < ntaken; q++) onto_tops(s, out, F2T, SUIT[taken[q]], 0, taken[q], -1);
    if (kind1 == OB_LIFT) dedupe_from(out, start);  /* a move can both lift and expose */
}

static inline int can_go_up_in_a_chain(const State *s, int low, int card) {
    uint64_t between = BIT[card] - BIT[low];
    if (between & s->hidden) return 0;
    return s->d1n || !(between & s->talon_bits);
}

static void awaited(const State *s, Ob ob, int *low, int *first, int *second) {
    int card = ob.card, kind = ob.kind;
    const int *found = s->found;
    *low = *first = *second = -1;
    if (kind == OB_EXPOSE || kind == OB_LIFT) {
        int su = SUIT[card];
        *low = found[su] < RANK[card] - 1 ? su * 13 + found[su] : -1;
        if (*low >= 0 && !can_go_up_in_a_chain(s, *low, card)) *low = -1;
        if (kind == OB_LIFT && RANK[card] > 1) {
            int x = ACC[card][0], y = ACC[card][1];
            if (found[SUIT[x]] == RANK[x]) *first = x + 1;
            if (found[SUIT[y]] == RANK[y]) *second = y + 1;
        }
        return;
    }
    if (kind == OB_UP && RANK[card] < 13) *first = card + 1;
}

static void chain_starts(const State *s, Ob ob, MoveList *out) {
    if (s->eager) return;
    int low, first, second;
    awaited(s, ob, &low, &first, &second);
    if (low < 0 && first < 0 && second < 0) return;
    if (low >= 0) {
        if (RANK[low] < RANK[ob.card] - 1) lifting(s, low, out);
        exposing(s, low, out);
        preparing(s, low, out);
    }
    if (first >= 0) preparing(s, first, out);
    if (second >= 0) preparing(s, second, out);
    if (out->n > 1) dedupe(out);
}

static int target(const State *s, Move m) {
    int kind = m.f.kind, j;
    if (kind == T2T) j = m.f.c;
    else if (kind == W2T || kind == F2T) j = m.f.b;
    else return -1;
    return top(s, j);
}

static int discharges(const State *s, Move m, int tgt, Ob ob) {
    int t = ob.card, obk = ob.kind, kind = m.f.kind;
    if (obk == OB_EMPTY) {
        if (kind == T2T) return !s->len[m.f.c];
        return (kind == W2T || kind == F2T) && !s->len[m.f.b];
    }
    if (obk == OB_LIFT) {
        if (tgt == t) return 1;
        int card;
        if (kind == T2F) card = top(s, m.f.a);
        else if (kind == W2F) card = s->talon[m.f.a - 1];
        else return 0;
        int x = card - 1;
        return card == t || (RANK[card] > 1 && fits_on(x, t) && s->found[SUIT[x]] == RANK[x]);
    }
    if (obk == OB_UP) {
        if (kind == T2F) return top(s, m.f.a) == t + 1;
        return kind == W2F && s->talon[m.f.a - 1] == t + 1;
    }
    if (tgt == t) return 1;
    if (obk == OB_TB) return kind == F2T && m.f.a == SUIT[t] && s->found[m.f.a] == RANK[t] - 1;
    return kind == T2F && top(s, m.f.a) == t;
}

static void chain_moves(const State *s, Ob first, Ob second, MoveList *out) {
    Ob pairs[2][2] = {{first, second}, {second, first}};
    for (int w = 0; w < 2; w++) {
        Ob waiting = pairs[w][0], other = pairs[w][1];
        int low, uf, us;
        awaited(s, waiting, &low, &uf, &us);
        if (low < 0 && uf < 0 && us < 0) continue;
        MoveList steps;
        steps.n = 0;
        if (low >= 0) {
            lifting(s, low, &steps);
            exposing(s, low, &steps);
        }
        if (uf >= 0) exposing(s, uf, &steps);
        if (us >= 0) exposing(s, us, &steps);
        for (int q = 0; q < steps.n; q++) {
            int tg = target(s, steps.v[q]);
            if (discharges(s, steps.v[q], tg, other) && !discharges(s, steps.v[q], tg, waiting))
                push(out, steps.v[q]);
        }
    }
    if (out->n > 1) dedupe(out);
}

/* _reverse: the move that undoes m (just applied, turning no card up), or kind -1. */
static Move reverse_of(const State *s, Move m, const Rec *r) {
    Move none = mv(-1, 0, 0, 0);
    if (m.f.kind == T2T) {
        if (!m.f.b) return none;
        int j = m.f.c;
        return mv(T2T, j, s->len[j] - r->extra, m.f.a);
    }
    if (m.f.kind == T2F) {
        int i = m.f.a, card = r->card;
        return s->len[i] && fits_on(card, top(s, i)) ? mv(F2T, SUIT[card], i, 0) : none;
    }
    return none;
}

/* ---- the depth-first search (search.py's _DepthFirst.run) ---- */

typedef struct {
    size_t moves_start;
    int count, index, npending, not_blocked;
    Ob pending[MAX_PENDING];
} Frame;

typedef struct {
    PyObject_HEAD
    State s;
    int level, chains, check_blocks, narrow_talon, skip_covered;
    long long lift_after, nodes;
    int check, probe, cutting, result;
    uint64_t dominating[54];
    Table visited;
    Frame *stack;
    size_t depth, stack_cap;
    Move *arena;
    size_t arena_n, arena_cap;
    Recs recs;
    Rng rng;
    Facts *facts;  /* the blocked check's talon facts (FACTS_SLOTS) */
    size_t *path;  /* per frame after the root: where its records start in recs */
    size_t path_cap;
} Core;

static int arena_reserve(Core *self, size_t extra) {
    if (self->arena_n + extra <= self->arena_cap) return 1;
    size_t cap = self->arena_cap ? self->arena_cap : 65536;
    while (cap < self->arena_n + extra) cap *= 2;
    Move *v = realloc(self->arena, cap * sizeof(Move));
    if (!v) return 0;
    self->arena = v;
    self->arena_cap = cap;
    return 1;
}

static int push_frame(Core *self, const MoveList *moves, const Ob *pending, int npending) {
    if (self->depth == self->stack_cap) {
        size_t cap = self->stack_cap ? self->stack_cap * 2 : 1024;
        Frame *v = realloc(self->stack, cap * sizeof(Frame));
        size_t *p = realloc(self->path, cap * sizeof(size_t));
        if (!v || !p) {
            if (v) self->stack = v;
            if (p) self->path = p;
            return 0;
        }
        self->stack = v;
        self->path = p;
        self->stack_cap = cap;
    }
    if (!arena_reserve(self, (size_t)moves->n)) return 0;
    Frame *f = &self->stack[self->depth++];
    f->moves_start = self->arena_n;
    f->count = moves->n;
    f->index = 0;
    f->not_blocked = 0;
    f->npending = npending;
    for (int q = 0; q < npending; q++) f->pending[q] = pending[q];
    memcpy(&self->arena[self->arena_n], moves->v, (size_t)moves->n * sizeof(Move));
    self->arena_n += (size_t)moves->n;
    return 1;
}

static void candidates(Core *self, const Ob *pending, int npending, MoveList *out) {
    State *s = &self->s;
    out->n = 0;
    if (!npending) {
        gen_moves(s, out);
        return;
    }
    Ob first = pending[0];
    moves_onto(s, first.card, first.kind, out);
    if (npending == 2) {
        Ob second = pending[1];
        int n = 0;
        for (int q = 0; q < out->n; q++)
            if (discharges(s, out->v[q], target(s, out->v[q]), second)) out->v[n++] = out->v[q];
        out->n = n;
        if (self->chains) {
            static MoveList more;
            more.n = 0;
            chain_moves(s, first, second, &more);
            for (int q = 0; q < more.n; q++) push(out, more.v[q]);
        }
        return;
    }
    static MoveList extra, starts;
    extra.n = 0;
    pair_moves(s, first, &extra);
    if (self->chains) {
        starts.n = 0;
        chain_starts(s, first, &starts);
        if (starts.n) {
            for (int q = 0; q < starts.n; q++) push(&extra, starts.v[q]);
            dedupe(&extra);
        }
    }
    for (int q = 0; q < extra.n; q++) push(out, extra.v[q]);
}

/* The state's 128-bit key. Within one search the talon is always the root's talon
 * with some cards gone (a talon card only leaves it, and undo puts it back in place),
 * so its bit set names it exactly. */
static void key_of(const State *s, uint64_t *h1, uint64_t *h2) {
    uint64_t a = s->tmix[0], b = s->tmix[1];
    for (int i = 0; i < 7; i++) {
        a += s->colh[i][0];
        b += s->colh[i][1];
    }
    *h1 = a;
    *h2 = b;
}

static void release(Core *self) {
    free(self->facts);
    self->facts = NULL;
    table_free(&self->visited);
    self->visited.mask = 0;
    free(self->stack);
    self->stack = NULL;
    self->depth = self->stack_cap = 0;
    free(self->arena);
    self->arena = NULL;
    self->arena_n = self->arena_cap = 0;
}

static void undo_from(Core *self, size_t start) {
    while (self->recs.n > start) {
        self->recs.n--;
        undo(&self->s, &self->recs.v[self->recs.n]);
    }
}

/* Search on until a win, the end of the space, node_limit, or 1024 nodes since the
 * last tick (ST_TICK: the caller reads its clock and calls again). */
static int search_run(Core *self, long long node_limit, long long *checks_io, long long *prunes_io) {
    State *s = &self->s;
    long long checks = *checks_io, prunes = *prunes_io;
    long long nodes = self->nodes;
    int status = ST_LOSE;
    static MoveList following;
    s->lift = 0 <= self->lift_after && self->lift_after <= nodes;
    while (self->depth) {
        Frame *frame = &self->stack[self->depth - 1];
        if (frame->index >= frame->count) {
            self->arena_n = frame->moves_start;
            self->depth--;
            if (self->depth) undo_from(self, self->path[self->depth]);  /* the popped frame's records */
            if (self->cutting) {
                if (self->depth && blocked(s, self->facts)) {
                    Frame *under = &self->stack[self->depth - 1];
                    under->index = under->count;
                } else {
                    self->cutting = 0;
                }
            }
            continue;
        }
        Move move = self->arena[frame->moves_start + (size_t)frame->index];
        frame->index++;
        Ob left[MAX_PENDING + 1];
        int nleft = 0;
        if (frame->npending) {
            int tgt = target(s, move);
            for (int q = 0; q < frame->npending; q++)
                if (!discharges(s, move, tgt, frame->pending[q])) left[nleft++] = frame->pending[q];
        }
        int ob_kind = delayable(s, move);
        size_t rec_start = self->recs.n;
        Rec record = apply(s, move);
        /* The table slot is a cache miss on a large table: fetch it while the blocked
         * check and the safe moves run (wasted only when safe moves follow). */
        uint64_t h1, h2;
        key_of(s, &h1, &h2);
        __builtin_prefetch(&self->visited.e[(size_t)h1 & self->visited.mask]);
        if (!recs_push(&self->recs, record)) {
            PyErr_NoMemory();
            return -1;
        }
        /* The rules leave at most two obligations pending before a move adds one
         * (search.py, "Obligations"), so MAX_PENDING is never reached. */
        if (ob_kind >= 0 && nleft < MAX_PENDING) {
            Ob ob;
            ob.kind = (int8_t)ob_kind;
            if (ob_kind == OB_EMPTY) ob.card = 0;
            else if (ob_kind == OB_UP) ob.card = record.card;
            else if (ob_kind == OB_LIFT) ob.card = (int8_t)top(s, move.f.a);
            else ob.card = (int8_t)top(s, move.f.kind == T2T ? move.f.a : move.f.b);
            left[nleft++] = ob;
        }
        nodes++;
        int kind = move.f.kind;
        int talon_move = self->narrow_talon && (kind == W2F || kind == W2T);
        if (self->check_blocks && (talon_move || (kind != T2F && kind != W2F))) {
            self->probe++;
            if (prunes * BLOCKED_MIN_RATE >= checks || self->probe >= BLOCKED_PROBE) {
                self->probe = 0;
                if (worth_checking(s, move, &record)) {
                    checks++;
                    if (checks >= BLOCKED_WINDOW) {
                        checks >>= 1;
                        prunes >>= 1;
                    }
                    if (blocked(s, self->facts)) {
                        prunes++;
                        undo_from(self, rec_start);
                        if (!frame->not_blocked) {
                            if (blocked(s, self->facts)) {
                                frame->index = frame->count;
                                self->cutting = 1;
                            } else {
                                frame->not_blocked = 1;
                            }
                        }
                        continue;
                    }
                }
            }
        }
        if (!nleft) {
            if (!auto_moves(s, &self->recs)) {
                PyErr_NoMemory();
                return -1;
            }
            if (won(s)) {
                status = ST_WIN;
                break;
            }
        }
        if (self->recs.n != rec_start + 1) key_of(s, &h1, &h2);  /* safe moves followed */
        int pc = pos_class(s);
        uint64_t dom = self->dominating[pc];
        Entry *e = table_slot(&self->visited, h1, h2 | 1);
        uint64_t seen = e->h1 || e->h2 ? e->classes : 0;
        if (nleft && !(self->skip_covered && (seen & dom))) {
            for (int q = 0; q < nleft; q++) {
                h1 += ZO[0][left[q].card][left[q].kind];
                h2 += ZO[1][left[q].card][left[q].kind];
            }
            e = table_slot(&self->visited, h1, h2 | 1);
            seen = e->h1 || e->h2 ? e->classes : 0;
        }
        if (seen & dom) {
            undo_from(self, rec_start);
        } else {
            if (!(e->h1 || e->h2)) {
                e->h1 = h1;
                e->h2 = h2 | 1;
                self->visited.used++;
            }
            e->classes = seen | (1ULL << pc);
            if (self->visited.used * 10 > (self->visited.mask + 1) * 7 && !table_grow(&self->visited)) {
                PyErr_NoMemory();
                return -1;
            }
            candidates(self, left, nleft, &following);
            if (nleft && !frame->npending && self->skip_covered && !record.flipped) {
                Move back = reverse_of(s, move, &record);
                if (back.f.kind >= 0)
                    for (int q = 0; q < following.n; q++)
                        if (following.v[q].w == back.w) {
                            memmove(&following.v[q], &following.v[q + 1],
                                    (size_t)(following.n - q - 1) * sizeof(Move));
                            following.n--;
                            break;
                        }
            }
            if (!push_frame(self, &following, left, nleft)) {
                PyErr_NoMemory();
                return -1;
            }
            self->path[self->depth - 1] = rec_start;
        }
        self->check++;
        if (self->check >= 1024) {
            self->check = 0;
            if (0 <= self->lift_after && self->lift_after <= nodes) s->lift = 1;
            status = 0 <= node_limit && node_limit <= nodes ? ST_UNKNOWN : ST_TICK;
            break;
        } else if (0 <= node_limit && node_limit <= nodes) {
            status = ST_UNKNOWN;
            break;
        }
    }
    self->nodes = nodes;
    *checks_io = checks;
    *prunes_io = prunes;
    if (status == ST_WIN || status == ST_LOSE) {
        self->result = status;
        release(self);
    }
    return status;
}

/* ---- the Python type ---- */

/* seq as a fast sequence of exactly n items; else NULL with a ValueError saying `expected`. */
static PyObject *sequence_of(PyObject *seq, Py_ssize_t n, const char *expected) {
    PyObject *fast = PySequence_Fast(seq, expected);
    if (fast && PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, expected);
        return NULL;
    }
    return fast;
}

static int read_ints(PyObject *seq, int *out, int max, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > max) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: too many items", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static void Core_dealloc(Core *self) {
    release(self);
    free(self->recs.v);
    free(self->path);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Core(cols, down, found, talon, pos, draw, vegas, level, lift_after, skip_covered,
 *      dominating, seed=-1): the search from a position where the root's safe moves are
 *      made; seed >= 0 shuffles the move groups as random.Random(seed).shuffle does. */
static int Core_init(Core *self, PyObject *args, PyObject *kwds) {
    PyObject *cols, *down, *found, *talon, *dominating;
    int pos, draw, vegas, level, skip_covered;
    long long lift_after, seed = -1;
    static char *names[] = {"cols", "down", "found", "talon", "pos", "draw", "vegas", "level",
                            "lift_after", "skip_covered", "dominating", "seed", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOiiiiLpO|L", names, &cols, &down, &found, &talon, &pos,
                                     &draw, &vegas, &level, &lift_after, &skip_covered, &dominating, &seed))
        return -1;
    if (seed > 0xFFFFFFFFLL) {
        PyErr_SetString(PyExc_ValueError, "Core: seed must be below 2**32");
        return -1;
    }
    release(self);
    State *s = &self->s;
    memset(s, 0, sizeof *s);
    int buf[64];
    PyObject *fast = sequence_of(cols, 7, "cols: seven columns expected");
    if (!fast) return -1;
    for (int i = 0; i < 7; i++) {
        int n = read_ints(PySequence_Fast_GET_ITEM(fast, i), buf, MAX_COL - 1, "column");
        if (n < 0) {
            Py_DECREF(fast);
            return -1;
        }
        for (int k = 0; k < n; k++) {
            if (buf[k] < 0 || buf[k] > 51) {
                Py_DECREF(fast);
                goto bad;
            }
            s->cols[i][k] = (int8_t)buf[k];
        }
        s->len[i] = n;
    }
    Py_DECREF(fast);
    if (0) {
    bad:
        PyErr_SetString(PyExc_ValueError, "Core: not a Klondike position");
        return -1;
    }
    if (read_ints(down, s->down, 7, "down") != 7 || read_ints(found, s->found, 4, "found") != 4) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "down/found: wrong length");
        return -1;
    }
    int n = read_ints(talon, buf, MAX_TALON - 1, "talon");
    if (n < 0) return -1;
    for (int k = 0; k < n; k++) {
        if (buf[k] < 0 || buf[k] > 51) goto bad;
        s->talon[k] = (int8_t)buf[k];
    }
    s->tlen = n;
    /* The state must be a real position: every index below relies on it. */
    int seen[52] = {0}, cards = 0;
    for (int i = 0; i < 7; i++) {
        if (s->down[i] < 0 || s->down[i] > s->len[i] || (s->len[i] && s->down[i] == s->len[i])) goto bad;
        for (int k = 0; k < s->len[i]; k++) {
            int c = s->cols[i][k];
            if (c < 0 || c > 51 || seen[c]++) goto bad;
            cards++;
        }
    }
    for (int k = 0; k < n; k++) {
        int c = s->talon[k];
        if (c < 0 || c > 51 || seen[c]++) goto bad;
        cards++;
    }
    for (int su = 0; su < 4; su++) {
        if (s->found[su] < 0 || s->found[su] > 13) goto bad;
        cards += s->found[su];
    }
    if (cards != 52 || pos < 0 || pos > n || (draw != 1 && draw != 3) || level < 0 || level > 2) goto bad;
    s->pos = pos;
    s->draw = draw;
    s->vegas = vegas;
    s->d1n = draw == 1 && !vegas;
    s->eager = level;
    s->lift = 0;
    if (seed >= 0) {
        rng_seed(&self->rng, (uint32_t)seed);
        s->rng = &self->rng;
    }
    for (int i = 0; i < 7; i++) {
        for (int k = 0; k < s->down[i]; k++) s->hidden |= BIT[s->cols[i][k]];
        for (int k = 0; k < s->len[i]; k++) s->under[WHERE[s->cols[i][k]]] = k ? BIT[s->cols[i][k - 1]] : 0;
        rehash_col(s, i);
    }
    for (int k = 0; k < n; k++) s->talon_bits |= BIT[s->talon[k]];
    remix_talon(s);
    PyObject *dom = sequence_of(dominating, 54, "dominating: 54 classes expected");
    if (!dom) return -1;
    for (int q = 0; q < 54; q++) {
        self->dominating[q] = PyLong_AsUnsignedLongLongMask(PySequence_Fast_GET_ITEM(dom, q));
        if (PyErr_Occurred()) {
            Py_DECREF(dom);
            return -1;
        }
    }
    Py_DECREF(dom);
    self->level = level;
    self->chains = !level;
    self->check_blocks = level == 0 || draw == 3;
    self->narrow_talon = !s->d1n;
    self->skip_covered = skip_covered;
    self->lift_after = lift_after;  /* the caller's: -1 for the streamlined searches */
    self->nodes = 1;
    self->check = self->probe = self->cutting = 0;
    self->recs.n = 0;
    self->result = won(s) ? ST_WIN : ST_UNKNOWN;
    self->facts = calloc(FACTS_SLOTS, sizeof(Facts));
    if (!self->facts || !table_init(&self->visited, 1 << 16)) {
        PyErr_NoMemory();
        return -1;
    }
    uint64_t h1, h2;
    key_of(s, &h1, &h2);
    Entry *e = table_slot(&self->visited, h1, h2 | 1);
    e->h1 = h1;
    e->h2 = h2 | 1;
    e->classes = 1ULL << pos_class(s);
    self->visited.used = 1;
    if (self->result == ST_UNKNOWN) {
        static MoveList root;
        root.n = 0;
        gen_moves(s, &root);
        if (!push_frame(self, &root, NULL, 0)) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* run(node_limit, checks, prunes) -> (status, checks, prunes); status 0 unknown (node
 * limit), 1 win, 2 lose, 3 tick (1024 nodes: read the clock and call again). */
static PyObject *Core_run(Core *self, PyObject *args) {
    long long node_limit, checks, prunes;
    if (!PyArg_ParseTuple(args, "LLL", &node_limit, &checks, &prunes)) return NULL;
    int status;
    if (self->result != ST_UNKNOWN) {
        status = self->result;
    } else {
        status = search_run(self, node_limit, &checks, &prunes);
        if (status < 0) return NULL;
    }
    return Py_BuildValue("iLL", status, checks, prunes);
}

static PyObject *move_tuple(Move m) {
    switch (m.f.kind) {
    case T2F:
    case W2F:
        return Py_BuildValue("(ii)", m.f.kind, m.f.a);
    case T2T:
        return Py_BuildValue("(iiii)", m.f.kind, m.f.a, m.f.b, m.f.c);
    default:
        return Py_BuildValue("(iii)", m.f.kind, m.f.a, m.f.b);
    }
}

/* line() -> the undo records of the winning line after the root's: (move, card, flipped, extra). */
static PyObject *Core_line(Core *self, PyObject *unused) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (size_t q = 0; q < self->recs.n; q++) {
        Rec *r = &self->recs.v[q];
        PyObject *m = move_tuple(r->m);
        if (!m) {
            Py_DECREF(out);
            return NULL;
        }
        PyObject *item = Py_BuildValue("(NiOi)", m, r->card, r->flipped ? Py_True : Py_False, r->extra);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

static PyObject *Core_get_nodes(Core *self, void *closure) { return PyLong_FromLongLong(self->nodes); }

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_get_nodes, NULL, "positions generated", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Core_methods[] = {
    {"run", (PyCFunction)Core_run, METH_VARARGS, "run(node_limit, checks, prunes) -> (status, checks, prunes)"},
    {"line", (PyCFunction)Core_line, METH_NOARGS, "the winning line's undo records"},
    {NULL, NULL, 0, NULL},
};

/* table_cache(limit=-1) -> (limit, bytes, hits, misses): the table memory kept for
 * reuse (above) and how often a table found some; limit >= 0 frees what is kept and
 * sets the bound (0: keep none). */
static PyObject *table_cache(PyObject *module, PyObject *args) {
    long long limit = -1;
    if (!PyArg_ParseTuple(args, "|L", &limit)) return NULL;
    if (limit >= 0) {
        cache_limit = (size_t)limit;
        cache_trim(0);
    }
    return Py_BuildValue("nnLL", (Py_ssize_t)cache_limit, (Py_ssize_t)cache_bytes, cache_hits, cache_misses);
}

static PyMethodDef module_methods[] = {
    {"table_cache", table_cache, METH_VARARGS, "table_cache(limit=-1) -> (limit, bytes, hits, misses)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "solver._core.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "search.py's complete depth-first search, in C",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "solver._core", "search.py's depth-first search in C", -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    init_tables();
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0 ||
        PyModule_AddIntConstant(m, "UNKNOWN", ST_UNKNOWN) < 0 || PyModule_AddIntConstant(m, "WIN", ST_WIN) < 0 ||
        PyModule_AddIntConstant(m, "LOSE", ST_LOSE) < 0 || PyModule_AddIntConstant(m, "TICK", ST_TICK) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
