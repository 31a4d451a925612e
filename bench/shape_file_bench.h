// The zoo-shapes part of bench/sgemm_bench.cpp: times the matrix-multiply and convolution
// shapes listed in a file (bench/harness/data/zoo_shapes.txt, written by
// bench/harness/zoo_shapes.py) through the compute core's dispatching entry points, the ones the
// kernels call, at the best ISA level the CPU has.
#pragma once

// Prints one line per shape: "  [i] <kind> <numbers>   <us per call> (<GFLOP/s>)". Returns 0, or
// non-zero after printing why on stderr (unreadable file, malformed line, wrong result).
int run_shape_file(const char* path, int rounds, double batch_s);
