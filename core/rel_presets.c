/*
** rel_presets.c: the failure presets (rates per cause, with their basis
** and sources) and the basis names (see pod_rel.h).
*/
#include <string.h>

#include "pod_rel.h"

/* ---------------------------------------------------------------------
** Presets.  Each cause carries a basis (POD_REL_BASIS_SOURCED: its rate
** and blast come from a public count; POD_REL_BASIS_ASSUMED: a stated
** analogy, to be sampled over a range) and a one-line source
** (pod_rel_preset_cause_source), so a scenario can print which of its
** inputs are which.
**
** llama3_h100: Llama 3 405B pre-training, "The Llama 3 Herd of Models"
** (Meta, 2024), sec. 3.3.4 and Table 5: 419 unexpected interruptions in a
** 54-day snapshot on 16,384 H100 GPUs (2,048 HGX nodes of 8).  Each count
** becomes a rate per unit-hour: count / (units x 54 x 24 h).
** Units chosen per cause:
**  - GPU parts (faulty GPU, HBM3, SRAM, GPU system processor, silent data
**    corruption, thermal/sensor) per GPU;
**  - NIC and network switch/cable per GPU: HGX has one scale-out NIC and
**    one rail link per GPU, as NVL72 trays do, so the rate carries over;
**  - host parts (host maintenance, SSD, PSU, chassis, IO board, CPU,
**    system memory) per node;
**  - software (software bug, NCCL watchdog, dependency) per job.
** Blast: hardware drains its node (a faulty GPU takes the HGX node out of
** the job); software drains nothing (restart only).
**
** gb200_nvl72: the same per-GPU and per-host (compute tray, 4 GPUs)
** rates, carried over from H100 (sourced, by carry-over).  A check on the
** Blackwell generation: "From Detection to Recovery: Operational Analysis
** on LLM Pre-training with 504 GPUs" (Lablup et al., arXiv 2605.09370,
** 2026) counts 10 XID-identified GPU failures in 55 days on 504 B200
** (HGX) GPUs, 1.5e-5 per GPU-hour, against Table 5's 1.26e-5 for the GPU
** parts: the same order, so the per-GPU rates carry over.
**
** Rack-level (domain) causes.  What is public (searched 2026-12):
**  - blast = domain is SOURCED: the NVIDIA DGX GB200 User Guide, "Rack
**    Reboot Sequence", prescribes a cold reboot of the whole rack (all
**    power shelves off) after replacing a switch tray, a trunk link or a
**    cable cartridge (and after a compute tray replacement: not modelled,
**    the tray's repair is assumed to wait for a planned rack drain);
**  - that the NVLink copper backplane is the weak point is SOURCED
**    qualitatively: SemiAnalysis, "H100 vs GB200 NVL72 Training
**    Benchmarks - Power, TCO, and Reliability Analysis" (Aug 2025): no
**    operator yet ran frontier-scale training on GB200 NVL72, the backplane
**    remained unreliable and its diagnostics behind; SemiAnalysis, "Nvidia's
**    Blackwell Reworked" (Jul 2024): early racks had power delivery,
**    overheating and quick-disconnect leak problems;
**  - the 64-of-72 layout (8 hot spares a rack) is SOURCED: CoreWeave's
**    MLPerf Training v5.0 run, 2,496 GPUs in 39 racks of 64 active;
**  - earlier rack-scale systems: Google's TPU v4 (64-chip racks joined by
**    optical circuit switches) reports 99.98% system availability with
**    ~1% of training jobs meeting a hardware outage ("Resiliency at Scale:
**    Managing Google's TPUv4 Machine Learning Supercomputer", NSDI 2024),
**    but because failed racks are routed around, it gives no rack rate;
**  - NO per-cause RATE for NVL72 rack-level failures is public (no operator
**    report, MLPerf result or post-mortem gives one; MLPerf runs last
**    minutes).  The rates below are therefore ASSUMED, by analogy with
**    Table 5, and a study should sample them (rate_scale.domain); the
**    flagship scenario states its range and why.
**  - nvlink_switch_tray: 9 switch trays per rack (2 NVSwitch ASICs, BMC
**    and power conversion each), each assumed to fail like an HGX node's
**    chassis + PSU + IO board (7 events);
**  - rack_power_cooling: power shelves, CDU and manifolds shared by 18
**    compute trays, assumed 18 x an HGX node's PSU + chassis rate (5);
**  - nvlink_backplane: cable cartridges carrying 18 NVLink links per GPU,
**    assumed 72 x the per-GPU scale-out switch/cable rate (35).
** Together 1.8e-4 per rack-hour (a rack-level failure every 235 days per
** rack, every 22 h over 256 racks): 12% of the rack's hardware failures.
** --------------------------------------------------------------------- */
#define L3_HOURS (54.0 * 24.0)
#define L3_GPUS 16384.0
#define L3_NODES 2048.0
#define PER_GPU(n) ((n) / (L3_GPUS * L3_HOURS))
#define PER_NODE(n) ((n) / (L3_NODES * L3_HOURS))
#define PER_JOB(n) ((n) / L3_HOURS)

#define G POD_REL_GPU
#define N POD_REL_NODE
#define D POD_REL_DOMAIN
#define J POD_REL_JOB
#define S POD_REL_BASIS_SOURCED
#define A POD_REL_BASIS_ASSUMED

/* clang-format off */
#define LLAMA3_CAUSES                                                         \
  {"faulty_gpu", PER_GPU(148), G, N, S}, {"gpu_hbm3", PER_GPU(72), G, N, S},  \
  {"software_bug", PER_JOB(54), J, J, S},                                     \
  {"network_switch_cable", PER_GPU(35), G, N, S},                             \
  {"host_maintenance", PER_NODE(32), N, N, S},                                \
  {"gpu_sram", PER_GPU(19), G, N, S},                                         \
  {"gpu_system_processor", PER_GPU(17), G, N, S},                             \
  {"nic", PER_GPU(7), G, N, S}, {"nccl_watchdog", PER_JOB(7), J, J, S},       \
  {"silent_data_corruption", PER_GPU(6), G, N, S},                            \
  {"gpu_thermal_sensor", PER_GPU(6), G, N, S}, {"ssd", PER_NODE(3), N, N, S}, \
  {"power_supply", PER_NODE(3), N, N, S}, {"chassis", PER_NODE(2), N, N, S},  \
  {"io_board", PER_NODE(2), N, N, S}, {"dependency", PER_JOB(2), J, J, S},    \
  {"cpu", PER_NODE(2), N, N, S}, {"system_memory", PER_NODE(2), N, N, S}

static const pod_rel_failures presets[] = {
    {"llama3_h100", 18, {LLAMA3_CAUSES}},
    {"gb200_nvl72", 21,
     {LLAMA3_CAUSES,
      {"nvlink_switch_tray", 9.0 * PER_NODE(7), D, D, A},
      {"rack_power_cooling", 18.0 * PER_NODE(5), D, D, A},
      {"nvlink_backplane", 72.0 * PER_GPU(35), D, D, A}}},
};
/* clang-format on */

#define L3_SRC "Llama 3 Herd of Models, Table 5 (16,384 H100, 54 days)"
#define L3_NVL                                                   \
  "Llama 3 Table 5, carried over from H100 (B200: Lablup arXiv " \
  "2605.09370, same order)"
#define RACK_SRC(x)                                     \
  "assumed: " x                                         \
  "; blast = rack from the DGX GB200 User Guide (cold " \
  "rack reboot after the part's replacement)"

/* Per-cause sources, in the presets' order; NULL past the last cause. */
static const char *const cause_sources[][POD_REL_MAX_CAUSES] = {
    {L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC,
     L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC, L3_SRC},
    {L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     L3_NVL,
     RACK_SRC("9 switch trays x an HGX node's chassis + PSU + IO board rate"),
     RACK_SRC("18 x an HGX node's PSU + chassis rate"),
     RACK_SRC("72 x the per-GPU network switch/cable rate; SemiAnalysis "
              "(Aug 2025) names the backplane the weak point")},
};

static const char *const preset_sources[] = {
    "The Llama 3 Herd of Models (2024), sec. 3.3.4, Table 5: 419 unexpected "
    "interruptions in 54 days on 16,384 H100 (2,048 nodes)",
    "Llama 3 Table 5 per-GPU and per-host rates (host = compute tray) plus "
    "three rack-level causes whose rates are ASSUMED (no public figure; "
    "blast = rack from the DGX GB200 User Guide): see core/rel.c",
};

#undef G
#undef N
#undef D
#undef J
#undef S
#undef A

#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

int pod_rel_failures_preset(const char *name, pod_rel_failures *out) {
  for (int i = 0; i < NPRESETS; i++) {
    if (name && strcmp(presets[i].name, name) == 0) {
      *out = presets[i];
      return POD_OK;
    }
  }
  return POD_ENOENT;
}

const pod_rel_failures *pod_rel_failures_at(int i, const char **source) {
  if (i < 0 || i >= NPRESETS) return NULL;
  if (source) *source = preset_sources[i];
  return &presets[i];
}

const char *pod_rel_preset_cause_source(int preset, int cause) {
  if (preset < 0 || preset >= NPRESETS || cause < 0 ||
      cause >= presets[preset].ncauses)
    return NULL;
  return cause_sources[preset][cause];
}

const char *const pod_rel_basis_names[POD_REL_NBASES + 1] = {"given", "sourced",
                                                             "assumed", NULL};

const char *pod_rel_basis_name(int basis) {
  if (basis < 0 || basis >= POD_REL_NBASES) return "?";
  return pod_rel_basis_names[basis];
}

int pod_rel_basis_parse(const char *name, int *out) {
  for (int b = 0; b < POD_REL_NBASES; b++) {
    if (name && strcmp(name, pod_rel_basis_name(b)) == 0) {
      *out = b;
      return POD_OK;
    }
  }
  return POD_ENOENT;
}
