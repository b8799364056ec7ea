format = 1
template = "cdf"
var.datafile = "../cdf_x.csv"
var.npoints = 3
var.metric = "a\"b\\c\x01\n"
