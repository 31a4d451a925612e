// Register-only floating-point peak loops, one per ISA level, for bench/sgemm_bench.cpp.
// Each runs `iters` iterations of independent multiply-add chains that never touch memory, and
// returns a value derived from the accumulators so the loop cannot be removed. FLOPs executed:
// iters * fma_peak_flops_per_iter_<isa>.
#pragma once

#include <cstdint>

float fma_peak_baseline(int64_t iters, float x);  // SSE2 mul + add (no FMA on baseline x86-64)
float fma_peak_avx2(int64_t iters, float x);
float fma_peak_avx512(int64_t iters, float x);

// 2 FLOPs per lane per multiply-add, times lanes, times independent accumulators.
constexpr int64_t kPeakFlopsBaseline = 2 * 4 * 12;
constexpr int64_t kPeakFlopsAvx2 = 2 * 8 * 12;
constexpr int64_t kPeakFlopsAvx512 = 2 * 16 * 16;
