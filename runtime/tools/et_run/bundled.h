// et_run --bundled FILE.bpte: runs every test case of every method a BundledProgram tests
// (or only --method), prints pass/fail per case with the max abs/rel error of a failure, and
// returns 1 if any case fails or cannot run.
#pragma once

#include "args.h"

namespace et_run {

int run_bundled(const Options& opt);

}  // namespace et_run
