# podsim plot recipe: `podsim plot DIR` renders it again (data, not code)
format = 1
template = "sweep"
var.datafile = "../sweep.csv"
var.ops = "all_to_all all_reduce"
var.plot_title = "64-GPU collectives: busbw by buffer size"
var.systems = "gb200_nvl72 hgx_h100"
