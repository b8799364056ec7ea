-- S4 (issue 14): SGLang's DeepSeek deployment on GB200 NVL72 (LMSYS blog
-- "Deploying DeepSeek on GB200 NVL72 with PD and Large Scale EP (Part
-- II)", 2025-09-25; lm-sys/lm-sys.github.io blog/2025-09-25-gb200-part-2.md):
-- for 2000-token inputs, 18,471 input and 9,087 output tokens/s per GPU
-- with bf16 attention and fp8 GEMMs; 26,156 and 13,386 with fp8
-- attention (fp8 KV cache) and NVFP4 MoE.
--
-- Configuration, as published (chosen before running; the third session
-- replaced two assumptions with the launch scripts of the reproduction
-- issue, sgl-project/sglang #10903 "Instructions for DeepSeek", as later
-- copied into other repositories with that attribution: decode
-- "--cuda-graph-bs 768" with --max-running-requests 36864 = 768 x 48
-- for high precision, 1408 and 67584 for low precision, and
-- "--enable-single-batch-overlap" in both):
--  - decode: one 48-GPU instance (EP48, DP-attention 48), DeepEP
--    low-latency, 32 redundant experts as on H100 (S2); no two-batch
--    overlap (Part I, blog/2025-06-16-gb200-part-1.md: the NVLink domain
--    "allows two-batch overlap to be disabled"); Part II's finer overlap
--    of the combine with the down GEMM and the shared experts is SGLang's
--    single-batch overlap (single_batch_overlap, serve.c);
--  - decode batch: "chosen to make KV cache roughly full (thus ... 1408
--    for 2k ISL)" per rank for the fp8-KV run; 768 per rank for the
--    bf16-KV run (the script; 704, half the fp8 KV budget, was assumed
--    before);
--  - prefill: "4 ranks per instance for high-precision and 2 for
--    low-precision" (EP4 / EP2), weights that do not fit offloaded to
--    host memory over NVLink-C2C (900 GB/s bidirectional per Grace, two
--    GPUs each: host_GBps 225); 16,384 prompt tokens per GPU per pass
--    (the scripts: --chunked-prefill-size over the DP ranks, 16,384, and
--    --max-prefill-tokens 16384).  The scripts' prefill instances have
--    twice the blog's ranks (tp/dp 8 and 4, without offload); podsim
--    follows the blog, whose figures these are;
--  - podsim applies fp4 to every expert GEMM and fp8 to the dense ones
--    (the script sets SGLANG_NVFP4_CKPT_FP8_GEMM_IN_ATTN; the blog keeps
--    q_b_proj in fp8, the output projection optionally NVFP4).
--
-- All predictions.  Tolerance 20%.
-- Mechanisms (serve.c) that matter here: the Blackwell sustained clock
-- (0.857 on GB200, the training model's rule) on GEMMs; attention at the
-- Blackwell decode efficiency anchored on FlashMLA's B200/H800 sparse
-- decoding figures (0.25 of peak), on fp8 tensor cores with the fp8 KV
-- cache; dense GEMMs in fp8 beside NVFP4 experts (dense_dtype); NVFP4
-- dispatch; memory-bound kernels between the GEMMs; host offload of
-- prefill weights.
-- Expert imbalance (serve.c, expert_cv = 0.55 fitted on S2) applies here
-- too: the busiest of the EP ranks sets each MoE layer, which costs the
-- EP48 decode 14-15% and the EP4 / EP2 prefill instances only 4% / 1%
-- (72 and 144 experts per GPU average the drift out).
-- Prefill (since issue 14's third session): two mechanisms close the
-- 1.20-1.30x gap the pass had (both from public sources, neither fitted
-- on a podsim row):
--  - prefill attention on bf16 tensor cores with the fp8 KV cache
--    (fp8_prefill_attn false): SGLang's MLA prefill ran "always [in]
--    16-bit despite set kv-cache-dtype to fp8" until sgl-project/sglang
--    PR #14395 (merged 2025-12-04), after this blog; the blog's fp8
--    attention speed-up is "for decode attention kernels".  EP2 +30.2%
--    -> +23.7% alone;
--  - the GEMMs' weight streaming not hidden under their MMA work
--    (gemm_w_overlap 0, serve.c: checked on DeepGEMM's FP8 tables on
--    H800): a pass reads 201 / 224 GB of weights per GPU (EP4 / EP2) at
--    6.8 TB/s besides its FLOPs, +0.03 s on 0.74 / 0.48 s passes.  EP4
--    +20.4% -> +15.8%, EP2 -> +16.2% with the attention rule.
-- Weight offload stays hidden: SGLang's offloader (sgl-project/sglang
-- python/sglang/srt/offloader.py) prefetches the next offloaded layer's
-- experts on a side stream while the layers between run, one read per
-- offloaded layer per forward pass; 23 and 46 GB per GPU at 225 GB/s
-- take 0.10 and 0.20 s of 0.76 and 0.50 s passes, and per offloaded
-- layer (3.2-3.6 GB, ~15 ms) well under the compute of the layers that
-- separate two offloaded ones.  The H100 recipe's --chunked-prefill-size
-- 524288 over 32 ranks is one 16,384-token chunk per GPU: no re-reads.
local src = "LMSYS blog 2025-09-25 GB200 NVL72 part II"
local function run(fp4)
  return podsim.serve{system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = (fp4 and 1408 or 768) * 48, input_tokens = 2000,
    output_tokens = 100, redundant_experts = 32, two_batch_overlap = false,
    single_batch_overlap = true,
    dtype = fp4 and "fp4" or "fp8", dense_dtype = "fp8", kv_dtype = fp4 and "fp8" or "bf16",
    prefill = {gpus = fp4 and 2 or 4, tp = 1, ep = fp4 and 2 or 4}, prefill_tokens = 16384,
    host_GBps = 225}
end
local a, b = run(false), run(true)
podsim.check{id = "S4", name = "DeepSeek-V3 decode GB200 EP48 bf16-attn/fp8, tok/s/GPU",
  published = 9087, value = a.decode_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src}
podsim.check{id = "S4", name = "DeepSeek-V3 decode GB200 EP48 fp8-KV/fp4, tok/s/GPU",
  published = 13386, value = b.decode_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src}
podsim.check{id = "S4", name = "DeepSeek-V3 prefill GB200 EP4 bf16-attn/fp8, tok/s/GPU",
  published = 18471, value = a.prefill_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src}
podsim.check{id = "S4", name = "DeepSeek-V3 prefill GB200 EP2 fp8-KV/fp4, tok/s/GPU",
  published = 26156, value = b.prefill_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src}
-- Batch sensitivity, same blog: "changing batch size from 1408 to 768 for
-- 2k ISL reduces performances by roughly one tenth" (fp8-KV/fp4 run):
-- checked as 0.85-0.95.  Known miss: podsim's step is still close to
-- linear in the batch (0.951; 0.955 before the expert GEMMs' waves (f), 0.957 before
-- the NVFP4 cast (b), 0.980 before the weight streaming).
-- Solving b / (F + v b) for the two published points gives v = 65 us per
-- sequence and a fixed F of ~14 ms per step: podsim has v = 72 us and
-- F = 6 ms (the dense weights and the touched experts read once per
-- step, 3.8 ms; DeepEP's fixed latency, 2.2 ms; the per-layer launches,
-- 0.5 ms).  Podsim's 768 point is 5% faster than the published one,
-- its 1408 point 1% slower.  The host's time per step (serve_host.c,
-- host_us 3.8 ms from vLLM's profile) is hidden by SGLang's overlap
-- scheduler (the scripts do not disable it) under a 60-110 ms GPU step.
-- The missing fixed part has no public source.  At the range's edge
-- (0.95) the published points give 70 us per sequence and 6.7 ms fixed:
-- podsim misses by 1.2 ms of fixed time per step (or 2% of
-- sub-linearity).  Searched in issue 14's third session (serve5), each
-- candidate checked with arithmetic before coding; none is a mechanism
-- from a public source that moves the ratio into range:
--  (a) decode attention efficiency rising with the batch (TRT-LLM MLA
--      kernel in FlashInfer): 21 / 39 ms of the 61 / 108 ms steps and
--      linear in podsim; 768 and 1,408 sequences x 128 heads are many
--      waves on 148 SMs; the published kernel tables (vllm-project/vllm
--      PR #19825, sgl-project/sglang PR #8638) stop at 256 sequences.
--      No figure at these batches;
--  (b) DeepEP low-latency time vs tokens: measured on this very setup
--      (DeepEP PR #385: 48 ranks of GB200, nvfp4, 128 and 768 tokens,
--      S1's GB200 rows) it is affine, about 21 + 20 us fixed per layer
--      for dispatch and combine, podsim's 19 + 19 (2.2 ms per step):
--      DeepEP adds no missing fixed time.  Its dispatch grows 0.126 us
--      per token (podsim's link bytes 0.047): since issue 14's fourth
--      session (serve6) podsim counts the NVFP4 cast on each of the
--      kernel's 144 blocks (ep_cast_us, S1; ceil(768 / 144) = 6 and
--      ceil(1408 / 144) = 10 casts per layer), +3.6 / +6.0 ms per step;
--      the 768 point's extra sixth cast makes it slightly sub-linear:
--      0.958 -> 0.955, the fp4 decode row -2.4% -> -7.6%;
--  (c) the masked grouped GEMM: 1,024 / 1,877 rows per local expert
--      (tokens x 8 x 48 / 288); podsim's roll-off already makes the
--      experts' weight read (8.6 GB per GPU, 1.3 ms) a fixed part;
--      FlashInfer's CuTe DSL figures for the 48-rank 768-token case
--      (flashinfer-ai/flashinfer #1520) are published only as an image;
--  (d) MTP / speculative decoding: not used (Part II lists "MTP with
--      Overlap Scheduler" as future work);
--  (e) CUDA-graph padding: the scripts capture the batch they run (768
--      and 1,408); padding 768 to a 1,408 capture would run the
--      non-attention kernels at 1,408 rows, a ratio of 0.65-0.8, not
--      "roughly one tenth";
--  (f) the lead left: wave quantisation of the grouped expert GEMMs.
--      Modelled since issue 14's fourth session (serve.c,
--      pod_serve__masked_waves): SGLang's NVFP4 experts on GB200 run
--      FlashInfer's CuTe DSL masked grouped GEMM at its default 128 x 128
--      tile (flashinfer_cutedsl_moe.py passes none), one tile per SM per
--      wave on 148 SMs.  With the busiest GPU's 1,537 / 2,817 rows per
--      local expert (imbalance included) fc1 takes 17 / 30 waves and fc2
--      30 / 53: +9.4% / +5.4% on the experts' FLOPs, ratio 0.955 ->
--      0.951 (fp4 decode row -7.6% -> -8.2%); no other row moves.  The
--      128 x 256 tile the lead assumed would give 0.947; SGLang's
--      single-batch overlap runs the down GEMM on 148 - 32 SMs (32 for
--      the combine on Blackwell, sglang single_batch_overlap.py
--      compute_overlap_args), which leaves the ratio at 0.951 (not
--      modelled: podsim's SBO hides the combine without taking SMs).
--      Still 0.1% above the range: the remaining gap is the ~1 ms of
--      fixed time per step above, with no public source.
local function run_b(per_rank)
  return podsim.serve{system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = per_rank * 48, input_tokens = 2000,
    output_tokens = 100, redundant_experts = 32, two_batch_overlap = false,
    single_batch_overlap = true, dtype = "fp4", dense_dtype = "fp8", kv_dtype = "fp8"}
end
podsim.check{id = "S4", name = "DeepSeek-V3 decode GB200 fp8-KV/fp4, 768 over 1408 per rank",
  published = 0.9, value = run_b(768).decode_tokens_per_s_per_gpu / b.decode_tokens_per_s_per_gpu,
  unit = "x", range = {0.85, 0.95}, fit = false, source = src,
  known_miss = "published ~14 ms fixed per step, podsim ~6 ms (weight reads, DeepEP latency " ..
    "and NVFP4 cast, S1); search in s4_sglang_gb200.lua"}
-- The NVL72-over-HGX question at the same software (S2 against this
-- case): GB200 decode per GPU over H100's, 9,087 / 2,787.
local h = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 72,
  parallel = {tp = 1, ep = 72}, batch = 256 * 72, input_tokens = 2000, output_tokens = 100,
  redundant_experts = 32, two_batch_overlap = true}
podsim.check{id = "S4", name = "DeepSeek-V3 decode GB200 NVL72 over H100 per GPU",
  published = 9087 / 2787.5, value = a.decode_tokens_per_s_per_gpu / h.decode_tokens_per_s_per_gpu,
  unit = "x", tol_rel = 0.20, fit = false, source = src .. "; LMSYS 2025-05-05"}
