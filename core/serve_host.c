/*
** serve_host.c: the host's share of a decode step (serve_int.h), for
** pod_serve_eval.
**
** Source of the default:
**  - host_us 3,770 (0.29 x 13 ms): host time per decode step (scheduling,
**    batch metadata, sampling, output processing).  vLLM's v0.6.0
**    performance post (vLLM blog 2024-09-05) profiles Llama 3 8B on one
**    H100 under v0.5.3's synchronous engine: 29% of the time in scheduling
**    and input preparation, at one token per 13 ms under light load.  The
**    engines podsim validates on overlap it (host_overlap, on by default):
**    SGLang's zero-overhead batch scheduler "runs one batch ahead" and is
**    on by default (LMSYS blog 2024-12-04), as are TensorRT-LLM's overlap
**    scheduler and vLLM's asynchronous output processing; then the host
**    shows only when it outlasts the GPU step (small models, small
**    batches), as LongCat-Flash's multi-step overlap scheduler was built
**    for (Meituan, 2025).
*/
#include "serve_int.h"

/* vLLM v0.5.3 on Llama 3 8B / H100: 29% of one 13 ms step. */
#define HOST_US (0.29 * 13000.0)

double pod_serve__host_us_default(void) {
  return HOST_US;
}

double pod_serve__host_step(const pod_serve_cfg *c, double gpu_s) {
  double host = c->host_us * 1e-6;
  if (!c->host_overlap) return host;
  return host > gpu_s ? host - gpu_s : 0.0;
}
