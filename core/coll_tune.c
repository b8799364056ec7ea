/*
** coll_tune.c: NCCL's tuner rules that pick a collective algorithm where
** they differ from podsim's own times (see coll_int.h, docs/design.md 4).
** Facts from NVIDIA/nccl at 2.28.7 (ae7aed19): src/graph/search.cc,
** src/graph/tuning.cc, src/include/device.h; podsim's own model, no NCCL
** code.
*/
#include "coll_int.h"

/* NCCL's per-channel search speeds on NVLink, GB/s (src/graph/search.cc,
** sm100SpeedArrayIntra and sm90SpeedArrayIntra, NCCL 2.27.3 and 2.28.7;
** 2.28.9 adds 45 to the first, which changes no choice below).  The
** search tries them from the top and keeps the first that fits. */
static const double SPEED_SM100[] = {90, 80, 70, 60, 50, 40,
                                     30, 24, 20, 19, 18};
static const double SPEED_SM90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
/* Their inverses: this runs on every `auto` all-reduce inside a domain,
** and a division costs as much as the rest of the rule. */
static const double INV_SM100[] = {1.0 / 90, 1.0 / 80, 1.0 / 70, 1.0 / 60,
                                   1.0 / 50, 1.0 / 40, 1.0 / 30, 1.0 / 24,
                                   1.0 / 20, 1.0 / 19, 1.0 / 18};
static const double INV_SM90[] = {1.0 / 60, 1.0 / 50, 1.0 / 40, 1.0 / 30,
                                  1.0 / 24, 1.0 / 20, 1.0 / 15, 1.0 / 12,
                                  1.0 / 11, 1.0 / 6,  1.0 / 3};
#define NSPEED_SM100 ((int)(sizeof SPEED_SM100 / sizeof SPEED_SM100[0]))
#define NSPEED_SM90 ((int)(sizeof SPEED_SM90 / sizeof SPEED_SM90[0]))
/* NCCL_MAX_NVLS_ARITY: see coll_int.h */
#define NVLS_MAX_HEADS POD_COLL__NVLS_MAX_HEADS

/* The ring graph's bandwidth as NCCL's search finds it on an NVSwitch
** domain whose GPUs have L GB/s of NVLink: each channel takes one speed
** s out of and into every GPU, so floor(L / s) channels fit; the search
** keeps the best channels x s from the first speed that fits down to
** half of it (the .49 rule of ncclTopoCompute), at most 32 channels
** (MAXCHANNELS / 2). */
static double ring_graph_GBps(const double *sp, const double *inv, int ns,
                              double L, double *ch, double *speed) {
  double best = 0.0, first = 0.0;
  *ch = 0.0;
  *speed = 0.0;
  for (int i = 0; i < ns; i++) {
    if (sp[i] > L) continue;
    if (first > 0.0 && sp[i] <= 0.49 * first) break;
    /* floor(L / s) by truncation (no libm call), exact after the fix-up */
    double x = L * inv[i];
    if (x > 64.0) x = 64.0; /* capped at 32 below; no overflow */
    double c = (double)(long long)x;
    if ((c + 1.0) * sp[i] <= L) c += 1.0;
    if (c * sp[i] > L) c -= 1.0;
    if (c > 32.0) c = 32.0;
    if (first == 0.0) first = sp[i];
    if (c * sp[i] > best) best = c * sp[i], *ch = c, *speed = sp[i];
  }
  return best;
}

/* NCCL's tuner bandwidth of NVLS all-reduce on one domain, GB/s, from its
** NVLS graph (src/graph/search.cc, ncclTopoSearchTryNvls and the NVLS
** branch of ncclTopoCompute; src/graph/tuning.cc, ncclTopoTuneModel, at
** NCCL 2.28.7 ae7aed19): h = min(n, 32) head channels; each channel
** pulls bwIntra from every GPU and twice from its head, so a head's link
** carries (h + 1) bwIntra <= L; the search starts at the first speed s
** with s h <= L n / (n - 1) and keeps the first that fits; then it raises
** bwInter (unused inside a domain) step by step while it is below twice
** bwIntra.  The tuner rates NVLS at h x min(bwIntra x e x 2 (h-1)/h,
** bwInter), e its nvlsEfficiency (Hopper 0.85, Blackwell 0.74), and the
** ring at its graph's channels x speed; both convert to algbw by the
** same n / 2(n-1).  So 4 Blackwell GPUs rate NVLS at 4 x 90 = 360 GB/s
** against the ring's 720: NCCL runs the ring there, and NVLS from 8
** GPUs (8 x 90 = 720, ahead on latency) to 72 (32 heads: 917). */
static double nvls_tuner_GBps(const double *sp, int ns, double e, int n,
                              double L) {
  int h = n < NVLS_MAX_HEADS ? n : NVLS_MAX_HEADS;
  if (h < 2) return 0.0; /* NVLS needs at least 2 channels */
  double hh = (double)h, start = L * (double)n; /* s h (n-1) <= L n */
  int i = 0;
  while (i < ns - 1 && (sp[i] > L || sp[i] * hh * (double)(n - 1) > start)) i++;
  while (i < ns - 1 && sp[i] * (hh + 1.0) > L) i++;
  if (sp[i] * (hh + 1.0) > L) return 0.0; /* no graph */
  int j = i;
  while (j > 0 && sp[j] < 2.0 * sp[i]) j--;
  /* h x min(bwIntra e 2 (h-1)/h, bwInter) */
  double intra = sp[i] * e * 2.0 * (hh - 1.0), inter = hh * sp[j];
  return intra < inter ? intra : inter;
}

/* The NVLS plan's inverse rate multiplier as NCCL's tuner sees it,
** relative to the ring's rate: the ring's graph bandwidth over NVLS's
** (see nvls_tuner_GBps), with L the GPU's achievable NVLink rate (NCCL's
** topology credit; for NVLink5 the fitted up_eff: at NCCL's own 721.8
** GB/s the choices from 2 to 72 ranks are the same).  The ladder and
** efficiency are Blackwell's for a GPU with fp4, else Hopper's. */
double pod_coll__nvls_tuner_div(const pod_system *s, int n) {
  int bw = s->gpu.fp4_tflops > 0.0;
  const double *sp = bw ? SPEED_SM100 : SPEED_SM90;
  const double *inv = bw ? INV_SM100 : INV_SM90;
  int ns = bw ? NSPEED_SM100 : NSPEED_SM90;
  double L = s->up_GBps * s->up_eff;
  double nv = nvls_tuner_GBps(sp, ns, bw ? 0.74 : 0.85, n, L);
  double ch, speed;
  double ring = ring_graph_GBps(sp, inv, ns, L, &ch, &speed);
  if (!(nv > 0.0) || !(ring > 0.0)) return 1e30; /* NCCL: no NVLS graph */
  return ring / nv;
}

/* ---- multi-node all-reduce: NCCL 2.28.9's tuner ratings ---------------- */
/* NVIDIA/nccl 2.28.9 (dbc86fd0), facts only: the graph search
** (src/graph/search.cc: ncclTopoCompute, the inter-node speed arrays,
** ncclTopoDupChannels) and the tuner (src/graph/tuning.cc:
** ncclTopoTuneModel, perChMaxTreeBws, perChMaxNVLSTreeBws,
** nvlsEfficiency).  podsim's model of the search's outcome on a
** symmetric node (every GPU alike on one NVSwitch), not a port of it. */

/* Per-channel search speeds across nodes, GB/s (sm100SpeedArrayInter,
** sm90SpeedArrayInter, speedArrayInter), with their inverses: the search
** below runs on every evaluation across domains, and a division costs as
** much as the rest of an iteration. */
#define SM100_INTER(X)                                                      \
  X(96), X(48), X(45.1), X(42), X(40), X(30), X(24), X(22), X(20), X(17.5), \
      X(15), X(12), X(6), X(3), X(2.4), X(1.2), X(0.24), X(0.12)
#define SM90_INTER(X)                                                     \
  X(48), X(45), X(42), X(40), X(30), X(24), X(22), X(20), X(17.5), X(15), \
      X(12), X(6), X(3), X(2.4), X(1.2), X(0.24), X(0.12)
#define SM80_INTER(X)                                                        \
  X(48), X(30), X(28), X(24), X(20), X(18), X(15), X(12), X(10), X(9), X(7), \
      X(6), X(5), X(4), X(3), X(2.4), X(1.2), X(0.24), X(0.12)
#define SPEED_OF(v) v
#define INV_OF(v) 1.0 / v
static const double INTER_SM100[] = {SM100_INTER(SPEED_OF)};
static const double INTER_SM90[] = {SM90_INTER(SPEED_OF)};
static const double INTER_SM80[] = {SM80_INTER(SPEED_OF)};
static const double IINTER_SM100[] = {SM100_INTER(INV_OF)};
static const double IINTER_SM90[] = {SM90_INTER(INV_OF)};
static const double IINTER_SM80[] = {SM80_INTER(INV_OF)};
#undef SPEED_OF
#undef INV_OF
typedef struct speeds {
  const double *sp, *inv;
  int n;
} speeds;
#define SPEEDS(a, i) \
  { a, i, (int)(sizeof a / sizeof a[0]) }
static const speeds INTER[3] = {SPEEDS(INTER_SM80, IINTER_SM80),
                                SPEEDS(INTER_SM90, IINTER_SM90),
                                SPEEDS(INTER_SM100, IINTER_SM100)};
/* perChMaxTreeBws and perChMaxNVLSTreeBws at 2 nodes and at 4+ (N2, N4
** columns; 3 nodes read N4), Ampere / Hopper / Blackwell; nvlsEfficiency. */
static const double TREE_MAX[3][2] = {{23.6, 17.8}, {41.4, 36.0}, {42.8, 24.0}};
static const double NVLSTREE_MAX[3][2] = {{0, 0}, {57.7, 45.5}, {96.0, 43.8}};
static const double NVLS_EFF[3] = {0.0, 0.85, 0.74};
/* NCCL's topology credit per NVLink over its line rate (src/graph/topo.h:
** SM80_NVLINK_BW 20.0 and SM90_NVLINK_BW 20.6 of 25 GB/s, SM100_NVLINK_BW
** 40.1 of 50): the search budgets this, not podsim's achieved up_eff. */
static const double NVLINK_CREDIT[3] = {20.0 / 25.0, 20.6 / 25.0, 40.1 / 50.0};
#define RING_MAX_CHANNELS 32.0 /* MAXCHANNELS / 2 */

/* floor(x / s) for x >= 0 from x * (1 / s), exact after the fix-up */
static inline double floor_div(double x, double s, double inv) {
  double q = x * inv;
  if (q > 64.0) return 64.0; /* every caller caps at 32 */
  double c = (double)(long long)q;
  if ((c + 1.0) * s <= x) c += 1.0;
  if (c * s > x) c -= 1.0;
  return c;
}

/* Ring (and tree) channels at speed s: each crosses every GPU's NVLink
** once (floor(L / s)) and one NIC each way (floor(nic / s) per NIC). */
static inline double ring_fit(double L, double nic, double nics,
                              const speeds *t, int i) {
  double s = t->sp[i], c = floor_div(L, s, t->inv[i]);
  double by_nic = nics * floor_div(nic, s, t->inv[i]);
  if (by_nic < c) c = by_nic;
  return c < RING_MAX_CHANNELS ? c : RING_MAX_CHANNELS;
}

/* The multi-node ring graph (search.cc, ncclTopoCompute): from the first
** speed a NIC can take (maxBw, the GPU-to-NIC path: the NIC's line rate)
** down, keep the best channels x speed, stopping at the GPU's NVLink
** credit (totalBw) or at a speed at most .49 of the best's; then
** ncclTopoDupChannels doubles the channels at half the speed when the
** speed is >= 25 GB/s, except on Hopper and later below 50 GB/s with more
** than 4 channels; pass 2 raises the speed while the channels still fit. */
static void ring_graph(const speeds *t, int gen, double L, double nic,
                       double nics, double *ch, double *bw) {
  const double *sp = t->sp;
  double bc = 0.0, bs = 0.0;
  int bi = 0, ns = t->n;
  for (int i = 0; i < ns; i++) {
    if (sp[i] > nic) continue;
    if (bs > 0.0 && sp[i] <= 0.49 * bs) break;
    double c = ring_fit(L, nic, nics, t, i);
    if (c >= 1.0 && c * sp[i] > bc * bs) bc = c, bs = sp[i], bi = i;
    if (bc * bs >= L) break;
  }
  if (bs >= 25.0 && !(gen > 0 && bs < 50.0 && bc > 4.0)) {
    double c2 = 2.0 * bc < RING_MAX_CHANNELS ? 2.0 * bc : RING_MAX_CHANNELS;
    if (c2 > bc) bs *= 0.5;
    bc = c2;
    while (bi < ns - 1 && sp[bi] > bs) bi++;
    bs = sp[bi];
    while (bi > 0 && sp[bi - 1] <= nic &&
           ring_fit(L, nic, nics, t, bi - 1) >= bc)
      bs = sp[--bi];
  }
  *ch = bc;
  *bw = bs;
}

static int gen_of(const pod_system *s) {
  return s->gpu.fp4_tflops > 0.0 ? 2 : s->gpu.fp8_tflops > 0.0 ? 1 : 0;
}

/* The ring graph of nodes of r GPUs (pod_coll.h, pod_coll_graph): its
** NVLink credit L, NIC rate (GB/s, line), channels and per-channel speed.
** It depends on the system's generation, up_GBps, nic_gbps and
** nics_per_gpu and on r only, so a caller that evaluates many collectives
** on one system keeps it (pod_coll_time_checked). */
void pod_coll__net_graph(const pod_system *s, int r, pod_coll_graph *g) {
  int gen = gen_of(s);
  g->r = r;
  g->gen = gen;
  g->L = s->up_GBps * NVLINK_CREDIT[gen];
  g->nic = s->nic_gbps / 8.0;
  ring_graph(&INTER[gen], gen, g->L, g->nic, (double)r * s->nics_per_gpu,
             &g->ch, &g->bw);
}

static double ring_line(const pod_system *s, int r, double ch) {
  double nics = (double)r * s->nics_per_gpu;
  return (ch < nics ? ch : nics) * s->nic_gbps / 8.0;
}

static double ring_rate(const pod_system *s, int r, double ch) {
  return ring_line(s, r, ch) * s->out_eff;
}

double pod_coll__graph_line_GBps(const pod_system *s, const pod_coll_graph *g) {
  return ring_line(s, g->r, g->ch);
}

double pod_coll__graph_net_GBps(const pod_system *s, const pod_coll_graph *g) {
  return ring_rate(s, g->r, g->ch);
}

double pod_coll__ring_net_GBps(const pod_system *s, int r) {
  pod_coll_graph g;
  pod_coll__net_graph(s, r, &g);
  return pod_coll__graph_net_GBps(s, &g);
}

/* The NVLS-tree graph across nodes: h = min(r, 32) heads, one NIC each;
** bwIntra the first speed a NIC takes with (h + 1) bwIntra within a head's
** NVLink credit; pass 2 raises bwInter while below 2 bwIntra and within
** the head's NIC.  Rated (tuning.cc) h x min(bwIntra e 2 (h-1)/h, bwInter
** x (2 at <= 2 nodes), perChMaxNVLSTreeBw) busbw. */
static double nvlstree_busbw(const pod_system *s, int g, double L, double nic,
                             int r, int d) {
  const speeds *t = &INTER[g];
  int ns = t->n;
  const double *sp = t->sp;
  double h = r < NVLS_MAX_HEADS ? (double)r : (double)NVLS_MAX_HEADS;
  if (!s->nvls || h < 2.0 || g == 0) return 0.0;
  int i = 0;
  while (i < ns - 1 && (sp[i] > nic || (h + 1.0) * sp[i] > L)) i++;
  if (sp[i] > nic || (h + 1.0) * sp[i] > L) return 0.0;
  int j = i;
  while (j > 0 && sp[j] < 2.0 * sp[i] && sp[j - 1] <= nic) j--;
  double intra = sp[i] * NVLS_EFF[g] * 2.0 * (h - 1.0) / h;
  double inter = sp[j] * (d <= 2 ? 2.0 : 1.0);
  double cap = NVLSTREE_MAX[g][d <= 2 ? 0 : 1];
  double b = intra < inter ? intra : inter;
  return h * (b < cap ? b : cap);
}

/* NCCL 2.28.9's Simple-protocol algbw ratings of ring, tree and NVLS-tree
** all-reduce over d = n / r nodes (tuning.cc): ring nCh x bw x n/2(n-1);
** tree min(0.92 nCh bw, nCh perChMaxTreeBw) / 2; NVLS-tree as above x
** n/2(n-1); bw is bwIntra at <= 2 nodes, bwInter beyond.  The tree graph
** takes the ring's channels (ncclTopoCompareGraphs keeps rings and trees
** at one channel count) and, at 2 nodes, raises bwIntra up to twice
** bwInter within the NVLink credit (search.cc pass 2: "2 nodes can beat
** the network"). */
void pod_coll__graph_tune(const pod_system *s, int n, const pod_coll_graph *gr,
                          pod_coll__tune *t) {
  int g = gr->gen, r = gr->r, d = n / r;
  double L = gr->L, nic = gr->nic, ch = gr->ch, bw = gr->bw;
  const speeds *sp = &INTER[g];
  double alg = (double)n / (2.0 * (double)(n - 1));
  t->ring_net_GBps = ring_rate(s, r, ch);
  t->ring_GBps = ch * bw * alg;
  double bt = bw;
  if (d <= 2) {
    int j = 0;
    while (j < sp->n - 1 && sp->sp[j] > bw) j++;
    while (j > 0 && sp->sp[j] < 2.0 * bw && ch * sp->sp[j - 1] <= L) j--;
    bt = sp->sp[j];
  }
  double tree = 0.92 * ch * bt, tcap = ch * TREE_MAX[g][d <= 2 ? 0 : 1];
  t->tree_GBps = 0.5 * (tree < tcap ? tree : tcap);
  t->nvlstree_GBps = nvlstree_busbw(s, g, L, nic, r, d) * alg;
}

void pod_coll__net_tune(const pod_system *s, int n, int r, pod_coll__tune *t) {
  pod_coll_graph g;
  pod_coll__net_graph(s, r, &g);
  pod_coll__graph_tune(s, n, &g, t);
}

/* ---- point-to-point channels (all-to-all, send/recv) ------------------- */
/* NVIDIA/nccl 2.28.7 (ae7aed19), facts only.  p2pnChannels is pow2Up of
** the communicator's channels (src/graph/paths.cc:860-886,
** ncclTopoComputeP2pChannels), which are the ring graph's (the tree takes
** the same count: init.cc:1090) doubled by ncclTopoPostset, at most
** MAXCHANNELS 64 (src/graph/connect.cc:452, src/include/device.h:86).
** The ring graph across nodes is pod_coll__net_graph's; inside one node
** (an MNNVL clique is one node) the NVSwitch search below with
** ncclTopoDupChannels (search.cc:961-974: doubled at half the speed when
** the speed is >= 25 GB/s, except on Hopper and later below 50 GB/s with
** more than 4 channels), at NCCL's NVLink credit.  A peer's channels
** (paths.cc:817-852, ncclTopoGetNchannels): an NVLink peer 2 x its
** NVLinks; a network peer 2, halved while 2 n > 4 p2pnChannels, at least
** the NICs that match the GPU's bandwidth (getLocalNetCountByBw,
** topo.cc:1576: podsim takes the GPU's nics_per_gpu); the minimum over
** peers, pow2Up, at most p2pnChannels.  The scheduler's nChannelsMin is
** that halved while nChannelsMin x n > p2pnChannels (enqueue.cc:1053-1056).
** A message's parts (enqueue.cc:894-895): across nodes between half a
** step and one step of P2P_NET_CHUNKSIZE 128 KiB, inside one node between
** an eighth and 32 steps of P2P_NVL_CHUNKSIZE 512 KiB (init.cc:716-717). */
static const double SPEED_SM80[] = {40, 30, 20, 18, 15, 12, 10,
                                    9,  7,  6,  5,  4,  3};
static const double INV_SM80[] = {
    1.0 / 40, 1.0 / 30, 1.0 / 20, 1.0 / 18, 1.0 / 15, 1.0 / 12, 1.0 / 10,
    1.0 / 9,  1.0 / 7,  1.0 / 6,  1.0 / 5,  1.0 / 4,  1.0 / 3};
#define NSPEED_SM80 ((int)(sizeof SPEED_SM80 / sizeof SPEED_SM80[0]))
#define P2P_MAX_CHANNELS 64.0       /* MAXCHANNELS */
#define P2P_NET_STEP (128.0 * 1024) /* P2P_NET_CHUNKSIZE */
#define P2P_NVL_STEP (512.0 * 1024) /* P2P_NVL_CHUNKSIZE */
/* NVLink line rate per link and direction: 25 GB/s (NVLink3/4), 50
** (NVLink5), as NCCL counts links (path bw over ncclTopoNVLinkBw) */
static const double NVLINK_LINK_GBPS[3] = {25.0, 25.0, 50.0};

static double pow2_up(double x) {
  double p = 1.0;
  while (p < x) p *= 2.0;
  return p;
}

/* The communicator's channels before the doubling: the ring graph's. */
static double p2p_graph_channels(const pod_system *s, int gen, int d, int r,
                                 const pod_coll_graph *kept) {
  if (d > 1) {
    if (kept != NULL) return kept->ch;
    pod_coll_graph g;
    pod_coll__net_graph(s, r, &g);
    return g.ch;
  }
  static const double *const SP[3] = {SPEED_SM80, SPEED_SM90, SPEED_SM100};
  static const double *const INV[3] = {INV_SM80, INV_SM90, INV_SM100};
  static const int NS[3] = {NSPEED_SM80, NSPEED_SM90, NSPEED_SM100};
  double ch, bw, L = s->up_GBps * NVLINK_CREDIT[gen];
  ring_graph_GBps(SP[gen], INV[gen], NS[gen], L, &ch, &bw);
  if (bw >= 25.0 && !(gen > 0 && bw < 50.0 && ch > 4.0))
    ch = 2.0 * ch < RING_MAX_CHANNELS ? 2.0 * ch : RING_MAX_CHANNELS;
  return ch;
}

void pod_coll__p2p_channels(const pod_system *s, int n, int r,
                            const pod_coll_graph *g, pod_coll_p2p *p) {
  int gen = gen_of(s), d = r > 0 ? n / r : 1;
  double ch = p2p_graph_channels(s, gen, d, r, g);
  double nch = 2.0 * ch < P2P_MAX_CHANNELS ? 2.0 * ch : P2P_MAX_CHANNELS;
  if (nch < 1.0) nch = 1.0;
  double P = pow2_up(nch), nn = (double)n;
  double links = (double)(long long)(s->up_GBps / NVLINK_LINK_GBPS[gen]);
  double per = 2.0 * (links > 1.0 ? links : 1.0); /* NVLink peers */
  if (d > 1) {
    double net = 2.0;
    while (net * nn > 4.0 * nch && net > 1.0) net *= 0.5;
    double by_bw = (double)s->nics_per_gpu;
    if (by_bw > net) net = by_bw;
    if (net < per) per = net;
  }
  per = pow2_up(per);
  if (per > P) per = P;
  double cmin = per;
  while (cmin * nn > P && cmin > 1.0) cmin *= 0.5;
  p->nch = P;
  p->per_peer = per;
  p->cmin = cmin;
  p->min_part = d > 1 ? P2P_NET_STEP / 2.0 : P2P_NVL_STEP / 8.0;
  p->max_part = d > 1 ? P2P_NET_STEP : P2P_NVL_STEP * 32.0;
}
