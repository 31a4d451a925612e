// Upstream ExecuTorch's older include path for parallel_for; the interface lives in
// executorch/runtime/kernel/thread_parallel_interface.h.
#pragma once

#include <executorch/runtime/kernel/thread_parallel_interface.h>
