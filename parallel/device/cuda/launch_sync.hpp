/// @file
/// TPLAB_CUDA_SYNC: waiting for every kernel right after it is issued, to find the one that
/// faults. Plain C++, so the setting's parsing is tested on machines without a GPU.
#pragma once

namespace tplab::cuda {

/// Reads TPLAB_CUDA_SYNC. "1": CudaDevice and NcclComm wait for every kernel, cuBLAS call and
/// started collective right after issuing it and check how it ended, so that a fault (an
/// illegal address, say) is reported under the name of the kernel that caused it; otherwise
/// it surfaces at a later synchronization, under the name of whatever waited there. Unset,
/// empty or "0": no waiting (the normal, asynchronous way). Anything else throws UsageError,
/// alike on every rank, before the first collective.
bool sync_after_launch_requested();

}  // namespace tplab::cuda
