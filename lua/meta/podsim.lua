---@meta podsim
-- LuaLS annotations for the podsim scenario API (lua/README.md is the
-- reference; docs/design.md the models).  Point the Lua language server at
-- this folder (`"workspace.library": ["<prefix>/share/podsim/lua"]` in
-- .luarc.json) and scenarios get completion and type checks.
--
-- Conventions kept by tests/lua/annotations.lua, which compares this file
-- with the running podsim:
--   * a class named like a runtime path (`podsim`, `podsim.dist`,
--     `podsim.gpus`, ...) lists that table's public names: functions as
--     `function podsim.x(...)`, other values as `---@field`;
--   * object classes (`podsim.System`, `podsim.Study`, ...) list their
--     fields with `---@field` and their methods as `function Class:m()`;
--   * `---@field name? type` marks a field that may be absent;
--   * a line `--- Example: `expr`` in a function's comment is evaluated by
--     the test and its value checked against the function's `---@return`
--     class, so result fields stay annotated too.

---@alias podsim.GpuRef podsim.Gpu|string|podsim.GpuFields
---@alias podsim.SystemRef podsim.System|string|podsim.SystemFields
---@alias podsim.ModelRef podsim.Model|string|podsim.ModelFields
---@alias podsim.CollOp "all_reduce"|"all_gather"|"reduce_scatter"|"all_to_all"|"broadcast"|"send_recv"
---@alias podsim.CollAlgo "auto"|"ring"|"tree"|"nvls"|"direct"|"hierarchical"|"nvls_tree"|"collnet"|"collnet_chain"
---@alias podsim.Transport "ib"|"roce"|"efa"
---@alias podsim.Routing "static_ecmp"|"adaptive"|"spray"|"srd"
---@alias podsim.FabricName "ib_ndr"|"ib_ndr_sharp"|"ib_xdr"|"ib_xdr_sharp"|"spectrum_x"|"efa"
---@alias podsim.Dtype "bf16"|"fp8"|"fp4"
---@alias podsim.Fp8Recipe "delayed"|"delayed_tp"|"current"|"block"
---@alias podsim.Recompute "none"|"selective"|"full"
---@alias podsim.Unit "gpu"|"node"|"domain"|"job"
---@alias podsim.FailuresRef string|podsim.FailureSet|podsim.Cause[]
---@alias podsim.Format "table"|"csv"|"json"

-- ---------------------------------------------------------------------------
-- The module
-- ---------------------------------------------------------------------------

---The podsim module: a global in scenarios; `require "podsim"` returns it.
---@class podsim
---@field version string podsim's version string
---@field args table<string, string|number|boolean> read-only `--set key=value` values
---@field options podsim.options read-only run options
---@field gpus podsim.gpus GPU presets
---@field systems podsim.systems system presets
---@field fabrics podsim.fabrics scale-out fabric presets (`podsim.system{base=, fabric=}`)
---@field models podsim.models model presets
---@field failures podsim.failures failure-rate presets
---@field dist podsim.dist distribution constructors
---@field kernel podsim.kernel built-in evaluators for studies
---@field software podsim.software software release presets (`podsim presets software`)
---@field sources podsim.sources the public source of every preset
podsim = {}

---Read-only run options (`podsim.options`).
---@class podsim.options
---@field quiet boolean `--quiet`
---@field unsafe boolean `--unsafe`: the sandbox is lifted
---@field threads integer worker threads
---@field samples? integer `--samples` when given
---@field seed? integer `--seed` when given
---@field format podsim.Format `--format`
---@field max_samples_mb number `--max-samples-mb`
---@field progress boolean progress lines on stderr
---@field help boolean `run FILE --help`: list the podsim.arg declarations and stop
---@field scenario? string the scenario file
---@field out_dir? string the output folder
---@field tool? string the embedded tool (validate, presets, plot) when one runs
---@field tool_arg? string the tool's argument

-- ---------------------------------------------------------------------------
-- The run, files and printing
-- ---------------------------------------------------------------------------

---The run's output folder: `--out DIR`, else `out/<scenario stem>`.
---@return string
function podsim.out_dir() end

---`name` inside the output folder (absolute names pass through).
---@param name string
---@return string
function podsim.out_path(name) end

---A read-only view of `t`; writes raise a located error naming `name`.
---@generic T: table
---@param t T
---@param name string
---@return T
function podsim.readonly(t, name) end

---Write a CSV file atomically; rows are tables keyed by header names or lists
---in header order.  Integers print as integers, other numbers with 10
---significant digits.  Relative paths are inside the output folder.
---@param path string
---@param header string[]
---@param rows table[]
---@return string path the full path written
function podsim.write_csv(path, header, rows) end

---Write `value` as JSON with sorted keys (NaN and inf become null), atomically.
---@param path string
---@param value any
---@return string path
function podsim.write_json(path, value) end

---Write plain text atomically.
---@param path string
---@param text string
---@return string path
function podsim.write_text(path, text) end

---Call `fn(file)` to write `path` under a temporary name, then rename it.
---@param path string
---@param fn fun(f: file*)
---@param ctx? string the API name used in error messages
---@return string path
function podsim.write_atomic(path, fn, ctx) end

---The JSON text of `value` (sorted keys, stable bytes).
---@param value any
---@return string
function podsim.json(value) end

---Render the template `<template>.gp` (beside the scenario, else the
---embedded `plots/<template>.gp`) with gnuplot to `<out>/<output>`
---(default `plots/<template>.svg`); writes its recipe beside.  Yields while
---gnuplot runs.
---@param template string
---@param vars? table<string, any> gnuplot variables the template declares
---@param output? string an SVG name relative to the output folder (or absolute, below it), ending in .svg
---@return string|nil svg the SVG path, or nil when gnuplot is missing
---@return string? reason
function podsim.gnuplot(template, vars, output) end

---@class podsim.TableOpts
---@field number_format? string `string.format` pattern for numbers (default `%.2f`)
---@field out? fun(line: string) where lines go (default print)

---Print an aligned text table; numbers right-aligned.
---@param header string[]
---@param rows table[]
---@param opts? podsim.TableOpts
function podsim.print_table(header, rows, opts) end

---A scenario argument: `{"name", default =, choices =, type =, help =}`.
---@class podsim.ArgSpec
---@field [1] string the name (`--set name=value`)
---@field default? string|number|boolean
---@field choices? (string|number|boolean)[]
---@field type? "number"|"string"|"boolean" default: the default's type
---@field help? string shown by `podsim run FILE --help`

---Declare a scenario argument and return its value (the `--set` value, checked against type and choices, else the default).
--- Example: `podsim.arg{"annotation_probe_arg", default = 3, help = "an example"}`
---@param spec podsim.ArgSpec
---@return string|number|boolean|nil
function podsim.arg(spec) end

---`1024` -> `1 KiB`.
---@param n number bytes
---@return string
function podsim.fmt_bytes(n) end

---The number as written to files (integers as integers, else 10 significant digits).
---@param x number
---@return string
function podsim.num(x) end

---Raise a located input error `file:line: ctx: path: msg` from Lua code.
---@param ctx string the API name
---@param path? string the field path
---@param msg string
function podsim.fail(ctx, path, msg) end

-- ---------------------------------------------------------------------------
-- Validation
-- ---------------------------------------------------------------------------

---@class podsim.CheckSpec
---@field id string case id such as "C1"
---@field name string
---@field published? number the published figure (required unless `range`)
---@field value number podsim's value
---@field unit? string
---@field tol_rel? number relative tolerance
---@field tol_abs? number absolute tolerance, in `unit`
---@field range? number[] `{lo, hi}`: accepted interval
---@field fit boolean true when the case fitted a model parameter
---@field known_miss? string why the model is known to miss this row
---@field source? string the public source of the published figure

---One validation row.
---@class podsim.CheckRow
---@field id string
---@field name string
---@field published? number
---@field value number
---@field unit string
---@field err? number relative error (value - published) / |published|
---@field tol_rel? number
---@field tol_abs? number
---@field range? number[]
---@field fit boolean
---@field pass boolean the row is as expected (within, or outside for a known miss)
---@field within boolean inside the tolerance
---@field known_miss? string
---@field source? string
---@field where string `file:line` of the check

---Record one validation row; outside tolerance it is an error in `podsim run`.
--- Example: `select(2, podsim.check{id = "X1", name = "annotation probe", published = 2, value = 2, tol_rel = 0.01, fit = false, source = "none"})`
---@param c podsim.CheckSpec
---@return boolean pass
---@return podsim.CheckRow row
function podsim.check(c) end

---The result column of a validation row: "pass", "FAIL", "known miss" or "UNEXPECTED PASS".
---@param row podsim.CheckRow
---@return string
function podsim.check_result(row) end

---The tolerance of a row as text (`+-5%`, `[lo, hi]`, `+-x unit`).
---@param row podsim.CheckRow
---@return string
function podsim.format_tolerance(row) end

---A row as one line of the validation table.
---@param row podsim.CheckRow
---@return string
function podsim.format_check(row) end

-- ---------------------------------------------------------------------------
-- Hardware (lua/README.md "Hardware")
-- ---------------------------------------------------------------------------

---Fields of a GPU given to `podsim.gpu{}` (all but `name` required without `base`).
---@class podsim.GpuFields
---@field base? string|podsim.Gpu preset or spec to start from
---@field name? string
---@field bf16_tflops? number dense bf16 peak, TFLOP/s
---@field fp8_tflops? number dense fp8 peak, TFLOP/s (0: none)
---@field fp4_tflops? number dense fp4 peak, TFLOP/s (0: none)
---@field hbm_gb? number HBM capacity, 1e9 bytes
---@field hbm_TBps? number HBM bandwidth, 1e12 bytes/s
---@field power_w? number board power, W

---A GPU spec (immutable).
---@class podsim.Gpu
---@field name string
---@field bf16_tflops number dense bf16 peak, TFLOP/s
---@field fp8_tflops number dense fp8 peak, TFLOP/s (0: none)
---@field fp4_tflops number dense fp4 peak, TFLOP/s (0: none)
---@field hbm_gb number HBM capacity, 1e9 bytes
---@field hbm_TBps number HBM bandwidth, 1e12 bytes/s
---@field power_w number board power, W

---Fields of a system given to `podsim.system{}`.
---@class podsim.SystemFields
---@field base? string|podsim.System preset or spec to start from
---@field fabric? podsim.FabricName scale-out fabric preset applied over `base` (needs `base`) before the other fields
---@field name? string
---@field gpu? podsim.GpuRef
---@field domain_gpus? integer GPUs per scale-up (NVLink) domain
---@field up_GBps? number scale-up bandwidth per GPU per direction, 1e9 B/s
---@field up_latency_us? number per-step latency on the scale-up fabric, us
---@field nvls? boolean the switch can reduce in-network (NVLS)
---@field nics_per_gpu? number scale-out NICs per GPU
---@field nic_gbps? number line rate of one NIC, 1e9 bit/s
---@field out_latency_us? number per-step latency on the scale-out fabric, us
---@field oversub? number oversubscription of the tier above the leaf group, >= 1
---@field usd_per_gpu_hour? number rental price, USD per GPU-hour (0: unknown)
---@field up_eff? number achievable fraction of the scale-up line rate
---@field up_fill_KiB? number bytes per rank and channel in flight before a scale-up pipeline streams, KiB (half size = ranks x up_channels x this)
---@field out_eff? number achievable fraction of the NIC line rate
---@field out_half_MB? number scale-out pipeline half size, MiB
---@field nvls_eff? number NVLS all-reduce busbw over up_GBps at large sizes (0: no NVLS)
---@field nvls_latency_us? number fixed cost of one NVLS all-reduce, us
---@field up_channels? integer NCCL channels of one collective on the scale-up fabric, >= 1
---@field net_channels? integer NCCL network channels of one ring/tree collective per domain (one GPU's NICs each), >= 1
---@field net_channel_GBps? number most one network channel carries, 1e9 B/s per direction
---@field transport? podsim.Transport scale-out transport
---@field routing? podsim.Routing scale-out path selection (only static_ecmp makes all-to-all flows collide)
---@field sharp? boolean the fabric reduces in-network (SHARP: the collnet algorithm)
---@field msg_overhead_us? number cost of posting one message to the NIC, us
---@field leaf_gpus? integer GPUs whose NICs share one leaf group; oversub applies only to traffic leaving it, >= 1
---@field host_link_GBps? number GPU-to-host-memory line rate per GPU per direction, 1e9 B/s (PCIe, or the GPU's share of NVLink-C2C; 0: none)
---@field host_link_eff? number achieved fraction of host_link_GBps (0: unknown)
---@field host_mem_gb? number host memory per GPU, GB (0: unknown)

---A system spec (immutable): a GPU, its scale-up domain and its scale-out network.
---@class podsim.System
---@field name string
---@field gpu podsim.Gpu
---@field domain_gpus integer GPUs per scale-up (NVLink) domain
---@field up_GBps number scale-up bandwidth per GPU per direction, 1e9 B/s
---@field up_latency_us number per-step latency on the scale-up fabric, us
---@field nvls boolean the switch can reduce in-network (NVLS)
---@field nics_per_gpu number scale-out NICs per GPU
---@field nic_gbps number line rate of one NIC, 1e9 bit/s
---@field out_latency_us number per-step latency on the scale-out fabric, us
---@field oversub number oversubscription of the tier above the leaf group, >= 1
---@field usd_per_gpu_hour number rental price, USD per GPU-hour (0: unknown)
---@field up_eff number achievable fraction of the scale-up line rate
---@field up_fill_KiB number bytes per rank and channel in flight before a scale-up pipeline streams, KiB (half size = ranks x up_channels x this)
---@field out_eff number achievable fraction of the NIC line rate
---@field out_half_MB number scale-out pipeline half size, MiB
---@field nvls_eff number NVLS all-reduce busbw over up_GBps at large sizes (0: no NVLS)
---@field nvls_latency_us number fixed cost of one NVLS all-reduce, us
---@field up_channels integer NCCL channels of one collective on the scale-up fabric
---@field net_channels integer NCCL network channels of one ring/tree collective per domain (one GPU's NICs each)
---@field net_channel_GBps number most one network channel carries, 1e9 B/s per direction
---@field transport podsim.Transport scale-out transport
---@field routing podsim.Routing scale-out path selection (only static_ecmp makes all-to-all flows collide)
---@field sharp boolean the fabric reduces in-network (SHARP: the collnet algorithm)
---@field msg_overhead_us number cost of posting one message to the NIC, us
---@field leaf_gpus integer GPUs whose NICs share one leaf group; oversub applies only to traffic leaving it
---@field host_link_GBps number GPU-to-host-memory line rate per GPU per direction, 1e9 B/s (0: none)
---@field host_link_eff number achieved fraction of host_link_GBps (0: unknown)
---@field host_mem_gb number host memory per GPU, GB (0: unknown)

---GPU presets (`podsim presets gpus`; sources in `podsim.sources.gpus`).
---@class podsim.gpus
---@field a100 podsim.Gpu
---@field h100 podsim.Gpu
---@field h800 podsim.Gpu
---@field h200 podsim.Gpu
---@field b200 podsim.Gpu
---@field gb200 podsim.Gpu
---@field gb300 podsim.Gpu
---@field b300 podsim.Gpu

---System presets (`podsim presets systems`; sources in `podsim.sources.systems`).
---@class podsim.systems
---@field dgx_a100 podsim.System
---@field hgx_h100 podsim.System
---@field hgx_h800 podsim.System
---@field hgx_h200 podsim.System
---@field hgx_b200 podsim.System
---@field hgx_b300 podsim.System
---@field gb200_nvl72 podsim.System
---@field gb300_nvl72 podsim.System

---The scale-out fields one fabric preset sets (a plain table).
---@class podsim.Fabric
---@field nics_per_gpu number scale-out NICs per GPU
---@field nic_gbps number line rate of one NIC, 1e9 bit/s
---@field out_eff number achievable fraction of the NIC line rate
---@field out_latency_us number per-step latency on the scale-out fabric, us
---@field out_half_MB number scale-out pipeline half size, MiB
---@field msg_overhead_us number cost of posting one message to the NIC, us
---@field transport podsim.Transport scale-out transport
---@field routing podsim.Routing scale-out path selection
---@field sharp boolean in-network reduction (SHARP, NCCL CollNet)
---@field source string the public source of the figures

---Scale-out fabric presets for `podsim.system{base=, fabric=}`.
---@class podsim.fabrics
---@field ib_ndr podsim.Fabric
---@field ib_ndr_sharp podsim.Fabric
---@field ib_xdr podsim.Fabric
---@field ib_xdr_sharp podsim.Fabric
---@field spectrum_x podsim.Fabric
---@field efa podsim.Fabric

---A GPU from a preset with overrides (`base=`), or from scratch.
--- Example: `podsim.gpu{base = "h100", hbm_gb = 96}`
---@param fields podsim.GpuFields
---@return podsim.Gpu
function podsim.gpu(fields) end

---A system from a preset with overrides (`base=`), or from scratch;
---`fabric=` (with `base=`) first sets the scale-out fields of a
---`podsim.fabrics` preset, then the other fields apply.
--- Example: `podsim.system{base = "hgx_h100", fabric = "ib_ndr_sharp", leaf_gpus = 128}`
---@param fields podsim.SystemFields
---@return podsim.System
function podsim.system(fields) end

-- ---------------------------------------------------------------------------
-- Collectives
-- ---------------------------------------------------------------------------

---@class podsim.CollOpts
---@field ranks integer communicator size n >= 1 (send_recv: 2)
---@field bytes number buffer size S in bytes, as nccl-tests prints it
---@field ranks_per_domain? integer ranks per scale-up domain (0 or absent: packed)
---@field algo? podsim.CollAlgo algorithm (default "auto": the fastest valid one)

---@class podsim.CollResult
---@field time_s number
---@field algbw_GBps number S / time, 1e9 B/s
---@field busbw_GBps number algbw x the nccl-tests bus factor
---@field algo podsim.CollAlgo the algorithm the time belongs to

---Time one collective on a system (nccl-tests conventions).
--- Example: `podsim.collective("gb200_nvl72", "all_to_all", {ranks = 64, bytes = 1 << 26})`
---@param system podsim.SystemRef
---@param op podsim.CollOp
---@param opts podsim.CollOpts
---@return podsim.CollResult
function podsim.collective(system, op, opts) end

-- ---------------------------------------------------------------------------
-- Models and the training step
-- ---------------------------------------------------------------------------

---Fields of a model given to `podsim.model{}`.
---@class podsim.ModelFields
---@field base? string|podsim.Model
---@field name? string
---@field layers? integer transformer blocks
---@field hidden? integer model width
---@field ffn? integer dense MLP width
---@field heads? integer attention heads
---@field kv_heads? integer KV heads (GQA groups)
---@field head_dim? integer 0: hidden / heads
---@field vocab? integer
---@field attn? "mha"|"gqa"|"mla"
---@field q_lora? integer MLA query rank
---@field kv_lora? integer MLA KV rank
---@field qk_nope? integer MLA
---@field qk_rope? integer MLA
---@field v_head? integer MLA
---@field tied_embeddings? boolean
---@field gated_mlp? boolean SwiGLU
---@field experts? integer routed experts
---@field top_k? integer experts per token
---@field expert_ffn? integer expert width
---@field shared_experts? integer always-on experts
---@field dense_layers? integer leading dense layers
---@field moe_interval? integer every k-th layer is MoE
---@field capacity_factor? number 0: dropless
---@field imbalance? number max over mean tokens per expert, >= 1
---@field mtp_layers? integer multi-token-prediction blocks

---A model spec (immutable).
---@class podsim.Model
---@field name string
---@field layers integer
---@field hidden integer
---@field ffn integer
---@field heads integer
---@field kv_heads integer
---@field head_dim integer
---@field vocab integer
---@field attn "mha"|"gqa"|"mla"
---@field q_lora integer
---@field kv_lora integer
---@field qk_nope integer
---@field qk_rope integer
---@field v_head integer
---@field tied_embeddings boolean
---@field gated_mlp boolean
---@field experts integer
---@field top_k integer
---@field expert_ffn integer
---@field shared_experts integer
---@field dense_layers integer
---@field moe_interval integer
---@field capacity_factor number
---@field imbalance number
---@field mtp_layers integer

---Model presets (`podsim presets models`; sources in `podsim.sources.models`).
---@class podsim.models
---@field llama3_8b podsim.Model
---@field llama3_70b podsim.Model
---@field llama3_405b podsim.Model
---@field llama4_maverick podsim.Model
---@field deepseek_v3 podsim.Model
---@field mixtral_8x7b podsim.Model
---@field qwen3_30b_a3b podsim.Model
---@field qwen3_235b_a22b podsim.Model
---@field gpt3_175b podsim.Model

---A model from a preset with overrides, or from scratch.
--- Example: `podsim.model{base = "llama3_8b", layers = 16}`
---@param fields podsim.ModelFields
---@return podsim.Model
function podsim.model(fields) end

---@class podsim.ModelParams
---@field total number main-model parameters
---@field active number parameters used per token
---@field embedding number
---@field head number
---@field layers_dense number
---@field layers_expert number
---@field expert number one expert
---@field moe_layers number
---@field dense_mlp_layers number
---@field mtp number multi-token-prediction block, apart from total

---Parameter counts from the model's structure.
--- Example: `podsim.model_params("deepseek_v3")`
---@param model podsim.ModelRef
---@return podsim.ModelParams
function podsim.model_params(model) end

---@class podsim.ModelFlops
---@field gemm_dense number
---@field gemm_expert number
---@field attn number
---@field head number
---@field mtp number
---@field total number

---Model FLOPs per token (6 x weights used + attention, halved when causal).
--- Example: `podsim.model_flops("llama3_8b", 8192)`
---@param model podsim.ModelRef
---@param seq integer tokens per sequence
---@param causal? boolean default true
---@return podsim.ModelFlops
function podsim.model_flops(model, seq, causal) end

---@class podsim.ParallelFields
---@field tp? integer tensor parallel (0: 1)
---@field pp? integer pipeline stages (0: 1)
---@field vp? integer virtual stages per pipeline rank (0: 1)
---@field dp? integer data parallel (0: gpus / (tp pp cp))
---@field ep? integer expert parallel (0: 1)
---@field etp? integer expert tensor parallel (0: 1)
---@field cp? integer context parallel (0: 1)
---@field microbatch? integer sequences per micro-batch (0: 1)
---@field zero? integer 0 replicated, 1 distributed optimizer (default), 2 + gradients, 3 + weights
---@field recompute? podsim.Recompute
---@field uneven? boolean allow layers not divisible by pp x vp (then pp x vp <= layers + 2: embedding-only and loss-only virtual stages)
---@field recompute_modules? podsim.RecomputeModules per-module recompute on top of `recompute`
---@field offload_modules? podsim.OffloadModules per-module activation offload to host memory

---A parallel layout (immutable, in `podsim.TrainConfig`).
---@class podsim.Parallel
---@field tp integer
---@field pp integer
---@field vp integer
---@field dp integer
---@field ep integer
---@field etp integer
---@field cp integer
---@field microbatch integer
---@field zero integer
---@field recompute podsim.Recompute
---@field uneven boolean
---@field recompute_modules podsim.RecomputeModules
---@field offload_modules podsim.OffloadModules

---Per-module activation offload (Megatron-Core `fine_grained_activation_offloading`, `offload_modules`).
---@class podsim.OffloadModules
---@field attn_norm boolean offload the attention norm's input (the layer input)
---@field core_attn boolean offload core attention's q, k, v
---@field attn_proj boolean offload the output projection's input (attention output)
---@field mlp_norm boolean offload the MLP norm's input
---@field expert_fc1 boolean offload the routed experts' fc1 input (dispatched tokens)
---@field moe_act boolean offload the routed experts' activation input (fc1 output)

---Per-module recompute (Megatron-Core `recompute_modules`, selective granularity).
---@class podsim.RecomputeModules
---@field core_attn boolean drop the attention output, rerun the attention forward
---@field layernorm boolean drop the norm outputs
---@field mla_up_proj boolean rerun MLA's query/key/value up-projections
---@field moe_act boolean drop the experts' SwiGLU outputs
---@field mlp boolean keep only a dense MLP block's input

---A software release: the features its recipe sets.
---@class podsim.Software
---@field cuda_graphs "none"|"partial"|"full" CUDA graphs over part or all of the iteration
---@field a2a_overlap boolean MoE all-to-all overlapped with compute
---@field fused_grouped_mlp boolean fused grouped expert GEMMs
---@field fp8_attention boolean attention in fp8
---@field dispatcher "alltoall"|"deepep"|"hybridep" the MoE token dispatcher
---@field max_domains number node-limited routing: most domains per token (0: no limit)
---@field schedule "1f1b"|"dualpipe" pipeline schedule
---@field fp8_params boolean fp8 primary weights (Megatron's fp8_param_gather)
---@field tp_comm_overlap boolean TP collectives overlapped with the GEMMs (TE userbuffers, Megatron's tp_comm_overlap; default true)

---Software release presets (`podsim presets software`; sources in `podsim.sources.software`).
---@class podsim.software
---@field none podsim.Software
---@field megatron_bridge_26_02 podsim.Software
---@field megatron_bridge_26_04 podsim.Software
---@field megatron_bridge_26_06 podsim.Software

---The public source text of every preset, by kind and name.
---@class podsim.sources
---@field gpus table<string, string>
---@field systems table<string, string>
---@field models table<string, string>
---@field failures table<string, string>
---@field software table<string, string>

---Options of `podsim.train` (and, without `parallel`, of `podsim.search`).
---@class podsim.TrainArgs
---@field base? "default"|podsim.TrainConfig
---@field system podsim.SystemRef
---@field model podsim.ModelRef
---@field gpus integer
---@field seq integer tokens per sequence
---@field global_batch integer sequences per step
---@field dtype? podsim.Dtype GEMM precision (default bf16)
---@field fp8_recipe? podsim.Fp8Recipe fp8/fp4 scaling recipe (default delayed)
---@field parallel? podsim.ParallelFields
---@field eff_gemm? number fraction of dense peak in GEMMs (<= 0: table)
---@field eff_attn? number fraction of bf16 peak in attention (<= 0: table)
---@field gemm_k_half? number GEMM efficiency half hidden size (< 0: table)
---@field eff_scale? number software maturity multiplier (1)
---@field eff_hbm? number fraction of HBM bandwidth (0.8)
---@field overlap_tp? number fraction hidden (0.7)
---@field overlap_cp? number fraction hidden (0.8)
---@field overlap_ep? number fraction hidden (0.5)
---@field overlap_pp? number fraction hidden (0.8)
---@field overlap_dp? number fraction hidden (0.9)
---@field overlap_offload? number fraction of activation offload/reload copies hidden under the layer's compute (1)
---@field jitter? number per-GPU step-time CV (0.0153)
---@field jitter_sync? number per-interval CV at amax all-reduces (0.03)
---@field grad_reduce_bytes? number bytes per gradient element (2)
---@field mem_reserve_gb? number GB kept per GPU (4)
---@field mfu_full_attn? boolean MFU counts full attention (false)
---@field software? string|table a release preset name or `{base = "<release>", <feature> = ...}` (default "none")
---@field gemm_w_half? number expert GEMM efficiency half width (< 0: table)
---@field host_expert_us? number host time per local expert per pass for eager experts (< 0: table)
---@field moe_layer_us? number fixed GPU time per MoE layer per micro-batch, forward and backward, us (< 0: table)
---@field gemm_k_half_expert? number the routed experts' grouped-GEMM efficiency half hidden size (< 0: table)

---A training config (immutable): `r.config` of a `podsim.train` result.
---@class podsim.TrainConfig
---@field system podsim.System
---@field model podsim.Model
---@field gpus integer
---@field seq integer
---@field global_batch integer
---@field dtype podsim.Dtype
---@field parallel podsim.Parallel
---@field eff_gemm number
---@field eff_attn number
---@field gemm_k_half number
---@field eff_scale number
---@field eff_hbm number
---@field overlap_tp number
---@field overlap_cp number
---@field overlap_ep number
---@field overlap_pp number
---@field overlap_dp number
---@field overlap_offload number
---@field jitter number
---@field grad_reduce_bytes number
---@field mem_reserve_gb number
---@field mfu_full_attn boolean
---@field fp8_recipe podsim.Fp8Recipe
---@field jitter_sync number
---@field gemm_w_half number
---@field software podsim.Software
---@field host_expert_us number
---@field moe_layer_us number
---@field gemm_k_half_expert number

---@class podsim.TrainMemory
---@field weights_gb number
---@field grads_gb number
---@field optimizer_gb number
---@field activations_gb number
---@field reserve_gb number
---@field total_gb number
---@field host_gb number offloaded activations held in host memory per GPU

---Seconds of one step by part; they add up to `step_s`.
---@class podsim.TrainBreakdown
---@field compute number
---@field tp number
---@field cp number
---@field ep number
---@field pp number
---@field dp number with the fp8 amax all-reduces
---@field bubble number
---@field optimizer number
---@field straggler number with the waits at the amax all-reduces
---@field host number host time of eager expert launches

---@class podsim.TrainResult
---@field step_s number
---@field tokens_per_s number
---@field tokens_per_s_per_gpu number
---@field tflops_per_gpu number
---@field mfu number
---@field peak_tflops number the dense peak the MFU uses
---@field clock number sustained fraction of the boost clock under the power limit
---@field flops_per_token number
---@field memory_gb number
---@field fits boolean
---@field memory podsim.TrainMemory
---@field breakdown podsim.TrainBreakdown
---@field eff_gemm number as used
---@field eff_attn number as used
---@field microbatches integer
---@field dp integer
---@field edp integer expert data parallel
---@field config podsim.TrainConfig

---One training step.
--- Example: `podsim.train{system = "gb200_nvl72", model = "llama3_8b", gpus = 8, seq = 8192, global_batch = 64}`
---@param args podsim.TrainArgs
---@return podsim.TrainResult
function podsim.train(args) end

---@class podsim.SearchArgs: podsim.TrainArgs
---@field fix? podsim.ParallelFields dimensions pinned
---@field top? integer layouts returned (10)
---@field max_tp? integer
---@field max_pp? integer
---@field max_vp? integer
---@field max_cp? integer
---@field max_mb? integer
---@field offload_modules? podsim.OffloadModules offload these modules in every layout (default: none; the search considers offload only when asked)

---@class podsim.SearchItem
---@field tp integer
---@field pp integer
---@field vp integer
---@field dp integer
---@field ep integer
---@field etp integer
---@field cp integer
---@field microbatch integer
---@field zero integer
---@field recompute podsim.Recompute
---@field uneven boolean
---@field recompute_modules podsim.RecomputeModules
---@field offload_modules podsim.OffloadModules
---@field tokens_per_s_per_gpu number
---@field step_s number
---@field mfu number
---@field memory_gb number
---@field parallel podsim.ParallelFields the layout alone, ready for `podsim.train{parallel = item.parallel}`

---The search's list, best first, with its counts.
---@class podsim.SearchResult
---@field [integer] podsim.SearchItem
---@field candidates integer
---@field checked integer
---@field fitting integer
---@field evaluated integer
---@field why? string when the list is empty: which constraint removed every layout

---Valid layouts that fit, best first by tokens/s/GPU.
--- Example: `podsim.search{system = "gb200_nvl72", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512, top = 2}`
---@param args podsim.SearchArgs
---@return podsim.SearchResult
function podsim.search(args) end

-- ---------------------------------------------------------------------------
-- Serving (prefill and decode) and RL post-training
-- ---------------------------------------------------------------------------

---@alias podsim.EpKernel "deepep_ll"|"nccl"

---Layout of a serving instance; 0 or absent: tp 1, pp 1, dp_attn gpus / (tp pp), ep gpus / pp (MoE) or 1 (dense).
---@class podsim.ServeParallelFields
---@field tp? integer attention / dense tensor parallel (0: 1)
---@field dp_attn? integer attention data-parallel groups per stage (0: gpus / (tp pp))
---@field ep? integer expert parallel per stage (0: gpus / pp for MoE, 1 dense)
---@field pp? integer pipeline stages (0: 1)

---The prefill instance of a disaggregated deployment (giving it sets `disaggregated`).
---@class podsim.ServePoolFields: podsim.ServeParallelFields
---@field gpus integer GPUs of the prefill instance

---Options of `podsim.serve` (and of `rollout` in `podsim.rl`).
---@class podsim.ServeArgs
---@field base? "default"|podsim.ServeConfig
---@field system podsim.SystemRef
---@field model podsim.ModelRef
---@field gpus integer GPUs of the (decode) instance
---@field dtype? podsim.Dtype weights and GEMMs (default fp8)
---@field kv_dtype? "bf16"|"fp8" KV cache elements (default bf16)
---@field dense_dtype? "bf16"|"fp8"|"fp4"|"same" dense GEMMs (attention projections, dense MLPs, shared experts, head); "same" (default): dtype
---@field parallel? podsim.ServeParallelFields
---@field batch? integer sequences decoding at once per instance (0: the largest that fits)
---@field concurrency? integer the same as batch (give one)
---@field input_tokens? number prompt tokens per request (1000)
---@field output_tokens? number generated tokens per request (1000)
---@field prefix_hit? number share of prompt tokens in the prefix cache, < 1 (0)
---@field disaggregated? boolean separate prefill instance `prefill` (false)
---@field prefill? podsim.ServePoolFields
---@field prefill_tokens? number computed prompt tokens per GPU in one prefill pass (16384)
---@field spec_tokens? integer draft tokens verified per decode step, MTP (0)
---@field spec_accept? number acceptance probability of each draft token (0.8)
---@field redundant_experts? integer extra expert replicas per MoE layer, EPLB (0)
---@field ep_kernel? podsim.EpKernel decode dispatch/combine (deepep_ll)
---@field two_batch_overlap? boolean two micro-batches hide communication (false)
---@field single_batch_overlap? boolean decode without two-batch overlap: the combine runs under the down GEMM and the shared experts, `overlap` of the smaller hidden (SGLang --enable-single-batch-overlap; false)
---@field eff_gemm? number fraction of dtype peak in GEMMs (<= 0: the training table)
---@field eff_attn? number fraction of the attention peak (bf16; fp8 with an fp8 KV cache) in attention kernels (0: per generation, Hopper 0.67, Blackwell decode 0.25 / prefill 0.65)
---@field eff_hbm? number fraction of HBM bandwidth in memory-bound parts (0.85)
---@field overlap? number with two_batch_overlap: share of min(compute, comm) hidden in decode (0.95, fitted on S2)
---@field ep_ll_us? number us fixed cost of one DeepEP low-latency dispatch or combine with network peers (34, fitted on S1)
---@field ep_ll_up_us? number us, the same when all peers share the NVLink domain (19)
---@field ep_cast_us? number us per token on its sending SM for the NVFP4 cast inside DeepEP's low-latency dispatch, dtype fp4 only (10.4, fitted on S1)
---@field layer_us? number us fixed cost per layer per pass (-1: < 0 counts the layer's kernels x kernel_us)
---@field kernel_us? number us GPU cost of one kernel boundary inside a CUDA graph (0.8)
---@field mem_reserve_gb? number GB per GPU for context, activations, slack (8)
---@field kv_frac? number share of free HBM the KV cache may use (0.9)
---@field ep_sms? number SMs DeepEP's normal kernels hold while overlapping prefill compute (20)
---@field host_GBps? number GB/s per GPU from host memory for prefill weights that do not fit in HBM (0: no offload)
---@field host_us? number us of host work per decode step: scheduling, metadata, sampling, output processing (3770: 29% of a 13 ms step, vLLM blog 2024-09-05)
---@field host_overlap? boolean the engine prepares the next step while the GPU runs this one (zero-overhead scheduling): host time shows only beyond the GPU step (true)
---@field expert_cv? number relative sd of one physical expert's load in a batch about its EPLB placement's balanced mean (0.55, fitted on S2; 0: perfect EPLB, multinomial counts only)
---@field gemm_w_overlap? number share of a GEMM's weight streaming hidden under its MMA work: the GEMM takes max(t_mma, t_w) + (1 - gemm_w_overlap) min(t_mma, t_w), weights read once per micro-batch (0: none, as DeepGEMM's FP8 tables on H800 show; 1: the roofline)
---@field fp8_prefill_attn? boolean with an fp8 KV cache, prefill attention runs on fp8 tensor cores too (false: bf16, SGLang's MLA prefill before PR #14395)

---A serving layout as used (in `podsim.ServeConfig`).
---@class podsim.ServeParallel
---@field tp integer
---@field dp_attn integer
---@field ep integer
---@field pp integer

---@class podsim.ServePool
---@field gpus integer
---@field tp integer
---@field dp_attn integer
---@field ep integer
---@field pp integer

---A serving config (immutable): `r.config` of a `podsim.serve` result.
---@class podsim.ServeConfig
---@field system podsim.System
---@field model podsim.Model
---@field gpus integer
---@field dtype podsim.Dtype
---@field kv_dtype podsim.Dtype
---@field dense_dtype "bf16"|"fp8"|"fp4"|"same"
---@field parallel podsim.ServeParallel
---@field batch integer
---@field input_tokens number
---@field output_tokens number
---@field prefix_hit number
---@field disaggregated boolean
---@field prefill podsim.ServePool
---@field prefill_tokens number
---@field spec_tokens integer
---@field spec_accept number
---@field redundant_experts integer
---@field ep_kernel podsim.EpKernel
---@field two_batch_overlap boolean
---@field eff_gemm number
---@field eff_attn number
---@field eff_hbm number
---@field overlap number
---@field ep_ll_us number
---@field ep_ll_up_us number
---@field ep_cast_us number
---@field layer_us number
---@field kernel_us number
---@field mem_reserve_gb number
---@field kv_frac number
---@field host_GBps number
---@field ep_sms number
---@field expert_cv number
---@field host_us number
---@field host_overlap boolean
---@field gemm_w_overlap number
---@field single_batch_overlap boolean
---@field fp8_prefill_attn boolean

---GB per GPU.
---@class podsim.ServeMemory
---@field weights_gb number per GPU of the decode instance
---@field kv_gb number KV cache of the batch
---@field reserve_gb number
---@field total_gb number
---@field prefill_weights_gb number per GPU of the prefill instance

---Seconds per decode step of the whole batch, by part.
---@class podsim.ServeStep
---@field attn number KV read / FLOPs roofline
---@field dense number dense GEMMs (projections, dense MLPs, shared experts, router, head)
---@field expert number routed experts: touched weights / FLOPs
---@field tp number TP all-reduces
---@field ep number expert dispatch + combine (exposed)
---@field pp number pipeline send/recv
---@field overhead number per-layer fixed cost
---@field act number memory-bound kernels between the GEMMs (norms, residuals, quantisation, permutes, activations)
---@field draft number speculative drafts (MTP)
---@field host number host time per step beyond the GPU's (all of it without host_overlap)
---@field total number one decode step

---Seconds of one prefill pass of `prefill_tokens` per GPU, by part.
---@class podsim.ServePass
---@field gemm number dense + expert GEMMs (roofline with weight reads)
---@field attn number attention's quadratic term
---@field comm number EP all-to-all + TP all-reduce (exposed)
---@field overhead number per-layer fixed cost
---@field act number memory-bound kernels between the GEMMs
---@field ep_sm number two-batch overlap: compute stretched by the SMs DeepEP's normal kernels hold
---@field kv_out number KV shipping beyond the pass (disaggregated, NIC-bound)
---@field offload number weight streaming from host beyond the pass (host_GBps-bound)
---@field total number

---@class podsim.ServeResult
---@field prefill_tokens_per_s number prompt tokens/s of the prefill instance, cache hits included
---@field prefill_tokens_per_s_per_gpu number
---@field prefill_pass_s number one pass of prefill_tokens per GPU
---@field ttft_s number prefill pass + KV transfer
---@field kv_transfer_s number one request's KV to decode
---@field decode_tokens_per_s number output tokens/s of the instance
---@field decode_tokens_per_s_per_gpu number
---@field tpot_s number time per output token per user
---@field tokens_per_step number per sequence (spec decoding)
---@field batch integer sequences decoded at once
---@field max_batch integer largest batch that fits
---@field kv_bytes_per_token number all layers, one copy
---@field kv_gb_per_seq number at input + output tokens
---@field experts_touched number distinct experts read per GPU per MoE layer per step
---@field clock number sustained fraction of the boost clock under the power limit (Blackwell < 1)
---@field offload_gb number prefill weights streamed from host per GPU per pass
---@field output_tokens_per_s_per_gpu number both phases, prefill GPUs counted
---@field requests_per_s_per_gpu number
---@field prefill_gpu_share number GPU-time share in prefill (pool ratio when disaggregated)
---@field usd_per_m_output number system price / output rate
---@field memory podsim.ServeMemory
---@field memory_gb number memory.total_gb
---@field step podsim.ServeStep
---@field pass podsim.ServePass
---@field config podsim.ServeConfig

---One serving deployment: prefill and decode throughput, TTFT, TPOT, memory.
--- Example: `podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 16, batch = 64, prefill = {gpus = 16}}`
---@param args podsim.ServeArgs
---@return podsim.ServeResult
function podsim.serve(args) end

---@class podsim.EpTimeArgs
---@field system podsim.SystemRef
---@field ranks integer EP ranks, packed on the system's domains
---@field tokens number tokens per GPU
---@field hidden number elements per token row
---@field top_k integer experts per token
---@field bytes_per_elem? number bytes per element (2)
---@field kernel? "deepep_ll"|"nccl"|"deepep_normal" (deepep_ll)
---@field ll_us? number us fixed cost with network peers (34)
---@field ll_up_us? number us fixed cost, all peers on NVLink (19)
---@field experts? integer experts of the layer: DeepEP's low-latency kernels run on ceil(E / ceil(E / SMs)) SMs (288)
---@field cast_us? number us per token on its sending SM for an in-kernel cast, deepep_ll only (0; the config's ep_cast_us is NVFP4's)

---One expert dispatch or combine, seconds.
---@param args podsim.EpTimeArgs
---@return number seconds
function podsim.ep_time(args) end

---Response-length distribution in a config: a continuous pod_dist kind and its parameters.
---@class podsim.RlLength
---@field kind string distribution kind (lognormal, gamma, ...)
---@field a number first parameter (lognormal: mu of ln tokens)
---@field b number second parameter (lognormal: sigma)
---@field c number
---@field d number

---The reliability kernel's config (`podsim.kernel.reliability` fields), in `podsim.RlConfig`.
---@class podsim.RelConfig
---@field failures podsim.FailureSet|string
---@field node_gpus integer
---@field domain_gpus integer
---@field active_gpus integer set from the step
---@field spare_per_domain integer
---@field pool_units integer
---@field pool_scope "node"|"domain"
---@field swap_s number
---@field repair_h number
---@field repair_dist "exponential"|"lognormal"
---@field repair_sigma number
---@field shrink boolean
---@field ckpt_s number
---@field interval_rule "fixed"|"young"|"daly"
---@field interval_s number
---@field restart_s number
---@field waste_model "renewal"|"first"|"daly"
---@field work_h number set from the step
---@field tokens number
---@field tokens_per_s number
---@field gpu_rate_log10 number
---@field node_rate_log10 number
---@field domain_rate_log10 number
---@field job_rate_log10 number
---@field u_seed number

---Options of `podsim.rl` (and `podsim.rl_split`, `podsim.rl_sync`, `podsim.rl_config`).
---@class podsim.RlArgs
---@field base? "default"|podsim.RlConfig
---@field system? podsim.SystemRef fills rollout's and train's when they give none
---@field model? podsim.ModelRef fills rollout's and train's when they give none
---@field rollout? podsim.ServeArgs one rollout instance; input_tokens, output_tokens, batch set per step (batch caps)
---@field rollout_gpus? integer rollout pool GPUs (disaggregated; colocated uses train.gpus)
---@field train? podsim.TrainArgs the trainer; seq and global_batch set per step
---@field placement? "colocated"|"disaggregated" (colocated)
---@field async? boolean disaggregated: rollout of step k+1 overlaps training of step k (false)
---@field partial? boolean partial rollouts, no tail wait (false)
---@field prompts? integer prompts per step (512)
---@field samples? integer responses per prompt (16)
---@field input_tokens? number prompt tokens (1024)
---@field response? podsim.Dist|table continuous length distribution, tokens (lognormal median 2048, log-sd 0.8)
---@field max_response? number generation cap, tokens (16384)
---@field ref_model? boolean reference-policy forward (true)
---@field old_logprob? boolean old-policy log-prob forward (true)
---@field reward_model? boolean policy-sized reward model forward (false)
---@field critic? boolean PPO critic forward + training (false)
---@field reward_s? number s of non-GPU scoring per step (0)
---@field minibatches? integer optimizer steps per epoch (1)
---@field epochs? integer passes over the step's data (1)
---@field sync_method? "reshard"|"broadcast" weight sync (reshard)
---@field sync_bytes? number bytes per parameter moved (2; 1 for fp8)
---@field offload? boolean colocated: training state to host for the rollout (true)
---@field host_GBps? number GB/s GPU-host per GPU per direction (64)
---@field sync_fixed_s? number s of engine pause/resume, metadata (2)
---@field hours? number failure-free job hours for reliability (100)
---@field reliability? table `podsim.kernel.reliability` config fields (default no failures)

---An RL config (immutable): `r.config` of a `podsim.rl` result, or `podsim.rl_config{...}`.
---@class podsim.RlConfig
---@field rollout podsim.ServeConfig
---@field rollout_gpus integer
---@field train podsim.TrainConfig
---@field placement "colocated"|"disaggregated"
---@field async boolean
---@field partial boolean
---@field prompts integer
---@field samples integer
---@field input_tokens number
---@field response podsim.RlLength
---@field max_response number
---@field ref_model boolean
---@field old_logprob boolean
---@field reward_model boolean
---@field critic boolean
---@field reward_s number
---@field minibatches integer
---@field epochs integer
---@field sync_method "reshard"|"broadcast"
---@field sync_bytes number
---@field offload boolean
---@field host_GBps number
---@field sync_fixed_s number
---@field hours number
---@field reliability podsim.RelConfig

---One optimizer step of the trainer (in `podsim.RlResult`).
---@class podsim.RlTrain
---@field step_s number
---@field tokens_per_s_per_gpu number
---@field mfu number
---@field memory_gb number
---@field compute_s number

---@class podsim.RlResult
---@field step_s number
---@field rollout_s number generation incl. prompt prefill and tail
---@field tail_s number of rollout_s: waiting for the longest response
---@field split_s number of rollout_s: the slowest instance's extra work under the static split
---@field score_s number ref / old-logprob / reward / critic forwards and reward_s
---@field train_s number optimizer steps
---@field sync_s number weight sync incl. offload/reload
---@field idle_s number GPU-time-weighted idle (disaggregated)
---@field sequences number prompts x samples
---@field mean_response number E[min(X, cap)], tokens
---@field max_response number E[max of the sequences], tokens
---@field generated_tokens number per step
---@field sync_bytes number model bytes moved to each rollout copy
---@field instances integer rollout instances
---@field rollout_batch integer sequences decoding at once per instance
---@field total_gpus integer active GPUs of the job
---@field gpu_hours_per_step number
---@field usd_per_step number failure-free, spares excluded
---@field usd_per_m_tokens number per million generated tokens
---@field usd_per_m_tokens_charged number with goodput and spares charged
---@field rollout_util number busy share of the rollout pool
---@field train_util number busy share of the trainer pool
---@field goodput number from the reliability model
---@field spare_gpus integer
---@field rollout_tokens_per_s_per_gpu number generated tokens / rollout_s per rollout GPU
---@field train podsim.RlTrain
---@field serve podsim.ServeResult the rollout instance at its batch
---@field config podsim.RlConfig
---@field rollout_gpus? integer rl_split only: the winning rollout pool
---@field train_gpus? integer rl_split only: the rest

---One on-policy RL step (GRPO/PPO): rollout, scoring, training, weight sync.
--- Example: `podsim.rl{system = "hgx_b200", model = "llama3_8b", rollout = {gpus = 1}, train = {gpus = 8}, prompts = 16, samples = 4}`
---@param args podsim.RlArgs
---@return podsim.RlResult
function podsim.rl(args) end

---@class podsim.RlSplitArgs: podsim.RlArgs
---@field gpus integer the budget split between rollout and training

---The best disaggregated split of `gpus` between rollout (multiples of rollout.gpus) and training.
--- Example: `podsim.rl_split{gpus = 16, system = "hgx_b200", model = "llama3_8b", rollout = {gpus = 1}, train = {gpus = 8}, prompts = 16, samples = 4}`
---@param args podsim.RlSplitArgs
---@return podsim.RlResult
function podsim.rl_split(args) end

---@class podsim.RlSyncResult
---@field sync_s number seconds of one weight sync
---@field bytes number bytes per model copy

---The weight sync of one step alone.
--- Example: `podsim.rl_sync{system = "hgx_b200", model = "llama3_8b", rollout = {gpus = 1}, train = {gpus = 8}}`
---@param args podsim.RlArgs
---@return podsim.RlSyncResult
function podsim.rl_sync(args) end

---The config of `podsim.rl`, not evaluated (a base for the rl and rl_pair kernels).
--- Example: `podsim.rl_config{system = "hgx_b200", model = "llama3_8b", rollout = {gpus = 1}, train = {gpus = 8}}`
---@param args podsim.RlArgs
---@return podsim.RlConfig
function podsim.rl_config(args) end

---E[min(max of n draws, cap)] of a continuous distribution, by quadrature of its quantile.
---@param dist podsim.Dist continuous kind
---@param n number draws, >= 1
---@param cap? number cap (default none)
---@return number
function podsim.expected_max(dist, n, cap) end

-- ---------------------------------------------------------------------------
-- Cost
-- ---------------------------------------------------------------------------

---@class podsim.Tco
---@field capex_usd_per_gpu number server, network share, installation
---@field amort_years number
---@field capital_rate? number annual (0: straight line)
---@field power_kw_per_gpu number all-in IT power
---@field pue number
---@field usd_per_kwh number
---@field hosting_usd_per_kw_month? number per kW of IT power
---@field ops_usd_per_gpu_year? number

---@class podsim.CostArgs
---@field train? podsim.TrainResult|table a train result or `{tokens_per_s_per_gpu=, ...}`
---@field tokens_per_s_per_gpu? number
---@field step_s? number
---@field usd_per_gpu_hour? number rental price
---@field tco? podsim.Tco
---@field system? podsim.SystemRef the price of the system
---@field gpus? integer active GPUs
---@field spares? number|{spare_gpus: number}
---@field goodput? number useful / wall time in (0, 1]
---@field reliability? podsim.ReliabilityResult|podsim.RunResult
---@field tokens? number tokens to train (0: no totals)

---@class podsim.CostParts
---@field capital_usd number
---@field energy_usd number
---@field hosting_usd number
---@field ops_usd number

---@class podsim.CostResult
---@field usd_per_gpu_hour number
---@field usd_per_gpu_hour_parts podsim.CostParts
---@field usd_per_m_tokens number spares excluded
---@field usd_per_m_tokens_excluded number
---@field usd_per_m_tokens_charged number spares charged
---@field usd_per_step number
---@field usd_per_step_charged number
---@field train_h number
---@field gpu_hours number
---@field gpu_hours_charged number
---@field usd_total number
---@field usd_total_excluded number
---@field usd_total_charged number
---@field spare_fraction number
---@field tokens_per_s number
---@field tokens_per_s_per_gpu number
---@field goodput number
---@field gpus number
---@field spare_gpus number

---Cost per GPU-hour, per million tokens, per step and in total.
--- Example: `podsim.cost{tokens_per_s_per_gpu = 1000, gpus = 64, step_s = 6, system = "hgx_h100", tokens = 1e9}`
---@param args podsim.CostArgs
---@return podsim.CostResult
function podsim.cost(args) end

-- ---------------------------------------------------------------------------
-- Failures and reliability
-- ---------------------------------------------------------------------------

---@class podsim.Cause
---@field cause string
---@field rate_per_h number per `unit` per hour
---@field unit podsim.Unit what the rate counts
---@field blast podsim.Unit what one failure drains
---@field basis? "sourced"|"assumed" whether the rate comes from a public source or is an assumption
---@field source? string the public source of the rate, or why it is assumed

---A list of causes with a name.
---@class podsim.FailureList
---@field [integer] podsim.Cause
---@field name string

---Failure-rate presets (`podsim presets failures`; sources in `podsim.sources.failures`).
---@class podsim.failures
---@field llama3_h100 podsim.FailureList
---@field gb200_nvl72 podsim.FailureList

---An immutable failure set, usable in studies.
---@class podsim.FailureSet
---@field name string

---An immutable failure set from a list or a preset name.
--- Example: `podsim.failure_set("llama3_h100")`
---@param value string|podsim.Cause[]|podsim.FailureList
---@return podsim.FailureSet
function podsim.failure_set(value) end

---A fresh, editable list of causes.
--- Example: `podsim.failure_list("gb200_nvl72")`
---@param value podsim.FailuresRef
---@return podsim.FailureList
function podsim.failure_list(value) end

---@class podsim.Spares
---@field per_domain? integer hot spares inside each domain
---@field pool? integer spare nodes or racks
---@field pool_scope? "node"|"domain"
---@field swap_s number seconds to bring a spare or the repaired unit into the job (required; 0 states none)

---@class podsim.Checkpoint
---@field write_s number
---@field interval_s? number
---@field interval? "young"|"daly" default young

---@class podsim.ReliabilityArgs
---@field system? podsim.SystemRef
---@field domain_gpus? integer
---@field node_gpus? integer
---@field gpus integer active GPUs
---@field failures podsim.FailuresRef
---@field spares "none"|podsim.Spares required: "none", or the spares the job can swap in
---@field repair_h number mean time to repair a drained unit
---@field repair? "exponential"|"lognormal"
---@field repair_sigma? number log-sd of lognormal repair
---@field shrink? boolean continue on fewer GPUs when no spare
---@field checkpoint podsim.Checkpoint
---@field restart_s number detection + restart + reload
---@field hours? number failure-free compute hours
---@field tokens? number
---@field tokens_per_s? number
---@field train? podsim.TrainResult
---@field waste? "renewal"|"first"|"daly"
---@field rate_scale? number|{gpu?: number, node?: number, domain?: number, job?: number}
---@field seed? integer simulate_run only

---@class podsim.ReliabilityResult
---@field interruptions_per_day number
---@field job_mtbf_h number
---@field rate_per_h number
---@field per_gpu_hour number
---@field hw_fraction number
---@field checkpoint_interval_s number
---@field p_no_spare number
---@field down_s number
---@field goodput number
---@field waste number
---@field work_h number
---@field wall_h number
---@field interruptions number
---@field wait_h number
---@field nodes number
---@field domains number
---@field gpus number
---@field spare_gpus number
---@field spare_fraction number
---@field gpu_hours number
---@field gpu_hours_charged number
---@field waste_model string

---The analytic expectation of a run with failures, checkpoints and spares.
--- Example: `podsim.reliability{system = "gb200_nvl72", gpus = 16384, failures = "gb200_nvl72", spares = {per_domain = 8, swap_s = 300}, repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300, hours = 1000}`
---@param args podsim.ReliabilityArgs
---@return podsim.ReliabilityResult
function podsim.reliability(args) end

---@class podsim.RunResult
---@field wall_h number
---@field work_h number
---@field goodput number
---@field interruptions number
---@field by_cause table<string, number>
---@field lost_h number
---@field restart_h number
---@field wait_h number
---@field ckpt_h number
---@field checkpoints number
---@field swaps number
---@field waits number
---@field shrinks number
---@field spares_peak_gpus number
---@field spare_gpus number
---@field gpus number
---@field gpu_hours number
---@field gpu_hours_charged number

---One stochastic run (same seed, same run).
--- Example: `podsim.simulate_run{system = "hgx_h100", gpus = 1024, failures = "llama3_h100", spares = "none", repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300, hours = 100, seed = 1}`
---@param args podsim.ReliabilityArgs
---@return podsim.RunResult
function podsim.simulate_run(args) end

-- ---------------------------------------------------------------------------
-- Distributions
-- ---------------------------------------------------------------------------

---A distribution for a study parameter.
---@class podsim.Dist
---@field kind string
---@field mean number
---@field variance number
local Dist = {}

---The u-quantile, u in [0, 1].
---@param u number
---@return number
function Dist:quantile(u) end

---Distribution constructors; parameters by position or by name.
---@class podsim.dist
podsim.dist = {}

---@param p number[]|{value?: number} by position or by name
---@return podsim.Dist
function podsim.dist.fixed(p) end

--- Example: `podsim.dist.uniform{2, 4}`
---@param p number[]|{lo?: number, hi?: number} by position or by name
---@return podsim.Dist
function podsim.dist.uniform(p) end

---@param p number[]|{lo?: number, hi?: number} by position or by name
---@return podsim.Dist
function podsim.dist.loguniform(p) end

---@param p number[]|{mean?: number, sd?: number} by position or by name
---@return podsim.Dist
function podsim.dist.normal(p) end

---@param p number[]|{mean?: number, sd?: number, lo?: number, hi?: number} by position or by name
---@return podsim.Dist
function podsim.dist.truncnormal(p) end

---`mu`, `sigma` of log x; or `median=`, `p90=`; or `p5=`, `p95=`.
---@param p number[]|{mu?: number, sigma?: number, median?: number, p90?: number, p5?: number, p95?: number} by position or by name
---@return podsim.Dist
function podsim.dist.lognormal(p) end

---@param p number[]|{lo?: number, mode?: number, hi?: number} by position or by name
---@return podsim.Dist
function podsim.dist.triangular(p) end

---@param p number[]|{a?: number, b?: number, lo?: number, hi?: number} by position or by name
---@return podsim.Dist
function podsim.dist.beta(p) end

---@param p number[]|{shape?: number, scale?: number} by position or by name
---@return podsim.Dist
function podsim.dist.gamma(p) end

---@param p number[]|{shape?: number, scale?: number} by position or by name
---@return podsim.Dist
function podsim.dist.weibull(p) end

---@param p number[]|{mean?: number} by position or by name
---@return podsim.Dist
function podsim.dist.exponential(p) end

---`{v1, v2, ...}` or `{values = {...}, weights = {...}}`; values may be any Lua values.
---@param p table
---@return podsim.Dist
function podsim.dist.choice(p) end

---`{x1, x2, ...}` or `{values = {...}}`: resampled uniformly.
---@param p number[]|{values: number[]}
---@return podsim.Dist
function podsim.dist.empirical(p) end

-- ---------------------------------------------------------------------------
-- Studies
-- ---------------------------------------------------------------------------

---A built-in evaluator: config fields of the kernel (`base="default"` or a config).
---@class podsim.Kernel
---@field name string
---@field base table

---Built-in evaluators, one per registered kernel.
---@class podsim.kernel
podsim.kernel = {}

---`system`, `op`, `ranks`, `ranks_per_domain`, `bytes`, `algo`; metrics time_s, algbw_GBps, busbw_GBps.
--- Example: `podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1 << 20}`
---@param config table
---@return podsim.Kernel
function podsim.kernel.collective(config) end

---A training config (`base="default"` or `r.config`); metrics step_s, tokens_per_s, mfu, ...
---@param config table
---@return podsim.Kernel
function podsim.kernel.train(config) end

---`pod_cost_cfg` fields; metrics as podsim.cost.
---@param config table
---@return podsim.Kernel
function podsim.kernel.cost(config) end

---`pod_rel_cfg` fields; metrics as podsim.reliability.
---@param config table
---@return podsim.Kernel
function podsim.kernel.reliability(config) end

---`pod_rel_cfg` fields and `u_seed`; metrics as podsim.simulate_run.
---@param config table
---@return podsim.Kernel
function podsim.kernel.simulate_run(config) end

---A serving config (`base="default"` or `r.config` of podsim.serve); metrics decode_tokens_per_s_per_gpu, prefill_tokens_per_s_per_gpu, ttft_s, tpot_s, output_tokens_per_s_per_gpu, usd_per_m_output, batch, max_batch, kv_gb_per_seq, memory_gb, step_s, attn_s, dense_s, expert_s, tp_s, ep_s.
--- Example: `podsim.kernel.serve{base = podsim.serve{system = "hgx_h100", model = "llama3_8b", gpus = 1, batch = 8}.config}`
---@param config table
---@return podsim.Kernel
function podsim.kernel.serve(config) end

---An RL config (`r.config` or `podsim.rl_config{...}`); metrics step_s, rollout_s, tail_s, score_s, train_s, sync_s, idle_s, gpu_hours_per_step, usd_per_step, usd_per_m_tokens, usd_per_m_tokens_charged, rollout_util, train_util, goodput, generated_tokens, max_response.
---@param config table
---@return podsim.Kernel
function podsim.kernel.rl(config) end

---Two RL (or, with `pretrain`, pre-training) configs `a`, `b` of one workload on two systems with shared overrides `eff_scale`, `overlap`, `imbalance`, `resp_scale` and per side `up_eff_a/_b`, `out_eff_a/_b`, `price_a/_b` (0: keep); metrics cost_a, cost_b, ratio, a_cheaper, step_a, step_b, goodput_a, goodput_b, tokens_per_s_per_gpu_a, tokens_per_s_per_gpu_b.
---@param config table
---@return podsim.Kernel
function podsim.kernel.rl_pair(config) end

---@class podsim.Target
---@field metric string
---@field rel_ci95 number stop when the 95% CI half-width over the mean is below this
---@field min_samples? integer

---A metric's declaration: how tables, plots and reports show it.
---@class podsim.MetricDecl
---@field label? string e.g. "GB200 cost advantage"
---@field unit? string e.g. "%"
---@field scale? number shown values are the metric times this (stored values are not)
---@field wins_above? number the metric wins above this value (stored unit): podsim.plot maps P(win) over a two-key grid
---@field wins_below? number the metric wins below this value (stored unit; not with wins_above)

---@class podsim.StudyArgs
---@field name? string names the output folder (default "study")
---@field samples? integer per grid point (default 10000)
---@field seed? integer default 1
---@field params? table<string, podsim.Dist|number>
---@field grid? table<string, any[]>
---@field eval (fun(p: table): table<string, number>|number)|podsim.Kernel
---@field metrics? string[]|table<string, podsim.MetricDecl|true> names, or declarations by name
---@field sensitivity? "none"|"spearman"|"sobol"
---@field target? podsim.Target
---@field keep_samples? boolean write samples.csv
---@field chunk_size? integer samples per chunk: the unit of determinism (1024)
---@field trace? boolean compile a Lua eval into a graph evaluated in C (true; false: Lua per sample)
---@field threads? integer
---@field unfit? "keep"|"exclude"|"error" samples whose `fits` metric is 0 (default "keep", with a warning)
---@field nonfinite? "count"|"error" samples with a NaN/inf metric: left out and counted (default), or fail

---A study: sampled parameters over a grid, evaluated on the thread pool.
---@class podsim.Study
---@field name string
---@field done boolean
local Study = {}

---Start without waiting.
---@return podsim.Study
function Study:start() end

---Wait for a started study.
---@return podsim.Results
function Study:wait() end

---Start and wait.
--- Example: `podsim.study{name = "annotation_probe", samples = 8, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return {y = p.x} end, metrics = {"y"}}:run()`
---@return podsim.Results
function Study:run() end

---Statistics of one metric at one grid point.
---@class podsim.Stats
---@field n number
---@field mean number
---@field sd number
---@field se number
---@field ci95_lo number
---@field ci95_hi number
---@field min number
---@field max number
---@field skew number
---@field kurtosis number
---@field p1 number
---@field p5 number
---@field p25 number
---@field p50 number
---@field p75 number
---@field p95 number
---@field p99 number
---@field exact boolean quantiles exact (else from the sketch)
---@field nonfinite integer samples left out for a NaN/inf value of this metric
---@field unfit integer samples at this grid point whose layout does not fit (fits = 0)

---@class podsim.Sens
---@field spearman number
---@field sobol_first number
---@field sobol_total number

---A study's results.
---@class podsim.Results
---@field name string
---@field complete boolean
---@field stopped boolean the stopping rule was met
---@field interrupted boolean
---@field samples number
---@field samples_done number
---@field samples_partial boolean
---@field chunks_done number
---@field chunks_total number
---@field chunk_size number
---@field seed number
---@field threads number
---@field wall_s number
---@field params string[]
---@field metrics string[]
---@field grid table[]
---@field grid_keys string[]
---@field dists table<string, table>
---@field stats table<string, podsim.Stats[]>
---@field sens table<string, table<string, podsim.Sens>[]>
---@field quantiles_exact boolean
---@field keep_samples boolean
---@field sensitivity string
---@field evaluator string "traced" (a compiled Lua eval), "lua" or the kernel's name
---@field trace_stop? string why a Lua eval was not compiled (located)
---@field spearman_partial boolean
---@field nonfinite table<string, integer> per metric: samples left out for a NaN/inf value
---@field unfit integer[] per grid point: samples whose `fits` metric is 0
---@field unfit_mode "keep"|"exclude"|"error"
---@field metric_info table<string, podsim.MetricDecl> the declarations (`{}` when metrics was a list)
local Results = {}

---The statistics of `metric` at a grid point (an index or `{key = value}`).
--- Example: `podsim.study{name = "annotation_probe", samples = 8, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return {y = p.x} end, metrics = {"y"}}:run():summary("y", 1)`
---@param metric string
---@param point? integer|table
---@return podsim.Stats
function Results:summary(metric, point) end

---The grid index of a point (an index or `{key = value}`).
---@param sel? integer|table
---@return integer
function Results:point(sel) end

---"ranks=64 system=hgx_h100"
---@param g integer
---@return string
function Results:label(g) end

---A study.
--- Example: `podsim.study{name = "annotation_probe", samples = 8, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return {y = p.x} end, metrics = {"y"}}`
---@param args podsim.StudyArgs
---@return podsim.Study
function podsim.study(args) end

---Wait for several started studies; results in order.
---@param list podsim.Study[]
---@return podsim.Results[]
function podsim.all(list) end

---Write summary.csv, sensitivity.csv, hist_<metric>.csv, samples.csv, meta.json.
---@param r podsim.Results
---@param dir? string
function podsim.write(r, dir) end

---Write the CDF, histogram, tornado (Spearman, swing, Sobol) and win-map
---CSVs and SVGs under plots/.
---@param r podsim.Results
---@param dir? string
---@return string[] svgs
function podsim.plot(r, dir) end

---One cell of a heatmap.
---@class podsim.HeatmapCell
---@field row string|number the row's label
---@field col string|number the column's label
---@field value? number in [0, 1]; nil shows n/a

---@class podsim.HeatmapArgs
---@field cells podsim.HeatmapCell[]
---@field title? string
---@field xname? string the columns' axis label
---@field yname? string the rows' axis label
---@field cbname? string the colour bar's label (default "probability")
---@field output? string the SVG (default "plots/heatmap.svg")
---@field data? string the CSV (default the SVG's name with .csv)

---Draw a map of values in [0, 1] (which system wins where) over two keys.
---@param d podsim.HeatmapArgs
---@return string|nil svg the SVG path, or nil when gnuplot is missing
---@return string? reason
function podsim.plot_heatmap(d) end

---@class podsim.BreakdownArgs
---@field bars table[] `{label, podsim.train result}` per bar
---@field title? string
---@field output? string the SVG (default "plots/breakdown.svg")
---@field data? string the CSV (default the SVG's name with .csv)

---Stacked bars of the step-time breakdown of podsim.train results.
---@param d podsim.BreakdownArgs
---@return string|nil svg the SVG path, or nil when gnuplot is missing
---@return string? reason
function podsim.plot_breakdown(d) end

---Print the summary in the run's `--format`.
---@param r podsim.Results
function podsim.print_summary(r) end

return podsim
