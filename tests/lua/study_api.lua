-- Lua API tests: distributions and study construction errors, results.
local T = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*)/") .. "/util/expect.lua")
local D = podsim.dist

-- distributions: by position and by name, means, quantiles
T.near(D.uniform{2, 4}.mean, 3, 1e-12, "uniform mean")
T.near(D.uniform{lo = 2, hi = 4}:quantile(0.25), 2.5, 1e-12, "uniform quantile")
T.near(D.normal{mean = 1, sd = 2}.variance, 4, 1e-12, "normal variance")
T.near(D.lognormal{median = 3, p90 = 6}:quantile(0.5), 3, 1e-9, "lognormal by median/p90")
T.near(D.lognormal{p5 = 1, p95 = 9}:quantile(0.95), 9, 1e-9, "lognormal by p5/p95")
T.near(D.exponential{2}.mean, 2, 1e-12, "exponential mean")
T.eq(D.choice{"a", "b"}.kind, "choice", "choice kind")
T.eq(D.fixed{5}.mean, 5, "fixed")
T.near(D.empirical{1, 2, 3}.mean, 2, 1e-12, "empirical mean")
T.near(D.beta{2, 2, lo = 10, hi = 20}.mean, 15, 1e-12, "scaled beta")
T.error("podsim.dist.uniform: hi: must be greater than lo", D.uniform, {4, 2})
T.error("podsim.dist.uniform: hi: given both by position %(2%) and by name", D.uniform, {1, 2, hi = 3})
T.error("podsim.dist.uniform: hi: required parameter is missing", D.uniform, {1})
T.error("podsim.dist.normal: sdd: unknown parameter %(did you mean 'sd'%?%)", D.normal, {mean = 0, sdd = 1})
T.error("podsim.dist.normal: sd: ", D.normal, {0, 0})
T.error("podsim.dist.normal: mean: must be a finite number", D.normal, {0 / 0, 1})
T.error("podsim.dist.loguniform: lo: ", D.loguniform, {0, 1})
T.error("podsim.dist.triangular: ", D.triangular, {1, 5, 3})
T.error("podsim.dist.lognormal: give exactly one of", D.lognormal, {mu = 0, median = 1})
T.error("podsim.dist.lognormal: sigma: required parameter is missing", D.lognormal, {mu = 0})
T.error("podsim.dist.lognormal: p90: ", D.lognormal, {median = 2, p90 = 1})
T.error("podsim.dist.gamma: shape: ", D.gamma, {-1, 1})
T.error("podsim.dist.weibull: scale: ", D.weibull, {1, 0})
T.error("podsim.dist.exponential: mean: ", D.exponential, {0})
T.error("podsim.dist.beta: a: ", D.beta, {0, 1})
T.error("podsim.dist.truncnormal: ", D.truncnormal, {0, 1, 2, 1})
T.error("podsim.dist.choice: values: needs at least one value", D.choice, {})
T.error("podsim.dist.choice: weights: expected a list of 2 weights", D.choice, {values = {1, 2}, weights = {1}})
T.error("podsim.dist.choice: weights", D.choice, {values = {1, 2}, weights = {-1, 1}})
T.error("podsim.dist.empirical: values: value 2 is not a finite number", D.empirical, {1, 0 / 0})
T.error("podsim.dist.uniform: takes at most 2 positional parameters", D.uniform, {1, 2, 3})
T.error("podsim.dist.fixed: expected a table of parameters", D.fixed, 5)

-- study construction errors are located and name the field
local f = function(p) return {y = p.x} end
local ok_params = {x = D.uniform{0, 1}}
T.error("podsim.study: sampels: unknown field %(did you mean 'samples'%?%)", podsim.study, {samples = 1, sampels = 5, params = ok_params, eval = f})
T.error("podsim.study: samples: must be in %[1,", podsim.study, {samples = 0, params = ok_params, eval = f})
T.error("podsim.study: samples: must be an integer", podsim.study, {samples = 1.5, params = ok_params, eval = f})
T.error("podsim.study: name: use letters", podsim.study, {name = "../x", params = ok_params, eval = f})
T.error("podsim.study: params.x: expected a distribution", podsim.study, {params = {x = "uniform"}, eval = f})
T.error("podsim.study: params: keys must be names", podsim.study, {params = {D.uniform{0, 1}}, eval = f})
T.error("podsim.study: grid.ranks: expected a non%-empty list of values", podsim.study, {params = ok_params, grid = {ranks = {}}, eval = f})
T.error("podsim.study: grid: expected a table", podsim.study, {params = ok_params, grid = 5, eval = f})
T.error("podsim.study: eval: expected a function or podsim.kernel", podsim.study, {params = ok_params, eval = 5})
T.error("podsim.study: eval: failed on a probe call at the parameters' medians: .*boom", podsim.study,
  {params = ok_params, eval = function() error("boom") end})
T.error("podsim.study: eval: must return a table of metrics", podsim.study, {params = ok_params, eval = function() return "x" end})
T.error("podsim.study: metrics: expected a non%-empty list", podsim.study, {params = ok_params, eval = f, metrics = {}})
T.error("podsim.study: target.metric: expected one of the study's metrics", podsim.study,
  {params = ok_params, eval = f, target = {metric = "nope", rel_ci95 = 0.01}})
T.error("podsim.study: target.rel_ci95: required field is missing", podsim.study,
  {params = ok_params, eval = f, target = {metric = "y"}})
T.error("podsim.study: sensitivity: unknown value 'sobel' %(did you mean 'sobol'", podsim.study,
  {params = ok_params, eval = f, sensitivity = "sobel"})
T.error("podsim.study: eval: a coroutine", podsim.study,
  {params = ok_params, metrics = {"y"}, eval = (function() local co = coroutine.create(print) return function(p) return {y = co and 1} end end)()})
-- built-in evaluator errors
T.error("podsim.kernel: colective: unknown kernel", function() return podsim.kernel.colective end)
T.error("podsim.study: params.system.up_efff: is not a numeric field of the collective kernel", podsim.study,
  {params = {["system.up_efff"] = D.uniform{0.5, 0.9}}, eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1}})
T.error("podsim.study: eval.byte: unknown field %(did you mean 'bytes'%?%)", podsim.study,
  {params = {}, eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, byte = 1}})
T.error("podsim.study: metrics: 'x' is not a metric of the collective kernel", podsim.study,
  {params = {}, metrics = {"x"}, eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1}})
T.error("podsim.study: metrics: 'time_s' named twice", podsim.study,
  {params = {}, metrics = {"time_s", "time_s"}, eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1}})
do -- a kernel study's metrics= subset, in the order given, equals the full study's
  local function ks(metrics)
    return podsim.study{name = "kmetrics", samples = 64, seed = 2, metrics = metrics,
      params = {bytes = D.loguniform{1 << 20, 1 << 30}},
      eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1}}:run()
  end
  local all, sub = ks(nil), ks({"busbw_GBps", "time_s"})
  T.eq(#sub.metrics, 2, "subset size")
  T.eq(sub.metrics[1], "busbw_GBps", "subset order")
  T.eq(sub.stats.busbw_GBps[1].mean, all.stats.busbw_GBps[1].mean, "same busbw")
  T.eq(sub.stats.time_s[1].p50, all.stats.time_s[1].p50, "same time")
  T.eq(sub.stats.algbw_GBps, nil, "left out")
end

-- a small study: statistics agree with the distribution
local s = podsim.study{name = "small", samples = 20000, seed = 9,
  params = {x = D.normal{10, 2}, c = D.choice{"a", "b", "c"}}, grid = {k = {1, 2}},
  eval = function(p) return {y = p.x * p.k, isb = p.c == "b" and 1 or 0} end}
T.error("study:wait: study 'small' was not started", s.wait, s)
local r = s:run()
T.truthy(r.complete, "complete")
T.eq(#r.grid, 2, "grid points")
T.near(r:summary("y", {k = 1}).mean, 10, 0.01, "mean at k=1")
T.near(r:summary("y", {k = 2}).mean, 20, 0.01, "mean at k=2")
T.near(r:summary("y", 1).sd, 2, 0.03, "sd")
T.near(r:summary("isb").mean, 1 / 3, 0.05, "choice frequency")
T.near(r.stats.y[1].p50, 10, 0.01, "median")
T.truthy(r.stats.y[1].ci95_lo < 10 and r.stats.y[1].ci95_hi > 10, "CI covers the mean")
T.truthy(math.abs(r.sens.y[1].x.spearman - 1) < 1e-9, "y is monotone in x")
T.error("study:start: study 'small' was already started", s.start, s)
T.eq(s:wait().stats.y[1].mean, r.stats.y[1].mean, "waiting again returns the same results")
T.done("study_api")
